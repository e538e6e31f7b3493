//! Test support shared by mcpwire's crates, the conformance tools and the
//! benchmarks; never published: the round-robin proxy that puts several
//! server instances behind one URL ([`proxy`]), the throwaway PKI of the
//! HTTPS tests ([`tls`]), the replay of fuzz corpora as tests
//! ([`corpus`]), a hand-scripted HTTP/1.1 server's reads and writes
//! ([`raw_http`]), tokio's cooperative budget spent on purpose
//! ([`coop`]), and a waker that counts its wakes ([`wakers`]).

pub mod coop;
pub mod corpus;
pub mod proxy;
pub mod raw_http;
pub mod tls;
pub mod wakers;

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
