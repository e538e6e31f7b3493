//! The examples run for real: over stdio and HTTP, full duplex, derived
//! schemas, OAuth (one test binary, a module per concern).

#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::unwrap_used,
    reason = "tests: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod derived_schemas;
mod full_duplex;
mod notes_over_http;
mod notes_over_stdio;
mod oauth_over_http;
