//! The response body type, the responses the server builds, the bounded
//! reading of request bodies, and the encoding of the SSE events it writes.
//!
//! Public so that other MCP endpoints hosted beside [`StreamableHttp`]
//! (such as the legacy HTTP+SSE endpoints of `mcpwire-http-legacy`) answer
//! with the same body type and read bodies under the same rules.
//!
//! [`StreamableHttp`]: super::StreamableHttp

use core::convert::Infallible;
use core::error::Error as StdError;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use bytes::{Buf, Bytes, BytesMut};
use futures_util::Stream;
use http::header::{ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use http::{HeaderMap, Response, StatusCode};
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;
use mcpwire_jsonrpc::{ErrorObject, ErrorResponse, Message, RequestId};

/// The body of every response of the server: empty, one JSON document, or
/// an SSE stream that ends when the MCP stream (or the connection) does.
pub struct ResponseBody {
    kind: Kind,
}

enum Kind {
    Full(Option<Bytes>),
    Stream(Pin<Box<dyn Stream<Item = Bytes> + Send>>),
}

impl ResponseBody {
    /// An empty body.
    pub fn empty() -> Self {
        Self {
            kind: Kind::Full(None),
        }
    }

    /// A body of `bytes`, sent whole (empty bytes make an empty body).
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        let bytes = bytes.into();
        Self {
            kind: Kind::Full((!bytes.is_empty()).then_some(bytes)),
        }
    }

    /// A body of the chunks `stream` yields, ending when it does.
    pub fn stream(stream: impl Stream<Item = Bytes> + Send + 'static) -> Self {
        Self {
            kind: Kind::Stream(Box::pin(stream)),
        }
    }
}

impl core::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.kind {
            Kind::Full(bytes) => f
                .debug_tuple("ResponseBody")
                .field(&bytes.as_ref().map_or(0, Bytes::len))
                .finish(),
            Kind::Stream(_) => f.write_str("ResponseBody(stream)"),
        }
    }
}

impl http_body::Body for ResponseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.kind {
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream(stream) => stream
                .as_mut()
                .poll_next(cx)
                .map(|chunk| chunk.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.kind, Kind::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full(bytes) => SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64)),
            Kind::Stream(_) => SizeHint::default(),
        }
    }
}

/// The response type of the server.
pub type HttpResponse = Response<ResponseBody>;

/// The future of the server's `tower::Service::call`: it always yields a
/// response, refusals included, and never an error.
pub type ResponseFuture = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

/// A response with `status` and no body.
pub fn empty(status: StatusCode) -> HttpResponse {
    let mut response = Response::new(ResponseBody::empty());
    *response.status_mut() = status;
    response
}

