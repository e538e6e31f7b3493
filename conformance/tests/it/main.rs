//! The conformance crate's tests in one binary: the wire transcripts of every
//! revision, the list-change triggers, and the skills read by the
//! TypeScript SDK.

#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::unwrap_used,
    reason = "test code: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod list_changes;
mod skills_sdk;
mod transcripts;
