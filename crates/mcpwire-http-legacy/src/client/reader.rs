//! The legacy client's reading side: opening the SSE stream until its
//! `endpoint` event, then reading `message` events in a task of its own.

use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use http::{HeaderMap, Method, Request, Uri};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use mcpwire_http::client::HttpClient;
use mcpwire_http::sse::{Decoder, MESSAGE};
use mcpwire_jsonrpc::{ClassifyError, Inbound};
use tokio::sync::mpsc;

use super::error::Error;

/// What an inbound queue carries.
pub(crate) type Item = Result<Inbound, Error>;

/// An SSE stream whose `endpoint` event has been read.
pub(crate) struct Opened {
    pub(crate) body: Incoming,
    /// Holds the events that came in the same chunks as `endpoint`.
    pub(crate) decoder: Decoder,
    /// The `endpoint` event's data.
    pub(crate) endpoint: String,
}

/// GETs the SSE URL and reads up to the first event, which must be
/// `endpoint` (LEG-04), all within `timeout`.
pub(crate) async fn open(
    http: &HttpClient,
    url: &Uri,
    headers: &HeaderMap,
    max_event_size: usize,
    timeout: Duration,
) -> Result<Opened, Error> {
    let exchange = async {
        let mut request = Request::builder().method(Method::GET).uri(url.clone());
        if let Some(request_headers) = request.headers_mut() {
            request_headers.clone_from(headers);
            request_headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            request_headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        }
        let request = request
            .body(Bytes::new())
            .map_err(|error| Error::Request(error.into()))?;
        let response = http.request(request).await.map_err(Error::Request)?;
        let status = response.status();
        if !status.is_success() {
            let www_authenticate = response
                .headers()
                .get(WWW_AUTHENTICATE)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            return Err(Error::Status {
                status,
                www_authenticate,
            });
        }
        let media = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        let essence = media.split(';').next().unwrap_or_default().trim();
        if !essence.eq_ignore_ascii_case("text/event-stream") {
            return Err(Error::NotEventStream(media.to_owned()));
        }
        let mut body = response.into_body();
        let mut decoder = Decoder::with_max_event_size(max_event_size);
        loop {
            match decoder.next_event() {
                Some(Ok(event)) if event.event_type() == "endpoint" => {
                    return Ok(Opened {
                        body,
                        decoder,
                        endpoint: event.data,
                    });
                }
                Some(Ok(event)) => {
                    let kind = event.event_type().to_owned();
                    return Err(Error::NoEndpoint(format!("the first event was {kind:?}")));
                }
                Some(Err(error)) => return Err(Error::NoEndpoint(error.to_string())),
                None => match body.frame().await {
                    None => {
                        return Err(Error::NoEndpoint(
                            "the stream ended before any event".to_owned(),
                        ));
                    }
                    Some(Err(error)) => return Err(Error::Request(error.into())),
                    Some(Ok(frame)) => {
                        if let Some(data) = frame.data_ref() {
                            decoder.feed(data);
                        }
                    }
                },
            }
        }
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| Error::Timeout(timeout))?
}

/// Reads the rest of the stream into `inbound`: each `message` event as a
/// classified packet (LEG-06), other events ignored. Ends when the stream
/// does, when nobody receives any more, or when no byte came for `idle`
/// (reported as [`Error::StreamIdle`], as a broken stream reports its
/// error); the connection then closes, which ends the session on the
/// server.
pub(crate) async fn run(mut opened: Opened, inbound: mpsc::Sender<Item>, idle: Duration) {
    loop {
        while let Some(event) = opened.decoder.next_event() {
            let packet = match event {
                Ok(event) if event.event_type() != MESSAGE => {
                    tracing::debug!(
                        event = event.event_type(),
                        "ignoring an SSE event that is not a message"
                    );
                    continue;
                }
                // An empty event carries no message.
                Ok(event) if event.data.trim().is_empty() => continue,
                Ok(event) => Inbound::from_slice(event.data.as_bytes()),
                Err(error) => {
                    Inbound::Invalid(ClassifyError::invalid_request(error.to_string(), None))
                }
            };
            if inbound.send(Ok(packet)).await.is_err() {
                return;
            }
        }
        // The wait restarts at every frame, whatever it holds: keep-alive
        // comments are what tell a quiet stream from a dead connection. It
        // does not run while the queue is full (above), so a caller that
        // stops receiving is not mistaken for a silent server.
        let frame = tokio::select! {
            frame = within(idle, opened.body.frame()) => frame,
            () = inbound.closed() => return,
        };
        match frame {
            None => {
                tracing::debug!(
                    ?idle,
                    "the legacy SSE stream was silent too long; dropping it"
                );
                // Closes the connection at once (an HTTP/1.1 connection
                // with an unfinished body is not reused), not after the
                // caller took the error.
                drop(opened);
                let _ = inbound.send(Err(Error::StreamIdle(idle))).await;
                return;
            }
            Some(None) => {
                tracing::debug!("the legacy server ended the SSE stream");
                return;
            }
            Some(Some(Err(error))) => {
                let _ = inbound.send(Err(Error::Request(error.into()))).await;
                return;
            }
            Some(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    opened.decoder.feed(data);
                }
            }
        }
    }
}

/// `work`'s outcome, or `None` when `idle` passed first; `Duration::MAX`
/// (the default) is no bound, and then no timer is armed for each frame.
async fn within<F: Future>(idle: Duration, work: F) -> Option<F::Output> {
    if idle == Duration::MAX {
        return Some(work.await);
    }
    tokio::time::timeout(idle, work).await.ok()
}
