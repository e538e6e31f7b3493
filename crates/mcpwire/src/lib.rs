//! mcpwire: the Model Context Protocol in Rust, one facade over layered crates.
//!
//! This crate holds no code of its own. It re-exports the layers so that an
//! application can depend on one crate and pick what it needs with features
//! (all off by default; `full` turns every one on):
//!
//! | module | feature | crate | what it is |
//! |---|---|---|---|
//! | [`jsonrpc`] | always | `mcpwire-jsonrpc` | JSON-RPC 2.0 messages, framing, the `Transport` trait |
//! | [`types`] | always | `mcpwire-types` | the MCP vocabulary of every revision |
//! | `session` | `server` or `client` | `mcpwire-session` | the sans-IO protocol engine |
//! | `server` | `server` | `mcpwire-server` | the server runtime |
//! | `client` | `client` | `mcpwire-client` | the client runtime |
//! | `stdio` | `stdio` | `mcpwire-stdio` | the stdio transport |
//! | `http` | `http` | `mcpwire-http` | the Streamable HTTP transport (server and client) |
//! | `auth` | `auth` | `mcpwire-auth` | OAuth 2.1: client, resource-server layer, embedded authorization server |
//! | `http_legacy` | `http-legacy` | `mcpwire-http-legacy` | HTTP+SSE (2024-11-05) and the client's automatic fallback |
//!
//! Transports and runtimes meet here or in your code: any runtime serves
//! any transport, e.g. `server.serve(mcpwire::stdio::stdio())`.

#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "server")]
mod host;
#[cfg(all(feature = "server", feature = "http"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "server", feature = "http"))))]
pub use host::CatalogParamHeaders;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use host::Host;

/// The names a server or client program uses most, in one `use mcpwire::prelude::*`.
pub mod prelude {
    #[cfg(feature = "client")]
    pub use crate::client::{Client, ClientConfig};
    pub use crate::types::{
        CallToolResult, GetPromptResult, Implementation, Prompt, PromptArgument, PromptMessage,
        ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Tool,
    };
    #[cfg(feature = "server")]
    pub use crate::{
        Host as _,
        server::{Context, HandlerError, Server, Structured},
    };
}

pub use mcpwire_jsonrpc as jsonrpc;
pub use mcpwire_types as types;

#[cfg(feature = "auth")]
pub use mcpwire_auth as auth;
#[cfg(feature = "client")]
pub use mcpwire_client as client;
#[cfg(feature = "http")]
pub use mcpwire_http as http;
#[cfg(feature = "http-legacy")]
pub use mcpwire_http_legacy as http_legacy;
#[cfg(feature = "server")]
pub use mcpwire_server as server;
#[cfg(any(feature = "server", feature = "client"))]
pub use mcpwire_session as session;
#[cfg(feature = "stdio")]
pub use mcpwire_stdio as stdio;
#[cfg(feature = "store")]
pub use mcpwire_store as store;

/// The README's examples, compiled (and run) as doctests.
#[cfg(all(
    doctest,
    feature = "server",
    feature = "client",
    feature = "stdio",
    feature = "schemars"
))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
