//! `LegacyClientOptions`: every knob and bound of the legacy client.

use std::time::Duration;

use mcpwire_http::client::ClientOptions;

/// How a [`LegacySseClient`](super::LegacySseClient) connects and runs.
///
/// The HTTP side is mcpwire-http's [`ClientOptions`], shared with the
/// Streamable HTTP client; the legacy transport adds three bounds of its
/// own.
/// Every bound has a finite default; the builder methods change one each.
#[derive(Clone, Debug)]
pub struct LegacyClientOptions {
    pub(crate) http: ClientOptions,
    pub(crate) endpoint_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) stream_idle_timeout: Duration,
}

impl Default for LegacyClientOptions {
    fn default() -> Self {
        Self {
            http: ClientOptions::default(),
            endpoint_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            // Off: here silence would end the session (the legacy
            // protocol has no resumption), and the TypeScript SDK's legacy
            // server sends no keep-alive comments, so any bound would cut
            // off its quiet but healthy sessions. A connection that died
            // without a word is found by the connections' TCP keep-alive
            // instead (mcpwire-http's connector: about two minutes).
            stream_idle_timeout: Duration::MAX,
        }
    }
}

impl LegacyClientOptions {
    /// The defaults: those of [`ClientOptions`] for the HTTP side (a 30 s
    /// connect timeout, 4 MiB messages, 64 queued inbound packets, the
    /// system's root certificates), 10 s for the `endpoint` event, 30 s for
    /// each POST's status, and no bound on the SSE stream's silence (TCP
    /// keep-alive notices a dead peer).
    pub fn new() -> Self {
        Self::default()
    }

    /// The HTTP side, as for the Streamable HTTP client: the headers sent
    /// with every request ([`ClientOptions::with_header`]; `Accept` and
    /// `Content-Type` stay the protocol's), the connect timeout, the
    /// largest message (a larger SSE event is reported as an invalid
    /// inbound packet and skipped), how many received packets may wait for
    /// `recv` before the client stops reading the stream, and the root
    /// certificates HTTPS trusts. The knobs that only concern Streamable
    /// HTTP (request timeout, reconnection, GET stream and its idle
    /// timeout, legacy detection) are not used: the SSE stream's idle bound
    /// is [`stream_idle_timeout`](Self::stream_idle_timeout).
    #[must_use]
    pub fn http(mut self, options: ClientOptions) -> Self {
        self.http = options;
        self
    }

    /// Adds a header sent with every HTTP request (for example
    /// `Authorization`), as [`ClientOptions::with_header`] does.
    #[must_use]
    pub fn with_header(mut self, name: http::HeaderName, value: http::HeaderValue) -> Self {
        self.http = self.http.with_header(name, value);
        self
    }

    /// Bounds how long `connect` waits for the SSE stream to open and its
    /// `endpoint` event to arrive.
    #[must_use]
    pub fn endpoint_timeout(mut self, timeout: Duration) -> Self {
        self.endpoint_timeout = timeout;
        self
    }

    /// Bounds how long each POST waits for the server's status.
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// How long the SSE stream may stay without a byte from the server
    /// (events and keep-alive comments alike) before the client takes the
    /// connection as lost (no bound by default): `recv` then returns
    /// [`Error::StreamIdle`](super::Error::StreamIdle) and then `None`, as
    /// after the stream broke, and the connection is dropped. A connection
    /// that died without a word (a half-open TCP connection: a crashed
    /// host, a NAT that forgot it) would otherwise leave the client
    /// waiting forever for answers, which only this stream carries; the
    /// connections' TCP keep-alive already notices a peer host that is
    /// gone (within about two minutes), and this bound also catches a
    /// server process that stopped writing. Set it only for a server that
    /// sends keep-alive comments (every 15 s for mcpwire servers), well
    /// above their interval: a server that sends none (the TypeScript
    /// SDK's legacy `SSEServerTransport`, for one) would lose every session
    /// that stays quiet this long. `Duration::MAX` (the default) turns it
    /// off.
    #[must_use]
    pub fn stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.stream_idle_timeout = timeout;
        self
    }
}
