//! `StdioTransport`: newline-delimited JSON-RPC over any async byte reader and writer.

use std::future::poll_fn;
use std::io::IoSlice;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::{fmt, io};

use bytes::Buf;
use mcpwire_jsonrpc::{
    Inbound, LineCodec, LineQueue, Packet, RequestId, Transport, TransportReceiver, TransportSender,
};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

use crate::error::Error;
use crate::read_buffer::ReadBuffer;

/// How many encoded bytes [`TransportSender::feed`] holds before writing
/// them out without waiting for the flush.
const FEED_LIMIT: usize = 64 * 1024;

/// How many slices one vectored write hands the writer at most (Linux
/// takes 1,024; a queue rarely holds more than a few).
const MAX_WRITE_SLICES: usize = 64;

/// A [`Transport`] that speaks newline-delimited JSON-RPC over a byte
/// reader and a byte writer.
///
/// This is the framing of the MCP stdio transport: one JSON text per line,
/// no line break inside a message (the encoder never writes one). It works
/// over any pair of tokio byte streams: the process's own stdin and stdout
/// ([`stdio`](crate::stdio)), a child's stdout and stdin
/// ([`StdioClient::spawn`](crate::StdioClient::spawn)), a socket's halves, or
/// a `tokio::io::duplex` pair in tests.
///
/// A runtime [`split`](Transport::split)s it into a [`StdioSender`] and a
/// [`StdioReceiver`], so that it reads while a write waits; the inherent
/// `send`, `recv` and `close` serve simple uses and tests.
///
/// * `recv` reads into an internal buffer and decodes whole lines with a
///   [`LineCodec`]; a long line is read into place, never moved as a whole
///   while it arrives. It is cancel safe: bytes
///   read before the future was dropped stay buffered for the next call.
///   Lines the codec refuses (longer than its limit, not UTF-8) and text
///   that is not a message come out as [`Inbound::Invalid`], so that the
///   engine can answer them; reading goes on with the next line. At end of
///   input a last line without a newline is still decoded, then `recv`
///   returns `None` for good.
/// * `send` writes one line and flushes it before returning, so a peer that
///   does not read makes `send` wait: nothing queues without bound.
/// * [`feed`](TransportSender::feed) encodes a line into a [`LineQueue`]
///   (writing it out once 64 KiB are queued) and
///   [`flush`](TransportSender::flush) writes and flushes what is
///   queued: a runtime with several packets at hand feeds them all and
///   flushes once, one `write` for all of them. When the writer supports
///   vectored writes (pipes, a child's stdin), payloads of 8 KiB or more
///   are not copied into the queue but written from where they are, with
///   the lines around them in the same `writev`.
/// * `close` flushes, shuts the writer down and drops it, which is how the
///   peer learns that nothing more will come (for a child process, its
///   stdin is closed).
///
/// Memory stays bounded by the codec's maximum line length: the read
/// buffer never holds more than one unfinished line plus one read chunk,
/// or the longest acceptable line and its ending.
///
/// # Example
///
/// ```
/// use mcpwire_jsonrpc::{Inbound, Message, Notification, Packet};
/// use mcpwire_stdio::StdioTransport;
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // An in-memory byte pipe stands in for a child's stdin and stdout.
/// let (our_end, mut peer) = tokio::io::duplex(1024);
/// let (reader, writer) = tokio::io::split(our_end);
/// let mut transport = StdioTransport::new(reader, writer);
///
/// transport.send(Packet::from(Notification::without_params("ping"))).await?;
/// let expected = b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n";
/// let mut line = vec![0; expected.len()];
/// peer.read_exact(&mut line).await?;
/// assert_eq!(line, expected);
///
/// peer.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"pong\"}\r\nnot json\n").await?;
/// peer.shutdown().await?;
/// let Some(Ok(Inbound::Single(Message::Notification(pong)))) = transport.recv().await else {
///     panic!("expected a notification");
/// };
/// assert_eq!(pong.method, "pong");
/// assert!(matches!(transport.recv().await, Some(Ok(Inbound::Invalid(_)))));
/// assert!(transport.recv().await.is_none());
/// # Ok(())
/// # }
/// ```
pub struct StdioTransport<R, W> {
    sender: StdioSender<W>,
    receiver: StdioReceiver<R>,
}

