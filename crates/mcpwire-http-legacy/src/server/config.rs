//! The legacy server's options, with secure defaults and builder methods.

use std::time::Duration;

use mcpwire_http::server::{HostPolicy, OriginPolicy};

/// The options of a [`LegacySse`](super::LegacySse) server.
///
/// The defaults are safe for a local server: the DNS-rebinding checks of
/// mcpwire-http (loopback `Host` and `Origin` only on a loopback address),
/// 4 MiB bodies, bounded queues in both directions, at most 1,000 sessions.
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) sse_path: String,
    pub(crate) message_path: String,
    pub(crate) hosts: HostPolicy,
    pub(crate) origins: OriginPolicy,
    pub(crate) max_body: usize,
    pub(crate) body_read_timeout: Duration,
    pub(crate) keep_alive: Option<Duration>,
    pub(crate) idle_timeout: Option<Duration>,
    pub(crate) send_timeout: Duration,
    pub(crate) stream_buffer: usize,
    pub(crate) inbox_capacity: usize,
    pub(crate) max_sessions: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            sse_path: "/sse".to_owned(),
            message_path: "/message".to_owned(),
            hosts: HostPolicy::Auto,
            origins: OriginPolicy::Auto,
            max_body: 4 * 1024 * 1024,
            body_read_timeout: Duration::from_secs(30),
            keep_alive: Some(Duration::from_secs(15)),
            idle_timeout: Some(Duration::from_secs(30 * 60)),
            send_timeout: Duration::from_secs(10),
            stream_buffer: 64,
            inbox_capacity: 64,
            max_sessions: 1_000,
        }
    }
}

impl Config {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// The path a GET opens a session's SSE stream on (default `/sse`).
    #[must_use]
    pub fn sse_path(mut self, path: impl Into<String>) -> Self {
        self.sse_path = path.into();
        self
    }

    /// The path clients POST their messages to (default `/message`). The
    /// `endpoint` event names it, relative to the server's origin, so it
    /// must be the path clients see (mind path prefixes added by a proxy
    /// or a router that strips them).
    #[must_use]
    pub fn message_path(mut self, path: impl Into<String>) -> Self {
        self.message_path = path.into();
        self
    }

    /// Which `Host` values are accepted (default [`HostPolicy::Auto`]).
    #[must_use]
    pub fn hosts(mut self, policy: HostPolicy) -> Self {
        self.hosts = policy;
        self
    }

    /// Which `Origin` values are accepted (default [`OriginPolicy::Auto`];
    /// LEG-01).
    #[must_use]
    pub fn origins(mut self, policy: OriginPolicy) -> Self {
        self.origins = policy;
        self
    }

    /// The largest POST body accepted (default 4 MiB); larger ones get 413.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// How long a POST body may take to arrive once its head has (default
    /// 30 s); a slower one gets 408, so that a client trickling its body
    /// cannot hold the request forever.
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// The interval of keep-alive comments on the SSE stream (default
    /// 15 s; `None` sends none). They also reveal a vanished client, whose
    /// session then ends.
    #[must_use]
    pub fn keep_alive(mut self, interval: Option<Duration>) -> Self {
        self.keep_alive = interval;
        self
    }

    /// How long a session lives without any message in either direction
    /// (default 30 minutes; `None` keeps it as long as its stream is
    /// open). Then its stream ends and its runtime's `recv` returns `None`.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How long the runtime's `send` waits for a client that does not read
    /// its stream (default 10 s); then the session is dropped. Also how
    /// long a POST waits for a runtime that does not read its inbox before
    /// it is answered 503.
    #[must_use]
    pub fn send_timeout(mut self, timeout: Duration) -> Self {
        self.send_timeout = timeout;
        self
    }

    /// How many events may wait for a slow SSE reader (default 64, at
    /// least 1).
    #[must_use]
    pub fn stream_buffer(mut self, events: usize) -> Self {
        self.stream_buffer = events.max(1);
        self
    }

    /// How many POSTed messages may wait for the session's runtime
    /// (default 64, at least 1); further POSTs wait.
    #[must_use]
    pub fn inbox_capacity(mut self, messages: usize) -> Self {
        self.inbox_capacity = messages.max(1);
        self
    }

    /// The most sessions at once (default 1,000); beyond it a GET is
    /// answered 503 with `Retry-After`.
    #[must_use]
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }
}
