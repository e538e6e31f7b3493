//! MCP over a Unix domain socket: a complete transport on tokio and
//! `mcpwire-jsonrpc` alone, newline-delimited JSON-RPC as on stdio. Copy
//! this file into your own crate; docs/custom-transport.md walks through it.

use std::io;

use mcpwire_jsonrpc::bytes::BytesMut;
use mcpwire_jsonrpc::{Inbound, LineCodec, LineQueue, Packet, RequestId};
use mcpwire_jsonrpc::{Transport, TransportReceiver, TransportSender};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

/// Fed packets are written once this many bytes wait, flushed or not.
const FEED_LIMIT: usize = 64 * 1024;

/// One connection, accepted or connected, for `Server::serve` or
/// `Client::connect`, and the codec that frames (and bounds) its lines.
#[derive(Debug)]
pub struct UnixTransport(pub UnixStream, pub LineCodec);

impl Transport for UnixTransport {
    type Error = io::Error;
    type Sender = UnixSender;
    type Receiver = UnixReceiver;

    fn split(self) -> (UnixSender, UnixReceiver) {
        let (reader, writer) = self.0.into_split();
        let (codec, buf, queue) = (self.1, BytesMut::new(), LineQueue::new());
        (
            UnixSender { writer, queue },
            UnixReceiver { reader, codec, buf },
        )
    }
}

/// The writing half: lines queue up in `feed` and leave in `flush`.
#[derive(Debug)]
pub struct UnixSender {
    writer: OwnedWriteHalf,
    queue: LineQueue,
}

impl TransportSender for UnixSender {
    type Error = io::Error;

    async fn send(&mut self, packet: Packet) -> io::Result<()> {
        self.queue.push(packet);
        self.flush().await
    }

    async fn feed(&mut self, packet: Packet, _related: Option<&RequestId>) -> io::Result<()> {
        self.queue.push(packet);
        match self.queue.len() >= FEED_LIMIT {
            true => self.flush().await,
            false => Ok(()),
        }
    }

    async fn flush(&mut self) -> io::Result<()> {
        // The whole queue in one vectored write, where the socket takes it.
        self.writer.write_all_buf(&mut self.queue).await
    }

    async fn close(&mut self) -> io::Result<()> {
        self.flush().await?;
        self.writer.shutdown().await
    }
}

/// The reading half: bytes in, one classified JSON text per line out.
#[derive(Debug)]
pub struct UnixReceiver {
    reader: OwnedReadHalf,
    codec: LineCodec,
    buf: BytesMut,
}

impl TransportReceiver for UnixReceiver {
    type Error = io::Error;

    async fn recv(&mut self) -> Option<io::Result<Inbound>> {
        loop {
            // A bad line is data for the engine to answer, not a failure.
            if let Some(line) = self.codec.decode(&mut self.buf) {
                return Some(Ok(line.unwrap_or_else(Inbound::from)));
            }
            // Cancel safe: `read_buf` takes nothing unless it completes.
            self.buf.reserve(8 * 1024);
            match self.reader.read_buf(&mut self.buf).await {
                Ok(0) => break,
                Ok(_) => {}
                Err(error) => return Some(Err(error)),
            }
        }
        // The peer is done: a last line without its newline, then `None`.
        let line = self.codec.decode_eof(&mut self.buf)?;
        Some(Ok(line.unwrap_or_else(Inbound::from)))
    }
}
