//! Test support shared by mcpwire's crates, the conformance tools and the
//! benchmarks; never published: the round-robin proxy that puts several
//! server instances behind one URL ([`proxy`]), the throwaway PKI of the
//! HTTPS tests ([`tls`]), and the replay of fuzz corpora as tests
//! ([`corpus`]).

pub mod corpus;
pub mod proxy;
pub mod tls;

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
