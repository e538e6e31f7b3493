//! The error codes MCP defines on top of JSON-RPC, and the `data` each of
//! them carries.
//!
//! The five standard JSON-RPC codes are [`mcpwire_jsonrpc::ErrorCode`]
//! constants. MCP adds a few of its own, which moved between revisions; the
//! functions here pick the right one for a revision. From 2026-07-28 the
//! range -32020 to -32099 is reserved for codes the specification defines,
//! and -32000 to -32019 is legacy.

use mcpwire_jsonrpc::{ErrorCode, ErrorObject};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{ClientCapabilities, ElicitRequestURLParams, Extra, ForRevision, ProtocolVersion};

/// An error code defined by MCP rather than by JSON-RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum McpErrorCode {
    /// -32002, resource not found: 2024-11-05 to 2025-11-25. 2026-07-28 uses
    /// -32602 (invalid params) instead and forbids -32002, but clients should
    /// still accept it from older servers.
    ResourceNotFound,
    /// -32020, HTTP headers do not match the body or are missing (2026-07-28).
    HeaderMismatch,
    /// -32021, the request needs a client capability that was not declared
    /// (2026-07-28); `data` is [`MissingRequiredClientCapabilityData`].
    MissingRequiredClientCapability,
    /// -32022, the request's protocol version is not supported (2026-07-28;
    /// earlier revisions answer `initialize` with -32602 and the same
    /// `data`, [`UnsupportedProtocolVersionData`]).
    UnsupportedProtocolVersion,
    /// -32042, the request needs a URL-mode elicitation first (2025-11-25
    /// only); `data` is [`URLElicitationRequiredData`].
    UrlElicitationRequired,
}

impl McpErrorCode {
    /// Every MCP-defined code.
    pub const ALL: [McpErrorCode; 5] = [
        Self::ResourceNotFound,
        Self::HeaderMismatch,
        Self::MissingRequiredClientCapability,
        Self::UnsupportedProtocolVersion,
        Self::UrlElicitationRequired,
    ];

    /// The numeric code.
    pub const fn code(self) -> i64 {
        match self {
            Self::ResourceNotFound => -32002,
            Self::HeaderMismatch => -32020,
            Self::MissingRequiredClientCapability => -32021,
            Self::UnsupportedProtocolVersion => -32022,
            Self::UrlElicitationRequired => -32042,
        }
    }

    /// The code as a JSON-RPC [`ErrorCode`].
    pub const fn error_code(self) -> ErrorCode {
        ErrorCode(self.code())
    }

    /// The MCP code with this number, if any.
    pub fn from_code(code: i64) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.code() == code)
    }

    /// A short default message.
    pub const fn default_message(self) -> &'static str {
        match self {
            Self::ResourceNotFound => "Resource not found",
            Self::HeaderMismatch => "Header mismatch",
            Self::MissingRequiredClientCapability => "Missing required client capability",
            Self::UnsupportedProtocolVersion => "Unsupported protocol version",
            Self::UrlElicitationRequired => "URL elicitation required",
        }
    }

    /// Whether a peer speaking `version` may be sent this code.
    pub const fn exists_in(self, version: ProtocolVersion) -> bool {
        match self {
            Self::ResourceNotFound => version.has_handshake(),
            Self::HeaderMismatch
            | Self::MissingRequiredClientCapability
            | Self::UnsupportedProtocolVersion => version.is_stateless(),
            // URL elicitation arrived in 2025-11-25 and its error left with
            // the handshake, when multi round-trip requests took over.
            Self::UrlElicitationRequired => {
                version.has_url_elicitation() && version.has_handshake()
            }
        }
    }

    /// An error with this code and its default message.
    pub fn to_error(self) -> ErrorObject {
        ErrorObject::new(self.error_code(), self.default_message())
    }
}

/// The code for "resource not found" in `version`: -32002 before
/// 2026-07-28, -32602 (invalid params) from it.
pub fn resource_not_found_code(version: ProtocolVersion) -> ErrorCode {
    if McpErrorCode::ResourceNotFound.exists_in(version) {
        McpErrorCode::ResourceNotFound.error_code()
    } else {
        ErrorCode::INVALID_PARAMS
    }
}

