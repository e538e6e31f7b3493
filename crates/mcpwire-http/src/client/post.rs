//! One POST and what follows from its answer: nothing (202), a JSON
//! answer, an SSE stream, or an HTTP error turned into error responses.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use mcpwire_jsonrpc::{ErrorCode, ErrorResponse, Inbound, Message, RequestId};
use mcpwire_types::McpErrorCode;

use super::FirstPostOutcome;
use super::authorizer::{MAX_AUTH_RETRIES, Retry};
use super::body::{Dispatch, OutgoingBody};
use super::error::{BoxError, Error, StatusError, codes, describe, http_error, local_error};
use super::shared::{EVENT_STREAM, PostPlan, Shared};
use super::stream;
use crate::headers::MCP_SESSION_ID;

/// How much of an error answer's body is read, to find a JSON-RPC error.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// How long reading an error answer's body, or draining a body nobody
/// needs, may take.
const SMALL_BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs one POST to its end. `dispatch` tells `send` when it may return.
pub(crate) async fn run(shared: Arc<Shared>, plan: PostPlan, body: Bytes, dispatch: Dispatch) {
    let on_taken = (!plan.wait_for_status).then(|| dispatch.clone());
    let mut retries = 0;
    let response = loop {
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(shared.endpoint.clone());
        if let Some(headers) = builder.headers_mut() {
            *headers = plan.headers.clone();
            authorize(&shared, &Method::POST, headers).await;
        }
        let request = match builder.body(OutgoingBody::new(body.clone(), on_taken.clone())) {
            Ok(request) => request,
            Err(error) => {
                dispatch.fire(Err(Error::Request(error.into())));
                shared.forget(&plan.requests);
                return;
            }
        };
        let exchange = shared.http.exchange(request);
        // A POST whose status the send waits for (no request in it, or
        // the first one when probing for the legacy transport) is bounded
        // by default: everything after it waits too.
        let timeout = if plan.wait_for_status {
            let status = shared.options.status_timeout;
            Some(
                shared
                    .options
                    .request_timeout
                    .map_or(status, |r| r.min(status)),
            )
        } else {
            shared.options.request_timeout
        };
        let outcome = within(timeout, exchange).await;
        if let Ok(response) = &outcome
            && retries < MAX_AUTH_RETRIES
            && challenge_answered(&shared, response).await
        {
            retries += 1;
            continue;
        }
        break outcome;
    };
    let response = match response {
        Ok(response) => response,
        Err(error) => {
            shared.record_first(&plan, FirstPostOutcome::Failed);
            let message = describe(&error);
            if dispatch.fire(Err(error)) {
                shared.forget(&plan.requests);
            } else {
                let message = format!("the HTTP exchange failed: {message}");
                shared
                    .fail(
                        &plan.inbound,
                        &plan.requests,
                        codes::REQUEST_FAILED,
                        &message,
                    )
                    .await;
            }
            return;
        }
    };
    let status = response.status();
    if status.is_success() {
        if let Some(authorizer) = &shared.options.authorizer {
            authorizer.accepted(response.headers());
        }
        if plan.initialize {
            shared.adopt_session(response.headers().get(MCP_SESSION_ID));
        }
        shared.record_first(&plan, FirstPostOutcome::Accepted(status));
        dispatch.fire(Ok(()));
        accepted(&shared, &plan, response).await;
    } else {
        refused(&shared, &plan, response, &dispatch).await;
    }
}

/// Adds the authorizer's headers, if the client has one, to `headers`.
pub(crate) async fn authorize(shared: &Shared, method: &Method, headers: &mut HeaderMap) {
    let Some(authorizer) = &shared.options.authorizer else {
        return;
    };
    match authorizer.headers(method, &shared.endpoint).await {
        Ok(extra) => {
            for (name, value) in &extra {
                headers.insert(name.clone(), value.clone());
            }
        }
        Err(error) => tracing::warn!(error, "the authorizer supplied no credentials"),
    }
}

