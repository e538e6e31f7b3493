//! Reading JSON into the Rust model and writing it back for one revision:
//! messages through the generated routing enums (by method), other values
//! through the type named like their schema definition.

use mcpwire_jsonrpc::RawJson;
use mcpwire_types::methods::{
    ClientNotification, ClientRequest, ClientResult, DecodeError, MethodInfo, MethodKind,
    ServerNotification, ServerRequest, ServerResult, method_info,
};
use mcpwire_types::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Reads `value` as `T`, fits it to `version` and writes it back.
fn round_trip<T: DeserializeOwned + Serialize + ForRevision>(
    value: &Value,
    version: ProtocolVersion,
) -> Result<Value, String> {
    let typed: T =
        T::deserialize(value).map_err(|error| format!("does not deserialize: {error}"))?;
    to_json(&fitted(typed, version))
}

fn to_json(value: &impl Serialize) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|error| format!("does not serialize: {error}"))
}

fn raw(value: &Value) -> Result<RawJson, String> {
    RawJson::from_serialize(value).map_err(|error| error.to_string())
}

fn parse_raw(raw: &RawJson) -> Result<Value, String> {
    serde_json::from_str(raw.get()).map_err(|error| error.to_string())
}

fn decode_error(error: &DecodeError) -> String {
    format!("does not decode: {error}")
}

/// Lists the schema definitions read directly into a Rust type, and the type.
macro_rules! value_types {
    ($($rust:ty => [$($definition:literal),+ $(,)?]),+ $(,)?) => {
        /// Reads a value of schema definition `definition` into its Rust
        /// type, fits it to `version` and writes it back; `None` when no
        /// Rust type is listed for the definition.
        pub(crate) fn round_trip_value(
            definition: &str,
            value: &Value,
            version: ProtocolVersion,
        ) -> Option<Result<Value, String>> {
            Some(match definition {
                $($($definition)|+ => round_trip::<$rust>(value, version),)+
                _ => return None,
            })
        }
    };
}

value_types! {
    // Content blocks are read through the tagged unions that carry `type`.
    ContentBlock => ["TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource"],
    SamplingContent => ["ToolUseContent", "ToolResultContent"],
    ResourceContents => ["TextResourceContents", "BlobResourceContents"],
    ElicitRequestParams => ["ElicitRequestParams", "ElicitRequestFormParams", "ElicitRequestURLParams"],
    InputRequest => ["InputRequest"],
    InputRequests => ["InputRequests"],
    InputResponses => ["InputResponses"],
    InputRequiredResult => ["InputRequiredResult"],
    // Elicitation field schemas are read through their union, which fits them.
    PrimitiveSchemaDefinition => [
        "PrimitiveSchemaDefinition",
        "BooleanSchema",
        "NumberSchema",
        "StringSchema",
        "TitledMultiSelectEnumSchema",
        "TitledSingleSelectEnumSchema",
        "UntitledMultiSelectEnumSchema",
        "UntitledSingleSelectEnumSchema",
        "LegacyTitledEnumSchema",
    ],
    ClientCapabilities => ["ClientCapabilities"],
    ServerCapabilities => ["ServerCapabilities"],
    ModelPreferences => ["ModelPreferences"],
    SamplingMessage => ["SamplingMessage"],
    Resource => ["Resource"],
    Root => ["Root"],
    Tool => ["Tool"],
    TaskMetadata => ["TaskMetadata"],
    RelatedTaskMetadata => ["RelatedTaskMetadata"],
    CreateTaskResult => ["CreateTaskResult"],
    GetTaskResult => ["GetTaskResult"],
    RequestParams => ["RequestParams"],
    PaginatedRequestParams => ["PaginatedRequestParams"],
    CallToolRequestParams => ["CallToolRequestParams"],
    CancelledNotificationParams => ["CancelledNotificationParams"],
    CompleteRequestParams => ["CompleteRequestParams"],
    CreateMessageRequestParams => ["CreateMessageRequestParams"],
    GetPromptRequestParams => ["GetPromptRequestParams"],
    LoggingMessageNotificationParams => ["LoggingMessageNotificationParams"],
    ProgressNotificationParams => ["ProgressNotificationParams"],
    ResourceUpdatedNotificationParams => ["ResourceUpdatedNotificationParams"],
    CallToolResult => ["CallToolResult"],
    CompleteResult => ["CompleteResult"],
    CreateMessageResult => ["CreateMessageResult"],
    DiscoverResult => ["DiscoverResult"],
    ElicitResult => ["ElicitResult"],
    GetPromptResult => ["GetPromptResult"],
    ListPromptsResult => ["ListPromptsResult"],
    ListResourceTemplatesResult => ["ListResourceTemplatesResult"],
    ListResourcesResult => ["ListResourcesResult"],
    ListRootsResult => ["ListRootsResult"],
    ListToolsResult => ["ListToolsResult"],
    ReadResourceResult => ["ReadResourceResult"],
    SubscriptionsListenResult => ["SubscriptionsListenResult"],
}

/// What the schemas say about `method`, or an error naming it.
pub(crate) fn info(method: &str) -> Result<&'static MethodInfo, String> {
    method_info(method).ok_or_else(|| format!("{method:?} is not in the method table"))
}

