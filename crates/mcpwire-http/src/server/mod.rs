//! The Streamable HTTP server: one MCP endpoint (POST, GET, DELETE) as a
//! `tower::Service`, serving the handshake era (2025-03-26 to 2025-11-25,
//! with sessions) and the stateless era (2026-07-28) at once.
//!
//! # Using it
//!
//! [`StreamableHttp::new`] takes a [`Config`] and a connect hook. The hook
//! receives a [`SessionTransport`] for every new session (at `initialize`)
//! and for every stateless request, and typically spawns a runtime on it:
//!
//! ```no_run
//! # fn runtime(_: mcpwire_http::server::SessionTransport) {}
//! use mcpwire_http::server::{Config, StreamableHttp, serve};
//!
//! # async fn run() -> std::io::Result<()> {
//! let service = StreamableHttp::new(Config::default(), |transport| {
//!     // e.g. tokio::spawn(server.clone().serve(transport)) with mcpwire-server
//!     runtime(transport);
//! });
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//! serve(listener, service).await
//! # }
//! ```
//!
//! [`StreamableHttp::with_runtime`] is the other way: its hook returns the
//! future that serves the transport, and the service runs it. A POST to an
//! idle session of this process then polls the session's runtime right on
//! the POST's own task, which saves the two hand-offs between the POST's
//! task and the session's per call; `mcpwire`'s `into_http_service` hosts
//! a server so:
//!
//! ```no_run
//! # async fn runtime(_: mcpwire_http::server::SessionTransport) {}
//! use mcpwire_http::server::{Config, StreamableHttp};
//!
//! // e.g. move |transport| server.run_session(transport) with mcpwire-server
//! let service = StreamableHttp::with_runtime(Config::default(), runtime);
//! ```
//!
//! The service does not look at the path: mount it on one route of an axum
//! router (`Router::route_service("/mcp", service)`) or serve it with
//! [`serve()`] (alone, or beside other endpoints), which also drains
//! in-flight requests on shutdown ([`Drain`]).
//!
//! Other endpoints hosted beside it can share its request checks
//! ([`security::check_host_and_origin`]), its body type and response
//! builders, and its bounded body reader ([`body`]).
//!
//! # What the endpoint answers
//!
//! | request | answer |
//! |---|---|
//! | bad `Host` or `Origin` (DNS rebinding) | 403 (see [`security`]) |
//! | POST without `Accept` of both JSON and SSE / GET without SSE | 406 |
//! | POST whose `Content-Type` is not `application/json` | 415 |
//! | POST body over the limit (4 MiB) | 413 |
//! | body that is not JSON-RPC | 400 with the JSON-RPC error |
//! | unsupported `MCP-Protocol-Version` | 400 (HTTP-45); any supported one is accepted on a session, and without one the session's negotiated revision applies (HTTP-44) |
//! | session request without `Mcp-Session-Id` (not `initialize`) | 400 (HTTP-38) |
//! | unknown, expired or deleted session | 404 (HTTP-39) |
//! | only notifications/responses | 202, no body (HTTP-09) |
//! | requests | 200, JSON or SSE per [`ResponseMode`] (HTTP-11) |
//! | too many sessions / shutting down | 503 with `Retry-After` |
//! | too many open streams in one session | 429 |
//! | GET when the standalone stream is off, DELETE when disabled | 405 |
//! | GET with `Last-Event-ID` of a stream long gone | 204 |
//! | 2026-07-28 header mismatch | 400 with `HeaderMismatch` (-32020) |
//! | 2026-07-28 error answers | 404 for -32601; 400 for -32600, -32602, -32020..-32022 |
//!
//! A POST belongs to a session when it carries `Mcp-Session-Id`, or is an
//! `initialize` without a `_meta` protocol version (which creates one). It
//! is stateless when its body's `params._meta` names a protocol version or
//! its `MCP-Protocol-Version` header names 2026-07-28; such a request gets
//! its own one-request transport, its headers are checked against its body
//! (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), and its stream has no event
//! ids. A stateless request whose client closes the response stream is
//! cancelled (the runtime receives `notifications/cancelled`).
//!
//! # Streams, event ids and resumption
//!
//! Every POST that holds a request opens a stream, numbered per session
//! (1, 2, ...); the standalone GET stream is number 0. Each message the
//! runtime sends goes to exactly one stream (HTTP-29): the stream of the
//! request it belongs to (`send_related`), or the standalone stream when it
//! belongs to none. Events are numbered within their stream and their SSE
//! id is `"{stream}-{seq}"`, unique across the session and naming its
//! stream (HTTP-31, HTTP-32). A GET with `Last-Event-ID` resumes that
//! stream, whether it started as a POST or a GET, replaying only its own
//! events after the given one (HTTP-30, HTTP-33).
//!
//! For clients at 2025-11-25 or later (known from the session's
//! `initialize`, not from the request header), a POST's SSE stream starts
//! with a priming event (an id, `retry:`, empty data; HTTP-13), and the
//! server may close a connection without ending the stream after a
//! `retry:` field (HTTP-14, HTTP-16): when [`Config::poll_after`] elapses,
//! on [`SessionHandle::close_stream`], or when the request's handler asks
//! (the runtime calls the receiver's `TransportReceiver::close_stream`;
//! with mcpwire-server, `Context::close_sse_stream`).
//!
//! # Back-pressure
//!
//! Every buffer is bounded: a session's inbox, each connection's event
//! buffer, and the event log (per stream and per session, oldest dropped
//! first). When a client stops reading a stream, the runtime's `send`
//! waits for room up to [`Config::send_timeout`]; then the connection is
//! closed, the event stays logged, and the client may resume. A stateless
//! request's `send` fails instead, which ends that request.
//!
//! # Sessions and expiry
//!
//! Session ids are 32 bytes from the operating system's CSPRNG, in hex.
//! A session is never tied to a TCP connection: it lives until DELETE, its
//! runtime closes its transport, or it has been idle (no request and no
//! open stream) for [`Config::idle_timeout`], checked lazily on each
//! request and by a background sweeper. Its end closes the runtime's
//! inbox, so `recv` returns `None`, and frees its event log.
//! [`StreamableHttp::stats`] shows what the server holds.
//!
//! # Several instances: the store design
//!
//! Nothing assumes a session lives in this process's memory. Three traits
//! (from `mcpwire-store`, the runtime-free crate of shared state, re-exported
//! here) hold all shared state, with in-memory defaults ([`MemorySessionStore`],
//! [`MemoryEventStore`], [`MemoryBus`]); each method returns a boxed future
//! so that an implementation may talk to Redis or a database:
//!
//! * [`SessionStore`]: session records with idle TTLs (`touch` refreshes
//!   them, like Redis `EXPIRE`), the negotiated revision, and the stream
//!   counter (`INCR`), so any instance can validate a session id.
//! * [`EventStore`]: an append-only log per stream with bounded retention,
//!   for resumption on any instance (Redis streams with `MAXLEN`).
//! * [`MessageBus`]: a session's runtime runs on the instance that got its
//!   `initialize`; `deliver` brings each later POST to that instance, and
//!   `publish`/`subscribe` bring each event of a stream to the instance
//!   holding the stream's connection (Redis pub/sub keyed by session and
//!   stream). Answers the client POSTs to the server's own requests travel
//!   like any other POST.
//!
//! The runtime's side (the transport's writer) is the only writer of a
//! session's streams: it numbers events, appends them to the log, then
//! publishes them. The HTTP side subscribes before reading the log, and
//! skips events by number, so resumption neither loses nor repeats events.

