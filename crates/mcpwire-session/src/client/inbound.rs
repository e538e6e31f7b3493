//! How the client engine reads what the server sent.

use std::time::Instant;

use mcpwire_jsonrpc::{ErrorObject, Inbound, Message, Notification, Request};
use mcpwire_types::methods::{ServerNotification, ServerRequest, ServerResult, method_info};
use mcpwire_types::{EmptyResult, ForRevision, ProgressToken, ProtocolVersion, meta_keys};

use super::{ClientSession, State};
use crate::gating::check_server_request;
use crate::peer::{Answer, BatchId, RequestInfo, raw_len};
use crate::{Event, IncomingRequest, RequestContext, ResponseError, SendError, TraceContext};

impl ClientSession {
    /// Takes in what the transport received.
    pub fn handle_inbound(&mut self, inbound: Inbound, now: Instant) {
        match inbound {
            Inbound::Single(message) => self.handle_message(message, None, now),
            // A malformed answer is not answered (see the server side).
            Inbound::Invalid(error) if error.is_answer_like() => {}
            Inbound::Invalid(error) => {
                let object = error.to_error_response().error;
                self.peer
                    .answer_unadmitted(error.id().cloned(), object, None);
            }
            Inbound::Batch(items) => {
                let allowed = self.server().is_some_and(|s| s.version.allows_batches());
                if !allowed {
                    let error = ErrorObject::invalid_request(
                        "JSON-RPC batches are not allowed in this session",
                    );
                    self.peer.answer_unadmitted(None, error, None);
                    return;
                }
                let batch = self.peer.open_batch();
                for item in items {
                    match item {
                        Ok(message) => self.handle_message(message, Some(batch), now),
                        Err(error) if error.is_answer_like() => {}
                        Err(error) => {
                            self.peer.expect_in_batch(batch);
                            let object = error.to_error_response().error;
                            self.peer
                                .answer_unadmitted(error.id().cloned(), object, Some(batch));
                        }
                    }
                }
                self.peer.seal_batch(batch);
            }
        }
    }

    fn handle_message(&mut self, message: Message, batch: Option<BatchId>, now: Instant) {
        match message {
            Message::Request(request) => {
                if let Some(batch) = batch {
                    self.peer.expect_in_batch(batch);
                }
                self.handle_request(request, batch);
            }
            Message::Notification(notification) => self.handle_notification(notification, now),
            answer => self.handle_answer(answer, now),
        }
    }

    fn handle_answer(&mut self, answer: Message, now: Instant) {
        let Answer::Matched {
            id,
            method,
            outcome,
        } = self.peer.take_answer(answer)
        else {
            return;
        };
        if self.is_connect_request(&id) {
            return self.connect_answer(outcome, now);
        }
        if self.extension_answer(&id, &outcome) {
            return;
        }
        let result = match outcome {
            Ok(raw) => decode_result(method, &raw),
            Err(error) => Err(ResponseError::Peer(error)),
        };
        self.events.push_back(Event::Response { id, result });
    }