/// Decodes the params of `method` through the routing enum(s) of the side(s)
/// that send it, fits them to `version` and encodes them again. A method
/// both sides send must come out the same through both enums.
pub(crate) fn round_trip_params(
    method: &str,
    params: Option<&Value>,
    version: ProtocolVersion,
) -> Result<Value, String> {
    let info = info(method)?;
    let params = params.map(raw).transpose()?;
    let params = params.as_ref();
    let mut outputs = Vec::new();
    if info.direction.client_sends() {
        outputs.push(match info.kind {
            MethodKind::Request => ClientRequest::decode(method, params)
                .map_err(|error| decode_error(&error))
                .and_then(|request| encode_fitted(request, version, ClientRequest::encode_params)),
            MethodKind::Notification => ClientNotification::decode(method, params)
                .map_err(|error| decode_error(&error))
                .and_then(|note| encode_fitted(note, version, ClientNotification::encode_params)),
        }?);
    }
    if info.direction.server_sends() {
        outputs.push(match info.kind {
            MethodKind::Request => ServerRequest::decode(method, params)
                .map_err(|error| decode_error(&error))
                .and_then(|request| encode_fitted(request, version, ServerRequest::encode_params)),
            MethodKind::Notification => ServerNotification::decode(method, params)
                .map_err(|error| decode_error(&error))
                .and_then(|note| encode_fitted(note, version, ServerNotification::encode_params)),
        }?);
    }
    if outputs.windows(2).any(|pair| pair[0] != pair[1]) {
        return Err(format!("client and server routing disagree: {outputs:?}"));
    }
    outputs
        .pop()
        .ok_or_else(|| format!("{method} has no sender"))
}

fn encode_fitted<T: ForRevision>(
    mut message: T,
    version: ProtocolVersion,
    encode: fn(&T) -> Result<RawJson, serde_json::Error>,
) -> Result<Value, String> {
    message.fit_to(version);
    let encoded = encode(&message).map_err(|error| format!("does not encode: {error}"))?;
    parse_raw(&encoded)
}

/// Decodes a result of a `method` request through the result enum of the
/// side that answers it, fits it to `version` and encodes it again.
pub(crate) fn round_trip_result(
    method: &str,
    result: &Value,
    version: ProtocolVersion,
) -> Result<Value, String> {
    let info = info(method)?;
    let result = raw(result)?;
    let mut outputs = Vec::new();
    if info.direction.client_sends() {
        let decoded =
            ServerResult::decode(method, &result).map_err(|error| decode_error(&error))?;
        outputs.push(encode_fitted(decoded, version, ServerResult::encode)?);
    }
    if info.direction.server_sends() {
        let decoded =
            ClientResult::decode(method, &result).map_err(|error| decode_error(&error))?;
        outputs.push(encode_fitted(decoded, version, ClientResult::encode)?);
    }
    if outputs.windows(2).any(|pair| pair[0] != pair[1]) {
        return Err(format!(
            "client and server result routing disagree: {outputs:?}"
        ));
    }
    outputs
        .pop()
        .ok_or_else(|| format!("{method} is not a request"))
}

/// Round-trips a JSON-RPC request or notification (`{jsonrpc, id?, method,
/// params?}`) through the routing enums, keeping the envelope. Absent
/// params stay absent when they encode as `{}`.
pub(crate) fn round_trip_message(
    message: &Value,
    version: ProtocolVersion,
) -> Result<Value, String> {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .ok_or("no method")?;
    let params = message.get("params");
    let encoded = round_trip_params(method, params, version)?;
    let mut out = message.clone();
    if params.is_some() || encoded != json!({}) {
        out["params"] = encoded;
    }
    Ok(out)
}

/// Round-trips the `result` of a response to a `method` request, keeping the envelope.
pub(crate) fn round_trip_response(
    response: &Value,
    method: &str,
    version: ProtocolVersion,
) -> Result<Value, String> {
    let result = response.get("result").ok_or("no result")?;
    let mut out = response.clone();
    out["result"] = round_trip_result(method, result, version)?;
    Ok(out)
}

/// Round-trips a JSON-RPC error response through the JSON-RPC message model,
/// and its `data` through the MCP type for codes that define one.
pub(crate) fn round_trip_error_response(response: &Value) -> Result<Value, String> {
    let message: mcpwire_jsonrpc::Message = serde_json::from_value(response.clone())
        .map_err(|error| format!("does not decode: {error}"))?;
    let mcpwire_jsonrpc::Message::Error(error_response) = &message else {
        return Err(format!("decodes as another kind of message: {message:?}"));
    };
    let error = &error_response.error;
    let data_round_trip = match McpErrorCode::from_code(error.code.code()) {
        Some(McpErrorCode::UnsupportedProtocolVersion) => {
            UnsupportedProtocolVersionData::from_error(error)
                .map(|data| to_json(&data.to_error(ProtocolVersion::LATEST)))
        }
        Some(McpErrorCode::MissingRequiredClientCapability) => {
            MissingRequiredClientCapabilityData::from_error(error)
                .map(|data| to_json(&data.to_error()))
        }
        Some(McpErrorCode::UrlElicitationRequired) => {
            URLElicitationRequiredData::from_error(error).map(|data| to_json(&data.to_error()))
        }
        _ => None,
    };
    if let Some(rewritten) = data_round_trip {
        let rewritten = rewritten?;
        let original = to_json(error)?;
        if rewritten.get("data") != original.get("data") {
            return Err(format!(
                "error data changed through its MCP type: {original} -> {rewritten}"
            ));
        }
    }
    to_json(&message)
}

/// Round-trips a bare JSON-RPC error object (`{code, message, data?}`).
pub(crate) fn round_trip_error_object(error: &Value) -> Result<Value, String> {
    let response = json!({ "jsonrpc": "2.0", "id": 0, "error": error });
    let out = round_trip_error_response(&response)?;
    out.get("error")
        .cloned()
        .ok_or_else(|| "the error member vanished".to_owned())
}