/// The writing half of a [`StdioTransport`]: one line per packet.
pub struct StdioSender<W> {
    /// `None` once the sending side is closed.
    writer: Option<W>,
    /// Lines encoded but not yet written: empty after a flush, unless a
    /// `send` was dropped midway, in which case the rest of its line goes
    /// out first so that framing survives.
    queue: LineQueue,
}

/// The reading half of a [`StdioTransport`]: lines decoded into packets.
pub struct StdioReceiver<R> {
    reader: R,
    codec: LineCodec,
    read_buffer: ReadBuffer,
    /// Whether the reader has reported end of input.
    reader_done: bool,
}

impl<R: fmt::Debug, W: fmt::Debug> fmt::Debug for StdioTransport<R, W> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("StdioTransport")
            .field("sender", &self.sender)
            .field("receiver", &self.receiver)
            .finish()
    }
}

impl<W: fmt::Debug> fmt::Debug for StdioSender<W> {
    /// Shows buffer sizes rather than contents.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("StdioSender")
            .field("writer", &self.writer)
            .field("unsent_bytes", &self.queue.len())
            .finish()
    }
}

impl<R: fmt::Debug> fmt::Debug for StdioReceiver<R> {
    /// Shows buffer sizes rather than contents, which may be megabytes of
    /// whatever the peer sent.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("StdioReceiver")
            .field("reader", &self.reader)
            .field("max_line_length", &self.codec.max_line_length())
            .field("buffered_inbound_bytes", &self.read_buffer.len())
            .field("reader_done", &self.reader_done)
            .finish()
    }
}

impl<R, W> StdioTransport<R, W> {
    /// A transport over `reader` and `writer` with the codec's default
    /// maximum line length ([`LineCodec::DEFAULT_MAX_LINE_LENGTH`]).
    pub fn new(reader: R, writer: W) -> Self {
        Self::with_codec(reader, writer, LineCodec::new())
    }

    /// A transport over `reader` and `writer` that frames with `codec`, for
    /// example `LineCodec::with_max_line_length(64 * 1024)`.
    pub fn with_codec(reader: R, writer: W, codec: LineCodec) -> Self {
        Self {
            sender: StdioSender {
                writer: Some(writer),
                queue: LineQueue::new(),
            },
            receiver: StdioReceiver {
                reader,
                codec,
                read_buffer: ReadBuffer::default(),
                reader_done: false,
            },
        }
    }

    /// The longest line `recv` accepts, not counting the line ending.
    pub fn max_line_length(&self) -> usize {
        self.receiver.codec.max_line_length()
    }

    /// Whether [`close`](Self::close) has ended the sending side.
    pub fn is_closed(&self) -> bool {
        self.sender.writer.is_none()
    }
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Sends one packet as one line and flushes it.
    ///
    /// # Errors
    ///
    /// When writing fails or the sending side was closed.
    pub async fn send(&mut self, packet: Packet) -> Result<(), Error> {
        self.sender.send(packet).await
    }

    /// Receives the next packet; see [`TransportReceiver::recv`].
    pub async fn recv(&mut self) -> Option<Result<Inbound, Error>> {
        self.receiver.recv().await
    }

    /// Flushes and ends the sending side.
    ///
    /// # Errors
    ///
    /// When flushing or shutting the writer down fails.
    pub async fn close(&mut self) -> Result<(), Error> {
        self.sender.close().await
    }
}

impl<R: AsyncRead + Unpin + Send> StdioReceiver<R> {
    /// The next decoded line from what is already buffered, if any.
    fn decode_buffered(&mut self) -> Option<Inbound> {
        let outcome = self.read_buffer.decode(&mut self.codec, self.reader_done)?;
        // The buffer logged a refused or invalid line, with its first bytes.
        Some(outcome.unwrap_or_else(Inbound::from))
    }
}