/// The code for "unsupported protocol version" in `version`: -32602 (the
/// answer to `initialize`) in handshake revisions, -32022 from 2026-07-28.
pub fn unsupported_protocol_version_code(version: ProtocolVersion) -> ErrorCode {
    if McpErrorCode::UnsupportedProtocolVersion.exists_in(version) {
        McpErrorCode::UnsupportedProtocolVersion.error_code()
    } else {
        ErrorCode::INVALID_PARAMS
    }
}

/// Attaches `data` to `error`; our data types always serialize.
fn with_data(mut error: ErrorObject, data: &impl Serialize) -> ErrorObject {
    error.data = mcpwire_jsonrpc::RawJson::from_serialize(data).ok();
    error
}

/// Reads the `data` of a received `error` as `T`; `None` when absent or of
/// another shape.
fn read_data<T: DeserializeOwned>(error: &ErrorObject) -> Option<T> {
    error
        .data
        .as_ref()
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
}

/// The `data` of an unsupported-protocol-version error: what was asked for
/// and what the server speaks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnsupportedProtocolVersionData {
    /// The revisions the server supports; the client retries with one of them.
    pub supported: Vec<String>,
    /// The revision the client asked for.
    pub requested: String,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl UnsupportedProtocolVersionData {
    /// Data for a request that asked for `requested` of a server speaking `supported`.
    pub fn new(
        requested: impl Into<String>,
        supported: impl IntoIterator<Item = ProtocolVersion>,
    ) -> Self {
        Self {
            supported: supported
                .into_iter()
                .map(|v| v.as_str().to_owned())
                .collect(),
            requested: requested.into(),
            extra: Extra::new(),
        }
    }

    /// The error carrying this data, with the code `version` uses.
    pub fn to_error(&self, version: ProtocolVersion) -> ErrorObject {
        let code = unsupported_protocol_version_code(version);
        let message = McpErrorCode::UnsupportedProtocolVersion.default_message();
        with_data(ErrorObject::new(code, message), self)
    }

    /// The data of a received error, if it has this shape.
    pub fn from_error(error: &ErrorObject) -> Option<Self> {
        read_data(error)
    }
}

impl ForRevision for UnsupportedProtocolVersionData {
    /// The same shape in every revision.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// The `data` of a missing-required-client-capability error (2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request needs.
    pub required_capabilities: ClientCapabilities,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl MissingRequiredClientCapabilityData {
    /// Data naming `required` as the missing capabilities.
    pub fn new(required: ClientCapabilities) -> Self {
        Self {
            required_capabilities: required,
            extra: Extra::new(),
        }
    }

    /// The error carrying this data.
    pub fn to_error(&self) -> ErrorObject {
        with_data(
            McpErrorCode::MissingRequiredClientCapability.to_error(),
            self,
        )
    }

    /// The data of a received error, if it has this shape.
    pub fn from_error(error: &ErrorObject) -> Option<Self> {
        read_data(error)
    }
}

impl ForRevision for MissingRequiredClientCapabilityData {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.required_capabilities.fit_to(version);
    }
}

/// The `data` of a URL-elicitation-required error (2025-11-25): the
/// elicitations the user must complete before the request can succeed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct URLElicitationRequiredData {
    /// The URL-mode elicitations to complete.
    pub elicitations: Vec<ElicitRequestURLParams>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl URLElicitationRequiredData {
    /// Data asking for `elicitations`.
    pub fn new(elicitations: Vec<ElicitRequestURLParams>) -> Self {
        Self {
            elicitations,
            extra: Extra::new(),
        }
    }

    /// The error carrying this data.
    pub fn to_error(&self) -> ErrorObject {
        with_data(McpErrorCode::UrlElicitationRequired.to_error(), self)
    }

    /// The data of a received error, if it has this shape.
    pub fn from_error(error: &ErrorObject) -> Option<Self> {
        read_data(error)
    }
}

impl ForRevision for URLElicitationRequiredData {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.elicitations.fit_to(version);
    }
}

