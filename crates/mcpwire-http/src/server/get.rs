//! GET (the standalone stream, and resumption of any stream with
//! `Last-Event-ID`) and DELETE (ending a session).

use std::sync::Arc;

use http::StatusCode;
use http::request::Parts;

use super::body::{HttpResponse, empty, invalid_request, method_not_allowed, standalone_sse};
use super::names::{LAST_EVENT_ID, SESSION_ID};
use super::post::{caller_of, check_version_header, store_failed, touch_admitted};
use super::security::accepts;
use super::service::Shared;
use super::stream_response::{SseState, StreamGuard, has_polling, parse_event_id};
use mcpwire_store::{SessionId, StreamEvent, StreamKey};

/// The session a GET or DELETE names: 400 without the header (HTTP-38),
/// 404 for an id this server could never have issued.
fn session_of(parts: &Parts) -> Result<SessionId, Box<HttpResponse>> {
    let raw = parts.headers.get(&SESSION_ID).ok_or_else(|| {
        Box::new(invalid_request(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required",
        ))
    })?;
    raw.to_str()
        .ok()
        .and_then(SessionId::parse)
        .ok_or_else(|| Box::new(empty(StatusCode::NOT_FOUND)))
}

/// Answers a GET: opens the standalone stream (HTTP-25), or resumes the
/// stream named by `Last-Event-ID`, replaying only that stream's events
/// after the given one (HTTP-30, HTTP-33).
pub(crate) async fn handle_get(shared: &Arc<Shared>, parts: &Parts) -> HttpResponse {
    match try_get(shared, parts).await {
        Ok(response) | Err(response) => response,
    }
}

async fn try_get(shared: &Arc<Shared>, parts: &Parts) -> Result<HttpResponse, HttpResponse> {
    let config = &shared.config;
    if config.stateless_only {
        return Err(method_not_allowed("POST"));
    }
    if !accepts(&parts.headers, "text/event-stream") {
        return Err(invalid_request(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: the Accept header must list text/event-stream",
        ));
    }
    let id = session_of(parts).map_err(|refused| *refused)?;
    check_version_header(shared, &parts.headers).map_err(|refused| *refused)?;
    let caller = caller_of(&parts.extensions);
    let record = touch_admitted(shared, &id, caller.as_deref()).await?;
    let resume = parts
        .headers
        .get(&LAST_EVENT_ID)
        .and_then(|value| value.to_str().ok())
        .and_then(parse_event_id);
    if resume.is_none() && !config.standalone_stream {
        return Err(method_not_allowed("POST, DELETE"));
    }
    if shared.is_shutting_down() {
        return Err(invalid_request(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: the server is shutting down",
        ));
    }
    let guard = StreamGuard::open(shared, Some(&id)).ok_or_else(|| {
        invalid_request(
            StatusCode::TOO_MANY_REQUESTS,
            "Too Many Requests: this session has too many open streams",
        )
    })?;
    let (stream, after) = match resume {
        Some((stream, seq)) => (stream, Some(seq)),
        None => (0, None),
    };
    let key = StreamKey::new(id, stream);
    // Subscribe before reading the log: an event appended in between is
    // then in one or the other, and duplicates are skipped by position.
    let subscription = config
        .bus
        .subscribe(&key, config.stream_buffer)
        .await
        .map_err(|e| store_failed(&e))?;
    let Some(replay) = config
        .events
        .replay(&key, after)
        .await
        .map_err(|e| store_failed(&e))?
    else {
        // Nothing is known of that stream any more (it ended long ago):
        // 204 tells an SSE client to stop reconnecting.
        let _ = config.bus.detach(&key).await;
        return Ok(empty(StatusCode::NO_CONTENT));
    };
    let standalone = stream == 0;
    let guard = if standalone {
        guard.standalone(key.clone())
    } else {
        guard
    };
    let polling = has_polling(record.version);
    let mut state = SseState::new(
        shared,
        subscription,
        guard,
        Some(key.clone()),
        Vec::new(),
        polling,
        standalone,
    );
    if let Some(seq) = after {
        state.resume_after(seq);
    }
    for event in replay.events {
        state.accept(Some(StreamEvent::Message {
            seq: event.seq,
            data: event.data,
            last: false,
        }));
    }
    if replay.finished {
        state.finish();
        let _ = config.bus.detach(&key).await;
    }
    Ok(standalone_sse(state.into_stream()))
}

/// Answers a DELETE: ends the session (HTTP-41), or 405 when clients may
/// not end sessions.
pub(crate) async fn handle_delete(shared: &Arc<Shared>, parts: &Parts) -> HttpResponse {
    let config = &shared.config;
    if config.stateless_only {
        return method_not_allowed("POST");
    }
    if !config.session_delete {
        return method_not_allowed("GET, POST");
    }
    let id = match session_of(parts) {
        Ok(id) => id,
        Err(response) => return *response,
    };
    if let Err(response) = check_version_header(shared, &parts.headers) {
        return *response;
    }
    // Only the identity that created a bound session may end it.
    let caller = caller_of(&parts.extensions);
    match config.sessions.get(&id).await {
        Ok(Some(record)) if !record.admits(caller.as_deref()) => {
            return empty(StatusCode::NOT_FOUND);
        }
        Ok(_) => {}
        Err(error) => return store_failed(&error),
    }
    match config.sessions.remove(&id).await {
        Ok(true) => {
            shared.release_session(&id).await;
            empty(StatusCode::OK)
        }
        Ok(false) => empty(StatusCode::NOT_FOUND),
        Err(error) => store_failed(&error),
    }
}
