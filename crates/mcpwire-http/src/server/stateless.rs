//! POST in the stateless era (2026-07-28): header validation, then a fresh
//! one-request transport handed to the connect hook, answered from its
//! stream (no session, no event ids, no resumption).

use std::sync::Arc;

use http::StatusCode;
use http::request::Parts;
use mcpwire_jsonrpc::{ErrorObject, Inbound, Message};
use mcpwire_types::header_mismatch_error;

use super::body::{HttpResponse, empty, rpc_error};
use super::config::ResponseMode;
use super::pipe::pipe;
use super::request::request_halves;
use super::service::Shared;
use super::stream_response::{AnswerStatus, Outgoing, StreamGuard, respond};
use super::transport::{CancelSignal, SessionTransport};
use super::validate::check_message_headers;

/// Answers a stateless POST (the body has been read and is well formed).
pub(crate) async fn handle(shared: &Arc<Shared>, parts: Parts, inbound: Inbound) -> HttpResponse {
    let config = &shared.config;
    let message = match inbound {
        Inbound::Single(message) => message,
        Inbound::Batch(_) | Inbound::Invalid(_) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::invalid_request(
                    "JSON-RPC batches need a 2025-03-26 session; send one message per POST",
                ),
            );
        }
    };
    if message.is_answer() {
        // 2026-07-28: clients send no responses over Streamable HTTP.
        return rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::invalid_request("a response without a session has nothing to answer"),
        );
    }
    if let Err(reason) = check_message_headers(&parts.headers, &message, &*config.param_headers) {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            message.id().cloned(),
            header_mismatch_error(reason),
        );
    }
    let is_request = matches!(message, Message::Request(_));
    let answers_only = config.response_mode == ResponseMode::Json;
    let (outbound, events) = pipe(config.stream_buffer);
    let cancel = Arc::new(CancelSignal::default());
    let Some(guard) = StreamGuard::open(shared, None) else {
        return empty(StatusCode::TOO_MANY_REQUESTS);
    };
    let guard = guard.cancelling(cancel.clone());
    let answer_status = Arc::new(AnswerStatus::default());
    let halves = request_halves(
        shared,
        message,
        cancel,
        outbound,
        answers_only,
        parts.extensions,
        answer_status.clone(),
    );
    shared.connect(SessionTransport::request(halves));
    if !is_request {
        // HTTP-09: a notification is accepted with 202.
        return empty(StatusCode::ACCEPTED);
    }
    let outgoing = Outgoing {
        subscription: Box::pin(events),
        guard,
        mode: config.response_mode,
        batch: false,
        key: None,
        version: None,
        stateless: Some(answer_status),
        initialize: None,
        form: None,
    };
    respond(shared, outgoing).await
}
