//! mcpwire-redis's integration tests, one binary: the Redis stores against
//! a real `redis-server` (which each test starts on a free loopback port),
//! and several server instances sharing it behind the round-robin proxy.
//! `bench.rs` stays a binary of its own: only `cargo xtask bench` runs it,
//! in release.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

#[path = "../support/mod.rs"]
mod support;

mod changes;
mod commands_per_call;
mod delete_across_instances;
mod identity;
mod keyring;
mod multi_instance;
mod polling_across_instances;
mod stores;
mod tasks;
mod tasks_across_instances;
