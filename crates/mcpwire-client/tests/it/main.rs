//! Integration tests of the client runtime against a real server and
//! against scripted peers (one test binary, modules by concern).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod backlog;
mod cache;
mod calls;
mod cancel;
mod connect;
mod elicitation;
mod handler;
mod held_bytes;
mod load;
mod method_coverage;
mod notifications;
mod robustness;
mod roots;
mod sampling;
mod schema_bytes;
mod stdio;
mod structured;
mod support;
mod tasks_extension;
