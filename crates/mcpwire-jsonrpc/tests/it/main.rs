//! Integration tests of the codec: classification, framing, round trips,
//! validation against the fuzz corpus, and the in-memory pair (one test
//! binary, a module per concern).

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod classify;
mod codec;
#[cfg(feature = "memory")]
mod memory;
mod roundtrip;
mod validation;