mod beat;
pub mod body;
mod config;
mod get;
mod head_timer;
mod local_runtime;
mod memory;
mod names;
mod params;
mod pipe;
mod post;
mod post_headers;
mod request;
pub mod security;
mod serve;
mod service;
mod session_routing;
mod sniff;
mod stateless;
#[cfg(any(test, feature = "store-contract"))]
pub mod store_contract;
mod stream_response;
mod transport;
pub(crate) mod validate;

pub use body::{HttpResponse, ResponseBody, ResponseFuture};
pub use config::{Config, ConnectionLimits, HostPolicy, OriginPolicy, ResponseMode};
/// The shared-state items, from `mcpwire-store` (where they live, so that a
/// store for another backend needs neither this crate nor a runtime).
pub use mcpwire_store::{
    Envelope, EventStore, Inbox, MemoryEventStore, MessageBus, PostExtensions, Replay,
    RequestIdentity, ResponseForm, SessionId, SessionRecord, SessionStore, SharedForm, StoreError,
    StoreFuture, StoredEvent, StreamEvent, StreamKey, Subscription, UseStores,
};
pub use memory::{MemoryBus, MemorySessionStore};
pub use params::{
    LearnedParamHeaders, ParamHeader, ToolParamHeaders, object_param_headers, param_headers,
};
pub use security::LocalAddr;
pub use serve::{Drain, Serve, serve};
pub use service::{Stats, StreamableHttp};
pub use transport::{SessionHandle, SessionTransport, TransportError};