/// Whether `response` is a 401 or 403 after which the authorizer has new
/// credentials, so the POST should be sent again.
async fn challenge_answered(shared: &Shared, response: &Response<Incoming>) -> bool {
    let status = response.status();
    if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        return false;
    }
    let Some(authorizer) = &shared.options.authorizer else {
        return false;
    };
    match authorizer.challenged(status, response.headers()).await {
        Ok(Retry::Retry) => true,
        Ok(_) => false,
        Err(error) => {
            tracing::warn!(%status, error, "authorization failed");
            false
        }
    }
}

/// Follows up a 2xx answer.
async fn accepted(shared: &Arc<Shared>, plan: &PostPlan, response: Response<Incoming>) {
    if plan.requests.is_empty() {
        // A notification or response: 202, or (some servers) 200 with a
        // body to ignore. Reading it lets the connection be reused.
        let _ = read_limited(
            response.into_body(),
            ERROR_BODY_LIMIT,
            Some(SMALL_BODY_TIMEOUT),
        )
        .await;
        return;
    }
    let content_type = media_type(response.headers());
    let Some(content_type) = content_type.filter(|_| response.status() != StatusCode::ACCEPTED)
    else {
        let message = format!(
            "the server answered the request with {} and no response",
            response.status()
        );
        shared
            .fail(
                &plan.inbound,
                &plan.requests,
                codes::REQUEST_FAILED,
                &message,
            )
            .await;
        return;
    };
    match content_type.as_str() {
        EVENT_STREAM => stream::follow_post_stream(shared, plan, response.into_body()).await,
        "application/json" => {
            let limit = shared.options.max_event_size;
            match read_limited(response.into_body(), limit, shared.options.request_timeout).await {
                Ok(body) => {
                    let packet = Inbound::from_slice(&body);
                    if !shared.deliver(&plan.inbound, packet).await {
                        return;
                    }
                    // The answer must have been in the body (HTTP-11).
                    let message = "the server's JSON answer did not hold the response";
                    shared
                        .fail(
                            &plan.inbound,
                            &plan.requests,
                            codes::REQUEST_FAILED,
                            message,
                        )
                        .await;
                }
                Err(error) => {
                    let message = format!(
                        "reading the server's JSON answer failed: {}",
                        describe(&error)
                    );
                    shared
                        .fail(
                            &plan.inbound,
                            &plan.requests,
                            codes::REQUEST_FAILED,
                            &message,
                        )
                        .await;
                }
            }
        }
        other => {
            let message = format!("the server answered with unexpected content type {other:?}");
            shared
                .fail(
                    &plan.inbound,
                    &plan.requests,
                    codes::REQUEST_FAILED,
                    &message,
                )
                .await;
        }
    }
}

