//! Test support shared by mcpwire's crates, the conformance tools and the
//! benchmarks; never published: the round-robin proxy that puts several
//! server instances behind one URL ([`proxy`]) and the throwaway PKI of the
//! HTTPS tests ([`tls`]).

pub mod proxy;
pub mod tls;

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
