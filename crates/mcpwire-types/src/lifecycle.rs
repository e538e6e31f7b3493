//! Starting a conversation: the `initialize` handshake (2024-11-05 to
//! 2025-11-25) and `server/discover` (2026-07-28).

use serde::{Deserialize, Serialize};

use crate::result::{fit_cache_hints, fit_result_type};
use crate::{
    CacheScope, ClientCapabilities, Extra, ForRevision, Implementation, Meta, ProtocolVersion,
    ResultType, ServerCapabilities, UnknownVersion, meta_keys,
};

/// Params of `initialize`, the first request of a handshake-era session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The newest revision the client supports. Kept as a string because a
    /// client may name a revision this model does not know.
    pub protocol_version: String,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl InitializeRequestParams {
    /// A client speaking up to `version`, with its capabilities and identity.
    pub fn new(
        version: ProtocolVersion,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: version.as_str().to_owned(),
            capabilities,
            client_info,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The requested revision, if it is one this model knows.
    pub fn requested_version(&self) -> Result<ProtocolVersion, UnknownVersion> {
        ProtocolVersion::parse(&self.protocol_version)
    }
}

impl ForRevision for InitializeRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.capabilities.fit_to(version);
        self.client_info.fit_to(version);
    }
}

/// The result of `initialize`: the revision the server chose, what it
/// supports and who it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The revision the server wants to use; the client disconnects if it
    /// cannot speak it. A string, since a server may name one we do not know.
    pub protocol_version: String,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server, e.g. for a model's system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl InitializeResult {
    /// A server answering in `version`, with its capabilities and identity.
    pub fn new(
        version: ProtocolVersion,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: version.as_str().to_owned(),
            capabilities,
            server_info,
            instructions: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The chosen revision, if it is one this model knows.
    pub fn chosen_version(&self) -> Result<ProtocolVersion, UnknownVersion> {
        ProtocolVersion::parse(&self.protocol_version)
    }
}

impl ForRevision for InitializeResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.capabilities.fit_to(version);
        self.server_info.fit_to(version);
    }
}

