//! Writing events and comments in the `text/event-stream` format.

use bytes::{BufMut, Bytes, BytesMut};

use super::Event;

/// Why an event cannot be written: a field that must fit on one line does not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The `id` holds a line break (which would end the field early) or a
    /// NUL (which makes readers ignore the id).
    #[error("an SSE event id must not contain CR, LF or NUL")]
    InvalidId,
    /// The `event` type holds a line break.
    #[error("an SSE event type must not contain CR or LF")]
    InvalidEventType,
}

impl Event {
    /// Appends the event to `out`: `id`, `event`, `retry`, one `data` line
    /// per line of the data, then the blank line that dispatches it.
    ///
    /// Line breaks in the data (`\n`, `\r\n` or `\r`) start a new `data:`
    /// line, so a reader gets the data back with every line break as `\n`.
    /// Empty data is written as one empty `data:` line, so the event is
    /// still dispatched (an event without any `data` field is not). Nothing
    /// is appended when the event cannot be written.
    pub fn encode(&self, out: &mut BytesMut) -> Result<(), EncodeError> {
        if let Some(id) = &self.id
            && id.contains(['\r', '\n', '\0'])
        {
            return Err(EncodeError::InvalidId);
        }
        if let Some(event) = &self.event
            && event.contains(['\r', '\n'])
        {
            return Err(EncodeError::InvalidEventType);
        }
        out.reserve(self.data.len() + 64);
        if let Some(id) = &self.id {
            put_field(out, b"id", id);
        }
        if let Some(event) = &self.event {
            put_field(out, b"event", event);
        }
        if let Some(retry) = self.retry {
            put_field(out, b"retry", &retry.as_millis().to_string());
        }
        for line in lines(&self.data) {
            put_field(out, b"data", line);
        }
        out.put_u8(b'\n');
        Ok(())
    }

    /// The event as bytes; see [`Event::encode`].
    pub fn to_bytes(&self) -> Result<Bytes, EncodeError> {
        let mut out = BytesMut::new();
        self.encode(&mut out)?;
        Ok(out.freeze())
    }
}

/// Appends a comment: each line of `text` as a line starting with `:`,
/// which readers ignore. An empty `text` gives a bare `:` line, the usual
/// keep-alive.
///
/// A comment dispatches nothing and does not end the event being written,
/// so it is best sent between events.
pub fn encode_comment(text: &str, out: &mut BytesMut) {
    for line in lines(text) {
        if line.is_empty() {
            out.put_slice(b":\n");
        } else {
            out.put_slice(b": ");
            out.put_slice(line.as_bytes());
            out.put_u8(b'\n');
        }
    }
}

/// Writes `name: value`; the space after the colon is the one readers strip,
/// so a value that itself starts with a space survives.
fn put_field(out: &mut BytesMut, name: &[u8], value: &str) {
    out.put_slice(name);
    if value.is_empty() {
        out.put_slice(b":\n");
    } else {
        out.put_slice(b": ");
        out.put_slice(value.as_bytes());
        out.put_u8(b'\n');
    }
}

/// The lines of `text` split at `\r\n`, `\n` or `\r`, the line ends SSE
/// readers recognise. An empty text is one empty line; a trailing line
/// break gives a last empty line, so that it survives the round trip.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    core::iter::from_fn(move || {
        let current = rest?;
        match current.find(['\r', '\n']) {
            Some(at) => {
                let skip = if current[at..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                rest = Some(&current[at + skip..]);
                Some(&current[..at])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn text(event: &Event) -> String {
        String::from_utf8(event.to_bytes().unwrap().to_vec()).unwrap()
    }

    #[test]
    fn fields_come_in_id_event_retry_data_order() {
        let event = Event::new("x")
            .with_id("7")
            .with_event("message")
            .with_retry(Duration::from_millis(1500));
        assert_eq!(
            text(&event),
            "id: 7\nevent: message\nretry: 1500\ndata: x\n\n"
        );
    }

    #[test]
    fn each_data_line_becomes_a_data_field() {
        assert_eq!(
            text(&Event::new("a\nb\r\nc\rd\n")),
            "data: a\ndata: b\ndata: c\ndata: d\ndata:\n\n"
        );
    }

    #[test]
    fn empty_data_is_still_one_data_field() {
        assert_eq!(text(&Event::new("").with_id("p")), "id: p\ndata:\n\n");
    }

    #[test]
    fn ids_and_types_that_would_break_the_line_are_refused() {
        let mut out = BytesMut::new();
        for id in ["a\nb", "a\rb", "a\0b"] {
            assert_eq!(
                Event::new("d").with_id(id).encode(&mut out),
                Err(EncodeError::InvalidId)
            );
        }
        assert_eq!(
            Event::new("d").with_event("x\ny").encode(&mut out),
            Err(EncodeError::InvalidEventType)
        );
        assert!(out.is_empty(), "nothing is written for a refused event");
    }

    #[test]
    fn comments_prefix_every_line_with_a_colon() {
        let mut out = BytesMut::new();
        encode_comment("", &mut out);
        encode_comment("keep\nalive", &mut out);
        assert_eq!(&out[..], b":\n: keep\n: alive\n");
    }
}
