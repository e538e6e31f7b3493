//! The legacy HTTP+SSE transport of MCP revision 2024-11-05, and the
//! client's automatic fallback to it.
//!
//! Revision 2024-11-05 carried MCP over two HTTP endpoints: the client GETs
//! an SSE endpoint and keeps the stream open; the server's first event,
//! named `endpoint`, gives the URI the client POSTs each of its messages to
//! (with a session id in its query); the server answers those POSTs with
//! `202 Accepted` and sends every message of its own, responses included,
//! as SSE events named `message` on the GET stream (LEG-03..06). Streamable
//! HTTP replaced it in 2025-03-26; the spec's "Backwards Compatibility"
//! section says how each side keeps talking to the other era.
//!
//! - [`server`]: [`LegacySse`](server::LegacySse), the two legacy endpoints
//!   as a `tower::Service`, to host next to mcpwire-http's Streamable HTTP
//!   endpoint on the same listener (LEG-07).
//! - [`client`]: [`LegacySseClient`](client::LegacySseClient), a
//!   [`Transport`](mcpwire_jsonrpc::Transport) to a legacy server.
//! - [`auto`]: [`AutoTransport`](auto::AutoTransport), a client transport
//!   that tries Streamable HTTP first and falls back to the legacy
//!   transport when the server refuses the first POST with 400, 404 or 405
//!   and answers a GET with an `endpoint` event (LEG-08, LEG-09).
//!
//! This crate builds on `mcpwire-http` (its SSE codec, its request checks
//! and security policies, its response bodies and body reader, its `serve`,
//! its HTTP(S) client) and never the reverse, so deleting it leaves the
//! rest of mcpwire whole. Like every transport it moves messages and knows
//! nothing of their meaning; the runtimes meet it in user code.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod auto;
pub mod client;
pub mod server;

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
