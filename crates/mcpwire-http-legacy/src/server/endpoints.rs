//! The two legacy endpoints: GET of the SSE path opens a session (LEG-03,
//! LEG-04), POST of the message path delivers one client message to it
//! (LEG-05).

use std::sync::Arc;

use bytes::BytesMut;
use http::StatusCode;
use http::request::Parts;
use mcpwire_http::server::SessionId;
use mcpwire_http::server::body::{
    self, HttpResponse, ReadError, SendBody, empty, read_limited, sse,
};
use mcpwire_http::server::security::is_json_content;
use mcpwire_http::sse::Event;
use mcpwire_jsonrpc::Inbound;
use tokio::sync::mpsc;

use super::service::Shared;
use super::session::{SessionState, StreamSettings, stream, wait_ended};
use super::transport::LegacyTransport;

/// The query parameter naming the session in the POST URI, as 2024-11-05
/// servers spelled it.
pub(crate) const SESSION_PARAMETER: &str = "sessionId";

/// Opens a session: a new id, a transport for the connect hook, and the
/// SSE stream whose first event is `endpoint`, naming the URI to POST to.
pub(crate) fn open_session(shared: &Arc<Shared>) -> HttpResponse {
    let config = &shared.config;
    let Some(id) = SessionId::generate() else {
        tracing::error!("the operating system's random number generator failed");
        return refusal(
            StatusCode::INTERNAL_SERVER_ERROR,
            "could not create a session id",
        );
    };
    let (inbox_sender, inbox) = mpsc::channel(config.inbox_capacity);
    let (outbox, outbox_receiver) = mpsc::channel(config.stream_buffer);
    let state = Arc::new(SessionState::new(Arc::from(id.as_str())));
    if !shared
        .registry
        .insert(&state, inbox_sender, config.max_sessions)
    {
        return unavailable("too many legacy sessions; try again later");
    }
    // A relative URI: the client resolves it against the SSE URL, so the
    // server never has to know the name it is reached by.
    let uri = format!("{}?{SESSION_PARAMETER}={}", config.message_path, state.id);
    let mut endpoint = BytesMut::new();
    if Event::new(uri)
        .with_event("endpoint")
        .encode(&mut endpoint)
        .is_err()
    {
        shared.registry.end(&state);
        return refusal(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the endpoint event could not be written",
        );
    }
    let settings = StreamSettings {
        keep_alive: config.keep_alive,
        idle_timeout: config.idle_timeout,
    };
    let body = stream(
        Arc::clone(&shared.registry),
        Arc::clone(&state),
        endpoint.freeze(),
        outbox_receiver,
        &settings,
    );
    tracing::debug!(session = %state.id, "legacy session opened");
    let transport = LegacyTransport::new(
        &state,
        Arc::clone(&shared.registry),
        outbox,
        inbox,
        config.send_timeout,
    );
    shared.connect(transport);
    sse(body)
}

/// Delivers a POSTed message to its session: 202 once the session's inbox
/// took it, whatever the message is (the runtime answers what is not
/// JSON-RPC, on the stream).
pub(crate) async fn deliver<B>(shared: &Arc<Shared>, parts: &Parts, body: B) -> HttpResponse
where
    B: SendBody,
{
    let config = &shared.config;
    let Some(id) = session_parameter(parts.uri.query()) else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "the sessionId query parameter is required",
        );
    };
    let Some((inbox, state)) = shared.registry.lookup(id) else {
        return refusal(StatusCode::NOT_FOUND, "no such session");
    };
    if !is_json_content(&parts.headers) {
        return refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the Content-Type must be application/json",
        );
    }
    let reading = read_limited(&parts.headers, body, config.max_body);
    let Ok(read) = tokio::time::timeout(config.body_read_timeout, reading).await else {
        return refusal(
            StatusCode::REQUEST_TIMEOUT,
            "the body did not arrive in time",
        );
    };
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(error @ ReadError::TooLarge { .. }) => {
            return refusal(StatusCode::PAYLOAD_TOO_LARGE, &error.to_string());
        }
        Err(error) => {
            tracing::debug!(%error, "reading a legacy POST body failed");
            return refusal(StatusCode::BAD_REQUEST, "the body could not be read");
        }
    };
    state.touch();
    let inbound = Inbound::from_slice(&bytes);
    let mut ended = state.subscribe();
    tokio::select! {
        biased;
        () = wait_ended(&mut ended) => refusal(StatusCode::NOT_FOUND, "the session has ended"),
        queued = tokio::time::timeout(config.send_timeout, inbox.send(inbound)) => match queued {
            Ok(Ok(())) => empty(StatusCode::ACCEPTED),
            Ok(Err(_)) => refusal(StatusCode::NOT_FOUND, "the session has ended"),
            Err(_) => {
                tracing::warn!(session = %state.id, "a legacy session's runtime does not read its messages");
                unavailable("the session is busy")
            }
        },
    }
}

/// A response with `status` whose body is a JSON-RPC error without id
/// saying `reason` after the status's name: what the Streamable HTTP
/// endpoint answers too, so a client reads both endpoints' refusals alike.
pub(crate) fn refusal(status: StatusCode, reason: &str) -> HttpResponse {
    let name = status.canonical_reason().unwrap_or("Refused");
    body::invalid_request(status, &format!("{name}: {reason}"))
}

/// 503 asking the client to come back in a few seconds.
fn unavailable(reason: &str) -> HttpResponse {
    body::unavailable(&format!("Service Unavailable: {reason}"))
}

/// The value of the `sessionId` query parameter.
fn session_parameter(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == SESSION_PARAMETER)
        .map(|(_, value)| value)
        .filter(|value| !value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_parameter_is_found_among_others() {
        assert_eq!(session_parameter(Some("a=1&sessionId=abc")), Some("abc"));
        assert_eq!(session_parameter(Some("sessionId=")), None);
        assert_eq!(session_parameter(Some("sessionid=abc")), None);
        assert_eq!(session_parameter(None), None);
    }
}
