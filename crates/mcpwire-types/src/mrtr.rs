//! Multi round-trip requests (2026-07-28): instead of sending the client
//! requests of its own, a server answers `input_required` with the requests
//! it needs fulfilled, and the client retries with the answers.

use std::collections::BTreeMap;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::result::fit_result_type;
use crate::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, Extra,
    ForRevision, ListRootsResult, Meta, ProtocolVersion, RequestParams, ResultType,
};

/// A request the server needs the client to fulfil before it can finish:
/// `{ "method": ..., "params": ... }` without a JSON-RPC id.
///
/// Read by `method`; a method this model does not know is kept as
/// [`InputRequestKind::Other`] so that the rest of the result can still be
/// read. Other keys beside `method` and `params` are kept in `extra`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    /// What is asked, by method.
    pub kind: InputRequestKind,
    /// Keys beside `method` and `params` that this model does not name.
    pub extra: Extra,
}

/// The method and params of an [`InputRequest`].
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequestKind {
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequestParams),
    /// `roots/list` (its params are optional and carry only `_meta`).
    ListRoots(Option<RequestParams>),
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
    /// A method this model does not know.
    Other {
        /// The method name.
        method: String,
        /// The params, as sent.
        params: Option<Value>,
    },
}

impl From<InputRequestKind> for InputRequest {
    fn from(kind: InputRequestKind) -> Self {
        Self {
            kind,
            extra: Extra::new(),
        }
    }
}

impl InputRequest {
    /// The method name of `sampling/createMessage`.
    pub const CREATE_MESSAGE: &'static str = "sampling/createMessage";
    /// The method name of `roots/list`.
    pub const LIST_ROOTS: &'static str = "roots/list";
    /// The method name of `elicitation/create`.
    pub const ELICIT: &'static str = "elicitation/create";

    /// The request's method name.
    pub fn method(&self) -> &str {
        match &self.kind {
            InputRequestKind::CreateMessage(_) => Self::CREATE_MESSAGE,
            InputRequestKind::ListRoots(_) => Self::LIST_ROOTS,
            InputRequestKind::Elicit(_) => Self::ELICIT,
            InputRequestKind::Other { method, .. } => method,
        }
    }

    /// Reads `response` as the result type of this request's method, so
    /// that a server need not guess the shape of an answer.
    pub fn read_response(&self, response: &Value) -> Result<InputResponse, serde_json::Error> {
        match &self.kind {
            InputRequestKind::CreateMessage(_) => {
                CreateMessageResult::deserialize(response).map(InputResponse::CreateMessage)
            }
            InputRequestKind::ListRoots(_) => {
                ListRootsResult::deserialize(response).map(InputResponse::ListRoots)
            }
            InputRequestKind::Elicit(_) => {
                ElicitResult::deserialize(response).map(InputResponse::Elicit)
            }
            InputRequestKind::Other { .. } => Map::deserialize(response).map(InputResponse::Other),
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in &self.extra {
            if key != "method" && key != "params" {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry("method", self.method())?;
        match &self.kind {
            InputRequestKind::CreateMessage(params) => map.serialize_entry("params", params)?,
            InputRequestKind::ListRoots(Some(params)) => map.serialize_entry("params", params)?,
            InputRequestKind::Elicit(params) => map.serialize_entry("params", params)?,
            InputRequestKind::Other {
                params: Some(params),
                ..
            } => map.serialize_entry("params", params)?,
            InputRequestKind::ListRoots(None) | InputRequestKind::Other { params: None, .. } => {}
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    /// Chooses by `method`, not by trying each variant in turn.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<Value>,
            #[serde(flatten)]
            extra: Extra,
        }
        let Raw {
            method,
            params,
            extra,
        } = Raw::deserialize(deserializer)?;
        let required =
            |params: Option<Value>| params.ok_or_else(|| D::Error::missing_field("params"));
        let kind = match method.as_str() {
            Self::CREATE_MESSAGE => InputRequestKind::CreateMessage(
                CreateMessageRequestParams::deserialize(required(params)?)
                    .map_err(D::Error::custom)?,
            ),
            Self::ELICIT => InputRequestKind::Elicit(
                ElicitRequestParams::deserialize(required(params)?).map_err(D::Error::custom)?,
            ),
            Self::LIST_ROOTS => InputRequestKind::ListRoots(
                params
                    .map(RequestParams::deserialize)
                    .transpose()
                    .map_err(D::Error::custom)?,
            ),
            _ => InputRequestKind::Other { method, params },
        };
        Ok(Self { kind, extra })
    }
}

impl ForRevision for InputRequest {
    fn fit_to(&mut self, version: ProtocolVersion) {
        match &mut self.kind {
            InputRequestKind::CreateMessage(params) => params.fit_to(version),
            InputRequestKind::ListRoots(params) => params.fit_to(version),
            InputRequestKind::Elicit(params) => params.fit_to(version),
            InputRequestKind::Other { .. } => {}
        }
    }
}

/// The requests of an `input_required` result, by server-chosen key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InputRequests(pub BTreeMap<String, InputRequest>);

impl InputRequests {
    /// No requests.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `request` under `key`, replacing what was there.
    pub fn insert(&mut self, key: impl Into<String>, request: InputRequest) -> &mut Self {
        self.0.insert(key.into(), request);
        self
    }

    /// The request under `key`.
    pub fn get(&self, key: &str) -> Option<&InputRequest> {
        self.0.get(key)
    }

    /// Whether there are no requests.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The requests with their keys, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &InputRequest)> {
        self.0.iter()
    }
}

impl ForRevision for InputRequests {
    fn fit_to(&mut self, version: ProtocolVersion) {
        for request in self.0.values_mut() {
            request.fit_to(version);
        }
    }
}

/// The client's answer to one input request.
///
/// The three result shapes carry no tag, so reading without the request at
/// hand goes by key: `action` means elicitation, `roots` means roots, `model`
/// means sampling; anything else is kept as [`InputResponse::Other`] (servers
/// ignore what they do not need). With the request at hand prefer
/// [`InputRequest::read_response`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[expect(
    clippy::large_enum_variant,
    reason = "built once per answer and moved a handful of times; a box would only add an allocation"
)]
pub enum InputResponse {
    /// The answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// The answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// The answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// An answer of a shape this model does not know.
    Other(Map<String, Value>),
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let map = Map::deserialize(deserializer)?;
        let parsed = if map.contains_key("action") {
            ElicitResult::deserialize(Value::Object(map)).map(Self::Elicit)
        } else if map.contains_key("roots") {
            ListRootsResult::deserialize(Value::Object(map)).map(Self::ListRoots)
        } else if map.contains_key("model") {
            CreateMessageResult::deserialize(Value::Object(map)).map(Self::CreateMessage)
        } else {
            return Ok(Self::Other(map));
        };
        parsed.map_err(D::Error::custom)
    }
}

