//! The schema suite: the Rust model against the official JSON schemas of
//! every revision (vendored under `schema/`), driven by data so that each
//! test reports every failing case at once.
//!
//! - `examples`: the schema's 2026-07-28 examples and the prose examples
//!   round-trip and validate;
//! - `strict`: a maximal instance of every params and result type, fitted to
//!   each revision, validates against that revision's strict schema;
//! - `downgrade`: messages using 2025-11-25 features, written for
//!   2024-11-05, validate against its strict schema;
//! - `routing`: the generated method table and routing enums behave.

// The helpers of a test crate may panic like its #[test] functions (which
// clippy.toml already allows): a panic here is a failed test on bad test data.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod downgrade;
mod examples;
mod fuzz_corpus;
mod model;
mod routing;
mod strict;
mod support;
