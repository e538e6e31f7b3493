//! Request methods that an extension adds (the tasks extension's
//! `tasks/get`, `tasks/update`, `tasks/cancel` in the stateless revision;
//! the skills extension's `skills/list`, `skills/get` and
//! `resources/directory/read` in every revision with `extensions`): routed
//! to the runtime as raw calls, and refused with -32021 when the extension
//! needs the client to declare it and the request's client did not.

use mcpwire_jsonrpc::{ErrorObject, RawJson, RequestId};
use mcpwire_types::{ClientCapabilities, Meta, MissingRequiredClientCapabilityData, meta_keys};

use super::ServerSession;
use crate::peer::{BatchId, RequestInfo};
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
    /// Whether it is also served in handshake-era sessions whose revision
    /// carries `extensions` (2025-11-25), when that revision has no core
    /// method of the name.
    pub handshake_era: bool,
}

impl ExtensionMethod {
    /// `method`, added by the extension `extension` to the stateless
    /// revision, for clients that declare the extension.
    pub fn new(method: impl Into<String>, extension: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            extension: extension.into(),
            client_must_declare: true,
            handshake_era: false,
        }
    }

    /// `method`, added by the extension `extension`, served to every
    /// client in every revision that carries `extensions`: the client
    /// learns of it from the server's declaration and need not declare it
    /// itself.
    pub fn open(method: impl Into<String>, extension: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            extension: extension.into(),
            client_must_declare: false,
            handshake_era: true,
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
    ) -> Option<&ExtensionMethod> {
        let added = self
            .config
            .extension_methods
            .iter()
            .find(|m| m.method == method)?;
        let stateless =
            meta_of(params).is_some_and(|m| m.get(meta_keys::PROTOCOL_VERSION).is_some());
        if stateless {
            return Some(added);
        }
        let client = self.client().filter(|_| added.handshake_era)?;
        let version = client.version;
        let core = mcpwire_types::methods::method_info(method)
            .is_some_and(|info| info.direction.client_sends() && info.in_revision(version));
        (version.has_extensions() && !core).then_some(added)
    }

    /// Serves a request of a method the extension `extension` adds: checks
    /// the per-request fields like any stateless request (or takes the
    /// session's client in the handshake era), refuses a client that did
    /// not declare an extension that needs it (-32021 naming it), and hands
    /// the rest to the runtime as an [`Event::ExtensionRequest`].
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
        let speaker = match (requested, self.client()) {
            (Some(requested), _) => self.stateless_speaker(requested, meta.as_ref()),
            (None, Some(client)) => Ok(super::inbound::Speaker {
                version: client.version,
                capabilities: client.capabilities.clone(),
                info: Some(client.info.clone()),
                log_level: self.log_level,
            }),
            (None, None) => Err(ErrorObject::method_not_found(&method)),
        };
        let speaker = match speaker {
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
        if let Err(error) = self.peer.admit(&id, info, batch) {
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