impl ForRevision for InputResponse {
    fn fit_to(&mut self, version: ProtocolVersion) {
        match self {
            Self::CreateMessage(result) => result.fit_to(version),
            Self::ListRoots(result) => result.fit_to(version),
            Self::Elicit(result) => result.fit_to(version),
            Self::Other(_) => {}
        }
    }
}

/// The client's answers, under the keys of the requests they answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InputResponses(pub BTreeMap<String, InputResponse>);

impl InputResponses {
    /// No answers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `response` under `key`, replacing what was there.
    pub fn insert(&mut self, key: impl Into<String>, response: InputResponse) -> &mut Self {
        self.0.insert(key.into(), response);
        self
    }

    /// The answer under `key`.
    pub fn get(&self, key: &str) -> Option<&InputResponse> {
        self.0.get(key)
    }

    /// Whether there are no answers.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The answers with their keys, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &InputResponse)> {
        self.0.iter()
    }
}

impl ForRevision for InputResponses {
    fn fit_to(&mut self, version: ProtocolVersion) {
        for response in self.0.values_mut() {
            response.fit_to(version);
        }
    }
}

/// A result saying the server needs more before it can finish
/// (`resultType: "input_required"`); allowed for `tools/call`,
/// `prompts/get` and `resources/read`.
///
/// It carries at least one of `inputRequests` and `requestState`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// What the client must fulfil before retrying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client must send back unchanged with the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `input_required`; filled in when fitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl InputRequiredResult {
    /// A result asking for `requests`.
    pub fn new(requests: InputRequests) -> Self {
        Self {
            input_requests: Some(requests),
            ..Self::default()
        }
    }

    /// The same result carrying `state` for the retry.
    pub fn with_request_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }

    /// Whether it carries something to act on, as the spec requires.
    pub fn is_well_formed(&self) -> bool {
        self.input_requests.is_some() || self.request_state.is_some()
    }
}

impl ForRevision for InputRequiredResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        if version.has_result_type() {
            self.result_type.get_or_insert(ResultType::InputRequired);
        } else {
            fit_result_type(&mut self.result_type, version);
        }
        self.input_requests.fit_to(version);
    }
}

