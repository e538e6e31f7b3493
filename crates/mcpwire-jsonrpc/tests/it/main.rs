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
// The JSON writer's corpus needs the writer (feature `fast-json`).
#[cfg(feature = "fast-json")]
mod fuzz_corpus;
#[cfg(feature = "memory")]
mod memory;
mod roundtrip;
mod validation;
