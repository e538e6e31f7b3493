//! The MCP Streamable HTTP transport, on hyper and tower.
//!
//! - [`sse`]: a sans-IO Server-Sent Events codec (encoder and incremental
//!   decoder), used by both halves and by `mcpwire-http-legacy`.
//! - [`headers`]: the MCP header names.
//! - `server` (feature `server`): the MCP endpoint as a
//!   `tower::Service<http::Request<_>>`, serving both eras on one endpoint.
//! - `client` (feature `client`): a `Transport` over Streamable HTTP.
//!
//! Like every transport, it knows messages, not meaning: it never depends
//! on the runtimes. A server hands each new MCP session (and each stateless
//! request) to user code as a [`Transport`](mcpwire_jsonrpc::Transport),
//! which a runtime then serves.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod headers;
pub mod sse;

#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "server")]
pub mod server;

/// Private parsers opened to the fuzz targets and their corpus replays.
#[cfg(all(feature = "server", feature = "client"))]
#[doc(hidden)]
pub mod fuzz_hooks;

/// The README's examples, compiled (and run) as doctests.
#[cfg(all(doctest, feature = "server"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
