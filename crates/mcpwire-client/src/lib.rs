//! The MCP client runtime: typed calls for every request of every revision,
//! notifications, cancellation and server requests, over any transport.
//!
//! [`Client::connect`] spawns one task that owns the protocol engine
//! (`mcpwire-session`) and the transport, and returns once the server is
//! known: it probes with `server/discover` and falls back to `initialize`
//! ([`EraChoice::Auto`]), or speaks a pinned revision.
//!
//! ```
//! use mcpwire_client::{Client, ClientConfig};
//! use mcpwire_jsonrpc::memory;
//! use mcpwire_server::{Context, HandlerError, Server};
//! use mcpwire_types::{CallToolResult, ClientCapabilities, Implementation, Tool};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("demo", "1.0.0")
//!     .tool(Tool::without_arguments("hello"), |_ctx: Context, _args| async {
//!         Ok::<_, HandlerError>(CallToolResult::text("hello!"))
//!     })
//!     .build()?;
//! let (client_end, server_end) = memory::pair(64);
//! tokio::spawn(async move { server.serve(server_end).await });
//!
//! let config = ClientConfig::new(Implementation::new("demo-client", "1.0.0"), ClientCapabilities::default());
//! let client = Client::connect(client_end, config).await?;
//! let tools = client.list_all_tools().await?;
//! assert_eq!(tools[0].name, "hello");
//! let result = client.call_tool("hello", ()).await?;
//! assert_eq!(result.content, CallToolResult::text("hello!").content);
//! client.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! What the runtime adds to the engine:
//!
//! - typed calls ([`Client::request`] with a marker type of
//!   [`mcpwire_types::methods`], and convenience methods such as
//!   [`Client::call_tool`] and [`Client::list_all_tools`]); a method the
//!   revision lacks or a capability the server did not declare is refused
//!   before anything is sent ([`ClientError::Refused`]);
//! - cancel-on-drop: dropping a call's future sends `notifications/cancelled`;
//!   timeouts come from [`ClientConfig`] or [`RequestOptions`];
//! - progress of a call ([`Client::request_with_progress`]);
//! - structured tool results checked against the `outputSchema` listed by
//!   `tools/list` (JSON Schema 2020-12 by default; 2019-09, draft-07, -06
//!   and -04 when `$schema` names them; remote `$ref` never fetched);
//! - notifications from the server on a broadcast channel
//!   ([`Client::notifications`]);
//! - server requests (sampling, elicitation, roots) answered by a
//!   [`ClientHandler`], each in its own task, with the checks the client
//!   owes them: human review of sampling requests and replies, the
//!   declared capabilities (`sampling.tools`, elicitation modes), form
//!   defaults and the schema check of answers, `file://` roots; in
//!   2026-07-28 the same handler fulfils `input_required` answers
//!   ([`Client::request_with_input`], [`Client::fulfil_input`]);
//! - roots set on the client ([`Client::set_roots`]) and announced with
//!   `notifications/roots/list_changed`;
//! - URL-mode elicitation: the full URL goes to
//!   [`ClientHandler::elicit_url`], never opened by the runtime; -32042 is
//!   [`ClientError::UrlElicitationRequired`];
//! - an opt-in cache honouring the 2026-07-28 cache hints ([`ResultCache`]);
//! - a tracing span per request (`mcp.client.request`: method, id,
//!   revision, and the tool, prompt or resource named).

#![cfg_attr(docsrs, feature(doc_cfg))]

mod answer;
mod cache;
mod calls;
mod client;
mod driver;
mod error;
mod handler;
mod input;
mod roots;
mod schema;
pub mod skills;
mod tasks;
mod typed;
mod url_elicitation;
mod weight;

pub use cache::ResultCache;
pub use calls::MAX_PAGES;
pub use client::{Client, ClientBuilder};
pub use error::{ClientError, ConnectError, TRANSPORT_CODES};
pub use handler::{BoxFuture, ClientHandler, HandlerContext, user_rejected};
pub use input::{InputRetry, MAX_INPUT_ROUNDS};
pub use mcpwire_session::Cancellation;
pub use mcpwire_session::{
    ClientConfig, EraChoice, Limits, RequestOptions, ServerView, Timeouts, TraceContext,
};
pub use roots::check_root_uri;
pub use skills::{LoadedSkill, SkillVerificationError, with_skills_extension};
pub use tasks::{TaskStatusUpdates, task_of, with_tasks_extension};

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
