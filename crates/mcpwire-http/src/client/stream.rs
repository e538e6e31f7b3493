//! Reading SSE streams: a POST's response stream, its resumption with GET
//! and `Last-Event-ID`, and the standalone GET stream (reopened when it
//! ends, and when it stays silent past the idle timeout).

use std::sync::Arc;
use std::time::Duration;

use http::{Method, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use mcpwire_jsonrpc::{ClassifyError, Inbound, RequestId};
use tokio::sync::mpsc;

use super::error::{codes, describe};
use super::post::{media_type, within};
use super::shared::{EVENT_STREAM, PostPlan, Shared};
use crate::sse::{Decoder, MESSAGE};

/// How long opening a GET stream may take when no request timeout is set.
const STREAM_OPEN_TIMEOUT: Duration = Duration::from_secs(30);

/// Reads the SSE answer to a POST until every request in it is answered.
///
/// When the stream ends early, a handshake-era stream that carried an
/// event id is resumed with a GET and `Last-Event-ID` (HTTP-15, HTTP-30)
/// after the server's `retry` delay (HTTP-17), within the reconnection
/// policy's bounds. A 2026-07-28 stream cannot be resumed, so its requests
/// fail, as do those of a stream that gave up.
pub(crate) async fn follow_post_stream(shared: &Arc<Shared>, plan: &PostPlan, body: Incoming) {
    let policy = shared.options.reconnect;
    let mut decoder = Decoder::with_max_event_size(shared.options.max_event_size);
    let mut pending = plan.requests.clone();
    let mut body = Some(body);
    let mut resumed = false;
    let mut failures = 0u32;
    loop {
        if let Some(stream) = body.take() {
            // No idle bound here: the engine times out the requests the
            // stream carries, which closes it (see `nothing_pending`).
            match read_stream(
                shared,
                &plan.inbound,
                &mut decoder,
                stream,
                Some(&mut pending),
                None,
            )
            .await
            {
                Read::Closed => return,
                Read::Ended { events } if events > 0 => failures = 0,
                Read::Ended { .. } if resumed => failures += 1,
                Read::Ended { .. } | Read::Idle => {}
            }
        }
        shared.retain_in_flight(&mut pending);
        if pending.is_empty() {
            return;
        }
        let give_up = if plan.stateless {
            Some("the response stream ended before the response (2026-07-28 streams cannot be resumed)".to_owned())
        } else if decoder.last_event_id().is_empty() {
            Some(
                "the response stream ended before the response, with no event id to resume from"
                    .to_owned(),
            )
        } else if failures > policy.max_failures {
            Some(format!(
                "the response stream ended before the response and {failures} attempts to resume it failed"
            ))
        } else if plan
            .session
            .is_some_and(|session| session != shared.generation())
        {
            // The session ended; its requests were answered then.
            return;
        } else {
            None
        };
        if let Some(reason) = give_up {
            shared
                .fail(&plan.inbound, &pending, codes::STREAM_LOST, &reason)
                .await;
            return;
        }
        tokio::time::sleep(policy.delay(decoder.retry(), failures)).await;
        // The requests may have been answered elsewhere, or cancelled,
        // while we waited.
        shared.retain_in_flight(&mut pending);
        if pending.is_empty() {
            return;
        }
        resumed = true;
        tracing::debug!(
            last_event_id = decoder.last_event_id(),
            "resuming a response stream"
        );
        match open_stream(shared, Some(decoder.last_event_id())).await {
            Opened::Stream(stream) => body = Some(stream),
            Opened::Refused(status) => {
                let reason = format!(
                    "the response stream ended before the response and the server refused to resume it ({status})"
                );
                shared
                    .fail(&plan.inbound, &pending, codes::STREAM_LOST, &reason)
                    .await;
                return;
            }
            Opened::Failed(reason) => {
                tracing::debug!(reason, "resuming a response stream failed");
                failures += 1;
            }
            Opened::Closed => return,
        }
    }
}

/// Keeps the standalone GET stream of session `generation` open: reads it,
/// and reconnects (with `Last-Event-ID` once the server gave ids) when the
/// server closes it or it stays silent for
/// [`ClientOptions::get_stream_idle_timeout`](super::ClientOptions::get_stream_idle_timeout),
/// until the session changes, the client closes, the server says it offers
/// no stream (any 4xx, typically 405), or the reconnection policy gives up.
///
/// `answered` fires once the first GET got its answer (or failed), so that
/// the sender can wait for the stream before sending on.
pub(crate) async fn run_standalone(
    shared: Arc<Shared>,
    generation: u64,
    answered: tokio::sync::oneshot::Sender<()>,
) {
    let mut answered = Some(answered);
    let policy = shared.options.reconnect;
    let mut decoder = Decoder::with_max_event_size(shared.options.max_event_size);
    let mut failures = 0u32;
    let mut first = true;
    loop {
        if shared.generation() != generation {
            return;
        }
        if !first {
            tokio::time::sleep(policy.delay(decoder.retry(), failures)).await;
        }
        first = false;
        let last_event_id = Some(decoder.last_event_id()).filter(|id| !id.is_empty());
        let Some(inbound) = shared.inbound_sender() else {
            return;
        };
        let opened = open_stream(&shared, last_event_id).await;
        if let Some(answered) = answered.take() {
            // The sender may have stopped waiting: nothing to tell then.
            let _ = answered.send(());
        }
        match opened {
            Opened::Stream(stream) => {
                // `Duration::MAX` is no bound: no timer at all then.
                let idle = Some(shared.options.get_stream_idle_timeout)
                    .filter(|idle| *idle != Duration::MAX);
                match read_stream(&shared, &inbound, &mut decoder, stream, None, idle).await {
                    Read::Closed => return,
                    Read::Ended { events } if events > 0 => failures = 0,
                    Read::Ended { .. } => failures += 1,
                    // Not a failure: the server answered, and the stream
                    // lasted the whole idle timeout, which spaces these
                    // reconnections. Counting them would make a quiet
                    // server that sends no keep-alives lose its stream
                    // after a few timeouts.
                    Read::Idle => {
                        tracing::debug!(
                            "the standalone SSE stream was silent too long; reopening it"
                        );
                        failures = 0;
                    }
                }
            }
            Opened::Refused(status) => {
                tracing::debug!(%status, "the server offers no standalone SSE stream");
                return;
            }
            Opened::Failed(reason) => {
                tracing::debug!(reason, "opening the standalone SSE stream failed");
                failures += 1;
            }
            Opened::Closed => return,
        }
        if failures > policy.max_failures {
            tracing::warn!(failures, "giving up on the standalone SSE stream");
            return;
        }
    }
}

/// The outcome of a GET for an SSE stream.
enum Opened {
    Stream(Incoming),
    /// A 4xx: asking again will not help.
    Refused(StatusCode),
    /// Worth another try later.
    Failed(String),
    /// The client is closed.
    Closed,
}

async fn open_stream(shared: &Shared, last_event_id: Option<&str>) -> Opened {
    let Some(mut request) = shared.fetch(&Method::GET, last_event_id) else {
        return Opened::Closed;
    };
    super::post::authorize(shared, &Method::GET, request.headers_mut()).await;
    let timeout = shared
        .options
        .request_timeout
        .unwrap_or(STREAM_OPEN_TIMEOUT);
    match within(Some(timeout), shared.http.exchange(request)).await {
        Ok(response) => {
            let status = response.status();
            if status.is_success()
                && media_type(response.headers()).as_deref() == Some(EVENT_STREAM)
            {
                Opened::Stream(response.into_body())
            } else if status.is_client_error() {
                Opened::Refused(status)
            } else {
                Opened::Failed(format!(
                    "the server answered {status} without an SSE stream"
                ))
            }
        }
        Err(error) => Opened::Failed(describe(&error)),
    }
}

/// How reading a stream ended.
enum Read {
    /// The stream ended (or every awaited answer came); `events` counts
    /// the events it carried.
    Ended { events: usize },
    /// No byte came for the idle timeout; the connection was dropped.
    Idle,
    /// The client is closed.
    Closed,
}

/// Whether a stream waits on requests (`pending`) none of which awaits an
/// answer any more; `pending` keeps those that still do.
fn nothing_pending(shared: &Shared, pending: Option<&mut Vec<RequestId>>) -> bool {
    pending.is_some_and(|pending| {
        shared.retain_in_flight(pending);
        pending.is_empty()
    })
}

/// Delivers the `message` events of one SSE body. With `pending`, stops
/// as soon as none of those requests awaits an answer any more: after an
/// answer, and at every frame the server sends. With `idle`, stops when no
/// frame comes for that long (dropping `body` closes its connection: an
/// HTTP/1.1 connection with an unfinished body is not reused).
async fn read_stream(
    shared: &Shared,
    inbound: &mpsc::Sender<Inbound>,
    decoder: &mut Decoder,
    mut body: Incoming,
    mut pending: Option<&mut Vec<RequestId>>,
    idle: Option<Duration>,
) -> Read {
    let mut events = 0;
    loop {
        // Any frame restarts the wait: keep-alive comments are what keep a
        // quiet stream alive.
        let frame = match idle {
            Some(idle) => match tokio::time::timeout(idle, body.frame()).await {
                Ok(frame) => frame,
                Err(_) => {
                    decoder.finish();
                    return Read::Idle;
                }
            },
            None => body.frame().await,
        };
        match frame {
            Some(Ok(frame)) => {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                decoder.feed(&data);
                // Checked before the events too, so that a stream whose
                // requests were cancelled or answered elsewhere ends at its
                // next frame, whatever that frame holds: comments, other
                // event types and empty events answer nothing, and a
                // server that sends only those must not keep it open.
                if nothing_pending(shared, pending.as_deref_mut()) {
                    decoder.finish();
                    return Read::Ended { events };
                }
                while let Some(item) = decoder.next_event() {
                    let packet = match item {
                        Ok(event) => {
                            events += 1;
                            // Priming events carry no data (HTTP-13); other
                            // event types are not MCP messages.
                            if event.event_type() != MESSAGE || event.data.trim().is_empty() {
                                continue;
                            }
                            Inbound::from_slice(event.data.as_bytes())
                        }
                        Err(error) => Inbound::Invalid(ClassifyError::invalid_request(
                            error.to_string(),
                            None,
                        )),
                    };
                    if !shared.deliver(inbound, packet).await {
                        return Read::Closed;
                    }
                    if nothing_pending(shared, pending.as_deref_mut()) {
                        decoder.finish();
                        return Read::Ended { events };
                    }
                }
            }
            Some(Err(error)) => {
                tracing::debug!(%error, "an SSE stream broke");
                break;
            }
            None => break,
        }
    }
    decoder.finish();
    Read::Ended { events }
}
