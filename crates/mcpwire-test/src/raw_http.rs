//! A hand-scripted HTTP/1.1 server's reads and writes, for tests that
//! need a peer doing exactly what they say on the wire (a silent SSE
//! stream, keep-alive comments that stop): one request read at a time,
//! chunked SSE bodies written by hand.

use std::time::Duration;

use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::time::Instant;

/// The head of a `200` SSE response with a chunked body: write the events
/// after it with [`write_chunk`].
pub const SSE_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

/// One request, as read off the wire.
#[derive(Debug)]
pub struct RawRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The header lines, names as sent.
    pub headers: Vec<(String, String)>,
    /// The body (`Content-Length` bytes; chunked bodies are not read).
    pub body: Vec<u8>,
}

impl RawRequest {
    /// The first value of header `name` (compared without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Reads the next request; `None` when the client closed the connection
/// or sent something that is not an HTTP/1.1 request head.
pub async fn read_request<R: AsyncBufRead + Unpin>(read: &mut R) -> Option<RawRequest> {
    let mut line = String::new();
    if read.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let method = line.split(' ').next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if read.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    let mut request = RawRequest {
        method,
        headers,
        body: Vec::new(),
    };
    let length = match request.header("content-length") {
        Some(length) => length.parse().ok()?,
        None => 0,
    };
    request.body = vec![0; length];
    read.read_exact(&mut request.body).await.ok()?;
    Some(request)
}

/// Writes one chunk of a chunked body.
///
/// # Errors
///
/// When the connection fails (the client closed it).
pub async fn write_chunk<W: AsyncWrite + Unpin>(write: &mut W, data: &[u8]) -> std::io::Result<()> {
    write
        .write_all(format!("{:x}\r\n", data.len()).as_bytes())
        .await?;
    write.write_all(data).await?;
    write.write_all(b"\r\n").await
}

/// Writes an SSE keep-alive comment every `every` for `duration`, or until
/// the client closes the connection.
pub async fn keep_alives<W: AsyncWrite + Unpin>(
    write: &mut W,
    every: Duration,
    duration: Duration,
) {
    let until = Instant::now() + duration;
    while Instant::now() < until {
        tokio::time::sleep(every).await;
        if write_chunk(write, b": keep-alive\n\n").await.is_err() {
            return;
        }
    }
}

/// Holds the connection, reading and dropping whatever comes, until the
/// client closes it.
pub async fn hold_until_closed<R: AsyncRead + Unpin>(read: &mut R) {
    let mut rest = [0u8; 64];
    while matches!(read.read(&mut rest).await, Ok(n) if n > 0) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn requests_are_read_one_at_a_time_with_their_headers_and_bodies() {
        let wire = b"POST /mcp HTTP/1.1\r\nContent-Length: 2\r\nLast-Event-ID: 7-1\r\n\r\n{}GET /mcp HTTP/1.1\r\n\r\n";
        let mut read = &wire[..];
        let post = read_request(&mut read).await.unwrap();
        assert_eq!(post.method, "POST");
        assert_eq!(post.header("last-event-id"), Some("7-1"));
        assert_eq!(post.body, b"{}");
        let get = read_request(&mut read).await.unwrap();
        assert_eq!((get.method.as_str(), get.body.len()), ("GET", 0));
        assert!(
            read_request(&mut read).await.is_none(),
            "the end of the input"
        );
    }

    #[tokio::test]
    async fn a_chunk_is_framed_with_its_length_in_hex() {
        let mut written = Vec::new();
        write_chunk(&mut written, &[b'x'; 26]).await.unwrap();
        assert_eq!(written, [&b"1a\r\n"[..], &[b'x'; 26], b"\r\n"].concat());
    }
}
