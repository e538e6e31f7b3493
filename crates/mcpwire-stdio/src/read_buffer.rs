//! `ReadBuffer`: the receiver's bytes, kept so that a long line is read into place rather than moved while it arrives.

use bytes::{BufMut, BytesMut};
use mcpwire_jsonrpc::{Inbound, LineCodec, LineError};
use tokio::io::{AsyncRead, AsyncReadExt};

/// The least room a read is given, and the most one read may add beyond
/// what the longest acceptable line still needs.
///
/// Together with the codec's line limit this bounds the buffer: before a
/// read it holds at most one unfinished line (the codec drops an over-long
/// line as soon as it crosses the limit), and a read adds at most what
/// completes the longest acceptable line, or one chunk when that is more.
pub(crate) const READ_CHUNK: usize = 8 * 1024;

/// The longest unfinished line that is always moved to the front of the
/// allocation before a read. Moving it costs at most this much copying;
/// leaving it where it is lets a long line run into the end of the
/// allocation later, when making room copies everything it has so far.
const SHIFT_LIMIT: usize = READ_CHUNK;
/// How many first bytes of a line that is not a message the log shows.
const HEAD: usize = 64;

/// The bytes read and not yet decoded: at most one unfinished line between
/// reads.
///
/// `BytesMut` counts its capacity from its first unread byte, and decoded
/// lines are consumed from the front, so the room they leave sits before
/// the unfinished line. `BytesMut::reserve` takes that room back only when
/// the end of the allocation is reached, by copying the unfinished line to
/// the front: for a 64 KiB line arriving in pieces that is a copy of most
/// of the line, once per line. Instead, before each read, an unfinished
/// line that is short (or that would not fit in the room after it, judged
/// by the last line's length) is moved to the front while it is short,
/// and a read fills the room there is rather than one chunk at a time.
#[derive(Debug, Default)]
pub(crate) struct ReadBuffer {
    bytes: BytesMut,
    /// The largest capacity `bytes` has shown, which is at most its
    /// allocation: what a reserve can take back without allocating.
    allocated: usize,
    /// How many bytes the last decoded line took, line ending included: a
    /// guess at how much room the next one needs.
    last_line: usize,
    /// Whether the last read took less than the room it was offered: the
    /// reader had nothing more at that moment.
    short_read: bool,
}

impl ReadBuffer {
    /// How many bytes are buffered.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Decodes the next line from what is buffered, if a whole one is
    /// there (or, at end of input, whatever is left).
    pub(crate) fn decode(
        &mut self,
        codec: &mut LineCodec,
        at_end: bool,
    ) -> Option<Result<Inbound, LineError>> {
        let before = self.bytes.len();
        // The first bytes of the line, kept (on the stack) to name a line
        // that is not a message in the log: a stray `println!` in a server
        // corrupts its stdout, and the user must be able to see it.
        let mut head = [0u8; HEAD];
        let shown = before.min(HEAD);
        head[..shown].copy_from_slice(&self.bytes[..shown]);
        let outcome = if at_end {
            codec.decode_eof(&mut self.bytes)
        } else {
            codec.decode(&mut self.bytes)
        };
        if outcome.is_some() {
            self.last_line = before - self.bytes.len();
        }
        let line = || {
            let head = &head[..shown.min(self.last_line)];
            let end = head
                .iter()
                .position(|&byte| byte == b'\n')
                .unwrap_or(head.len());
            String::from_utf8_lossy(&head[..end]).into_owned()
        };
        match &outcome {
            Some(Ok(Inbound::Invalid(error))) => {
                tracing::warn!(%error, line = %line(), "the peer sent a line that is not a JSON-RPC message");
            }
            Some(Err(error)) => {
                tracing::warn!(%error, line = %line(), "refused a line from the peer");
            }
            _ => {}
        }
        outcome
    }

    /// Reads once from `reader` into the buffer; `Ok(0)` at end of input.
    ///
    /// Cancel safe: a read dropped before it completes has added nothing.
    pub(crate) async fn read_from(
        &mut self,
        reader: &mut (impl AsyncRead + Unpin),
        max_line_length: usize,
    ) -> std::io::Result<usize> {
        let limit = self.make_room(max_line_length);
        let read = reader.read_buf(&mut (&mut self.bytes).limit(limit)).await?;
        self.short_read = read < limit;
        Ok(read)
    }

    /// Whether the last read took less than it could: what the reader had
    /// then is all in the buffer.
    pub(crate) fn short_read(&self) -> bool {
        self.short_read
    }

