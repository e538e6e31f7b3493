//! `LineQueue`: packets encoded as newline-delimited lines and waiting to be written, large payloads kept by ownership rather than copied.

use std::collections::VecDeque;
use std::fmt;
use std::io::IoSlice;

use bytes::{Buf, Bytes, BytesMut};

use crate::encode::{
    into_one_line_bytes, into_payload, payload, write_message, write_message_with, write_packet,
};
use crate::message::{Message, Packet};

/// Payloads at least this long are queued as a chunk of their own instead
/// of being copied. Below it a copy costs less than what a chunk adds (a
/// split of the buffer, one more slice for the vectored write).
const LARGE_PAYLOAD: usize = 8 * 1024;

/// Above this capacity a drained buffer is given back to the allocator, so
/// that one burst does not pin its memory for the life of the connection.
const BUFFER_KEEP: usize = 64 * 1024;

/// Packets encoded as lines (the framing of [`LineCodec`](crate::LineCodec),
/// byte for byte), queued for writing; a [`Buf`] the writer drains.
///
/// Small messages are copied into one buffer, so many small answers go out
/// in one write. A payload of 8 KiB or more (`params`, `result` or
/// `error.data`) is not copied: its text is taken from the packet and
/// queued as a chunk of its own between the parts of its envelope, and a
/// writer that can write several slices at once
/// ([`Buf::chunks_vectored`], `writev`) sends the whole queue in one
/// system call.
///
/// The queue frees what was written as the writer [`advance`](Buf::advance)s,
/// so a write that stops midway leaves exactly the unwritten rest, and
/// lines stay whole on the wire.
///
/// # Example
///
/// ```
/// use bytes::Buf;
/// use mcpwire_jsonrpc::{LineQueue, Notification, Packet};
///
/// let mut queue = LineQueue::new();
/// queue.push(Packet::from(Notification::without_params("a")));
/// queue.push(Packet::from(Notification::without_params("b")));
/// let mut wire = Vec::new();
/// while queue.has_remaining() {
///     let chunk = queue.chunk();
///     wire.extend_from_slice(chunk);
///     let written = chunk.len();
///     queue.advance(written);
/// }
/// assert_eq!(
///     wire,
///     b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n"
/// );
/// ```
#[derive(Default)]
pub struct LineQueue {
    /// What comes before `buffer`, in order: envelope parts split off the
    /// buffer and large payloads. None is empty.
    chunks: VecDeque<Chunk>,
    /// How many bytes `chunks` hold.
    chunked_len: usize,
    /// The last bytes queued: small messages and the ends of envelopes.
    buffer: BytesMut,
}

impl LineQueue {
    /// An empty queue; it allocates on the first push.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `packet` as one line, newline included.
    pub fn push(&mut self, packet: Packet) {
        match packet {
            Packet::Single(message) => self.push_message(message),
            Packet::Batch(messages) => {
                self.buffer.extend_from_slice(b"[");
                for (index, message) in messages.into_iter().enumerate() {
                    if index > 0 {
                        self.buffer.extend_from_slice(b",");
                    }
                    self.push_message(message);
                }
                self.buffer.extend_from_slice(b"]");
            }
        }
        self.buffer.extend_from_slice(b"\n");
    }

    /// Appends `packet` as one line copied whole into the buffer, large
    /// payloads included: for a writer that takes one slice per call
    /// (without vectored writes), where a payload queued on its own would
    /// cost two more writes than a copy.
    pub fn push_copied(&mut self, packet: &Packet) {
        write_packet(&mut self.buffer, packet);
        self.buffer.extend_from_slice(b"\n");
    }

    /// How many bytes are queued and not yet written.
    pub fn len(&self) -> usize {
        self.chunked_len + self.buffer.len()
    }

    /// Whether everything queued has been written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push_message(&mut self, message: Message) {
        if payload(&message).is_none_or(|raw| raw.get().len() < LARGE_PAYLOAD) {
            write_message(&mut self.buffer, &message);
            return;
        }
        let Self {
            chunks,
            chunked_len,
            buffer,
        } = self;
        write_message_with(buffer, &message, |buffer, _payload| {
            // Everything up to the payload becomes a chunk; what follows
            // the payload goes on in the buffer, which comes after every
            // chunk, so the payload pushed below lands in between.
            push_chunk(chunks, chunked_len, Chunk::Split(buffer.split().freeze()));
        });
        if let Some(raw) = into_payload(message) {
            let text = into_one_line_bytes(raw);
            push_chunk(chunks, chunked_len, Chunk::Payload { text, written: 0 });
        }
    }
}

/// A part of the queue before its buffer.
enum Chunk {
    /// Bytes split off the buffer: the head of an envelope whose payload
    /// follows.
    Split(Bytes),
    /// A large payload's text. Once written it goes to the thread's kept
    /// buffers ([`crate::recycle`]), so that the allocator does not shrink
    /// and regrow its heap around each large answer.
    Payload { text: Vec<u8>, written: usize },
}