/// A response with `status` and a JSON body (`application/json`).
pub fn json(status: StatusCode, body: impl Into<Bytes>) -> HttpResponse {
    let mut response = Response::new(ResponseBody::full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A response with `status` whose body is a JSON-RPC error answering `id`
/// (`null` when unknown).
pub fn rpc_error(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> HttpResponse {
    let message = Message::Error(ErrorResponse::new(id, error));
    json(status, message.to_vec())
}

/// A response with `status` whose body is a JSON-RPC Invalid Request
/// error without id saying `message`: how the server refuses a request
/// before any JSON-RPC message of it is known.
pub fn invalid_request(status: StatusCode, message: &str) -> HttpResponse {
    rpc_error(status, None, ErrorObject::invalid_request(message))
}

/// A 503 refusal saying `message`, asking the client with `Retry-After`
/// to come back in a few seconds.
pub fn unavailable(message: &str) -> HttpResponse {
    let mut response = invalid_request(StatusCode::SERVICE_UNAVAILABLE, message);
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// A 405 response whose `Allow` header lists `allow` (`"GET, POST"`).
pub fn method_not_allowed(allow: &'static str) -> HttpResponse {
    let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

/// A 200 response streaming `events` as `text/event-stream`, uncached and
/// unbuffered by proxies.
pub fn sse(events: impl Stream<Item = Bytes> + Send + 'static) -> HttpResponse {
    let mut response = Response::new(ResponseBody::stream(events));
    sse_headers(response.headers_mut());
    response
}

/// A 200 `text/event-stream` response whose events are all known: sent
/// whole, with its length (a POST stream answered at once).
pub(crate) fn sse_whole(events: Bytes) -> HttpResponse {
    let mut response = Response::new(ResponseBody::full(events));
    sse_headers(response.headers_mut());
    response
}

/// [`sse`] for a standalone GET stream, its headers in a map made for
/// them: hyper keeps a response's emptied header map, for the connection's
/// next request, as long as the connection is open, and a map's first
/// insert makes room for six (about 650 bytes a stream against 330).
/// POST streams keep [`sse`]'s map: hyper would grow a smaller one again
/// for their connection's next request.
pub(crate) fn standalone_sse(events: impl Stream<Item = Bytes> + Send + 'static) -> HttpResponse {
    let mut response = Response::new(ResponseBody::stream(events));
    let headers = response.headers_mut();
    *headers = HeaderMap::with_capacity(3);
    sse_headers(headers);
    response
}

/// The headers of an SSE response (three).
fn sse_headers(headers: &mut HeaderMap) {
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Tells reverse proxies not to buffer the stream (2026-07-28).
    headers.insert(
        super::names::ACCEL_BUFFERING,
        HeaderValue::from_static("no"),
    );
}

/// A body that can cross tasks and threads: `Send`, `'static`, with `Send`
/// chunks and errors that convert into a boxed error. Every request body
/// the servers take, and every response body [`serve`](super::serve())
/// sends, is one; it is implemented for every such body (hyper's
/// `Incoming`, axum's `Body`, [`ResponseBody`], ...).
pub trait SendBody:
    http_body::Body<Data: Send, Error: Into<Box<dyn StdError + Send + Sync>>> + Send + 'static
{
}

impl<B> SendBody for B
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
}

/// Why [`read_limited`] read no body.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The body is larger than the limit, by its `Content-Length` or by
    /// what arrived (answer 413).
    #[error("the body exceeds {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The body could not be read: the connection broke or the client
    /// sent a malformed body (answer 400).
    #[error("the body could not be read")]
    Unreadable(#[source] Box<dyn StdError + Send + Sync>),
}

/// Reads a whole request body of at most `limit` bytes. A declared
/// `Content-Length` over the limit is refused before anything is read, and
/// reading stops as soon as the limit is passed, so a client can never
/// make the server hold more than `limit` bytes of one body.
///
/// # Errors
///
/// [`ReadError::TooLarge`] past the limit, [`ReadError::Unreadable`] when
/// the body fails.
pub async fn read_limited<B>(headers: &HeaderMap, body: B, limit: usize) -> Result<Bytes, ReadError>
where
    B: SendBody,
{
    read_declared(
        headers.get(CONTENT_LENGTH).and_then(content_length),
        body,
        limit,
    )
    .await
}

/// The length a `Content-Length` value declares: what `u64::from_str`
/// reads from it (an optional `+`, then digits), read from the bytes
/// without a string conversion; `None` when it is not such a number.
pub(crate) fn content_length(value: &HeaderValue) -> Option<u64> {
    let bytes = value.as_bytes();
    let digits = bytes.strip_prefix(b"+").unwrap_or(bytes);
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0_u64, |length, &byte| {
        if !byte.is_ascii_digit() {
            return None;
        }
        length.checked_mul(10)?.checked_add(u64::from(byte - b'0'))
    })
}

/// [`read_limited`] given the length `Content-Length` declares, if any.
pub(crate) async fn read_declared<B>(
    declared: Option<u64>,
    body: B,
    limit: usize,
) -> Result<Bytes, ReadError>
where
    B: SendBody,
{
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(ReadError::TooLarge { limit });
    }
    let mut body = core::pin::pin!(body);
    // A body usually arrives as one frame: it is kept as it is, and the
    // frames are copied into one buffer only when there are several.
    let mut whole: Option<Bytes> = None;
    let mut joined: Option<BytesMut> = None;
    let mut total = 0_usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| ReadError::Unreadable(error.into()))?;
        // Trailers carry nothing a server reads.
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        let length = data.remaining();
        total = total.saturating_add(length);
        if total > limit {
            return Err(ReadError::TooLarge { limit });
        }
        let chunk = data.copy_to_bytes(length);
        if let Some(buffer) = joined.as_mut() {
            buffer.extend_from_slice(&chunk);
        } else if let Some(first) = whole.take() {
            let capacity = declared.map_or(0, |length| length as usize);
            let mut buffer = BytesMut::with_capacity(capacity.max(first.len() + chunk.len()));
            buffer.extend_from_slice(&first);
            buffer.extend_from_slice(&chunk);
            joined = Some(buffer);
        } else {
            whole = Some(chunk);
        }
        // With a known length the end shows here, sparing one more poll.
        if body.is_end_stream() {
            break;
        }
    }
    Ok(joined.map(BytesMut::freeze).or(whole).unwrap_or_default())
}

