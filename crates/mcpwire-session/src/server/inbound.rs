//! How the server engine reads what the client sent: batches, the
//! handshake, stateless `_meta`, gating, and the requests it answers itself.

use std::sync::Arc;
use std::time::Instant;

use mcpwire_jsonrpc::{ErrorObject, Inbound, Message, Notification, Request, RequestId};
use mcpwire_types::methods::{
    ClientNotification, ClientRequest, DecodeError, MethodInfo, method_info,
};
use mcpwire_types::{
    ClientCapabilities, DiscoverResult, EmptyResult, ForRevision, Implementation,
    InitializeRequestParams, InitializeResult, LoggingLevel, Meta, ProgressToken, ProtocolVersion,
    UnsupportedProtocolVersionData, meta_keys,
};
use serde::Serialize;

use super::{ClientCall, Handshake, ServerSession};
use crate::gating::missing_server_capability;
use crate::peer::{Answer, BatchId, RequestInfo, raw_len};
use crate::{ClientView, Event, IncomingRequest, RequestContext, TraceContext};

/// The revision and client a request speaks for, once its era is known.
pub(super) struct Speaker {
    pub(super) version: ProtocolVersion,
    pub(super) capabilities: Arc<ClientCapabilities>,
    pub(super) info: Option<Arc<Implementation>>,
    pub(super) log_level: Option<LoggingLevel>,
}

impl ServerSession {
    /// Takes in what the transport received.
    pub fn handle_inbound(&mut self, inbound: Inbound, now: Instant) {
        match inbound {
            Inbound::Single(message) => self.handle_message(message, None, now),
            // A malformed answer is not answered: its id names one of our
            // own requests, which an error response would seem to answer.
            Inbound::Invalid(error) if error.is_answer_like() => {}
            Inbound::Invalid(error) => {
                self.peer
                    .answer_unadmitted(error.id().cloned(), error_object(&error), None);
            }
            Inbound::Batch(items) => self.handle_batch(items, now),
        }
    }