    /// Moves the unfinished line to the front when that is cheap or will be
    /// needed, makes sure there is a chunk of room, and says how much the
    /// next read may add.
    fn make_room(&mut self, max_line_length: usize) -> usize {
        let unfinished = self.bytes.len();
        let spare = self.bytes.capacity() - unfinished;
        // The room before the unfinished line that decoded lines left.
        let consumed_room = self.allocated.saturating_sub(self.bytes.capacity());
        let room_for_a_line_like_the_last = self.last_line.saturating_sub(unfinished) + READ_CHUNK;
        if consumed_room > 0
            && consumed_room >= unfinished
            && (unfinished <= SHIFT_LIMIT || spare < room_for_a_line_like_the_last)
        {
            // The buffer is never split or frozen, so it owns its whole
            // allocation, and at least `consumed_room >= unfinished` bytes
            // lie before the line: `reserve` moves the line to the front of
            // the allocation it has (copying `unfinished` bytes, none for an
            // empty buffer) instead of allocating, as its documentation
            // says.
            self.bytes.reserve(self.allocated - unfinished);
        }
        if self.bytes.capacity() - unfinished < READ_CHUNK {
            self.bytes.reserve(READ_CHUNK);
        }
        self.allocated = self.allocated.max(self.bytes.capacity());
        let spare = self.bytes.capacity() - unfinished;
        // A line ending is one or two bytes beyond the longest line.
        let rest_of_longest_line = max_line_length.saturating_add(2).saturating_sub(unfinished);
        spare.min(rest_of_longest_line.max(READ_CHUNK))
    }

