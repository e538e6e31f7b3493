//! The server's options, with secure defaults and builder methods.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use mcpwire_types::ProtocolVersion;

use super::memory::{MemoryBus, MemorySessionStore};
use super::params::{LearnedParamHeaders, ToolParamHeaders};
use mcpwire_store::MemoryEventStore;
use mcpwire_store::{EventStore, MessageBus, SessionStore};

/// How the answer to a POSTed request is sent (HTTP-11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseMode {
    /// Always one `application/json` body. Whatever the runtime sends about
    /// the request before its answer (progress, logs, requests to the
    /// client) goes on the standalone GET stream instead; in the stateless
    /// era, which has none, it is dropped.
    Json,
    /// Always a `text/event-stream`. In the stateless era an error that is
    /// the first and only message is still sent as JSON, because its HTTP
    /// status (400, 404) must be chosen before the body starts.
    Sse,
    /// JSON when the answer is the first thing the runtime sends about the
    /// request and comes before a keep-alive comment is due (half to the
    /// whole keep-alive interval, see [`Config::keep_alive`]); otherwise
    /// SSE, so that progress, logs and requests to the client travel on
    /// the request's own stream before the answer.
    #[default]
    Auto,
}

/// Which `Host` header values are accepted (DNS-rebinding defence).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostPolicy {
    /// Loopback names only (`localhost`, `127.0.0.0/8`, `[::1]`, any port)
    /// when the connection arrived on a loopback address, or when the local
    /// address is unknown (a host that did not insert
    /// [`LocalAddr`](super::LocalAddr)); any host otherwise.
    #[default]
    Auto,
    /// Only loopback names.
    Loopback,
    /// Only these (`name` for any port, or `name:port`), compared without
    /// regard to case.
    List(Vec<String>),
    /// Any host (for servers behind a proxy that checks it).
    Any,
}

/// Which `Origin` header values are accepted (HTTP-02, HTTP-03). A request
/// without `Origin` (not from a browser) is always accepted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OriginPolicy {
    /// On loopback (as for [`HostPolicy::Auto`]): loopback origins only.
    /// Otherwise: only the server's own origin (the origin's host and port
    /// equal the `Host` header).
    #[default]
    Auto,
    /// Only these origins (`scheme://host[:port]`), compared without regard
    /// to case.
    List(Vec<String>),
    /// Any origin.
    Any,
}

/// The options of a [`StreamableHttp`](super::StreamableHttp) server.
///
/// The defaults are safe for a local server: DNS-rebinding checks on, 4 MiB
/// bodies read within 30 s, request heads within 10 s, at most 1,024
/// connections, SSE connections closed after 30 s without the client
/// reading, 30-minute idle sessions, at most 10,000 sessions and 100 open
/// streams per session. `docs/security.md` lists every limit and what it
/// protects.
#[derive(Clone)]
pub struct Config {
    pub(crate) response_mode: ResponseMode,
    pub(crate) stateless_only: bool,
    pub(crate) standalone_stream: bool,
    pub(crate) session_delete: bool,
    pub(crate) hosts: HostPolicy,
    pub(crate) origins: OriginPolicy,
    pub(crate) max_body: usize,
    pub(crate) body_read_timeout: Duration,
    pub(crate) connections: ConnectionLimits,
    pub(crate) idle_timeout: Duration,
    pub(crate) sweep_interval: Option<Duration>,
    pub(crate) keep_alive: Option<Duration>,
    pub(crate) max_sessions: usize,
    pub(crate) max_streams_per_session: usize,
    pub(crate) retry: Duration,
    pub(crate) poll_after: Option<Duration>,
    pub(crate) send_timeout: Duration,
    pub(crate) stream_buffer: usize,
    pub(crate) inbox_capacity: usize,
    pub(crate) versions: Vec<ProtocolVersion>,
    pub(crate) param_headers: Arc<dyn ToolParamHeaders>,
    pub(crate) sessions: Arc<dyn SessionStore>,
    pub(crate) events: Arc<dyn EventStore>,
    pub(crate) bus: Arc<dyn MessageBus>,
}

/// The limits [`serve`](super::serve()) applies to every connection, read
/// from a [`Config`] ([`Config::connection_limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    pub(crate) header_read_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) write_stall_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 1024,
            write_stall_timeout: Duration::from_secs(30),
        }
    }
}

impl ConnectionLimits {
    /// See [`Config::header_read_timeout`].
    pub fn header_read_timeout(&self) -> Duration {
        self.header_read_timeout
    }

