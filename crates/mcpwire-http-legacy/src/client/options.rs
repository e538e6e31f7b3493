//! `LegacyClientOptions`: every knob and bound of the legacy client.

use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue};
use mcpwire_http::sse::Decoder;

/// How a [`LegacySseClient`](super::LegacySseClient) connects and runs.
///
/// Every bound has a finite default; the builder methods change one each.
#[derive(Clone, Debug)]
pub struct LegacyClientOptions {
    pub(crate) headers: HeaderMap,
    pub(crate) connect_timeout: Duration,
    pub(crate) endpoint_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) max_message_size: usize,
    pub(crate) inbound_capacity: usize,
}

impl Default for LegacyClientOptions {
    fn default() -> Self {
        Self {
            headers: HeaderMap::new(),
            connect_timeout: Duration::from_secs(30),
            endpoint_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_message_size: Decoder::DEFAULT_MAX_EVENT_SIZE,
            inbound_capacity: 64,
        }
    }
}

impl LegacyClientOptions {
    /// The defaults: a 30 s connect timeout, 10 s for the `endpoint` event,
    /// 30 s for each POST's status, 4 MiB messages, 64 queued inbound
    /// packets.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a header sent with every HTTP request (for example
    /// `Authorization`). `Accept` and `Content-Type` are the protocol's.
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }

    /// Bounds how long opening a TCP connection may take.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
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

    /// The largest SSE event accepted, in bytes; a larger one is reported
    /// as an invalid inbound packet and skipped.
    #[must_use]
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How many received packets may wait for `recv` before the client
    /// stops reading the stream (at least 1), so that the server sees TCP
    /// back-pressure rather than the client buffering without bound.
    #[must_use]
    pub fn inbound_capacity(mut self, packets: usize) -> Self {
        self.inbound_capacity = packets.max(1);
        self
    }
}