/// A header-mismatch error (2026-07-28) explaining `message`; it has no `data`.
pub fn header_mismatch_error(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(McpErrorCode::HeaderMismatch.error_code(), message)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn wire(error: &ErrorObject) -> Value {
        serde_json::to_value(error).unwrap()
    }

    #[test]
    fn spec_error_examples_are_produced() {
        let data = json!({ "supported": ["2026-07-28", "2025-11-25"], "requested": "1900-01-01" });
        let parsed: UnsupportedProtocolVersionData = serde_json::from_value(data.clone()).unwrap();
        assert_eq!(serde_json::to_value(&parsed).unwrap(), data);
        assert_eq!(
            wire(&parsed.to_error(ProtocolVersion::V2026_07_28)),
            json!({ "code": -32022, "message": "Unsupported protocol version", "data": data })
        );
        let required: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": {} })).unwrap();
        assert_eq!(
            wire(&MissingRequiredClientCapabilityData::new(required).to_error()),
            json!({ "code": -32021, "message": "Missing required client capability",
                "data": { "requiredCapabilities": { "elicitation": {} } } })
        );
        let mismatch = header_mismatch_error("Header mismatch: Mcp-Name header value 'foo'");
        assert_eq!(wire(&mismatch)["code"], json!(-32020));
    }

    #[test]
    fn url_elicitation_data_from_the_2025_11_25_prose_round_trips() {
        let data = json!({ "elicitations": [{ "mode": "url",
            "elicitationId": "550e8400-e29b-41d4-a716-446655440000",
            "url": "https://mcp.example.com/connect?elicitationId=550e8400",
            "message": "Authorization is required to access your Example Co files." }] });
        let parsed: URLElicitationRequiredData = serde_json::from_value(data.clone()).unwrap();
        let error = parsed.to_error();
        assert_eq!(
            wire(&error),
            json!({ "code": -32042,
            "message": "URL elicitation required", "data": data })
        );
        assert_eq!(URLElicitationRequiredData::from_error(&error), Some(parsed));
    }

    #[test]
    fn codes_follow_the_revision() {
        assert_eq!(
            resource_not_found_code(ProtocolVersion::V2025_11_25),
            ErrorCode(-32002)
        );
        assert_eq!(
            resource_not_found_code(ProtocolVersion::V2026_07_28),
            ErrorCode::INVALID_PARAMS
        );
        assert_eq!(
            unsupported_protocol_version_code(ProtocolVersion::V2024_11_05),
            ErrorCode::INVALID_PARAMS
        );
        assert!(McpErrorCode::UrlElicitationRequired.exists_in(ProtocolVersion::V2025_11_25));
        assert!(!McpErrorCode::UrlElicitationRequired.exists_in(ProtocolVersion::V2026_07_28));
        assert!(!McpErrorCode::HeaderMismatch.exists_in(ProtocolVersion::V2025_11_25));
    }

    #[test]
    fn every_code_is_found_by_its_number_and_sits_in_the_server_range() {
        for code in McpErrorCode::ALL {
            assert_eq!(McpErrorCode::from_code(code.code()), Some(code));
            assert!(code.error_code().is_server_error(), "{code:?}");
        }
        assert_eq!(McpErrorCode::from_code(-32602), None);
    }

    #[test]
    fn data_of_another_shape_is_not_read() {
        let error = header_mismatch_error("m");
        assert_eq!(UnsupportedProtocolVersionData::from_error(&error), None);
        let error = with_data(ErrorObject::invalid_params("m"), &json!({ "x": 1 }));
        assert_eq!(
            MissingRequiredClientCapabilityData::from_error(&error),
            None
        );
    }

    #[test]
    fn fitting_data_fits_the_capabilities_and_elicitations_inside() {
        let required: ClientCapabilities = serde_json::from_value(
            json!({ "elicitation": { "url": {} }, "extensions": { "x/y": {} } }),
        )
        .unwrap();
        let mut data = MissingRequiredClientCapabilityData::new(required);
        data.fit_to(ProtocolVersion::V2025_11_25);
        assert!(data.required_capabilities.extensions.is_none());
        let mut data = URLElicitationRequiredData::new(vec![
            ElicitRequestURLParams::new("m", "https://e.example").with_elicitation_id("e"),
        ]);
        data.fit_to(ProtocolVersion::V2026_07_28);
        assert_eq!(data.elicitations[0].elicitation_id, None);
    }
}
