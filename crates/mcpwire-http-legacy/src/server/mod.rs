//! The legacy HTTP+SSE server of revision 2024-11-05: an SSE endpoint that
//! opens a session per GET, and a message endpoint clients POST to.
//!
//! # Using it
//!
//! [`LegacySse::new`] takes a [`Config`] and a connect hook, which receives
//! a [`LegacyTransport`] for every new session and typically spawns a
//! runtime on it. Host it next to mcpwire-http's Streamable HTTP endpoint
//! (LEG-07), for example with [`LegacySse::beside`] and mcpwire-http's
//! `serve`, whose graceful shutdown then ends the legacy sessions too:
//!
//! ```no_run
//! # fn runtime<T>(_: T) {}
//! use mcpwire_http::server::{Config as HttpConfig, StreamableHttp, serve};
//! use mcpwire_http_legacy::server::{Config, LegacySse};
//!
//! # async fn run() -> std::io::Result<()> {
//! let streamable = StreamableHttp::new(HttpConfig::default(), |transport| runtime(transport));
//! let legacy = LegacySse::new(Config::default(), |transport| runtime(transport));
//! // `/sse` and `/message` go to the legacy server, anything else to `/mcp`'s.
//! let service = legacy.beside(streamable);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//! serve(listener, service).await
//! # }
//! ```
//!
//! Both endpoints share mcpwire-http's request checks (the same
//! [`HostPolicy`](mcpwire_http::server::HostPolicy) and
//! [`OriginPolicy`](mcpwire_http::server::OriginPolicy) rules), its
//! response body type and its bounded body reader.
//!
//! # What the endpoints answer
//!
//! | request | answer |
//! |---|---|
//! | a path other than the two | 404 |
//! | bad `Host` or `Origin` (DNS rebinding, LEG-01) | 403 |
//! | GET of the SSE path | 200 `text/event-stream`: `endpoint` event, then `message` events and keep-alive comments |
//! | the same, with [`Config::max_sessions`] sessions live | 503 with `Retry-After` |
//! | POST of the message path without `sessionId` | 400 |
//! | POST naming an unknown or ended session | 404 |
//! | POST whose `Content-Type` is not `application/json` | 415 |
//! | POST body over the limit (4 MiB) | 413 |
//! | POST of anything else, JSON-RPC or not | 202, no body; the session's transport yields it (text that is not JSON-RPC as `Inbound::Invalid`, which the runtime answers on the stream) |
//! | POST when the runtime does not read for the send timeout | 503 |
//! | another method on either path | 405 with `Allow` |
//!
//! # Sessions
//!
//! Session ids are 32 bytes from the operating system's CSPRNG, in hex,
//! sent in the `endpoint` event's relative URI
//! (`/message?sessionId=...`). A session lives as long as its GET stream:
//! it ends when the client closes the connection (hyper drops the
//! stream), when the runtime closes its transport, when no message went
//! either way for [`Config::idle_timeout`], when the client does not read
//! the stream for [`Config::send_timeout`] (the runtime's `send` fails and
//! a warning is logged), or on [`LegacySse::close_sessions`]. Its runtime's
//! `recv` then returns `None`.
//!
//! Every buffer is bounded: the stream's queue of events
//! ([`Config::stream_buffer`]) and the session's inbox
//! ([`Config::inbox_capacity`]), so a slow reader on either side costs a
//! fixed amount of memory.

mod beside;
mod config;
mod endpoints;
mod service;
mod session;
mod transport;

pub use beside::Beside;
pub use config::Config;
/// The response types are mcpwire-http's, so that both endpoints of one
/// server answer with one body type.
pub use mcpwire_http::server::{HttpResponse, ResponseBody};
pub use service::LegacySse;
pub use transport::{LegacyReceiver, LegacySender, LegacyTransport, TransportError};
