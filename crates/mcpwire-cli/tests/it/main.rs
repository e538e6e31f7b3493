//! End-to-end tests of the `mcpwire` binary: every command against its own
//! demo server over stdio and over HTTP (through `bridge --listen`), the
//! bridges both ways, exit codes, JSON output, and the reference
//! TypeScript server and client when they are installed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod check;
mod commands;
mod external;
mod http;
mod interaction;
mod login;
mod support;
mod tasks;
