//! The incremental `text/event-stream` decoder (WHATWG "event stream interpretation").

use std::collections::VecDeque;
use std::time::Duration;

use super::Event;

/// The byte order mark a stream may start with, which readers skip.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Why the decoder could not hand back an event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// An event grew beyond the decoder's maximum size. Its data was
    /// dropped, and the decoder skips the rest of it, up to the blank line
    /// that ends it, then decodes the next event normally.
    #[error("an SSE event exceeded {limit} bytes and was dropped")]
    EventTooLarge {
        /// The maximum event size in bytes.
        limit: usize,
    },
}

/// An incremental decoder of a `text/event-stream` body.
///
/// Feed it the body's bytes in chunks of any size ([`Decoder::feed`]) and
/// take the events out ([`Decoder::next_event`]). It follows the WHATWG
/// parsing rules:
///
/// * lines end with CR, LF or CRLF (a CRLF split between two chunks still
///   counts once), and a byte order mark at the very start is skipped;
/// * a line starting with `:` is a comment and is ignored;
/// * `field: value` sets a field (one space after the colon is dropped), a
///   line without a colon is a field with an empty value, unknown fields
///   are ignored;
/// * `data` lines are joined with `\n`; `event` sets the type; `id` sets
///   the last event id unless it contains NUL; `retry` sets the
///   reconnection time when it is made of ASCII digits only;
/// * a blank line dispatches the event, unless no `data` field was seen,
///   in which case the event is dropped (its `id` and `retry` still count);
/// * an unterminated event at the end of the stream is dropped.
///
/// Text is read as UTF-8, invalid sequences becoming U+FFFD.
///
/// Memory stays bounded: an event (its fields and the line being read)
/// may take at most [`Decoder::max_event_size`] bytes. Beyond that the
/// decoder reports [`DecodeError::EventTooLarge`] once, drops the event and
/// skips to the blank line that ends it without buffering anything.
#[derive(Clone, Debug)]
pub struct Decoder {
    max_event_size: usize,
    /// The current line, without its line end.
    line: Vec<u8>,
    /// The data of the event being read, each line followed by `\n`.
    data: String,
    /// Whether a `data` field was seen in the event being read.
    has_data: bool,
    event_type: Option<String>,
    /// The `id` field of the event being read, if it had a valid one.
    event_id: Option<String>,
    /// The `retry` field of the event being read, if it had a valid one.
    event_retry: Option<Duration>,
    /// Bytes the event being read has taken so far (completed lines).
    event_size: usize,
    last_event_id: String,
    retry: Option<Duration>,
    /// The previous byte was a CR, so an LF right after it is the same line end.
    after_cr: bool,
    /// How many bytes of a byte order mark have been matched at the start;
    /// `None` once the start of the stream is behind us.
    bom_matched: Option<usize>,
    /// Skipping an oversized event up to its blank line.
    discarding: bool,
    /// The length of the current line while discarding (it is not stored).
    discarded_line_len: usize,
    ready: VecDeque<Result<Event, DecodeError>>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// The default maximum event size: 4 MiB, the same bound the stdio
    /// transport puts on one line.
    pub const DEFAULT_MAX_EVENT_SIZE: usize = 4 * 1024 * 1024;

    /// A decoder with the default maximum event size.
    pub fn new() -> Self {
        Self::with_max_event_size(Self::DEFAULT_MAX_EVENT_SIZE)
    }

    /// A decoder that refuses events larger than `max_event_size` bytes
    /// (counting every line of the event with its line end).
    pub fn with_max_event_size(max_event_size: usize) -> Self {
        Self {
            max_event_size,
            line: Vec::new(),
            data: String::new(),
            has_data: false,
            event_type: None,
            event_id: None,
            event_retry: None,
            event_size: 0,
            last_event_id: String::new(),
            retry: None,
            after_cr: false,
            bom_matched: Some(0),
            discarding: false,
            discarded_line_len: 0,
            ready: VecDeque::new(),
        }
    }

    /// The largest event this decoder accepts, in bytes.
    pub fn max_event_size(&self) -> usize {
        self.max_event_size
    }