/// The result of `server/discover` (2026-07-28): the revisions the server
/// speaks, what it supports and, in `_meta`, who it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// The revisions the server supports; the client picks one of them for
    /// its requests. Strings, since a server may list revisions we do not know.
    pub supported_versions: Vec<String>,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// How to use the server, e.g. for a model's system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// How long, in milliseconds, the client may cache this result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache this result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// The kind of result; always `complete` here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata; the server's identity goes under
    /// [`meta_keys::SERVER_INFO`](crate::meta_keys::SERVER_INFO).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl DiscoverResult {
    /// A result listing `versions` and `capabilities`.
    pub fn new(
        versions: impl IntoIterator<Item = ProtocolVersion>,
        capabilities: ServerCapabilities,
    ) -> Self {
        Self {
            supported_versions: versions
                .into_iter()
                .map(|v| v.as_str().to_owned())
                .collect(),
            capabilities,
            instructions: None,
            ttl_ms: None,
            cache_scope: None,
            result_type: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// Sets the server identity in `_meta`.
    pub fn with_server_info(mut self, server_info: &Implementation) -> Self {
        let value = serde_json::to_value(server_info).unwrap_or_default();
        self.meta
            .get_or_insert_with(Meta::new)
            .insert(meta_keys::SERVER_INFO, value);
        self
    }

    /// The server identity from `_meta`, if present and well formed.
    pub fn server_info(&self) -> Option<Implementation> {
        self.meta
            .as_ref()
            .and_then(|m| m.get_as(meta_keys::SERVER_INFO))
    }

    /// The listed revisions this model knows, in the server's order.
    pub fn known_versions(&self) -> Vec<ProtocolVersion> {
        self.supported_versions
            .iter()
            .filter_map(|v| ProtocolVersion::parse(v).ok())
            .collect()
    }

    /// The newest listed revision that is also in `ours`, if any.
    pub fn best_common_version(&self, ours: &[ProtocolVersion]) -> Option<ProtocolVersion> {
        self.known_versions()
            .into_iter()
            .filter(|v| ours.contains(v))
            .max()
    }
}

impl ForRevision for DiscoverResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.capabilities.fit_to(version);
        fit_result_type(&mut self.result_type, version);
        fit_cache_hints(&mut self.ttl_ms, &mut self.cache_scope, version);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::fitted;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(parsed).unwrap()
    }

    #[test]
    fn initialize_exchange_from_the_2025_11_25_prose_round_trips() {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "roots": { "listChanged": true }, "sampling": {},
                "elicitation": { "form": {}, "url": {} },
                "tasks": { "requests": { "elicitation": { "create": {} },
                    "sampling": { "createMessage": {} } } } },
            "clientInfo": { "name": "ExampleClient", "title": "Example Client Display Name",
                "version": "1.0.0", "description": "An example MCP client application",
                "icons": [{ "src": "https://example.com/icon.png", "mimeType": "image/png",
                    "sizes": ["48x48"] }],
                "websiteUrl": "https://example.com" }
        });
        assert_eq!(round_trip::<InitializeRequestParams>(&params), params);
        let result = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "logging": {}, "prompts": { "listChanged": true },
                "resources": { "subscribe": true, "listChanged": true },
                "tools": { "listChanged": true },
                "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } } },
            "serverInfo": { "name": "ExampleServer", "version": "1.0.0" },
            "instructions": "Optional instructions for the client"
        });
        assert_eq!(round_trip::<InitializeResult>(&result), result);
    }

    #[test]
    fn unknown_protocol_versions_are_read_and_reported() {
        let params: InitializeRequestParams = serde_json::from_value(json!({
            "protocolVersion": "2099-01-01", "capabilities": {},
            "clientInfo": { "name": "c", "version": "1" }
        }))
        .unwrap();
        assert_eq!(
            params.requested_version(),
            Err(UnknownVersion("2099-01-01".into()))
        );
    }

    #[test]
    fn initialize_fitted_to_2024_11_05_loses_newer_fields() {
        let mut info = Implementation::new("c", "1");
        info.title = Some("Client".into());
        let caps: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": {}, "sampling": { "tools": {} } }))
                .unwrap();
        let params = fitted(
            InitializeRequestParams::new(ProtocolVersion::V2024_11_05, caps, info),
            ProtocolVersion::V2024_11_05,
        );
        assert_eq!(
            serde_json::to_value(params).unwrap(),
            json!({ "protocolVersion": "2024-11-05", "capabilities": { "sampling": {} },
                "clientInfo": { "name": "c", "version": "1" } })
        );
    }

    #[test]
    fn discover_example_round_trips() {
        let result = json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": { "tools": {}, "resources": {} },
            "_meta": { "io.modelcontextprotocol/serverInfo": {
                "name": "ExampleServer", "version": "1.0.0" } },
            "instructions": "This server provides weather and resource utilities.",
            "ttlMs": 3600000,
            "cacheScope": "public"
        });
        assert_eq!(round_trip::<DiscoverResult>(&result), result);
        let parsed: DiscoverResult = serde_json::from_value(result).unwrap();
        assert_eq!(
            parsed.server_info().map(|i| i.name),
            Some("ExampleServer".into())
        );
        assert_eq!(parsed.known_versions(), [ProtocolVersion::V2026_07_28]);
    }

    #[test]
    fn discover_fitted_to_2026_07_28_fills_result_type_and_cache_hints() {
        let result = DiscoverResult::new(
            [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25],
            ServerCapabilities::default(),
        )
        .with_server_info(&Implementation::new("s", "1"));
        let wire = serde_json::to_value(fitted(result, ProtocolVersion::V2026_07_28)).unwrap();
        assert_eq!(
            wire,
            json!({ "supportedVersions": ["2026-07-28", "2025-11-25"], "capabilities": {},
                "ttlMs": 0, "cacheScope": "private", "resultType": "complete",
                "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "s", "version": "1" } } })
        );
    }

    #[test]
    fn best_common_version_is_the_newest_shared_one() {
        let mut result = DiscoverResult::new(
            [ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28],
            ServerCapabilities::default(),
        );
        result.supported_versions.push("2099-01-01".into());
        let ours = [ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25];
        assert_eq!(
            result.best_common_version(&ours),
            Some(ProtocolVersion::V2025_06_18)
        );
        assert_eq!(result.best_common_version(&[]), None);
    }

    #[test]
    fn unknown_fields_survive_in_lifecycle_messages() {
        let result = json!({ "protocolVersion": "2025-06-18", "capabilities": {},
            "serverInfo": { "name": "s", "version": "1" }, "x-vendor": 1 });
        assert_eq!(round_trip::<InitializeResult>(&result), result);
    }
}