    /// See [`Config::max_connections`].
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// See [`Config::write_stall_timeout`].
    pub fn write_stall_timeout(&self) -> Duration {
        self.write_stall_timeout
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            response_mode: ResponseMode::Auto,
            stateless_only: false,
            standalone_stream: true,
            session_delete: true,
            hosts: HostPolicy::Auto,
            origins: OriginPolicy::Auto,
            max_body: 4 * 1024 * 1024,
            body_read_timeout: Duration::from_secs(30),
            connections: ConnectionLimits::default(),
            idle_timeout: Duration::from_secs(30 * 60),
            sweep_interval: None,
            keep_alive: Some(Duration::from_secs(15)),
            max_sessions: 10_000,
            max_streams_per_session: 100,
            retry: Duration::from_secs(1),
            poll_after: None,
            send_timeout: Duration::from_secs(10),
            stream_buffer: 64,
            inbox_capacity: 64,
            versions: ProtocolVersion::ALL.to_vec(),
            param_headers: Arc::new(LearnedParamHeaders::new()),
            sessions: Arc::new(MemorySessionStore::new()),
            events: Arc::new(MemoryEventStore::new()),
            bus: Arc::new(MemoryBus::new()),
        }
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("response_mode", &self.response_mode)
            .field("stateless_only", &self.stateless_only)
            .field("standalone_stream", &self.standalone_stream)
            .field("session_delete", &self.session_delete)
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("max_body", &self.max_body)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("connections", &self.connections)
            .field("idle_timeout", &self.idle_timeout)
            .field("keep_alive", &self.keep_alive)
            .field("max_sessions", &self.max_sessions)
            .field("max_streams_per_session", &self.max_streams_per_session)
            .field("poll_after", &self.poll_after)
            .field("send_timeout", &self.send_timeout)
            .finish_non_exhaustive()
    }
}

impl Config {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// How answers to POSTed requests are sent (default [`ResponseMode::Auto`]).
    pub fn response_mode(mut self, mode: ResponseMode) -> Self {
        self.response_mode = mode;
        self
    }

    /// Serves only the stateless era (2026-07-28): no sessions are created
    /// (an `initialize` is handed to a one-request runtime like any other
    /// request), GET and DELETE answer 405, and `Mcp-Session-Id` is ignored.
    pub fn stateless_only(mut self) -> Self {
        self.stateless_only = true;
        self
    }

    /// Whether a GET opens the standalone stream (default `true`); when
    /// `false`, a GET without `Last-Event-ID` answers 405 (HTTP-25) while
    /// resumption still works.
    pub fn standalone_stream(mut self, enabled: bool) -> Self {
        self.standalone_stream = enabled;
        self
    }

    /// Whether DELETE ends a session (default `true`); when `false` it
    /// answers 405 (HTTP-41).
    pub fn session_delete(mut self, enabled: bool) -> Self {
        self.session_delete = enabled;
        self
    }

    /// Which `Host` values are accepted (default [`HostPolicy::Auto`]).
    pub fn hosts(mut self, policy: HostPolicy) -> Self {
        self.hosts = policy;
        self
    }

    /// Accepts only these hosts (`name` or `name:port`).
    pub fn allowed_hosts(self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hosts(HostPolicy::List(
            hosts.into_iter().map(Into::into).collect(),
        ))
    }

    /// Which `Origin` values are accepted (default [`OriginPolicy::Auto`]).
    pub fn origins(mut self, policy: OriginPolicy) -> Self {
        self.origins = policy;
        self
    }

    /// Accepts only these origins (`scheme://host[:port]`).
    pub fn allowed_origins(self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.origins(OriginPolicy::List(
            origins.into_iter().map(Into::into).collect(),
        ))
    }