    /// Batches are accepted only in a session that negotiated 2025-03-26
    /// (BASE-16); everywhere else the array is one invalid request (BASE-15, BASE-19).
    fn handle_batch(
        &mut self,
        items: Vec<Result<Message, mcpwire_jsonrpc::ClassifyError>>,
        now: Instant,
    ) {
        let allowed = self
            .client()
            .is_some_and(|client| client.version.allows_batches());
        if !allowed {
            let reason = match self.client() {
                Some(client) => format!(
                    "JSON-RPC batches are not allowed in protocol revision {}",
                    client.version
                ),
                None => "JSON-RPC batches are allowed only after initialize negotiated 2025-03-26"
                    .to_owned(),
            };
            self.peer
                .answer_unadmitted(None, ErrorObject::invalid_request(reason), None);
            return;
        }
        let batch = self.peer.open_batch();
        for item in items {
            match item {
                Ok(message) => self.handle_message(message, Some(batch), now),
                Err(error) if error.is_answer_like() => {}
                Err(error) => {
                    self.peer.expect_in_batch(batch);
                    self.peer.answer_unadmitted(
                        error.id().cloned(),
                        error_object(&error),
                        Some(batch),
                    );
                }
            }
        }
        self.peer.seal_batch(batch);
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
            answer @ (Message::Response(_) | Message::Error(_)) => self.handle_answer(answer),
        }
    }

    fn handle_answer(&mut self, answer: Message) {
        if let Answer::Matched {
            id,
            method,
            outcome,
        } = self.peer.take_answer(answer)
        {
            let result = match outcome {
                Ok(raw) => mcpwire_types::methods::ClientResult::decode(method, &raw)
                    .map_err(crate::ResponseError::from),
                Err(error) => Err(crate::ResponseError::Peer(error)),
            };
            self.emit(Event::Response { id, result });
        }
    }

    fn handle_request(&mut self, request: Request, batch: Option<BatchId>) {
        let Request { id, method, params } = request;
        if method == "initialize" && batch.is_some() {
            let error = ErrorObject::invalid_request("initialize must not be part of a batch");
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        if let Some(added) = self.extension_of(&method, params.as_ref()) {
            return self.extension_request(id, method, params, &added, batch);
        }
        let decoded = match ClientRequest::decode(&method, params.as_ref()) {
            Ok(decoded) => decoded,
            Err(error) => {
                let error = match self.revision_lacking(&method, params.as_ref()) {
                    // A method the request's revision does not have is
                    // unknown, whatever its params (2026-07-28 removed
                    // `initialize`, `ping`, `logging/setLevel`, ...).
                    Some(_) => ErrorObject::method_not_found(&method),
                    None => decode_error(&error),
                };
                return self.peer.answer_unadmitted(Some(id), error, batch);
            }
        };
        // `initialize` carrying a modern `_meta` version is a stateless
        // request (and then unknown in that revision).
        if let ClientRequest::Initialize(params) = &decoded
            && decoded
                .meta()
                .is_none_or(|meta| meta.get(meta_keys::PROTOCOL_VERSION).is_none())
        {
            return self.initialize(id, params, batch);
        }
        let speaker = match self.speaker_for(&decoded) {
            Ok(speaker) => speaker,
            Err(error) => return self.peer.answer_unadmitted(Some(id), error, batch),
        };
        let version = speaker.version;
        let method_known = self
            .method_info(&method)
            .is_some_and(|info| info.direction.client_sends() && info.in_revision(version));
        if !method_known {
            let error = ErrorObject::method_not_found(&method);
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        if let Some(capability) =
            missing_server_capability(&method, version, &self.config.capabilities)
        {
            let error = ErrorObject::new(
                mcpwire_jsonrpc::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method not found: {method} (the server did not declare the {capability} capability)"
                ),
            );
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        let meta = decoded.meta();
        let info = RequestInfo {
            version,
            progress_token: meta.and_then(|m| m.get_as::<ProgressToken>(meta_keys::PROGRESS_TOKEN)),
            log_level: speaker.log_level,
        };
        let trace = TraceContext::from_meta(meta);
        let progress_token = info.progress_token.clone();
        if let Err(error) = self.peer.admit(&id, info, batch, raw_len(params.as_ref())) {
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        match decoded {
            ClientRequest::Ping(_) => self.answer_with(&id, &EmptyResult::default(), version),
            ClientRequest::SetLevel(params) => {
                self.log_level = Some(params.level);
                self.answer_with(&id, &EmptyResult::default(), version);
            }
            ClientRequest::Discover(_) => {
                let result = self.discover_result();
                self.answer_with(&id, &result, version);
            }
            request => {
                let context = RequestContext {
                    version,
                    client_capabilities: Some(speaker.capabilities),
                    client_info: speaker.info,
                    progress_token,
                    log_level: speaker.log_level,
                    trace,
                };
                self.emit(Event::Request(IncomingRequest {
                    id,
                    request: ClientCall { request, params },
                    context,
                }));
            }
        }
    }

    /// The method table's entry for `method`. The last one found is kept:
    /// a session's requests mostly come in runs of one method (`tools/call`),
    /// and one comparison then replaces the search of the table.
    fn method_info(&mut self, method: &str) -> Option<&'static MethodInfo> {
        if let Some(info) = self.last_method
            && info.name == method
        {
            return Some(info);
        }
        let info = method_info(method)?;
        self.last_method = Some(info);
        Some(info)
    }

    /// The revision a request speaks when that revision lacks `method`,
    /// read without decoding the params into their type: the request's own
    /// `_meta` protocol version, else the session's.
    fn revision_lacking(
        &self,
        method: &str,
        params: Option<&mcpwire_jsonrpc::RawJson>,
    ) -> Option<ProtocolVersion> {
        #[derive(serde::Deserialize)]
        struct MetaOnly {
            #[serde(rename = "_meta")]
            meta: Option<Meta>,
        }
        let stated = params
            .and_then(|raw| serde_json::from_str::<MetaOnly>(raw.get()).ok())
            .and_then(|p| p.meta)
            .and_then(|meta| meta.get_as::<String>(meta_keys::PROTOCOL_VERSION))
            .and_then(|v| ProtocolVersion::parse(&v).ok());
        let version = stated.or_else(|| self.client().map(|client| client.version))?;
        let known = method_info(method).is_some_and(|info| info.in_revision(version));
        (!known).then_some(version)
    }

    /// Decides which era a request speaks: its own `_meta` protocol version
    /// (stateless), else the session's negotiated one. A request with
    /// neither (other than `ping`) cannot be served.
    fn speaker_for(&self, request: &ClientRequest) -> Result<Speaker, ErrorObject> {
        let meta = request.meta();
        if let Some(requested) = meta.and_then(|m| m.get(meta_keys::PROTOCOL_VERSION)) {
            return self.stateless_speaker(requested, meta);
        }
        match &self.handshake {
            Handshake::Negotiated { client, .. } => Ok(Speaker {
                version: client.version,
                capabilities: client.capabilities.clone(),
                info: Some(client.info.clone()),
                log_level: self.log_level,
            }),
            // ping may come before initialization (PING-01).
            Handshake::Awaiting if matches!(request, ClientRequest::Ping(_)) => Ok(Speaker {
                version: ProtocolVersion::LATEST_HANDSHAKE,
                capabilities: Arc::default(),
                info: None,
                log_level: None,
            }),
            // 2026-07-28: a request without its required `_meta` fields is
            // malformed and answered with -32602; a handshake-era client
            // learns from the same message that it must initialize first.
            Handshake::Awaiting => Err(ErrorObject::invalid_params(format!(
                "the request carries no {} in _meta and no session was initialized: \
                 send initialize first, or use protocol revision 2026-07-28",
                meta_keys::PROTOCOL_VERSION
            ))),
        }
    }

    /// Reads the per-request fields of 2026-07-28 (their absence or a wrong
    /// shape is -32602; an unsupported revision is -32022 listing ours).
    pub(super) fn stateless_speaker(
        &self,
        requested: &serde_json::Value,
        meta: Option<&Meta>,
    ) -> Result<Speaker, ErrorObject> {
        let requested = requested.as_str().unwrap_or_default();
        let version = ProtocolVersion::parse(requested)
            .ok()
            .filter(|v| self.config.speaks_stateless(*v));
        let Some(version) = version else {
            let data =
                UnsupportedProtocolVersionData::new(requested, self.config.versions_newest_first());
            return Err(data.to_error(ProtocolVersion::LATEST));
        };
        let read = |key: &str| meta.and_then(|m| m.get(key));
        let capabilities = match read(meta_keys::CLIENT_CAPABILITIES) {
            Some(value) => ClientCapabilities::deserialize_from(value).map_err(|e| {
                ErrorObject::invalid_params(format!(
                    "{} is malformed: {e}",
                    meta_keys::CLIENT_CAPABILITIES
                ))
            })?,
            None => {
                return Err(ErrorObject::invalid_params(format!(
                    "the request's _meta lacks the required {}",
                    meta_keys::CLIENT_CAPABILITIES
                )));
            }
        };
        let info = read(meta_keys::CLIENT_INFO)
            .and_then(|value| Implementation::deserialize_from(value).ok())
            .map(Arc::new);
        let log_level =
            read(meta_keys::LOG_LEVEL).and_then(|v| LoggingLevel::deserialize_from(v).ok());
        Ok(Speaker {
            version,
            capabilities: Arc::new(capabilities),
            info,
            log_level,
        })
    }

    /// Answers `initialize` (LIFE-03, LIFE-09..11).
    fn initialize(
        &mut self,
        id: RequestId,
        params: &InitializeRequestParams,
        batch: Option<BatchId>,
    ) {
        if matches!(self.handshake, Handshake::Negotiated { .. }) {
            let error = ErrorObject::invalid_request("the session is already initialized");
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        let Some(version) = self.config.negotiate(&params.protocol_version) else {
            // A server speaking only the stateless revision names what it
            // speaks, the only diagnostic a handshake client can show.
            let data = UnsupportedProtocolVersionData::new(
                params.protocol_version.clone(),
                self.config.versions_newest_first(),
            );
            return self.peer.answer_unadmitted(
                Some(id),
                data.to_error(ProtocolVersion::V2025_11_25),
                batch,
            );
        };
        let info = RequestInfo {
            version,
            progress_token: None,
            log_level: None,
        };
        // Answered right here: its bytes are never held in flight.
        if let Err(error) = self.peer.admit(&id, info, batch, 0) {
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        let mut result = InitializeResult::new(
            version,
            self.config.capabilities.clone(),
            self.config.info.clone(),
        );
        result.instructions = self.config.instructions.clone();
        self.answer_with(&id, &result, version);
        self.handshake = Handshake::Negotiated {
            client: ClientView {
                version,
                capabilities: super::interned::capabilities(&params.capabilities),
                info: super::interned::info(&params.client_info),
            },
            initialized: false,
        };
    }

    fn discover_result(&self) -> DiscoverResult {
        let mut result = DiscoverResult::new(
            self.config.versions_newest_first(),
            self.config.capabilities.clone(),
        )
        .with_server_info(&self.config.info);
        result.instructions = self.config.instructions.clone();
        if let Some(hint) = self.config.discover_cache_hint {
            hint.write_to(&mut result.ttl_ms, &mut result.cache_scope);
        }
        result
    }

    /// Fits `result` to `version` and sends it as the answer to `id`.
    fn answer_with<T: Serialize + ForRevision + Clone>(
        &mut self,
        id: &RequestId,
        result: &T,
        version: ProtocolVersion,
    ) {
        let mut result = result.clone();
        result.fit_to(version);
        match mcpwire_jsonrpc::RawJson::from_serialize(&result) {
            Ok(raw) => self.peer.answer_now(id, raw),
            Err(error) => {
                let _ = self
                    .peer
                    .answer(id, Err(ErrorObject::internal_error(error.to_string())));
            }
        }
    }

    fn handle_notification(&mut self, notification: Notification, now: Instant) {
        let Notification { method, params } = notification;
        // A notification is never answered (BASE-13): unknown or malformed
        // ones are dropped.
        let Ok(decoded) = ClientNotification::decode(&method, params.as_ref()) else {
            return;
        };
        match decoded {
            ClientNotification::Initialized(_) => {
                if let Handshake::Negotiated {
                    client,
                    initialized,
                } = &mut self.handshake
                    && !*initialized
                {
                    *initialized = true;
                    let established = Event::Established(client.clone());
                    self.emit(established);
                }
            }
            ClientNotification::Cancelled(params) => {
                // CANCEL-09: unknown or finished ids are ignored.
                if let Some(id) = params.request_id.clone()
                    && self.peer.cancel_inbound(&id)
                {
                    self.emit(Event::Cancelled {
                        id,
                        reason: params.reason.clone(),
                    });
                }
            }
            ClientNotification::Progress(params) => {
                if let Some(id) = self.peer.record_progress(&params, now) {
                    self.emit(Event::Progress {
                        id,
                        progress: *params,
                    });
                }
            }
            other => self.emit(Event::Notification(other)),
        }
    }
}

/// Reads a JSON value as `T` (used for `_meta` entries).
trait DeserializeFrom: Sized {
    fn deserialize_from(value: &serde_json::Value) -> Result<Self, serde_json::Error>;
}

impl<T: serde::de::DeserializeOwned> DeserializeFrom for T {
    fn deserialize_from(value: &serde_json::Value) -> Result<Self, serde_json::Error> {
        T::deserialize(value)
    }
}

fn error_object(error: &mcpwire_jsonrpc::ClassifyError) -> ErrorObject {
    error.to_error_response().error
}

fn decode_error(error: &DecodeError) -> ErrorObject {
    match error {
        DecodeError::UnknownMethod(method) => ErrorObject::method_not_found(method),
        other => ErrorObject::invalid_params(other.to_string()),
    }
}