/// The fields a retried request adds to its params: the answers to the
/// input requests and the state the server asked to get back.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputResponseRequestParams {
    /// The answers, keyed as the requests were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The `requestState` of the `input_required` result, unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata (required in 2026-07-28; the session fills it in).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for InputResponseRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.input_responses.fit_to(version);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::fitted;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(parsed).unwrap()
    }

    fn spec_input_required() -> Value {
        json!({
            "resultType": "input_required",
            "inputRequests": {
                "github_login": { "method": "elicitation/create", "params": {
                    "message": "Please provide your GitHub username",
                    "requestedSchema": { "type": "object",
                        "properties": { "name": { "type": "string" } }, "required": ["name"] } } },
                "capital_of_france": { "method": "sampling/createMessage", "params": {
                    "messages": [{ "role": "user",
                        "content": { "type": "text", "text": "What is the capital of France?" } }],
                    "maxTokens": 100 } }
            },
            "requestState": "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"
        })
    }

    #[test]
    fn spec_examples_round_trip() {
        let result = spec_input_required();
        assert_eq!(round_trip::<InputRequiredResult>(&result), result);
        let parsed: InputRequiredResult = serde_json::from_value(result).unwrap();
        let requests = parsed.input_requests.unwrap();
        assert!(matches!(
            requests.get("github_login").map(|r| &r.kind),
            Some(InputRequestKind::Elicit(_))
        ));
        assert!(matches!(
            requests.get("capital_of_france").map(|r| &r.kind),
            Some(InputRequestKind::CreateMessage(_))
        ));

        let state_only = json!({ "resultType": "input_required", "requestState": "eyJw" });
        assert_eq!(round_trip::<InputRequiredResult>(&state_only), state_only);

        let responses = json!({
            "github_login": { "action": "accept", "content": { "name": "octocat" } },
            "capital_of_france": { "role": "assistant",
                "content": { "type": "text", "text": "The capital of France is Paris." },
                "model": "claude-3-sonnet-20240307", "stopReason": "endTurn" },
            "roots": { "roots": [{ "uri": "file:///a" }] }
        });
        assert_eq!(round_trip::<InputResponses>(&responses), responses);
        let parsed: InputResponses = serde_json::from_value(responses).unwrap();
        assert!(matches!(
            parsed.get("github_login"),
            Some(InputResponse::Elicit(_))
        ));
        assert!(matches!(
            parsed.get("capital_of_france"),
            Some(InputResponse::CreateMessage(_))
        ));
        assert!(matches!(
            parsed.get("roots"),
            Some(InputResponse::ListRoots(_))
        ));
    }

    #[test]
    fn list_roots_requests_may_omit_params_and_unknown_methods_are_kept() {
        let requests = json!({ "r": { "method": "roots/list" },
            "x": { "method": "com.example/ask", "params": { "q": 1 } } });
        assert_eq!(round_trip::<InputRequests>(&requests), requests);
        let parsed: InputRequests = serde_json::from_value(requests).unwrap();
        assert_eq!(
            parsed.get("x").map(InputRequest::method),
            Some("com.example/ask")
        );
    }

    #[test]
    fn a_known_method_without_params_is_an_error() {
        let err = serde_json::from_value::<InputRequest>(json!({ "method": "elicitation/create" }))
            .unwrap_err();
        assert!(err.to_string().contains("params"), "{err}");
    }

    #[test]
    fn responses_are_read_by_the_request_they_answer() {
        let request = InputRequest::from(InputRequestKind::ListRoots(None));
        let answer = request.read_response(&json!({ "roots": [] })).unwrap();
        assert_eq!(answer, InputResponse::ListRoots(ListRootsResult::default()));
        assert!(
            request
                .read_response(&json!({ "action": "accept" }))
                .is_err()
        );
        let unknown: InputResponse = serde_json::from_value(json!({ "x": 1 })).unwrap();
        assert!(matches!(unknown, InputResponse::Other(_)));
    }

    #[test]
    fn fitting_to_2026_07_28_marks_input_required_and_strips_nested_meta() {
        let mut params = CreateMessageRequestParams::new(vec![], 10);
        params.meta = Some(Meta::new());
        let mut requests = InputRequests::new();
        requests.insert("s", InputRequestKind::CreateMessage(params).into());
        let result = fitted(
            InputRequiredResult::new(requests),
            ProtocolVersion::V2026_07_28,
        );
        assert_eq!(
            serde_json::to_value(result).unwrap(),
            json!({ "resultType": "input_required", "inputRequests": {
                "s": { "method": "sampling/createMessage",
                    "params": { "messages": [], "maxTokens": 10 } } } })
        );
    }

    #[test]
    fn well_formed_results_carry_requests_or_state() {
        assert!(!InputRequiredResult::default().is_well_formed());
        assert!(
            InputRequiredResult::default()
                .with_request_state("s")
                .is_well_formed()
        );
    }

    #[test]
    fn retry_params_round_trip_with_unknown_fields() {
        let params = json!({ "inputResponses": { "k": { "action": "decline" } },
            "requestState": "abc", "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
            "x-vendor": 1 });
        assert_eq!(round_trip::<InputResponseRequestParams>(&params), params);
    }
}