impl<R, W> Transport for StdioTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = Error;
    type Sender = StdioSender<W>;
    type Receiver = StdioReceiver<R>;

    fn split(self) -> (StdioSender<W>, StdioReceiver<R>) {
        (self.sender, self.receiver)
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> StdioSender<W> {
    /// Writes what is queued, without flushing the writer.
    async fn write_queued(&mut self) -> Result<(), Error> {
        let writer = self.writer.as_mut().ok_or(Error::Closed)?;
        write_all_queued(writer, &mut self.queue)
            .await
            .map_err(Error::Write)
    }
}

/// Queues `packet`'s line for `writer`. Without vectored writes, a
/// payload queued apart from its envelope would take three writes
/// (through tokio's blocking pool for a terminal or a file): a copy costs
/// less there.
fn queue_packet<W: AsyncWrite>(queue: &mut LineQueue, writer: &W, packet: Packet) {
    if writer.is_write_vectored() {
        queue.push(packet);
    } else {
        queue.push_copied(&packet);
    }
}

/// Writes all of `queue`, as many of its chunks per system call as the
/// writer takes when it supports vectored writes (tokio's `write_all_buf`
/// does so only from tokio 1.40 on), one chunk at a time otherwise.
///
/// The queue advances as bytes go out, so if this future is dropped midway
/// the rest of the line is still queued.
async fn write_all_queued<W: AsyncWrite + Unpin>(
    writer: &mut W,
    queue: &mut LineQueue,
) -> io::Result<()> {
    poll_fn(|context| poll_write_all_queued(writer, queue, context)).await
}

/// [`write_all_queued`] as a poll.
fn poll_write_all_queued<W: AsyncWrite + Unpin>(
    writer: &mut W,
    queue: &mut LineQueue,
    context: &mut Context<'_>,
) -> Poll<io::Result<()>> {
    while queue.has_remaining() {
        let outcome = if writer.is_write_vectored() {
            let mut slices = [IoSlice::new(&[]); MAX_WRITE_SLICES];
            let filled = queue.chunks_vectored(&mut slices);
            ready!(Pin::new(&mut *writer).poll_write_vectored(context, &slices[..filled]))
        } else {
            ready!(Pin::new(&mut *writer).poll_write(context, queue.chunk()))
        };
        match outcome {
            Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
            Ok(written) => queue.advance(written),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Poll::Ready(Err(error)),
        }
    }
    Poll::Ready(Ok(()))
}

impl<W: AsyncWrite + Unpin + Send + 'static> TransportSender for StdioSender<W> {
    type Error = Error;

    async fn send(&mut self, packet: Packet) -> Result<(), Error> {
        self.feed(packet, None).await?;
        TransportSender::flush(self).await
    }

    /// Encodes the packet behind the ones fed before; the lines go out
    /// on [`flush`](TransportSender::flush), or as soon as they fill
    /// `FEED_LIMIT` (64 KiB) bytes, so that feeding never buffers without bound.
    async fn feed(&mut self, packet: Packet, _related: Option<&RequestId>) -> Result<(), Error> {
        let writer = self.writer.as_ref().ok_or(Error::Closed)?;
        queue_packet(&mut self.queue, writer, packet);
        if self.queue.len() >= FEED_LIMIT {
            self.write_queued().await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), Error> {
        poll_fn(|cx| self.poll_flush_fed(cx)).await
    }

    /// Takes the packet as [`feed`](TransportSender::feed) does, unless
    /// what is queued already fills `FEED_LIMIT` (then `feed` writes
    /// first) or the sending side was closed (then `feed` reports it).
    fn feed_now(&mut self, packet: Packet, _related: Option<&RequestId>) -> Option<Packet> {
        let Some(writer) = &self.writer else {
            return Some(packet);
        };
        if self.queue.len() >= FEED_LIMIT {
            return Some(packet);
        }
        queue_packet(&mut self.queue, writer, packet);
        None
    }

    fn poll_flush_fed(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        let writer = self.writer.as_mut().ok_or(Error::Closed)?;
        ready!(poll_write_all_queued(writer, &mut self.queue, cx)).map_err(Error::Write)?;
        Pin::new(writer).poll_flush(cx).map_err(Error::Write)
    }

    async fn close(&mut self) -> Result<(), Error> {
        // Taken first, so that the writer is dropped (and the stream
        // closed) even when flushing fails.
        let Some(mut writer) = self.writer.take() else {
            return Ok(());
        };
        write_all_queued(&mut writer, &mut self.queue)
            .await
            .map_err(Error::Write)?;
        writer.flush().await.map_err(Error::Write)?;
        writer.shutdown().await.map_err(Error::Write)?;
        Ok(())
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> TransportReceiver for StdioReceiver<R> {
    type Error = Error;

    async fn recv(&mut self) -> Option<Result<Inbound, Error>> {
        // Cancel safety: the only await is the read, which reads nothing
        // when it is dropped before completing, and what it did read is in
        // `self.read_buffer`; decoding happens without awaiting, in the
        // same poll that returns the packet.
        loop {
            if let Some(inbound) = self.decode_buffered() {
                return Some(Ok(inbound));
            }
            if self.reader_done {
                return None;
            }
            let max_line_length = self.codec.max_line_length();
            match self
                .read_buffer
                .read_from(&mut self.reader, max_line_length)
                .await
            {
                Ok(0) => self.reader_done = true,
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Some(Err(Error::Read(error))),
            }
        }
    }

    /// `false` once every buffered line was taken and the last read was
    /// short: the pipe had nothing more then, and what came since is known
    /// only after the runtime's reactor has run (tokio clears a pipe's
    /// readiness after a short read), so a `recv` now would only find that
    /// out again.
    fn may_have_more(&self) -> bool {
        self.reader_done || self.read_buffer.len() > 0 || !self.read_buffer.short_read()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncWriteExt, duplex};
    use tokio::time::timeout;

    use super::*;
    use crate::read_buffer::READ_CHUNK;

    #[tokio::test]
    async fn a_receiver_says_it_may_have_more_until_its_lines_are_taken_after_a_short_read() {
        let (reader, mut peer) = duplex(64 * 1024);
        let (writer, _unused) = duplex(64);
        let (_, mut receiver) = StdioTransport::new(reader, writer).split();
        let ping = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        assert!(receiver.may_have_more(), "nothing was read yet");
        peer.write_all(format!("{}{}", ping(1), ping(2)).as_bytes())
            .await
            .unwrap();
        // Generous bounds: the lines are written before the reads.
        let first = timeout(Duration::from_secs(5), receiver.recv())
            .await
            .unwrap();
        assert!(matches!(first, Some(Ok(Inbound::Single(_)))));
        assert!(receiver.may_have_more(), "the second line is buffered");
        let second = timeout(Duration::from_secs(5), receiver.recv())
            .await
            .unwrap();
        assert!(matches!(second, Some(Ok(Inbound::Single(_)))));
        assert!(
            !receiver.may_have_more(),
            "both lines came in one short read"
        );
        // Only a hint: a line written since is still received.
        peer.write_all(ping(3).as_bytes()).await.unwrap();
        let third = timeout(Duration::from_secs(5), receiver.recv())
            .await
            .unwrap();
        assert!(matches!(third, Some(Ok(Inbound::Single(_)))));
        // The end of input is there to take at once.
        drop(peer);
        let end = timeout(Duration::from_secs(5), receiver.recv())
            .await
            .unwrap();
        assert!(end.is_none());
        assert!(receiver.may_have_more());
    }

    #[tokio::test]
    async fn the_read_buffer_stays_bounded_while_an_overlong_line_streams_in() {
        let limit = 1024;
        let bound = limit + 1 + READ_CHUNK;
        let (reader, mut peer) = duplex(64 * 1024);
        let (writer, _unused) = duplex(64);
        let mut transport =
            StdioTransport::with_codec(reader, writer, LineCodec::with_max_line_length(limit));

        // One line of 1 MiB, never terminated while the test watches.
        let feeder = tokio::spawn(async move {
            for _ in 0..64 {
                peer.write_all(&[b'q'; 16 * 1024]).await.unwrap();
            }
            peer
        });
        let mut refusals = 0;
        let mut idle_polls_after_feeding = 0;
        let watch = async {
            while idle_polls_after_feeding < 5 {
                match timeout(Duration::from_millis(20), transport.recv()).await {
                    Ok(Some(Ok(Inbound::Invalid(_)))) => refusals += 1,
                    Ok(other) => panic!("unexpected {other:?}"),
                    Err(_) if feeder.is_finished() => idle_polls_after_feeding += 1,
                    Err(_) => {}
                }
                assert!(transport.receiver.read_buffer.len() <= bound);
                // The allocator may round up, but not in step with the input.
                assert!(transport.receiver.read_buffer.allocated() <= 4 * bound);
            }
        };
        timeout(Duration::from_secs(20), watch).await.unwrap();
        assert_eq!(refusals, 1, "an over-long line is reported once");
    }
}
