//! Integration tests of the legacy HTTP+SSE transport: server, client, HTTPS
//! and the client's automatic fallback (one test binary, a module per
//! concern).

#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions: a panic is a failed assertion"
)]

mod client;
mod client_idle;
mod fallback;
mod https;
mod server;
mod support;
