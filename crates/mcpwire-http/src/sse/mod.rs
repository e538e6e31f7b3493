//! A sans-IO Server-Sent Events codec: an encoder and an incremental decoder.
//!
//! This is the `text/event-stream` format of the WHATWG HTML standard
//! ("Server-sent events", section 9.2), which both Streamable HTTP and the
//! legacy HTTP+SSE transport carry JSON-RPC messages in. It performs no I/O:
//! the encoder appends bytes to a buffer, the decoder is fed byte chunks as
//! they arrive and hands back whole events.
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//! use mcpwire_http::sse::{Decoder, Event};
//!
//! let mut wire = bytes::BytesMut::new();
//! Event::new("").with_id("1").with_retry(Duration::from_millis(500)).encode(&mut wire)?;
//! Event::new("{\"jsonrpc\":\"2.0\",\n\"method\":\"ping\"}").with_id("2").encode(&mut wire)?;
//!
//! let mut decoder = Decoder::new();
//! // Feed the bytes in two arbitrary pieces, as a network would.
//! let (first, second) = wire.split_at(7);
//! decoder.feed(first);
//! decoder.feed(second);
//! let priming = decoder.next_event().unwrap()?;
//! assert_eq!((priming.id.as_deref(), priming.data.as_str()), (Some("1"), ""));
//! let message = decoder.next_event().unwrap()?;
//! assert_eq!(message.data, "{\"jsonrpc\":\"2.0\",\n\"method\":\"ping\"}");
//! assert_eq!(decoder.last_event_id(), "2");
//! assert_eq!(decoder.retry(), Some(Duration::from_millis(500)));
//! assert!(decoder.next_event().is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod decode;
mod encode;

use std::time::Duration;

pub use decode::{DecodeError, Decoder};
pub use encode::{EncodeError, encode_comment};

/// The event type a stream's events have when they carry no `event` field,
/// and the type MCP's JSON-RPC messages are sent as.
pub const MESSAGE: &str = "message";

/// One Server-Sent Event: what the encoder writes and the decoder yields.
///
/// Decoded events carry the fields written in their own block: `id` is the
/// `id` field of this event, if it had one (the decoder also remembers the
/// stream's last event id across events, see [`Decoder::last_event_id`]),
/// and `retry` likewise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// The event id (`id:` field); a client sends the last one it saw as
    /// `Last-Event-ID` to resume the stream.
    pub id: Option<String>,
    /// The event type (`event:` field); `None` means [`MESSAGE`].
    pub event: Option<String>,
    /// The event data; its lines were sent as separate `data:` fields and
    /// are joined with `\n`.
    pub data: String,
    /// The reconnection time (`retry:` field), in whole milliseconds on the
    /// wire.
    pub retry: Option<Duration>,
}

impl Event {
    /// An event of the default type carrying `data`.
    pub fn new(data: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            ..Self::default()
        }
    }

    /// The same event with an `id` field.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The same event with an `event` (type) field.
    #[must_use]
    pub fn with_event(mut self, event: impl Into<String>) -> Self {
        self.event = Some(event.into());
        self
    }

    /// The same event with a `retry` field.
    #[must_use]
    pub fn with_retry(mut self, retry: Duration) -> Self {
        self.retry = Some(retry);
        self
    }

    /// The event's type: its `event` field, or [`MESSAGE`] when it has none
    /// (or an empty one, which the standard treats the same way).
    pub fn event_type(&self) -> &str {
        match self.event.as_deref() {
            None | Some("") => MESSAGE,
            Some(event) => event,
        }
    }
}