    /// The largest POST body accepted (default 4 MiB); larger ones get 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// How long a POST body may take to arrive once its head has (default
    /// 30 s); a slower one gets 408. Bounds how long a client trickling its
    /// body holds a connection and a request slot.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// How long a connection may take to send the head of a request
    /// (default 10 s): the first bytes of a new connection, and every later
    /// request head. It is also how long an idle HTTP/1.1 keep-alive
    /// connection waits for its next request, how long an HTTP/2
    /// connection may go without starting a request before it is told to
    /// go away (its open streams finish), and how long an HTTP/2 keep-alive
    /// ping waits for its answer. Applied by
    /// [`serve`](super::serve()), which hyper-level limits need.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.connections.header_read_timeout = timeout;
        self
    }

    /// The most connections [`serve`](super::serve()) holds at once (default
    /// 1,024). Past it, new connections wait in the listener's backlog until
    /// one closes, so a flood of idle or trickling sockets cannot exhaust
    /// the process's memory or file descriptors.
    pub fn max_connections(mut self, max: usize) -> Self {
        self.connections.max_connections = max.max(1);
        self
    }

    /// How long a connection may refuse to take the bytes the server writes
    /// (default 30 s): a client that stops reading its SSE stream (or any
    /// response) for this long has its connection closed by
    /// [`serve`](super::serve()), which frees the stream's slot so that the
    /// session can expire. Logged events stay for resumption.
    pub fn write_stall_timeout(mut self, timeout: Duration) -> Self {
        self.connections.write_stall_timeout = timeout;
        self
    }

    /// The connection-level limits ([`Config::header_read_timeout`],
    /// [`Config::max_connections`], [`Config::write_stall_timeout`]).
    pub fn connection_limits(&self) -> ConnectionLimits {
        self.connections
    }

    /// How long a session lives without requests or open streams (default
    /// 30 minutes); then it ends and its id gets 404.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How often expired sessions are swept (default: a quarter of the idle
    /// timeout, between 10 ms and 60 s).
    pub fn sweep_interval(mut self, interval: Duration) -> Self {
        self.sweep_interval = Some(interval);
        self
    }

    /// The interval of keep-alive comments on idle SSE streams (default
    /// 15 s; `None` sends none): a stream silent for between half of it
    /// and all of it sends one (the server keeps one timer for every
    /// stream, ticking every half interval). An `Auto` POST whose first
    /// event has not come by then answers with SSE.
    pub fn keep_alive(mut self, interval: Option<Duration>) -> Self {
        self.keep_alive = interval;
        self
    }

    /// The most sessions at once (default 10,000); beyond it `initialize`
    /// gets 503 with `Retry-After`, because the server as a whole is full.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// The most open streams (in-flight request POSTs and GETs) per
    /// session on this instance (default 100); beyond it 429, because that
    /// one client asks too much.
    pub fn max_streams_per_session(mut self, max: usize) -> Self {
        self.max_streams_per_session = max.max(1);
        self
    }

    /// The SSE `retry:` interval sent with priming events and before the
    /// server closes a connection (default 1 s; SEP-1699).
    pub fn retry_interval(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// Closes SSE connections of clients at 2025-11-25 or later that have
    /// been open this long without ending, after a `retry:` field; the
    /// client then resumes with `Last-Event-ID` (SSE polling, SEP-1699).
    /// Default `None`: connections stay open.
    pub fn poll_after(mut self, after: Option<Duration>) -> Self {
        self.poll_after = after;
        self
    }

    /// How long the runtime's `send` waits for a connection that does not
    /// read (default 10 s). Then, in a session, the connection is closed
    /// (the event stays logged for resumption) and `send` succeeds; for a
    /// stateless request, `send` fails and the runtime drops the request.
    /// The other way, it bounds how long a POST waits for room in its
    /// session's full inbox (`inbox_capacity`): then it is answered 503.
    pub fn send_timeout(mut self, timeout: Duration) -> Self {
        self.send_timeout = timeout;
        self
    }

    /// How many events may wait for a connection (default 64).
    pub fn stream_buffer(mut self, events: usize) -> Self {
        self.stream_buffer = events.max(1);
        self
    }

    /// How many POSTed messages may wait for a session's runtime (default
    /// 64); further POSTs wait.
    pub fn inbox_capacity(mut self, messages: usize) -> Self {
        self.inbox_capacity = messages.max(1);
        self
    }

    /// The revisions accepted in `MCP-Protocol-Version` (default: all);
    /// others get 400 (HTTP-45).
    pub fn versions(mut self, versions: impl IntoIterator<Item = ProtocolVersion>) -> Self {
        self.versions = versions.into_iter().collect();
        self
    }

    /// Where the `x-mcp-header` annotations of tools come from, to check
    /// `Mcp-Param-*` headers (default: learned from the `tools/list`
    /// results the server sends).
    pub fn param_headers(mut self, source: Arc<dyn ToolParamHeaders>) -> Self {
        self.param_headers = source;
        self
    }

    /// Where session records live (default in memory).
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.sessions = store;
        self
    }

    /// Where stream events are logged for resumption (default in memory).
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.events = store;
        self
    }

    /// How messages reach session runtimes and stream connections (default
    /// in memory).
    pub fn message_bus(mut self, bus: Arc<dyn MessageBus>) -> Self {
        self.bus = bus;
        self
    }

    pub(crate) fn effective_sweep_interval(&self) -> Duration {
        self.sweep_interval.unwrap_or_else(|| {
            (self.idle_timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(60))
        })
    }

    pub(crate) fn supports(&self, version: ProtocolVersion) -> bool {
        self.versions.contains(&version)
    }

    pub(crate) fn retry_millis(&self) -> u64 {
        u64::try_from(self.retry.as_millis()).unwrap_or(u64::MAX)
    }
}

impl mcpwire_store::UseStores for Config {
    fn use_stores(
        self,
        sessions: Arc<dyn SessionStore>,
        events: Arc<dyn EventStore>,
        bus: Arc<dyn MessageBus>,
    ) -> Self {
        self.session_store(sessions)
            .event_store(events)
            .message_bus(bus)
    }
}