    /// The capacity of the allocation, as far as this buffer knows.
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        self.allocated
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll};

    use mcpwire_jsonrpc::{Message, Notification, RawJson};
    use tokio::io::ReadBuf;

    use super::*;

    /// One read as the reader saw it: where its bytes went and which bytes
    /// of the stream they were.
    #[derive(Clone, Copy, Debug)]
    struct ReadRecord {
        destination: usize,
        stream_offset: usize,
        len: usize,
    }

    /// A reader of a fixed stream in reads of scripted sizes, recording
    /// where each read's bytes were put. With `whole_lines`, a read never
    /// goes past the end of a line, as when the peer writes one line and
    /// waits for the answer.
    struct ScriptedReader {
        stream: Vec<u8>,
        offset: usize,
        read_sizes: Vec<usize>,
        reads: usize,
        whole_lines: bool,
        log: Arc<Mutex<Vec<ReadRecord>>>,
    }

    impl AsyncRead for ScriptedReader {
        fn poll_read(
            self: Pin<&mut Self>,
            _context: &mut Context<'_>,
            buffer: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = self.get_mut();
            let rest = &this.stream[this.offset..];
            let mut len = this.read_sizes[this.reads % this.read_sizes.len()]
                .min(rest.len())
                .min(buffer.remaining());
            if this.whole_lines
                && let Some(newline) = rest[..len].iter().position(|&byte| byte == b'\n')
            {
                len = len.min(newline + 1);
            }
            this.reads += 1;
            // Only the bytes written are initialized: zeroing the whole
            // room on every one-byte read would take minutes.
            let slot = buffer.initialize_unfilled_to(len);
            slot.copy_from_slice(&rest[..len]);
            this.log.lock().unwrap().push(ReadRecord {
                destination: slot.as_ptr().addr(),
                stream_offset: this.offset,
                len,
            });
            buffer.advance(len);
            this.offset += len;
            Poll::Ready(Ok(()))
        }
    }

    fn line_of(index: usize, text_len: usize) -> Vec<u8> {
        let text = format!("{index:06}{}", "a\"b\\c ".repeat(text_len / 6));
        let params = RawJson::from_serialize(&serde_json::json!({ "text": text })).unwrap();
        let notification = Notification {
            method: "echo".to_owned(),
            params: Some(params),
        };
        let mut line = Message::from(notification).to_vec();
        line.push(b'\n');
        line
    }

    /// What happened to one line in memory while it was unfinished.
    #[derive(Clone, Copy, Debug, Default)]
    struct LineHistory {
        /// How many times its buffered bytes were moved.
        moves: usize,
        /// How many bytes those moves copied.
        moved: usize,
        /// How many of its bytes arrived with the previous line's last read.
        carried: usize,
    }

    /// Reads `lines` through a `ReadBuffer`, checks they all decode, and
    /// tells what happened to each line in memory.
    async fn line_histories(
        lines: &[Vec<u8>],
        read_sizes: Vec<usize>,
        whole_lines: bool,
    ) -> Vec<LineHistory> {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut reader = ScriptedReader {
            stream: lines.concat(),
            offset: 0,
            read_sizes,
            reads: 0,
            whole_lines,
            log: Arc::clone(&log),
        };
        let mut buffer = ReadBuffer::default();
        let mut codec = LineCodec::new();
        let mut decoded = 0;
        for _ in 0..10_000_000 {
            match buffer.decode(&mut codec, false) {
                Some(Ok(Inbound::Single(Message::Notification(_)))) => decoded += 1,
                Some(other) => panic!("unexpected {other:?}"),
                None => {
                    let read = buffer.read_from(&mut reader, LineCodec::DEFAULT_MAX_LINE_LENGTH);
                    if read.await.unwrap() == 0 {
                        break;
                    }
                }
            }
        }
        assert_eq!(decoded, lines.len());

        // Where each line starts in the stream.
        let mut starts = Vec::with_capacity(lines.len());
        let mut at = 0;
        for line in lines {
            starts.push(at);
            at += line.len();
        }
        // A read's destination minus how much of its line came before it is
        // where that line starts in memory; when that address changes
        // between two reads, the buffered part of the line was moved.
        let mut histories = vec![LineHistory::default(); lines.len()];
        let mut known_start: Option<(usize, usize)> = None;
        let log = log.lock().unwrap();
        for read in log.iter().filter(|read| read.len > 0) {
            let line = starts.partition_point(|&start| start <= read.stream_offset) - 1;
            let buffered = read.stream_offset - starts[line];
            let address = read.destination - buffered;
            if let Some((known_line, known_address)) = known_start
                && known_line == line
                && known_address != address
            {
                histories[line].moves += 1;
                histories[line].moved += buffered;
            }
            // The line this read ends in starts in memory where its first
            // byte was put.
            let end = read.stream_offset + read.len;
            let last_line = starts.partition_point(|&start| start < end) - 1;
            known_start = Some(if last_line == line {
                (line, address)
            } else {
                histories[last_line].carried = end - starts[last_line];
                (
                    last_line,
                    read.destination + (starts[last_line] - read.stream_offset),
                )
            });
        }
        histories
    }

    /// Whether, from the `warm_up`-th line on (the first lines grow the
    /// buffer, and each growth may move them), every line was moved at
    /// most once and by no more than what came with the previous line's
    /// read, that is before any read of its own.
    fn moved_only_what_was_carried(histories: &[LineHistory], warm_up: usize) -> bool {
        histories[warm_up..]
            .iter()
            .all(|history| history.moves <= 1 && history.moved <= history.carried)
    }

    #[tokio::test]
    async fn a_64_kib_line_sent_alone_is_read_in_place_after_the_first() {
        let lines: Vec<Vec<u8>> = (0..12).map(|index| line_of(index, 64 * 1024)).collect();
        for read_sizes in [vec![1], vec![7, 4093, 65_536, 3], vec![65_536]] {
            let histories = line_histories(&lines, read_sizes.clone(), true).await;
            // Nothing is carried over when lines come one at a time, so
            // nothing may be moved.
            assert!(
                moved_only_what_was_carried(&histories, 1),
                "reads {read_sizes:?}: {histories:?}"
            );
        }
    }

    #[tokio::test]
    async fn back_to_back_long_lines_are_moved_only_before_their_own_reads() {
        let lines: Vec<Vec<u8>> = (0..24).map(|index| line_of(index, 64 * 1024)).collect();
        for read_sizes in [
            vec![7, 4093, 65_536, 3],
            vec![8 * 1024],
            vec![100_000, 12_345],
        ] {
            let histories = line_histories(&lines, read_sizes.clone(), false).await;
            assert!(
                moved_only_what_was_carried(&histories, 3),
                "reads {read_sizes:?}: {histories:?}"
            );
        }
    }

    #[tokio::test]
    async fn the_allocation_stays_that_of_the_longest_line_and_a_chunk() {
        let lines: Vec<Vec<u8>> = (0..8).map(|index| line_of(index, 64 * 1024)).collect();
        let line = lines[0].len();
        let mut reader = ScriptedReader {
            stream: lines.concat(),
            offset: 0,
            read_sizes: vec![7, 4093, 65_536, 3],
            reads: 0,
            whole_lines: false,
            log: Arc::default(),
        };
        let mut buffer = ReadBuffer::default();
        let mut codec = LineCodec::new();
        for _ in 0..1_000_000 {
            if buffer.decode(&mut codec, false).is_none()
                && buffer
                    .read_from(&mut reader, LineCodec::DEFAULT_MAX_LINE_LENGTH)
                    .await
                    .unwrap()
                    == 0
            {
                break;
            }
            // Growth doubles, so the allocation is under twice what one
            // line and a chunk need, whatever the reads.
            assert!(
                buffer.allocated() < 2 * (line + READ_CHUNK),
                "{}",
                buffer.allocated()
            );
        }
        assert_eq!(buffer.len(), 0);
    }
}
