//! The MCP server runtime: tools, resources, prompts and completions served
//! over any transport, in both protocol eras at once.
//!
//! Build a [`Server`] with plain async functions as handlers (no macros),
//! then [`Server::serve`] it over any [`Transport`](mcpwire_jsonrpc::Transport):
//!
//! ```
//! use mcpwire_server::{Context, HandlerError, Server};
//! use mcpwire_types::{CallToolResult, Tool};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
//! let echo = Tool::new("echo", schema).description("Echoes its text.");
//! let server = Server::builder("echo-server", "1.0.0")
//!     .tool(echo, |_ctx: Context, args| async move {
//!         let text = args.get("text").and_then(|t| t.as_str()).unwrap_or_default();
//!         Ok::<_, HandlerError>(CallToolResult::text(text))
//!     })
//!     .build()?;
//! assert_eq!(server.tool_names(), ["echo"]);
//! // server.serve(mcpwire_stdio::stdio()).await?;
//! # Ok(())
//! # }
//! ```
//!
//! The runtime validates tool arguments against `inputSchema` and
//! structured results against `outputSchema` (JSON Schema 2020-12 by
//! default, draft-07 when `$schema` says so), pages lists with opaque
//! cursors, matches resource templates (RFC 6570), runs requests
//! concurrently (each in a task of its own once its handler has to wait)
//! with a cancellation signal, and keeps resource subscriptions
//! per session. A tool, prompt or resource handler that needs the client
//! to elicit, sample or list roots first returns an [`InputRequired`]
//! (multi round-trip requests: `input_required` in 2026-07-28, the
//! client requests of the handshake era before) and reads the answers
//! from its [`Context`] on the retry. In the handshake revisions a handler
//! may also ask directly ([`Context::create_message`], [`Context::elicit`],
//! [`Context::list_roots`]), gated on the client's declared capabilities,
//! with elicitation answers checked against the requested schema. Cache
//! hints for 2026-07-28 are set on the builder ([`ServerBuilder::cache_hint`]
//! and the per-item variants). The protocol itself (negotiation, gating, ids, timeouts) is
//! the engine's, `mcpwire-session`.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod builder;
mod cache_hints;
mod call;
mod catalog;
mod change_log;
mod client_requests;
mod context;
pub mod cursor;
mod dispatch;
mod driver;
mod error;
/// Private parsers opened to the fuzz targets and their corpus replays.
#[doc(hidden)]
pub mod fuzz_hooks;
mod handler;
mod input;
mod listen;
mod roots;
mod server;
pub mod skills;
pub mod tasks;
mod tool_call;
mod typed;
pub mod uri_template;

pub use builder::ServerBuilder;
pub use context::Context;
pub use error::{BuildError, HandlerError, PeerRequestError, ServeError};
pub use handler::{Arguments, BoxFuture, PromptArguments, TemplateVariables};
pub use input::InputRequired;
pub use mcpwire_session::Cancellation;
/// Options of a request a handler sends to its client ([`Context::request`]).
pub use mcpwire_session::RequestOptions;
/// Catalog changes between instances, from `mcpwire-store` (the
/// runtime-free crate of shared state).
pub use mcpwire_store::{Change, ChangeFeed, ChangeReceiver, ChangeSink};
/// The keys sealing `requestState`, from `mcpwire-store`.
pub use mcpwire_store::{MAX_PREVIOUS_KEYS, StateKeyRing};
/// JSON Schema validation of tool arguments and structured results, by
/// MCP's rules (one set of rules for server and client: `mcpwire-types`).
pub use mcpwire_types::schema;
pub use roots::RootsContext;
pub use server::Server;
#[cfg(feature = "schemars")]
pub use typed::{DerivedOutput, schema_for};
pub use typed::{IntoToolResult, Structured};

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