/// The SSE encoding of what the server writes: events, priming events,
/// `retry:` fields and keep-alive comments.
///
/// Frames are appended to the buffer of the next write, sized exactly when
/// it is empty: a buffer whose length is its capacity becomes `Bytes`
/// without the extra allocation `Bytes` otherwise makes for it, so a write
/// of one frame (a POST's answer) costs one allocation.
pub(crate) mod frames {
    #[cfg(test)]
    use super::Bytes;

    /// A comment that keeps an idle connection open.
    pub(crate) const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

    /// Makes room for `additional` bytes: exactly in an empty buffer (one
    /// frame is the usual write), amortized in a growing one (a replay).
    fn reserve(out: &mut Vec<u8>, additional: usize) {
        if out.is_empty() {
            out.reserve_exact(additional);
        } else {
            out.reserve(additional);
        }
    }

    /// Appends an event carrying `data`, with the event id of event `seq`
    /// of stream `stream` when given (`"{stream}-{seq}"`, see
    /// `stream_response::event_id`). Each line of `data` becomes a `data:`
    /// line (packets are encoded on one line, so there is normally one).
    pub(crate) fn put_event(out: &mut Vec<u8>, id: Option<(u64, u64)>, data: &[u8]) {
        let id_len = id.map_or(0, |(stream, seq)| {
            b"id: ".len() + decimal_len(stream) + 1 + decimal_len(seq) + 1
        });
        // One line, found with a vectorised search rather than a byte
        // loop: answers may be megabytes.
        let one_line = memchr::memchr2(b'\n', b'\r', data).is_none();
        let data_len = if one_line {
            b"data: ".len() + data.len() + 2
        } else {
            data.split(|&b| b == b'\n')
                .map(|line| b"data: ".len() + strip_cr(line).len() + 1)
                .sum::<usize>()
                + 1
        };
        reserve(out, id_len + data_len);
        if let Some((stream, seq)) = id {
            // Written in place, without `format!`'s allocation and
            // formatting machinery: this runs for every event.
            out.extend_from_slice(b"id: ");
            put_decimal(out, stream);
            out.push(b'-');
            put_decimal(out, seq);
            out.push(b'\n');
        }
        if one_line {
            out.extend_from_slice(b"data: ");
            out.extend_from_slice(data);
            out.extend_from_slice(b"\n\n");
            return;
        }
        for line in data.split(|&b| b == b'\n') {
            out.extend_from_slice(b"data: ");
            out.extend_from_slice(strip_cr(line));
            out.push(b'\n');
        }
        out.push(b'\n');
    }

    fn strip_cr(line: &[u8]) -> &[u8] {
        line.strip_suffix(b"\r").unwrap_or(line)
    }

    /// How many decimal digits `number` has.
    fn decimal_len(number: u64) -> usize {
        number.checked_ilog10().map_or(1, |log| log as usize + 1)
    }

