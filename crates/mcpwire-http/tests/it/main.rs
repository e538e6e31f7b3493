//! mcpwire-http's integration tests, one binary (a module per concern):
//! the server and client over real sockets on 127.0.0.1, and the SSE
//! framing. `server_memory.rs` stays a binary of its own, because resident
//! memory is per process.

#![allow(
    clippy::expect_used,
    clippy::needless_pass_by_value,
    clippy::panic,
    clippy::unwrap_used,
    dead_code,
    unreachable_pub,
    reason = "test code: a panic is a failed assertion (as clippy.toml allows inside tests), and each module uses its own subset of the shared helpers"
)]

#[cfg(all(feature = "client", feature = "server"))]
mod client_support;
mod server_support;

mod client_abandoned_streams;
mod client_authorizer;
mod client_backpressure;
mod client_errors;
mod client_exchanges;
mod client_idle_get_stream;
mod client_interop;
mod client_resumption;
mod client_sessions;
mod client_stateless;
mod client_timeouts;
mod client_tls;
mod server_eras;
mod server_fast_path;
mod server_listen;
mod server_resumption;
mod server_security;
mod server_serve;
mod server_sessions;
mod server_statuses;
mod server_streams;
mod sse_round_trip;
mod sse_split_points;

mod hardening;
