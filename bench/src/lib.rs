//! Benchmarks of mcpwire against the physical limit and against rmcp: the
//! load clients, the measurements they take and the suite that
//! `cargo xtask bench` runs (see `docs/performance.md`).
//!
//! The servers under test are separate processes (binaries of this crate:
//! `bench-server` and `stdio-server` on mcpwire, the second the same server
//! linked as a stdio-only program is; `raw-echo` and `bare-hyper` as the
//! limits; `rmcp-echo` from `bench/rmcp-echo`), so that their CPU time and memory
//! can be read from `/proc` and every one is driven by the same client.
//! The client speaks raw JSON-RPC lines and raw HTTP/1.1 through hyper, not
//! mcpwire's client runtime, so it costs every server the same.

pub mod echo;
pub mod load;
pub mod messages;
pub mod procfs;
pub mod stats;
pub mod suite;