    fn handle_request(&mut self, request: Request, batch: Option<BatchId>) {
        let Request { id, method, params } = request;
        let version = match &self.state {
            State::Ready(view) => view.version,
            // ping may come at any time (PING-01).
            _ if method == "ping" => ProtocolVersion::LATEST_HANDSHAKE,
            _ => {
                let error = ErrorObject::invalid_request("the session is not established yet");
                return self.peer.answer_unadmitted(Some(id), error, batch);
            }
        };
        let known = method_info(&method)
            .is_some_and(|info| info.direction.server_sends() && info.in_revision(version));
        let decoded = if known {
            ServerRequest::decode(&method, params.as_ref())
        } else {
            Err(mcpwire_types::methods::DecodeError::UnknownMethod(
                method.clone(),
            ))
        };
        let decoded = match decoded {
            Ok(decoded) => decoded,
            Err(error) => {
                let object = match error.code() {
                    Some(mcpwire_jsonrpc::ErrorCode::INVALID_PARAMS) => {
                        ErrorObject::invalid_params(error.to_string())
                    }
                    _ => ErrorObject::method_not_found(&method),
                };
                return self.peer.answer_unadmitted(Some(id), object, batch);
            }
        };
        if let Some(capability) = self.missing_client_capability(&decoded) {
            let error = ErrorObject::new(
                mcpwire_jsonrpc::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method not found: {method} (the client did not declare the {capability} capability)"
                ),
            );
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        // A mode or feature the client did not declare inside a capability
        // it did declare (URL elicitation, tools in sampling) is refused
        // with -32602 rather than handed to the runtime (ELIC-09, SAMP-05).
        if let Err(SendError::PeerLacksCapability { capability, .. }) =
            check_server_request(&decoded, &self.config.capabilities)
        {
            let code = match decoded {
                ServerRequest::CreateMessage(_) | ServerRequest::Elicit(_) => {
                    mcpwire_jsonrpc::ErrorCode::INVALID_PARAMS
                }
                _ => mcpwire_jsonrpc::ErrorCode::METHOD_NOT_FOUND,
            };
            let message = format!(
                "{method} needs the {capability} capability, which the client did not declare"
            );
            let error = ErrorObject::new(code, message);
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        let meta = decoded.meta();
        let progress_token =
            meta.and_then(|m| m.get_as::<ProgressToken>(meta_keys::PROGRESS_TOKEN));
        let trace = TraceContext::from_meta(meta);
        let info = RequestInfo {
            version,
            progress_token: progress_token.clone(),
            log_level: None,
        };
        if let Err(error) = self.peer.admit(&id, info, batch, raw_len(params.as_ref())) {
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        if let ServerRequest::Ping(_) = decoded {
            let mut result = EmptyResult::default();
            result.fit_to(version);
            match mcpwire_jsonrpc::RawJson::from_serialize(&result) {
                Ok(raw) => self.peer.answer_now(&id, raw),
                Err(error) => {
                    let _ = self
                        .peer
                        .answer(&id, Err(ErrorObject::internal_error(error.to_string())));
                }
            }
            return;
        }
        let context = RequestContext {
            version,
            client_capabilities: None,
            client_info: None,
            progress_token,
            log_level: None,
            trace,
        };
        self.events.push_back(Event::Request(IncomingRequest {
            id,
            request: decoded,
            context,
        }));
    }

    /// The client capability a server request needs, when the client lacks it.
    fn missing_client_capability(&self, request: &ServerRequest) -> Option<&'static str> {
        let caps = &self.config.capabilities;
        match request {
            ServerRequest::CreateMessage(_) if !caps.supports_sampling() => Some("sampling"),
            ServerRequest::Elicit(_) if !caps.supports_elicitation() => Some("elicitation"),
            ServerRequest::ListRoots(_) if !caps.supports_roots() => Some("roots"),
            _ => None,
        }
    }

    fn handle_notification(&mut self, notification: Notification, now: Instant) {
        let Notification { method, params } = notification;
        let Ok(decoded) = ServerNotification::decode(&method, params.as_ref()) else {
            return;
        };
        match decoded {
            ServerNotification::Cancelled(params) => {
                if let Some(id) = params.request_id.clone()
                    && self.peer.cancel_inbound(&id)
                {
                    self.events.push_back(Event::Cancelled {
                        id,
                        reason: params.reason.clone(),
                    });
                }
            }
            ServerNotification::Progress(params) => {
                if let Some(id) = self.peer.record_progress(&params, now) {
                    self.events.push_back(Event::Progress {
                        id,
                        progress: *params,
                    });
                }
            }
            other => self.events.push_back(Event::Notification(other)),
        }
    }
}

/// Decodes a result by its request's method. A `tools/call` the server ran
/// as a task answers with a task handle instead of a `CallToolResult`
/// (`{task: {...}}` in 2025-11-25, `resultType: "task"` in the 2026-07-28
/// extension); it is read as a result without content whose other fields
/// stay in `extra` (and `resultType`), for the caller to read the task from.
fn decode_result(
    method: &str,
    raw: &mcpwire_jsonrpc::RawJson,
) -> Result<ServerResult, ResponseError> {
    let decoded = ServerResult::decode(method, raw);
    if decoded.is_ok() || method != "tools/call" {
        return decoded.map_err(ResponseError::from);
    }
    let task_handle = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(raw.get())
        .ok()
        .filter(|fields| {
            fields.get("task").is_some_and(serde_json::Value::is_object)
                || fields.get("resultType").and_then(serde_json::Value::as_str) == Some("task")
        });
    match task_handle {
        Some(mut fields) => {
            fields
                .entry("content")
                .or_insert_with(|| serde_json::Value::Array(Vec::new()));
            serde_json::from_value(serde_json::Value::Object(fields))
                .map(|result| ServerResult::CallTool(Box::new(result)))
                .map_err(|error| ResponseError::InvalidResult(error.to_string()))
        }
        None => decoded.map_err(ResponseError::from),
    }
}
