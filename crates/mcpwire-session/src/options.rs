//! Limits and timeouts: every bound the engine enforces, explicit and configurable.

use std::time::Duration;

/// Bounds on what a peer can make the engine hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Requests from the peer being handled at once; one more is answered
    /// with an error instead of being queued.
    pub max_inbound_in_flight: usize,
    /// Requests to the peer awaiting an answer at once; one more fails to send.
    pub max_outbound_in_flight: usize,
    /// `notifications/message` per second a session may send (a burst of
    /// this many is allowed); further messages are dropped and counted.
    pub log_messages_per_second: u32,
    /// Resource URIs one session may be subscribed to (`resources/subscribe`)
    /// and `subscriptions/listen` requests it may hold open, each; one more
    /// is refused with an Invalid Request error naming the limit. One
    /// listen request is honored for at most this many distinct resource
    /// URIs (the first ones; its acknowledgement names them).
    pub max_subscriptions: usize,
    /// Bytes of requests from the peer being handled at once (their
    /// params, as received): one more request that would pass it is
    /// answered with an error instead of being queued, as one past
    /// [`max_inbound_in_flight`](Self::max_inbound_in_flight) is. A
    /// request alone is always taken (the transport's message size limit
    /// bounds it), so this bounds what a peer can make a session hold by
    /// sending large requests whose handlers wait.
    pub max_inbound_bytes_in_flight: usize,
    /// The same bound over all the sessions of one server (every
    /// [`ServerSession`](crate::ServerSession) made from one
    /// [`ServerConfig`](crate::ServerConfig) and its clones): many
    /// sessions each under their own bound cannot add up past it. A
    /// request is always taken when the server holds none; a client
    /// session ignores it.
    pub max_server_inbound_bytes_in_flight: usize,
    /// Bytes of messages waiting for a peer that does not read them (by
    /// [`Packet::size_hint`](mcpwire_jsonrpc::Packet::size_hint)): while
    /// more wait, a runtime stops reading the peer's messages, each of
    /// which could add an answer (back-pressure; nothing is dropped).
    pub max_backlog_bytes: usize,
    /// How long messages over [`max_backlog_bytes`](Self::max_backlog_bytes)
    /// (or 256 of them) may wait while the peer takes none of them; then
    /// the session fails. A server stops reading such a client, but its
    /// handlers' progress and its change announcements still queue; a
    /// client never stops reading (its answers must arrive), so a server
    /// that reads nothing would grow it with every ping and request. This
    /// bounds both in time (see `Outbox::stall_deadline`). A message that
    /// takes the peer longer than this to take whole counts as nothing
    /// taken.
    pub max_backlog_wait: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_inbound_in_flight: 4096,
            max_outbound_in_flight: 4096,
            log_messages_per_second: 100,
            max_subscriptions: 1024,
            max_inbound_bytes_in_flight: 64 * 1024 * 1024,
            max_server_inbound_bytes_in_flight: 256 * 1024 * 1024,
            max_backlog_bytes: 1024 * 1024,
            max_backlog_wait: Duration::from_secs(60),
        }
    }
}

/// How long a request sent to the peer may wait for its answer (LIFE-16..18).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// The default per-request timeout. Never infinite.
    pub request: Duration,
    /// Whether a progress notification restarts the timeout by default.
    pub reset_on_progress: bool,
    /// The absolute maximum a request may wait, even when progress keeps
    /// resetting its timeout (LIFE-18).
    pub maximum: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            request: Duration::from_secs(60),
            reset_on_progress: false,
            maximum: Duration::from_secs(600),
        }
    }
}

/// Per-request choices for a request sent to the peer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// Overrides [`Timeouts::request`]; it is still capped by the maximum.
    pub timeout: Option<Duration>,
    /// Overrides [`Timeouts::reset_on_progress`].
    pub reset_on_progress: Option<bool>,
    /// Overrides [`Timeouts::maximum`].
    pub maximum: Option<Duration>,
    /// Asks the peer for progress notifications (a progress token is put in
    /// `_meta.progressToken`); they arrive as `Event::Progress`.
    pub progress: bool,
}

impl RequestOptions {
    /// Options asking for progress notifications.
    pub fn with_progress(mut self) -> Self {
        self.progress = true;
        self
    }

    /// Options with a timeout of `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Options whose timeout restarts on every progress notification.
    pub fn resetting_on_progress(mut self) -> Self {
        self.reset_on_progress = Some(true);
        self
    }
}