impl Chunk {
    /// What is left to write.
    fn rest(&self) -> &[u8] {
        match self {
            Self::Split(bytes) => bytes,
            Self::Payload { text, written } => &text[*written..],
        }
    }

    /// Marks `count` more bytes written (at most [`Chunk::rest`]'s length).
    fn advance(&mut self, count: usize) {
        match self {
            Self::Split(bytes) => bytes.advance(count),
            Self::Payload { written, .. } => *written += count,
        }
    }
}

fn push_chunk(chunks: &mut VecDeque<Chunk>, chunked_len: &mut usize, chunk: Chunk) {
    let len = chunk.rest().len();
    if len > 0 {
        *chunked_len += len;
        chunks.push_back(chunk);
    }
}

impl Buf for LineQueue {
    fn remaining(&self) -> usize {
        self.len()
    }

    fn chunk(&self) -> &[u8] {
        self.chunks.front().map_or(&self.buffer[..], Chunk::rest)
    }

    fn chunks_vectored<'a>(&'a self, slices: &mut [IoSlice<'a>]) -> usize {
        let buffer = (!self.buffer.is_empty()).then_some(&self.buffer[..]);
        let mut filled = 0;
        for (slot, bytes) in slices
            .iter_mut()
            .zip(self.chunks.iter().map(Chunk::rest).chain(buffer))
        {
            *slot = IoSlice::new(bytes);
            filled += 1;
        }
        filled
    }

    /// # Panics
    ///
    /// When `count` is more than [`remaining`](Buf::remaining), as
    /// [`Buf::advance`] allows.
    fn advance(&mut self, mut count: usize) {
        while count > 0 {
            let Some(front) = self.chunks.front_mut() else {
                self.buffer.advance(count);
                break;
            };
            let taken = count.min(front.rest().len());
            front.advance(taken);
            self.chunked_len -= taken;
            count -= taken;
            // A written chunk leaves the queue; a payload's text is kept.
            if front.rest().is_empty()
                && let Some(Chunk::Payload { text, .. }) = self.chunks.pop_front()
            {
                crate::recycle::give_bytes(text);
            }
        }
        if self.is_empty() && self.buffer.capacity() > BUFFER_KEEP {
            self.buffer = BytesMut::new();
        }
    }
}

