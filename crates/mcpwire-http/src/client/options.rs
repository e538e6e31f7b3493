//! `ClientOptions` and `ReconnectPolicy`: every knob and bound of the client.

use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue};

use super::authorizer::Authorizer;
use crate::sse::Decoder;

/// How the client builds and runs its HTTP exchanges.
///
/// Every bound has a finite default; the builder methods change one each.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    pub(crate) headers: HeaderMap,
    pub(crate) request_timeout: Option<Duration>,
    pub(crate) status_timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) close_timeout: Duration,
    pub(crate) get_stream_idle_timeout: Duration,
    pub(crate) max_event_size: usize,
    pub(crate) inbound_capacity: usize,
    pub(crate) max_remembered_tools: usize,
    pub(crate) max_remembered_tool_bytes: usize,
    pub(crate) reconnect: ReconnectPolicy,
    pub(crate) open_get_stream: bool,
    pub(crate) detect_legacy: bool,
    pub(crate) native_roots: bool,
    pub(crate) extra_roots: Vec<Vec<u8>>,
    pub(crate) authorizer: Option<Arc<dyn Authorizer>>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            headers: HeaderMap::new(),
            request_timeout: None,
            status_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(30),
            close_timeout: Duration::from_secs(5),
            // Twenty times the longest silence of an mcpwire server's
            // streams (a keep-alive comment every 15 s at most by
            // default), and past the idle cut of common proxies, so that a
            // quiet but healthy server is not disturbed; a server that
            // sends no keep-alives costs one reconnection every 5 minutes.
            get_stream_idle_timeout: Duration::from_secs(5 * 60),
            max_event_size: Decoder::DEFAULT_MAX_EVENT_SIZE,
            inbound_capacity: 64,
            max_remembered_tools: 4_096,
            max_remembered_tool_bytes: 4 * 1024 * 1024,
            reconnect: ReconnectPolicy::default(),
            open_get_stream: true,
            detect_legacy: false,
            native_roots: true,
            extra_roots: Vec::new(),
            authorizer: None,
        }
    }
}

impl ClientOptions {
    /// The defaults: no request timeout (the protocol engine times requests
    /// out itself), a 30 s connect timeout, 4 MiB messages, 64 queued
    /// inbound packets, the header parameters of 4,096 tools (4 MiB) at
    /// most, the standalone GET stream on (and reopened after 5 minutes
    /// without a byte), legacy detection off, the system's root
    /// certificates.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a header sent with every HTTP request (for example
    /// `Authorization`). A header the protocol sets itself (`Accept`,
    /// `Content-Type`, the `Mcp-*` headers) cannot be overridden this way.
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }

    /// Bounds how long a POST may wait for the server's answer: its status
    /// line, and for a JSON answer its whole body. SSE bodies are not
    /// bounded by it (they may legitimately last long). Off by default.
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    /// Bounds how long a POST that carries no request (notifications, and
    /// answers to the server's requests) waits for the server's status
    /// (30 s by default; `request_timeout` when that is shorter). A server
    /// takes those with 202 at once, and everything the client sends after
    /// one waits for it: past the bound the send fails, and with it the
    /// session, instead of hanging for as long as the server is silent.
    #[must_use]
    pub fn status_timeout(mut self, timeout: Duration) -> Self {
        self.status_timeout = timeout;
        self
    }

    /// Bounds how long opening a connection may take: the TCP connection,
    /// then the TLS handshake, each.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long the standalone GET stream may stay without a byte from the
    /// server (events and keep-alive comments alike) before the client
    /// drops its connection and opens the stream again, resuming after the
    /// last event id it saw, as after the server closed it (5 minutes by
    /// default). A connection that died without a word (a half-open TCP
    /// connection: a crashed host, a NAT that forgot it) would otherwise
    /// leave the client waiting for the server's notifications and
    /// requests forever. Keep it above the server's keep-alive interval
    /// (15 s for mcpwire servers); `Duration::MAX` turns it off.
    #[must_use]
    pub fn get_stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.get_stream_idle_timeout = timeout;
        self
    }

    /// Bounds how long `close` waits for the session's DELETE.
    #[must_use]
    pub fn close_timeout(mut self, timeout: Duration) -> Self {
        self.close_timeout = timeout;
        self
    }

    /// The largest message accepted, in bytes: one SSE event, or one JSON
    /// body. A larger SSE event is reported as an invalid inbound packet
    /// and skipped; a larger JSON body fails its request.
    #[must_use]
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_event_size = bytes;
        self
    }

    /// How many received packets may wait for `recv` before the client
    /// stops reading from the server (at least 1). The server then sees TCP
    /// back-pressure, so memory stays bounded when the caller falls behind.
    #[must_use]
    pub fn inbound_capacity(mut self, packets: usize) -> Self {
        self.inbound_capacity = packets.max(1);
        self
    }

    /// How many tools' `x-mcp-header` parameters (2026-07-28), learned
    /// from `tools/list` results, are remembered at most; the tools listed
    /// longest ago are forgotten first. Only tools that have such
    /// parameters count. A forgotten tool is called without its
    /// `Mcp-Param-*` headers (which its server refuses) until it is listed
    /// again, so a client of a server with more such tools raises this.
    #[must_use]
    pub fn max_remembered_tools(mut self, tools: usize) -> Self {
        self.max_remembered_tools = tools;
        self
    }

    /// How many bytes the remembered tools' header parameters (see
    /// [`max_remembered_tools`](Self::max_remembered_tools)) may take at
    /// most, counting their names and a fixed overhead per entry.
    #[must_use]
    pub fn max_remembered_tool_bytes(mut self, bytes: usize) -> Self {
        self.max_remembered_tool_bytes = bytes;
        self
    }

    /// How broken streams are resumed.
    #[must_use]
    pub fn reconnect(mut self, policy: ReconnectPolicy) -> Self {
        self.reconnect = policy;
        self
    }

    /// Whether to open the standalone GET stream once a handshake-era
    /// session is established (after `notifications/initialized` was
    /// accepted), on which the server sends requests and notifications
    /// unrelated to any client request (HTTP-24..28). On by default; a
    /// server that offers none (405, or any 4xx) is fine.
    #[must_use]
    pub fn open_get_stream(mut self, open: bool) -> Self {
        self.open_get_stream = open;
        self
    }

    /// Whether `send` reports a refusal of the very first POST with 400,
    /// 404 or 405 (without a recognised modern JSON-RPC error in the body)
    /// as [`Error::LegacyCandidate`](super::Error::LegacyCandidate) instead
    /// of answering the request with an error response. A transport that
    /// falls back to the legacy HTTP+SSE transport turns this on; the first
    /// `send` then waits for the server's status. Off by default.
    #[must_use]
    pub fn detect_legacy(mut self, detect: bool) -> Self {
        self.detect_legacy = detect;
        self
    }

    /// Whether HTTPS trusts the system's root certificates (on by default).
    #[must_use]
    pub fn native_roots(mut self, trust: bool) -> Self {
        self.native_roots = trust;
        self
    }

    /// Trusts one more root certificate (DER-encoded) for HTTPS, for
    /// example a private CA's or a test server's.
    #[must_use]
    pub fn add_root_certificate(mut self, der: impl Into<Vec<u8>>) -> Self {
        self.extra_roots.push(der.into());
        self
    }

    /// Supplies credentials for every request and renews them when the
    /// server answers 401 or 403 (for example an OAuth client; see
    /// [`Authorizer`]).
    #[must_use]
    pub fn authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// The headers sent with every HTTP request ([`with_header`](Self::with_header)).
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The largest message accepted, in bytes
    /// ([`max_message_size`](Self::max_message_size)).
    pub fn message_size_limit(&self) -> usize {
        self.max_event_size
    }

    /// How many received packets may wait for `recv`
    /// ([`inbound_capacity`](Self::inbound_capacity)).
    pub fn inbound_queue_capacity(&self) -> usize {
        self.inbound_capacity
    }
}

