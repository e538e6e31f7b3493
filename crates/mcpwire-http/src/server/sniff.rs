//! Tells an HTTP/2 connection with prior knowledge from an HTTP/1 one by its first bytes, and
//! hands those bytes back to hyper together with whatever else has arrived.
//!
//! hyper-util's auto-detecting builder does the same, but its first read then yields only the
//! (at most 24) sniffed bytes. hyper's HTTP/1 reader, finding its 8 KiB buffer no longer able to
//! take a full 8 KiB read after those, doubles it to 16 KiB, and keeps that for the life of the
//! connection: 8 KiB more for every open connection, long-lived GET streams included (measured:
//! 22.9 KB per open GET stream against 13.3 KB on a plain HTTP/1 connection).
//!
//! The sniffed connection also bounds write stalls: a write the peer leaves pending (it stopped
//! reading) for longer than the write-stall timeout fails, which closes the connection.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::io;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

/// The first bytes of an HTTP/2 connection with prior knowledge (RFC 9113, section 3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// A connection after sniffing: the bytes read so far come first.
pub(crate) struct Sniffed {
    stream: TcpStream,
    prefix: [u8; 24],
    /// The part of `prefix` not handed out yet.
    start: usize,
    end: usize,
    /// How long a write may stay pending.
    stall_limit: Duration,
    /// Armed while a write is pending (kept between stalls to reuse its allocation).
    stall: Option<Pin<Box<Sleep>>>,
    stalled: bool,
}

/// Reads the first bytes of `stream` until they are the HTTP/2 preface, differ from it, or the
/// peer stops sending; returns the connection, whose writes may stay pending for at most
/// `stall_limit`, and whether it speaks HTTP/2.
///
/// # Errors
///
/// When reading fails.
pub(crate) async fn sniff(stream: TcpStream, stall_limit: Duration) -> io::Result<(Sniffed, bool)> {
    let mut prefix = [0_u8; 24];
    let mut end = 0;
    // At most 24 bytes, so at most 24 reads that return data.
    while end < prefix.len() {
        stream.readable().await?;
        match stream.try_read(&mut prefix[end..]) {
            Ok(0) => break,
            Ok(read) => {
                end += read;
                if prefix[..end] != H2_PREFACE[..end] {
                    break;
                }
            }
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
            Err(error) => return Err(error),
        }
    }
    let http2 = prefix[..end] == H2_PREFACE[..];
    let sniffed = Sniffed {
        stream,
        prefix,
        start: 0,
        end,
        stall_limit,
        stall: None,
        stalled: false,
    };
    Ok((sniffed, http2))
}

impl Sniffed {
    /// Passes on the outcome of a write, failing it once the peer has left writes pending for
    /// longer than the limit: a client that never reads its SSE stream would otherwise hold
    /// its connection, its stream and its session forever.
    fn bound_stall<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.stalled = false;
            return poll;
        }
        let deadline = Instant::now() + self.stall_limit;
        let stall = match &mut self.stall {
            Some(stall) if self.stalled => stall,
            Some(stall) => {
                stall.as_mut().reset(deadline);
                stall
            }
            None => self
                .stall
                .insert(Box::pin(tokio::time::sleep_until(deadline))),
        };
        self.stalled = true;
        if stall.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the peer stopped reading for longer than the write-stall timeout",
            )));
        }
        Poll::Pending
    }
}