impl fmt::Debug for LineQueue {
    /// Shows sizes rather than contents.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("LineQueue")
            .field("queued_bytes", &self.len())
            .field("chunks", &self.chunks.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use bytes::BytesMut;
    use serde_json::json;

    use super::*;
    use crate::codec::LineCodec;
    use crate::error::{ErrorCode, ErrorObject};
    use crate::message::{ErrorResponse, Notification, Request, Response};
    use crate::raw::RawJson;

    /// What the codec writes for `packets`, which the queue must match.
    fn codec_lines(packets: &[Packet]) -> Vec<u8> {
        let codec = LineCodec::new();
        let mut wire = BytesMut::new();
        for packet in packets {
            codec.encode(packet, &mut wire);
        }
        wire.to_vec()
    }

    /// Drains `queue` through `chunks_vectored` with room for `slots`
    /// slices, writing at most `step` bytes at a time, as a pipe that
    /// takes partial writes would.
    fn drain_vectored(queue: &mut LineQueue, slots: usize, step: usize) -> Vec<u8> {
        let mut wire = Vec::new();
        for _ in 0..1_000_000 {
            if !queue.has_remaining() {
                break;
            }
            let mut slices = vec![IoSlice::new(&[]); slots];
            let filled = queue.chunks_vectored(&mut slices);
            assert!(filled > 0, "a non-empty queue offers at least one slice");
            let mut budget = step;
            for slice in &slices[..filled] {
                let taken = budget.min(slice.len());
                wire.extend_from_slice(&slice[..taken]);
                budget -= taken;
                if budget == 0 {
                    break;
                }
            }
            let written = step - budget;
            queue.advance(written);
        }
        assert!(queue.is_empty());
        wire
    }

    fn large_text(len: usize) -> String {
        "prose with \"quotes\" and \\ backslashes. ".repeat(len / 40 + 1)
    }

    fn packets() -> Vec<Packet> {
        let big = large_text(70 * 1024);
        let with_breaks =
            RawJson::from_string(format!("{{\n\"text\":\r\n{}}}", json!(big))).unwrap();
        let error = ErrorObject::new(ErrorCode(-32000), "failed")
            .with_data(&json!({"log": big}))
            .unwrap();
        vec![
            Packet::from(Notification::without_params("small")),
            Packet::from(Response::new(1, &json!({"text": big})).unwrap()),
            Packet::from(Request::new("r", "tools/call", &json!({"a": big})).unwrap()),
            Packet::from(Response::new(2, &json!({"text": "short"})).unwrap()),
            Packet::from(Notification {
                method: "n".to_owned(),
                params: Some(with_breaks),
            }),
            Packet::from(ErrorResponse::new(None, error)),
            Packet::Batch(vec![
                Message::from(Response::new(3, &json!([big])).unwrap()),
                Message::from(Request::without_params(4, "ping")),
                Message::from(Response::new(5, &json!({"again": big})).unwrap()),
            ]),
            Packet::from(Response::new(6, &json!("x".repeat(LARGE_PAYLOAD))).unwrap()),
            Packet::from(Response::new(7, &json!("x".repeat(LARGE_PAYLOAD - 3))).unwrap()),
        ]
    }

    #[test]
    fn queued_lines_are_the_codecs_bytes_however_they_are_drained() {
        let packets = packets();
        let expected = codec_lines(&packets);
        for (slots, step) in [
            (64, usize::MAX),
            (1, usize::MAX),
            (3, 7),
            (2, 65_537),
            (64, 1),
        ] {
            let mut queue = LineQueue::new();
            for packet in packets.clone() {
                queue.push(packet);
            }
            assert_eq!(queue.len(), expected.len());
            let wire = drain_vectored(&mut queue, slots, step);
            assert!(wire == expected, "slots {slots}, step {step}: bytes differ");
        }
    }

    #[test]
    fn large_payloads_are_chunks_of_their_own_and_small_messages_share_one_buffer() {
        let mut queue = LineQueue::new();
        for id in 0..10 {
            queue.push(Packet::from(Response::new(id, &json!({})).unwrap()));
        }
        assert_eq!(
            queue.chunks.len(),
            0,
            "small lines are copied into the buffer"
        );
        let big = large_text(64 * 1024);
        let result = RawJson::from_serialize(&json!({"text": big})).unwrap();
        let payload_address = result.get().as_ptr();
        queue.push(Packet::from(Response {
            id: 99.into(),
            result,
        }));
        assert_eq!(
            queue.chunks.len(),
            2,
            "the lines and envelope before it, then the payload"
        );
        assert_eq!(
            queue.chunks[1].rest().as_ptr(),
            payload_address,
            "the payload is queued where it was, not copied"
        );
        assert_eq!(&queue.buffer[..], b"}\n");
    }

    #[test]
    fn a_written_payload_is_kept_for_the_next_large_message() {
        let result = RawJson::from_serialize(&json!({"text": large_text(64 * 1024)})).unwrap();
        let payload_address = result.get().as_ptr();
        let mut queue = LineQueue::new();
        queue.push(Packet::from(Response {
            id: 1.into(),
            result,
        }));
        // Written in pieces: the payload is kept only once all of it is.
        let mut wire = Vec::new();
        while queue.has_remaining() {
            let piece = queue.chunk().len().min(5000);
            wire.extend_from_slice(&queue.chunk()[..piece]);
            queue.advance(piece);
        }
        assert!(wire.ends_with(b"\"}}\n"));
        // The next large text on this thread gets the payload's buffer
        // instead of growing the heap again.
        let next = crate::recycle::take(60 * 1024);
        assert_eq!(next.as_ptr(), payload_address);
        assert!(next.is_empty());
    }

    #[test]
    fn copied_lines_are_the_same_bytes_in_one_buffer() {
        let packets = packets();
        let mut queue = LineQueue::new();
        for packet in &packets {
            queue.push_copied(packet);
        }
        assert!(queue.chunks.is_empty());
        assert!(drain_vectored(&mut queue, 1, usize::MAX) == codec_lines(&packets));
    }

    #[test]
    fn line_breaks_in_a_large_payload_become_spaces_in_place() {
        let big = large_text(16 * 1024);
        let raw = RawJson::from_string(format!("[\n{},\r\n1\n]", json!(big))).unwrap();
        let packet = Packet::from(Notification {
            method: "m".to_owned(),
            params: Some(raw),
        });
        let expected = codec_lines(std::slice::from_ref(&packet));
        let mut queue = LineQueue::new();
        queue.push(packet);
        let wire = drain_vectored(&mut queue, 64, usize::MAX);
        assert!(wire == expected);
        assert_eq!(wire.iter().filter(|&&byte| byte == b'\n').count(), 1);
        assert!(!wire.contains(&b'\r'));
    }

    #[test]
    fn a_drained_queue_gives_a_large_buffer_back() {
        let mut queue = LineQueue::new();
        for id in 0..2_000 {
            queue.push(Packet::from(Response::new(id, &json!({"n": id})).unwrap()));
        }
        assert!(queue.buffer.capacity() > BUFFER_KEEP);
        let queued = queue.len();
        queue.advance(queued);
        assert!(queue.is_empty());
        assert_eq!(queue.buffer.capacity(), 0);
    }
}