/// How the client resumes a broken SSE stream (2025-03-26 to 2025-11-25:
/// a GET with `Last-Event-ID`; HTTP-15, HTTP-17, HTTP-30).
///
/// The wait before a reconnection is the stream's `retry:` value when the
/// server sent one (HTTP-17), otherwise `default_delay`; it doubles with
/// each consecutive failed attempt, and is always kept between `min_delay`
/// and `max_delay`, so that neither a `retry: 0` nor a failing server can
/// cause a tight loop, and no request waits for an hour-long `retry`. A
/// reconnection that delivers at least one event counts as success. After
/// `max_failures` consecutive failures the client gives up, and the
/// requests that were waiting on the stream get a
/// [`codes::STREAM_LOST`](super::codes::STREAM_LOST) error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReconnectPolicy {
    pub(crate) default_delay: Duration,
    pub(crate) min_delay: Duration,
    pub(crate) max_delay: Duration,
    pub(crate) max_failures: u32,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        Self {
            default_delay: Duration::from_secs(1),
            min_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(30),
            max_failures: 5,
        }
    }
}

impl ReconnectPolicy {
    /// The defaults: 1 s without `retry:`, kept within 50 ms and 30 s, five
    /// consecutive failures at most.
    pub fn new() -> Self {
        Self::default()
    }

    /// The wait when the server sent no `retry:` field.
    #[must_use]
    pub fn default_delay(mut self, delay: Duration) -> Self {
        self.default_delay = delay;
        self
    }

    /// The shortest wait, whatever `retry:` says.
    #[must_use]
    pub fn min_delay(mut self, delay: Duration) -> Self {
        self.min_delay = delay;
        self
    }

    /// The longest wait, whatever `retry:` says.
    #[must_use]
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// How many consecutive failed reconnections end the attempt.
    #[must_use]
    pub fn max_failures(mut self, failures: u32) -> Self {
        self.max_failures = failures;
        self
    }

    /// The wait before the next reconnection, after `failures` consecutive
    /// failed attempts, given the stream's `retry` value.
    pub(crate) fn delay(&self, retry: Option<Duration>, failures: u32) -> Duration {
        let base = retry.unwrap_or(self.default_delay);
        let factor = 1u32 << failures.min(16);
        let upper = self.max_delay.max(self.min_delay);
        base.saturating_mul(factor).clamp(self.min_delay, upper)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_retry_is_honoured_within_the_bounds() {
        let policy = ReconnectPolicy::default();
        let ms = Duration::from_millis;
        assert_eq!(policy.delay(Some(ms(500)), 0), ms(500));
        assert_eq!(policy.delay(Some(ms(0)), 0), ms(50), "no tight loop");
        assert_eq!(
            policy.delay(Some(Duration::from_secs(3600)), 0),
            Duration::from_secs(30)
        );
        assert_eq!(policy.delay(None, 0), Duration::from_secs(1));
    }

    #[test]
    fn failures_back_off_exponentially_up_to_the_maximum() {
        let policy = ReconnectPolicy::default();
        let delays: Vec<_> = (0..8)
            .map(|failures| policy.delay(Some(Duration::from_millis(500)), failures))
            .collect();
        assert_eq!(delays[1], Duration::from_secs(1));
        assert_eq!(delays[3], Duration::from_secs(4));
        assert_eq!(delays[7], Duration::from_secs(30));
        assert!(delays.windows(2).all(|pair| pair[0] <= pair[1]));
        assert_eq!(policy.delay(None, u32::MAX), Duration::from_secs(30));
    }
}
