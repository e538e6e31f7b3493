//! Test support shared by mcpwire's crates, the conformance tools and the
//! benchmarks; never published. Today it holds the round-robin proxy that
//! puts several server instances behind one URL ([`proxy`]).

pub mod proxy;

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