    /// Appends `number` in decimal.
    fn put_decimal(out: &mut Vec<u8>, number: u64) {
        let mut digits = [0_u8; 20];
        let mut at = digits.len();
        let mut rest = number;
        loop {
            at -= 1;
            // A remainder of a division by ten always fits in a byte.
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        out.extend_from_slice(&digits[at..]);
    }

    /// Appends the priming event of resumable stream `stream`: the id of
    /// its event 0, the reconnection delay and empty data (HTTP-13,
    /// HTTP-16).
    pub(crate) fn put_priming(out: &mut Vec<u8>, stream: u64, retry_millis: u64) {
        let len = b"id: ".len()
            + decimal_len(stream)
            + b"-0\nretry: ".len()
            + decimal_len(retry_millis)
            + b"\ndata:\n\n".len();
        reserve(out, len);
        out.extend_from_slice(b"id: ");
        put_decimal(out, stream);
        out.extend_from_slice(b"-0\nretry: ");
        put_decimal(out, retry_millis);
        out.extend_from_slice(b"\ndata:\n\n");
    }

    /// Appends a `retry:` field alone, sent before the server closes a
    /// connection without ending the stream (HTTP-16, HTTP-28).
    pub(crate) fn put_retry(out: &mut Vec<u8>, retry_millis: u64) {
        reserve(out, b"retry: ".len() + decimal_len(retry_millis) + 2);
        out.extend_from_slice(b"retry: ");
        put_decimal(out, retry_millis);
        out.extend_from_slice(b"\n\n");
    }

    /// One event as bytes (tests).
    #[cfg(test)]
    pub(crate) fn event(id: Option<(u64, u64)>, data: &[u8]) -> Bytes {
        let mut out = Vec::new();
        put_event(&mut out, id, data);
        assert_eq!(out.len(), out.capacity(), "frames are sized exactly");
        Bytes::from(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body of `chunks`, one frame each, without a declared length.
    fn chunked(chunks: &[&'static [u8]]) -> impl SendBody {
        let frames: Vec<Result<Frame<Bytes>, Infallible>> = chunks
            .iter()
            .map(|chunk| Ok(Frame::data(Bytes::from_static(chunk))))
            .collect();
        http_body_util::StreamBody::new(futures_util::stream::iter(frames))
    }

    #[tokio::test]
    async fn bodies_in_several_frames_are_joined_and_single_frames_kept() {
        let headers = HeaderMap::new();
        let read = read_limited(&headers, chunked(&[b"{\"a\":", b"1", b"}"]), 64).await;
        assert_eq!(&read.unwrap()[..], b"{\"a\":1}");
        let read = read_limited(&headers, chunked(&[b"{}"]), 64).await;
        assert_eq!(&read.unwrap()[..], b"{}");
        let read = read_limited(&headers, chunked(&[]), 64).await;
        assert!(read.unwrap().is_empty());
    }

    #[tokio::test]
    async fn bodies_past_the_limit_are_refused_declared_or_not() {
        let headers = HeaderMap::new();
        let read = read_limited(&headers, chunked(&[b"12345", b"67890"]), 9).await;
        assert!(matches!(read, Err(ReadError::TooLarge { limit: 9 })));
        let read = read_limited(&headers, chunked(&[b"12345", b"6789"]), 9).await;
        assert_eq!(&read.unwrap()[..], b"123456789");
        let mut declared = HeaderMap::new();
        declared.insert(CONTENT_LENGTH, HeaderValue::from_static("10"));
        let read = read_limited(&declared, chunked(&[b"1"]), 9).await;
        assert!(matches!(read, Err(ReadError::TooLarge { limit: 9 })));
    }

    #[test]
    fn frames_follow_the_sse_line_format() {
        assert_eq!(
            &frames::event(Some((3, 1)), b"{}")[..],
            b"id: 3-1\ndata: {}\n\n"
        );
        for (stream, seq) in [(0, 0), (10, 9), (u64::MAX, 1_000_000)] {
            let expected = format!(
                "id: {}\ndata: x\n\n",
                super::super::stream_response::event_id(stream, seq)
            );
            assert_eq!(
                &frames::event(Some((stream, seq)), b"x")[..],
                expected.as_bytes()
            );
        }
        assert_eq!(&frames::event(None, b"a\nb")[..], b"data: a\ndata: b\n\n");
        assert_eq!(
            &frames::event(None, b"a\r\nb\r")[..],
            b"data: a\ndata: b\n\n"
        );
        assert_eq!(&frames::event(None, b"")[..], b"data: \n\n");
        let mut out = Vec::new();
        frames::put_priming(&mut out, 3, 500);
        assert_eq!(&out[..], b"id: 3-0\nretry: 500\ndata:\n\n");
        assert_eq!(out.len(), out.capacity());
        let mut out = Vec::new();
        frames::put_retry(&mut out, 500);
        assert_eq!(&out[..], b"retry: 500\n\n");
        assert_eq!(out.len(), out.capacity());
        // Frames after the first append to the same write.
        frames::put_event(&mut out, Some((10, 0)), b"{}");
        assert_eq!(&out[..], b"retry: 500\n\nid: 10-0\ndata: {}\n\n");
        assert_eq!(frames::KEEP_ALIVE, b": keep-alive\n\n");
    }
}
