//! mcpwire-session's integration tests, one binary: the engine driven by
//! hand with real JSON-RPC bytes, no I/O and no runtime (deadlines are
//! arguments), one module per concern.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod support;

mod batches;
mod cancellation;
mod client_connect;
mod garbage;
mod gating;
mod handshake;
mod inflight;
mod outbox;
mod progress;
mod stateless;
mod timeouts;
