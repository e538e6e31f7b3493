//! Request methods that an extension adds to the stateless revision (the
//! tasks extension's `tasks/get`, `tasks/update`, `tasks/cancel`; the
//! skills extension's `skills/list`, `skills/get`,
//! `resources/directory/read`): routed to the runtime as raw calls, and
//! refused with -32021 when the extension needs the client to declare it
//! and the request's client did not.

use mcpwire_jsonrpc::{ErrorObject, RawJson, RequestId};
use mcpwire_types::{ClientCapabilities, Meta, MissingRequiredClientCapabilityData, meta_keys};

use super::ServerSession;
use crate::peer::{BatchId, RequestInfo, raw_len};
use crate::{Event, IncomingRequest, RequestContext, TraceContext};

/// A request method an extension adds, served only to clients that declare
/// that extension in the request's `_meta` capabilities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionMethod {
    /// The method name, e.g. `tasks/get`.
    pub method: String,
    /// The extension's identifier, e.g. `io.modelcontextprotocol/tasks`.
    pub extension: String,
    /// Whether only clients that declare the extension may call it (the
    /// tasks extension), or every client may once the server declared it
    /// (the skills extension).
    pub client_must_declare: bool,
}

impl ExtensionMethod {
    /// `method`, added by the extension `extension`, for clients that
    /// declare the extension.
    pub fn new(method: impl Into<String>, extension: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            extension: extension.into(),
            client_must_declare: true,
        }
    }

    /// `method`, added by the extension `extension`, served to every
    /// client: the client learns of it from the server's declaration and
    /// need not declare the extension itself.
    pub fn open(method: impl Into<String>, extension: impl Into<String>) -> Self {
        Self {
            client_must_declare: false,
            ..Self::new(method, extension)
        }
    }
}

/// An extension request as the runtime receives it: the method and its
/// params, still raw (the runtime, which knows the extension, reads them).
#[derive(Debug, Clone)]
pub struct ExtensionCall {
    /// The method name.
    pub method: String,
    /// The params as sent.
    pub params: Option<RawJson>,
}

impl PartialEq for ExtensionCall {
    fn eq(&self, other: &Self) -> bool {
        self.method == other.method && self.params == other.params
    }
}

/// The `_meta` of raw params, read without their type.
fn meta_of(params: Option<&RawJson>) -> Option<Meta> {
    #[derive(serde::Deserialize)]
    struct MetaOnly {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    params
        .and_then(|raw| serde_json::from_str::<MetaOnly>(raw.get()).ok())
        .and_then(|p| p.meta)
}

impl ServerSession {
    /// The extension that adds `method`, when the request is a stateless
    /// one (its `_meta` names a protocol version) and the server serves it.
    pub(super) fn extension_of(
        &self,
        method: &str,
        params: Option<&RawJson>,
    ) -> Option<ExtensionMethod> {
        let added = self
            .config
            .extension_methods
            .iter()
            .find(|m| m.method == method)?;
        let stateless =
            meta_of(params).is_some_and(|m| m.get(meta_keys::PROTOCOL_VERSION).is_some());
        stateless.then(|| added.clone())
    }

    /// Serves a request of a method an extension adds: checks the
    /// per-request fields like any stateless request, refuses a client that
    /// did not declare an extension that needs it (-32021 naming it), and
    /// hands the rest to the runtime as an [`Event::ExtensionRequest`].
    pub(super) fn extension_request(
        &mut self,
        id: RequestId,
        method: String,
        params: Option<RawJson>,
        added: &ExtensionMethod,
        batch: Option<BatchId>,
    ) {
        let extension = added.extension.as_str();
        let meta = meta_of(params.as_ref());
        let requested = meta
            .as_ref()
            .and_then(|m| m.get(meta_keys::PROTOCOL_VERSION));
        let Some(requested) = requested else {
            let error = ErrorObject::method_not_found(&method);
            return self.peer.answer_unadmitted(Some(id), error, batch);
        };
        let speaker = match self.stateless_speaker(requested, meta.as_ref()) {
            Ok(speaker) => speaker,
            Err(error) => return self.peer.answer_unadmitted(Some(id), error, batch),
        };
        if added.client_must_declare && !speaker.capabilities.supports_extension(extension) {
            let mut extensions = serde_json::Map::new();
            extensions.insert(extension.to_owned(), serde_json::json!({}));
            let required = ClientCapabilities {
                extensions: Some(extensions),
                ..ClientCapabilities::default()
            };
            let error = MissingRequiredClientCapabilityData::new(required).to_error();
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        let info = RequestInfo {
            version: speaker.version,
            progress_token: None,
            log_level: speaker.log_level,
        };
        if let Err(error) = self.peer.admit(&id, info, batch, raw_len(params.as_ref())) {
            return self.peer.answer_unadmitted(Some(id), error, batch);
        }
        let context = RequestContext {
            version: speaker.version,
            client_capabilities: Some(speaker.capabilities),
            client_info: speaker.info,
            progress_token: None,
            log_level: speaker.log_level,
            trace: TraceContext::from_meta(meta.as_ref()),
        };
        self.events
            .push_back(Event::ExtensionRequest(IncomingRequest {
                id,
                request: ExtensionCall { method, params },
                context,
            }));
    }

    /// Answers an extension request (or any admitted request) with a result
    /// the runtime already shaped for the request's revision.
    ///
    /// # Errors
    ///
    /// When `id` names no request awaiting an answer.
    pub fn respond_raw(
        &mut self,
        id: &RequestId,
        result: Result<RawJson, ErrorObject>,
    ) -> Result<(), crate::SendError> {
        self.peer.answer(id, result)
    }
}
