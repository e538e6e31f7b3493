//! The notes server, written once on the `mcpwire` facade: the examples
//! serve [`notes::build`] over stdio and HTTP, and the `mcpwire` command
//! serves [`demo_server`] (the notes and a few more tools) for `mcpwire
//! demo`.

pub mod notes;

mod demo;

pub use demo::demo_server;

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
