//! Integration tests of the stdio transport: sending, receiving, large
//! messages, the child process and its stderr (one test binary, a module per
//! concern).

#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::unwrap_used,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod child_process;
mod large_messages;
mod receiving;
mod sending;
mod stderr_forwarding;
