//! The response body of the legacy server (empty, one JSON document, or the
//! session's SSE stream) and the responses it builds.

use core::convert::Infallible;
use core::pin::Pin;
use core::task::{Context, Poll};

use bytes::Bytes;
use futures_util::Stream;
use http::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use http::{Response, StatusCode};
use http_body::{Frame, SizeHint};
use mcpwire_jsonrpc::{ErrorObject, ErrorResponse, Message};

/// The body of every response of the legacy server.
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

    fn full(bytes: Bytes) -> Self {
        Self {
            kind: Kind::Full((!bytes.is_empty()).then_some(bytes)),
        }
    }

    fn stream(stream: impl Stream<Item = Bytes> + Send + 'static) -> Self {
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

/// The response type of the legacy server.
pub type HttpResponse = Response<ResponseBody>;

/// A response with `status` and no body.
pub(crate) fn empty(status: StatusCode) -> HttpResponse {
    let mut response = Response::new(ResponseBody::empty());
    *response.status_mut() = status;
    response
}

/// A response with `status` whose body is a JSON-RPC error without id
/// saying `reason`: what the Streamable HTTP endpoint answers too, so a
/// client reads both endpoints' refusals alike.
pub(crate) fn refusal(status: StatusCode, reason: &str) -> HttpResponse {
    let error = ErrorObject::invalid_request(format!(
        "{}: {reason}",
        status.canonical_reason().unwrap_or("Refused")
    ));
    let body = Message::Error(ErrorResponse::new(None, error)).to_vec();
    let mut response = Response::new(ResponseBody::full(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// 405 naming the one method the path takes.
pub(crate) fn method_not_allowed(allow: &'static str) -> HttpResponse {
    let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

/// 503 asking the client to come back in a few seconds.
pub(crate) fn unavailable(reason: &str) -> HttpResponse {
    let mut response = refusal(StatusCode::SERVICE_UNAVAILABLE, reason);
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// A 200 response streaming `events` as `text/event-stream`.
pub(crate) fn sse(events: impl Stream<Item = Bytes> + Send + 'static) -> HttpResponse {
    let mut response = Response::new(ResponseBody::stream(events));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Tells reverse proxies not to buffer the stream.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