impl AsyncRead for Sniffed {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.start == this.end {
            return Pin::new(&mut this.stream).poll_read(cx, buf);
        }
        let taken = (this.end - this.start).min(buf.remaining());
        buf.put_slice(&this.prefix[this.start..this.start + taken]);
        this.start += taken;
        if buf.remaining() > 0 {
            // Whatever else is there goes in the same read (see the module docs). Bytes were
            // handed out, so this read is complete whatever the socket says: a failure or the
            // end of the stream shows at the next read.
            let _ = Pin::new(&mut this.stream).poll_read(cx, buf);
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Sniffed {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.bound_stall(cx, written)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.bound_stall(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let flushed = Pin::new(&mut this.stream).poll_flush(cx);
        this.bound_stall(cx, flushed)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(30);

    async fn pair() -> (TcpStream, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let client = TcpStream::connect(address).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        (client, server)
    }

    async fn read_all(sniffed: &mut Sniffed, expected: usize) -> Vec<u8> {
        let mut received = Vec::new();
        let mut buffer = [0_u8; 8192];
        for _ in 0..100 {
            let mut read = ReadBuf::new(&mut buffer);
            std::future::poll_fn(|cx| Pin::new(&mut *sniffed).poll_read(cx, &mut read))
                .await
                .unwrap();
            received.extend_from_slice(read.filled());
            if received.len() >= expected || read.filled().is_empty() {
                break;
            }
        }
        received
    }

    #[tokio::test]
    async fn an_http1_request_is_handed_back_whole_in_the_first_read() {
        let (client, server) = pair().await;
        let request = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
        client.try_write(request).unwrap();
        // Let the whole request arrive before sniffing, as it usually has.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let (mut sniffed, http2) = sniff(server, LIMIT).await.unwrap();
        assert!(!http2);
        let mut buffer = [0_u8; 8192];
        let mut read = ReadBuf::new(&mut buffer);
        std::future::poll_fn(|cx| Pin::new(&mut sniffed).poll_read(cx, &mut read))
            .await
            .unwrap();
        assert_eq!(read.filled(), request);
    }

    #[tokio::test]
    async fn the_http2_preface_is_recognised_and_kept() {
        let (client, server) = pair().await;
        let mut sent = H2_PREFACE.to_vec();
        sent.extend_from_slice(b"\x00\x00\x00\x04\x00\x00\x00\x00\x00");
        // In two writes, the preface split in its middle.
        client.try_write(&sent[..10]).unwrap();
        let sniffing = tokio::spawn(sniff(server, LIMIT));
        tokio::time::sleep(Duration::from_millis(20)).await;
        client.try_write(&sent[10..]).unwrap();
        let (mut sniffed, http2) = sniffing.await.unwrap().unwrap();
        assert!(http2);
        assert_eq!(read_all(&mut sniffed, sent.len()).await, sent);
    }

    /// `serve` answers both versions on one listener: HTTP/1.1, and HTTP/2 with prior knowledge.
    #[cfg(feature = "client")]
    #[tokio::test]
    async fn serve_answers_http1_and_http2_with_prior_knowledge() {
        use core::future::IntoFuture as _;

        use http_body_util::{Empty, Full};
        use hyper_util::rt::{TokioExecutor, TokioIo};

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let service =
            tower::service_fn(|request: http::Request<hyper::body::Incoming>| async move {
                let version = format!("{:?}", request.version());
                Ok::<_, core::convert::Infallible>(http::Response::new(Full::new(
                    bytes::Bytes::from(version),
                )))
            });
        let server = tokio::spawn(super::super::serve(listener, service).into_future());
        let request = || {
            http::Request::builder()
                .uri(format!("http://{address}/mcp"))
                .body(Empty::<bytes::Bytes>::new())
                .unwrap()
        };

        let stream = TcpStream::connect(address).await.unwrap();
        let (mut sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(connection);
        let response = sender.send_request(request()).await.unwrap();
        assert_eq!(response.version(), http::Version::HTTP_2);

        let stream = TcpStream::connect(address).await.unwrap();
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(connection);
        let response = sender.send_request(request()).await.unwrap();
        assert_eq!(response.version(), http::Version::HTTP_11);
        server.abort();
    }

    #[tokio::test]
    async fn a_peer_that_closes_early_is_http1_with_what_it_sent() {
        let (client, server) = pair().await;
        client.try_write(b"PRI").unwrap();
        drop(client);
        let (mut sniffed, http2) = sniff(server, LIMIT).await.unwrap();
        assert!(!http2);
        assert_eq!(read_all(&mut sniffed, 3).await, b"PRI");
    }
}