    /// The stream's last event id: the value of the last valid `id` field
    /// seen, whether or not its event was dispatched; empty when there was
    /// none (or when the server reset it with an empty `id`).
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection time the stream last asked for with `retry`, if any.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Decodes `chunk`, the next bytes of the stream; the events it
    /// completes are then available from [`Decoder::next_event`].
    pub fn feed(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        if let Some(matched) = self.bom_matched {
            let mut matched = matched;
            while let Some((&byte, tail)) = rest.split_first() {
                if matched < BOM.len() && byte == BOM[matched] {
                    matched += 1;
                    rest = tail;
                    if matched == BOM.len() {
                        break;
                    }
                } else {
                    break;
                }
            }
            if matched == BOM.len() {
                self.bom_matched = None;
            } else if rest.is_empty() {
                // The chunk ended inside what may still be a byte order mark.
                self.bom_matched = Some(matched);
                return;
            } else {
                // Not a byte order mark after all: its first bytes are text.
                self.bom_matched = None;
                self.scan(&BOM[..matched]);
            }
        }
        self.scan(rest);
    }

    /// The next decoded event, or the error that took its place, in stream
    /// order; `None` when the bytes fed so far complete no further event.
    pub fn next_event(&mut self) -> Option<Result<Event, DecodeError>> {
        self.ready.pop_front()
    }

    /// Ends the stream: an event that was not terminated by a blank line is
    /// dropped (as the standard says), and the decoder is ready for a new
    /// stream that continues this one (a reconnection), keeping the last
    /// event id and reconnection time. Events already decoded stay
    /// available from [`Decoder::next_event`].
    pub fn finish(&mut self) {
        self.line.clear();
        self.reset_event();
        self.after_cr = false;
        self.bom_matched = Some(0);
        self.discarding = false;
        self.discarded_line_len = 0;
    }