/// Handles an error status.
async fn refused(
    shared: &Arc<Shared>,
    plan: &PostPlan,
    response: Response<Incoming>,
    dispatch: &Dispatch,
) {
    let status = response.status();
    let challenge = response
        .headers()
        .get(WWW_AUTHENTICATE)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let body = read_limited(
        response.into_body(),
        ERROR_BODY_LIMIT,
        Some(SMALL_BODY_TIMEOUT),
    )
    .await
    .unwrap_or_default();
    let status_error = StatusError::new(status, challenge, &body);

    if status == StatusCode::NOT_FOUND
        && let Some(generation) = plan.session
    {
        let lost = shared.expire_session(generation, &plan.requests);
        if dispatch.fire(Err(Error::SessionExpired)) {
            shared.forget(&plan.requests);
        }
        let message = "the server lost the session (404); reconnect with a new initialize";
        let errors = lost
            .into_iter()
            .map(|id| local_error(id, codes::SESSION_EXPIRED, message.to_owned()))
            .collect();
        shared.deliver_errors(&plan.inbound, errors).await;
        return;
    }

    let rpc_error = json_rpc_error(&body);
    let modern = rpc_error
        .as_ref()
        .is_some_and(|error| is_modern_refusal(status, error.error.code));
    let legacy = matches!(status.as_u16(), 400 | 404 | 405) && !modern;
    shared.record_first(
        plan,
        if legacy {
            FirstPostOutcome::LegacyCandidate(status)
        } else {
            FirstPostOutcome::Refused(status)
        },
    );

    if plan.wait_for_status {
        let report = if plan.requests.is_empty() {
            Some(Error::Status(status_error.clone()))
        } else if legacy && plan.first && shared.options.detect_legacy {
            Some(Error::LegacyCandidate(status_error.clone()))
        } else if rpc_error.is_none() {
            Some(Error::Status(status_error.clone()))
        } else {
            None
        };
        if let Some(report) = report {
            if dispatch.fire(Err(report)) {
                shared.forget(&plan.requests);
            }
            return;
        }
    }
    // `send` must not wait on the deliveries below: its caller may be the
    // one who drains the queue. (The body usually fired this already.)
    dispatch.fire(Ok(()));

    match rpc_error {
        Some(mut error) => {
            // A refusal "without id" concerns the POST, so its one request.
            if error.id.is_none()
                && let [only] = plan.requests.as_slice()
            {
                error.id = Some(only.clone());
            }
            if !shared
                .deliver(&plan.inbound, Inbound::from(Message::from(error)))
                .await
            {
                return;
            }
            let message = status_error.to_string();
            shared
                .fail(&plan.inbound, &plan.requests, codes::HTTP_ERROR, &message)
                .await;
        }
        None => {
            let errors = take_unanswered(shared, &plan.requests)
                .into_iter()
                .map(|id| http_error(id, &status_error))
                .collect();
            shared.deliver_errors(&plan.inbound, errors).await;
        }
    }
}

/// Removes those of `requests` still in flight and returns them.
fn take_unanswered(shared: &Shared, requests: &[RequestId]) -> Vec<RequestId> {
    let mut unanswered = requests.to_vec();
    shared.retain_in_flight(&mut unanswered);
    shared.forget(&unanswered);
    unanswered
}

/// The JSON-RPC error response an error answer's body holds, if any.
fn json_rpc_error(body: &[u8]) -> Option<ErrorResponse> {
    match Message::from_slice(body) {
        Ok(Message::Error(error)) => Some(error),
        _ => None,
    }
}

/// Whether an error answer is one only a modern (2026-07-28) server gives,
/// which rules out a legacy HTTP+SSE endpoint (2026-07-28 transports page,
/// "Backward Compatibility").
fn is_modern_refusal(status: StatusCode, code: ErrorCode) -> bool {
    let modern = [
        McpErrorCode::HeaderMismatch,
        McpErrorCode::MissingRequiredClientCapability,
        McpErrorCode::UnsupportedProtocolVersion,
    ];
    modern.iter().any(|known| known.error_code() == code)
        || (status == StatusCode::NOT_FOUND && code == ErrorCode::METHOD_NOT_FOUND)
}

/// The media type of a response, lower-cased, without parameters.
pub(crate) fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    let essence = value.split(';').next()?.trim().to_ascii_lowercase();
    (!essence.is_empty()).then_some(essence)
}

/// Reads a whole body of at most `limit` bytes, within `timeout`.
async fn read_limited(
    body: Incoming,
    limit: usize,
    timeout: Option<Duration>,
) -> Result<Bytes, Error> {
    let collect = async {
        Limited::new(body, limit)
            .collect()
            .await
            .map(http_body_util::Collected::to_bytes)
    };
    within(timeout, collect).await
}

/// Runs `future` within `timeout`, if there is one.
pub(crate) async fn within<T, E>(
    timeout: Option<Duration>,
    future: impl Future<Output = Result<T, E>>,
) -> Result<T, Error>
where
    E: Into<BoxError>,
{
    let result = match timeout {
        Some(limit) => tokio::time::timeout(limit, future)
            .await
            .map_err(|_| Error::Timeout(limit))?,
        None => future.await,
    };
    result.map_err(|error| Error::Request(error.into()))
}
