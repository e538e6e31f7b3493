//! Requests of methods an extension adds (the tasks extension's
//! `tasks/get`, `tasks/update`, `tasks/cancel` in 2026-07-28): sent only
//! when the client declares the extension and the revision has no core
//! method of that name, answered with untyped results.

use std::time::Instant;

use mcpwire_jsonrpc::RequestId;
use mcpwire_types::Meta;

use super::{ClientSession, State};
use crate::{Event, RequestOptions, ResponseError, SendError};

impl ClientSession {
    /// Sends `method`, a method an extension the client declared adds
    /// (see [`ClientConfig::with_extension`](super::ClientConfig::with_extension)),
    /// with `params` (a JSON object, or `None`); its answer arrives as an
    /// [`Event::ExtensionResponse`]. In 2026-07-28 its `_meta` gets the
    /// per-request fields, as in [`ClientSession::send_request`].
    ///
    /// # Errors
    ///
    /// Before the session is established; [`SendError::Serialize`] when
    /// `method` is not registered as an extension method, or is a core
    /// method of the revision; [`SendError::PeerLacksCapability`] when the server did
    /// not declare the extension.
    pub fn send_extension_request(
        &mut self,
        method: &str,
        params: Option<serde_json::Map<String, serde_json::Value>>,
        options: RequestOptions,
        now: Instant,
    ) -> Result<RequestId, SendError> {
        let version = match &self.state {
            State::Ready(view) => view.version,
            State::Failed(reason) => return Err(SendError::Failed(reason.clone())),
            _ => return Err(SendError::NotInitialized),
        };
        let Some(&(method, extension)) = self
            .config
            .extension_methods
            .iter()
            .find(|(registered, _)| *registered == method)
        else {
            return Err(SendError::Serialize(format!(
                "{method} is not a method of an extension this client declares"
            )));
        };
        let core = mcpwire_types::methods::method_info(method)
            .is_some_and(|info| info.direction.client_sends() && info.in_revision(version));
        if core {
            // The revision's own method of that name wins (e.g. the core
            // `tasks/get` of 2025-11-25): send it typed instead.
            return Err(SendError::Serialize(format!(
                "{method} is a core method in {version}, not an extension method"
            )));
        }
        let server_declares = self
            .server()
            .is_some_and(|view| view.capabilities.supports_extension(extension));
        if !server_declares {
            let capability = extension;
            return Err(SendError::PeerLacksCapability { method, capability });
        }
        self.peer.check_outbound_room()?;
        let mut params = params.unwrap_or_default();
        if version.is_stateless() {
            let mut meta = match params.remove("_meta") {
                Some(value) => serde_json::from_value(value)
                    .map_err(|e| SendError::Serialize(e.to_string()))?,
                None => Meta::new(),
            };
            self.stamp_stateless(&mut meta, version);
            let meta =
                serde_json::to_value(meta).map_err(|e| SendError::Serialize(e.to_string()))?;
            params.insert("_meta".to_owned(), meta);
        }
        let raw = mcpwire_jsonrpc::RawJson::from_serialize(&params)
            .map_err(|e| SendError::Serialize(e.to_string()))?;
        let id = self
            .peer
            .start_request(method, Some(raw), options, None, now);
        self.extension_requests.insert(id.clone());
        Ok(id)
    }

    /// Reports the answer to the extension request `id`, when it is one.
    /// Returns whether it was.
    pub(super) fn extension_answer(
        &mut self,
        id: &RequestId,
        outcome: &Result<mcpwire_jsonrpc::RawJson, mcpwire_jsonrpc::ErrorObject>,
    ) -> bool {
        if !self.extension_requests.remove(id) {
            return false;
        }
        let result = match outcome {
            Ok(raw) => serde_json::from_str(raw.get())
                .map_err(|e| ResponseError::InvalidResult(e.to_string())),
            Err(error) => Err(ResponseError::Peer(error.clone())),
        };
        self.events.push_back(Event::ExtensionResponse {
            id: id.clone(),
            result,
        });
        true
    }
}