    /// Splits `bytes` into lines and processes each complete one.
    fn scan(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            match bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(at) => {
                    self.push_line_bytes(&bytes[..at]);
                    self.after_cr = bytes[at] == b'\r';
                    bytes = &bytes[at + 1..];
                    self.end_line();
                }
                None => {
                    self.push_line_bytes(bytes);
                    bytes = &[];
                }
            }
        }
    }

    /// Adds bytes to the current line, switching to discarding when the
    /// event would grow beyond the limit.
    fn push_line_bytes(&mut self, bytes: &[u8]) {
        if self.discarding {
            self.discarded_line_len += bytes.len();
            return;
        }
        if self.event_size + self.line.len() + bytes.len() > self.max_event_size {
            self.overflow(bytes.len());
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    /// Reports the oversized event and starts skipping it.
    fn overflow(&mut self, pending_line_bytes: usize) {
        self.ready.push_back(Err(DecodeError::EventTooLarge {
            limit: self.max_event_size,
        }));
        self.discarding = true;
        self.discarded_line_len = self.line.len() + pending_line_bytes;
        self.line = Vec::new();
        self.reset_event();
        // Give back what the oversized event made the buffers grow to.
        self.data = String::new();
    }

    /// Processes the line just completed.
    fn end_line(&mut self) {
        if self.discarding {
            let blank = self.discarded_line_len == 0;
            self.discarded_line_len = 0;
            if blank {
                self.discarding = false;
            }
            return;
        }
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            self.dispatch();
        } else {
            // Every line counts with its line end, so that many empty
            // `data` lines cannot grow an event without bound either.
            self.event_size += line.len() + 1;
            if self.event_size > self.max_event_size {
                // The line just ended, so the skipping starts on a new line.
                self.overflow(0);
                return;
            }
            self.process_field(&line);
        }
        // Reuse the allocation for the next line.
        self.line = line;
        self.line.clear();
    }

    fn process_field(&mut self, line: &[u8]) {
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match name {
            b"data" => {
                self.has_data = true;
                self.data.push_str(&String::from_utf8_lossy(value));
                self.data.push('\n');
            }
            b"event" => self.event_type = Some(String::from_utf8_lossy(value).into_owned()),
            // An id holding NUL is ignored.
            b"id" if !value.contains(&0) => {
                let id = String::from_utf8_lossy(value).into_owned();
                self.last_event_id.clone_from(&id);
                self.event_id = Some(id);
            }
            // A retry that is not all ASCII digits is ignored.
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let millis = value.iter().fold(0u64, |acc, &digit| {
                    acc.saturating_mul(10)
                        .saturating_add(u64::from(digit - b'0'))
                });
                let retry = Duration::from_millis(millis);
                self.retry = Some(retry);
                self.event_retry = Some(retry);
            }
            _ => {}
        }
    }

    /// Handles a blank line: hands out the event if it had data.
    fn dispatch(&mut self) {
        if self.has_data {
            let mut data = std::mem::take(&mut self.data);
            // Every data line was followed by `\n`; the last one is not data.
            data.pop();
            self.ready.push_back(Ok(Event {
                id: self.event_id.take(),
                event: self.event_type.take().filter(|event| !event.is_empty()),
                data,
                retry: self.event_retry.take(),
            }));
        }
        self.reset_event();
    }

    fn reset_event(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.event_type = None;
        self.event_id = None;
        self.event_retry = None;
        self.event_size = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(decoder: &mut Decoder, bytes: &[u8]) -> Vec<Result<Event, DecodeError>> {
        decoder.feed(bytes);
        core::iter::from_fn(|| decoder.next_event()).collect()
    }

    fn data_of(items: &[Result<Event, DecodeError>]) -> Vec<&str> {
        items
            .iter()
            .map(|item| item.as_ref().map_or("<error>", |event| event.data.as_str()))
            .collect()
    }

    #[test]
    fn cr_lf_and_crlf_all_end_lines() {
        let mut decoder = Decoder::new();
        let items = decode_all(
            &mut decoder,
            b"data: a\rdata: b\ndata: c\r\n\r\ndata: d\r\r",
        );
        assert_eq!(data_of(&items), ["a\nb\nc", "d"]);
    }

    #[test]
    fn a_crlf_split_between_chunks_is_one_line_end() {
        let mut decoder = Decoder::new();
        decoder.feed(b"data: a\r");
        decoder.feed(b"\ndata: b\r");
        decoder.feed(b"\n\r");
        decoder.feed(b"\n");
        let items: Vec<_> = core::iter::from_fn(|| decoder.next_event()).collect();
        assert_eq!(data_of(&items), ["a\nb"]);
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped_even_when_split() {
        let mut decoder = Decoder::new();
        decoder.feed(&BOM[..1]);
        decoder.feed(&BOM[1..]);
        let items = decode_all(&mut decoder, b"data: x\n\n");
        assert_eq!(data_of(&items), ["x"]);
    }

    #[test]
    fn a_byte_order_mark_later_in_the_stream_is_text() {
        let mut decoder = Decoder::new();
        let mut bytes = b"data: x\n\n".to_vec();
        bytes.extend_from_slice(&BOM);
        bytes.extend_from_slice(b"data: y\n\n");
        let items = decode_all(&mut decoder, &bytes);
        // The second line's field name is "\u{feff}data", which is unknown.
        assert_eq!(data_of(&items), ["x"]);
    }

    #[test]
    fn a_partial_byte_order_mark_is_kept_as_text() {
        let mut decoder = Decoder::new();
        decoder.feed(&BOM[..2]);
        let items = decode_all(&mut decoder, b"\n\ndata: z\n\n");
        assert_eq!(data_of(&items), ["z"]);
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        let mut decoder = Decoder::new();
        let items = decode_all(&mut decoder, b": hello\nfoo: bar\ndata: x\n:\n\n");
        assert_eq!(data_of(&items), ["x"]);
    }

    #[test]
    fn one_space_after_the_colon_is_dropped_and_no_more() {
        let mut decoder = Decoder::new();
        let items = decode_all(&mut decoder, b"data:a\ndata:  b\ndata\n\n");
        assert_eq!(data_of(&items), ["a\n b\n"]);
    }

    #[test]
    fn an_id_with_nul_is_ignored_and_an_empty_id_resets() {
        let mut decoder = Decoder::new();
        let items = decode_all(&mut decoder, b"id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n");
        assert_eq!(decoder.last_event_id(), "1");
        assert_eq!(items[1].as_ref().unwrap().id, None);
        decode_all(&mut decoder, b"id\ndata: c\n\n");
        assert_eq!(decoder.last_event_id(), "");
    }

    #[test]
    fn retry_accepts_only_ascii_digits() {
        let mut decoder = Decoder::new();
        decode_all(&mut decoder, b"retry: 250\n\n");
        assert_eq!(decoder.retry(), Some(Duration::from_millis(250)));
        for bad in [
            &b"retry: 1.5\n\n"[..],
            b"retry: -1\n\n",
            b"retry:\n\n",
            b"retry: 1 \n\n",
        ] {
            decode_all(&mut decoder, bad);
            assert_eq!(decoder.retry(), Some(Duration::from_millis(250)), "{bad:?}");
        }
        decode_all(&mut decoder, b"retry: 99999999999999999999999\n\n");
        assert_eq!(decoder.retry(), Some(Duration::from_millis(u64::MAX)));
    }

    #[test]
    fn events_without_data_are_not_dispatched_but_their_id_counts() {
        let mut decoder = Decoder::new();
        let items = decode_all(&mut decoder, b"id: 5\nevent: x\n\ndata: y\n\n");
        assert_eq!(decoder.last_event_id(), "5");
        assert_eq!(items.len(), 1);
        let event = items[0].as_ref().unwrap();
        // The type of the undispatched event does not leak into the next.
        assert_eq!((event.event.as_deref(), event.id.as_deref()), (None, None));
    }

    #[test]
    fn an_empty_data_field_dispatches_an_event_with_empty_data() {
        let mut decoder = Decoder::new();
        let items = decode_all(&mut decoder, b"id: p\ndata:\n\n");
        let event = items[0].as_ref().unwrap();
        assert_eq!((event.id.as_deref(), event.data.as_str()), (Some("p"), ""));
    }

    #[test]
    fn an_unterminated_event_is_dropped_at_the_end_of_the_stream() {
        let mut decoder = Decoder::new();
        assert!(decode_all(&mut decoder, b"data: a\n").is_empty());
        decoder.finish();
        assert_eq!(data_of(&decode_all(&mut decoder, b"data: b\n\n")), ["b"]);
    }

    #[test]
    fn an_oversized_event_is_reported_once_and_the_stream_resynchronises() {
        let mut decoder = Decoder::with_max_event_size(16);
        let mut stream = b"data: ok\n\n".to_vec();
        stream.extend_from_slice(b"data: ");
        stream.extend_from_slice(&[b'x'; 100]);
        stream.extend_from_slice(b"\ndata: more\n\ndata: next\n\n");
        let items = decode_all(&mut decoder, &stream);
        assert_eq!(data_of(&items), ["ok", "<error>", "next"]);
        assert_eq!(items[1], Err(DecodeError::EventTooLarge { limit: 16 }));
    }

    #[test]
    fn many_small_lines_cannot_grow_an_event_past_the_limit() {
        let mut decoder = Decoder::with_max_event_size(64);
        let mut stream = b"data\n".repeat(100);
        stream.extend_from_slice(b"\ndata: after\n\n");
        let items = decode_all(&mut decoder, &stream);
        assert_eq!(data_of(&items), ["<error>", "after"]);
    }

    #[test]
    fn an_overlong_line_is_not_buffered_while_it_streams_in() {
        let mut decoder = Decoder::with_max_event_size(1024);
        decoder.feed(b"data: ");
        for _ in 0..1000 {
            decoder.feed(&[b'y'; 4096]);
            assert!(decoder.line.capacity() <= 2048);
        }
        decoder.feed(b"\n\ndata: fine\n\n");
        let items: Vec<_> = core::iter::from_fn(|| decoder.next_event()).collect();
        assert_eq!(data_of(&items), ["<error>", "fine"]);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let mut decoder = Decoder::new();
        let items = decode_all(&mut decoder, b"data: a\xffb\n\n");
        assert_eq!(data_of(&items), ["a\u{fffd}b"]);
    }
}
