//! Newline-delimited framing of JSON-RPC messages over `bytes::BytesMut`.

use bytes::{Buf, BytesMut};

use crate::classify::{ClassifyError, Inbound, invalid_utf8};
use crate::decode;
use crate::encode::{write_message, write_packet};
use crate::message::{Message, Packet};
use crate::scan::find_byte;
use crate::utf8::checked_text;

/// Why a line could not be turned into an [`Inbound`] at all.
///
/// Each error concerns one line only: decoding goes on with the next line.
/// A line that is text but not a valid message is not a `LineError`; it is
/// decoded as [`Inbound::Invalid`]. Both convert into a [`ClassifyError`]
/// (and so into an answer for the peer).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// The line is longer than the codec's maximum; it was dropped without
    /// being buffered whole.
    #[error("line longer than the limit of {limit} bytes")]
    TooLong {
        /// The maximum line length in force.
        limit: usize,
    },
    /// The line is not valid UTF-8, which JSON text must be.
    #[error("line is not valid UTF-8 (valid up to byte {valid_up_to})")]
    InvalidUtf8 {
        /// How many bytes at the start of the line are valid UTF-8.
        valid_up_to: usize,
    },
}

impl From<LineError> for ClassifyError {
    /// An oversized line is an invalid request (-32600), since it was never
    /// parsed; a non-UTF-8 line is a parse error (-32700). The id of either
    /// is unknown.
    fn from(error: LineError) -> Self {
        match error {
            LineError::TooLong { limit } => ClassifyError::invalid_request(
                format!("message longer than the limit of {limit} bytes"),
                None,
            ),
            LineError::InvalidUtf8 { valid_up_to } => invalid_utf8(valid_up_to),
        }
    }
}

impl From<LineError> for Inbound {
    fn from(error: LineError) -> Self {
        Inbound::Invalid(error.into())
    }
}

/// Splits a byte stream into lines and classifies each line as JSON-RPC.
///
/// This is the framing of the stdio transport: one JSON text per line, lines
/// ended by `\n` with an optional `\r` before it. Lines that hold only
/// whitespace are skipped (unless longer than the limit, like any line). The codec does no I/O: the caller appends what it
/// reads to a [`BytesMut`] and calls [`decode`](Self::decode) until it
/// returns `None`, then reads more.
///
/// A line longer than the maximum is reported as soon as the limit is
/// crossed and then discarded as it arrives, however many reads it spans,
/// so memory stays bounded by the limit.
#[derive(Clone, Debug)]
pub struct LineCodec {
    max_line_length: usize,
    /// How many bytes at the front of the buffer are known to hold no
    /// newline, so that a line arriving in many small reads is searched once.
    searched: usize,
    /// Whether the rest of an over-long line is being dropped.
    discarding: bool,
}

impl LineCodec {
    /// The default maximum line length: 4 MiB.
    pub const DEFAULT_MAX_LINE_LENGTH: usize = 4 * 1024 * 1024;

    /// A codec with the default maximum line length.
    pub fn new() -> Self {
        Self::with_max_line_length(Self::DEFAULT_MAX_LINE_LENGTH)
    }

    /// A codec that refuses lines longer than `max_line_length` bytes, not
    /// counting the line ending.
    pub fn with_max_line_length(max_line_length: usize) -> Self {
        Self {
            max_line_length,
            searched: 0,
            discarding: false,
        }
    }

    /// The maximum line length, not counting the line ending.
    pub fn max_line_length(&self) -> usize {
        self.max_line_length
    }

    /// Takes the next complete line from `buf` and classifies it.
    ///
    /// Returns `None` when `buf` holds no complete line yet (append more
    /// bytes to the same buffer and call again). Consumed bytes are removed
    /// from `buf`; a partial line stays in it, except the part of an
    /// over-long line, which is dropped.
    pub fn decode(&mut self, buf: &mut BytesMut) -> Option<Result<Inbound, LineError>> {
        loop {
            if self.discarding {
                let Some(newline) = find_byte(buf, b'\n') else {
                    buf.clear();
                    return None;
                };
                buf.advance(newline + 1);
                self.discarding = false;
            }

            // Clamped, so that a caller who swapped in a shorter buffer gets
            // a rescan rather than a panic.
            if self.searched > buf.len() {
                self.searched = 0;
            }
            let Some(newline) = find_byte(&buf[self.searched..], b'\n') else {
                // A carriage return may still turn out to be part of the line
                // ending, hence the one byte of slack.
                if buf.len() > self.max_line_length.saturating_add(1) {
                    buf.clear();
                    self.searched = 0;
                    self.discarding = true;
                    return Some(Err(self.too_long()));
                }
                self.searched = buf.len();
                return None;
            };
            let end = self.searched + newline;
            self.searched = 0;
            let outcome = self.decode_line(&buf[..end]);
            buf.advance(end + 1);
            if outcome.is_some() {
                return outcome;
            }
        }
    }

    /// Like [`decode`](Self::decode), for when the stream has ended: a final
    /// line without a newline is decoded too.
    ///
    /// Call it until it returns `None`; afterwards `buf` is empty.
    pub fn decode_eof(&mut self, buf: &mut BytesMut) -> Option<Result<Inbound, LineError>> {
        if let Some(outcome) = self.decode(buf) {
            return Some(outcome);
        }
        self.discarding = false;
        self.searched = 0;
        let outcome = self.decode_line(buf);
        buf.clear();
        outcome
    }

    /// Appends `packet` to `buf` as one line, newline included.
    pub fn encode(&self, packet: &Packet, buf: &mut BytesMut) {
        write_packet(buf, packet);
        buf.extend_from_slice(b"\n");
    }

    /// Appends `message` to `buf` as one line, newline included.
    pub fn encode_message(&self, message: &Message, buf: &mut BytesMut) {
        write_message(buf, message);
        buf.extend_from_slice(b"\n");
    }

    /// Classifies one line without its `\n`; `None` for a blank line.
    fn decode_line(&self, line: &[u8]) -> Option<Result<Inbound, LineError>> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // The length is checked first: a line that arrives in pieces is
        // refused as soon as it crosses the limit, before its content is
        // known, so a long blank line must be refused when whole too.
        if line.len() > self.max_line_length {
            return Some(Err(self.too_long()));
        }
        if line
            .iter()
            .all(|&byte| matches!(byte, b' ' | b'\t' | b'\r'))
        {
            return None;
        }
        Some(match checked_text(line) {
            Ok(text) => Ok(decode::classify_str(text)),
            Err(valid_up_to) => Err(LineError::InvalidUtf8 { valid_up_to }),
        })
    }

    fn too_long(&self) -> LineError {
        LineError::TooLong {
            limit: self.max_line_length,
        }
    }
}

impl Default for LineCodec {
    fn default() -> Self {
        Self::new()
    }
}
