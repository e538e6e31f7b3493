//! `LegacyClientOptions`: every knob and bound of the legacy client.

use std::time::Duration;

use mcpwire_http::client::ClientOptions;

/// How a [`LegacySseClient`](super::LegacySseClient) connects and runs.
///
/// The HTTP side is mcpwire-http's [`ClientOptions`], shared with the
/// Streamable HTTP client; the legacy transport adds two bounds of its own.
/// Every bound has a finite default; the builder methods change one each.
#[derive(Clone, Debug)]
pub struct LegacyClientOptions {
    pub(crate) http: ClientOptions,
    pub(crate) endpoint_timeout: Duration,
    pub(crate) request_timeout: Duration,
}

impl Default for LegacyClientOptions {
    fn default() -> Self {
        Self {
            http: ClientOptions::default(),
            endpoint_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
        }
    }
}

impl LegacyClientOptions {
    /// The defaults: those of [`ClientOptions`] for the HTTP side (a 30 s
    /// connect timeout, 4 MiB messages, 64 queued inbound packets, the
    /// system's root certificates), 10 s for the `endpoint` event, 30 s for
    /// each POST's status.
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
    /// HTTP (request timeout, reconnection, GET stream, legacy detection)
    /// are not used.
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
}
