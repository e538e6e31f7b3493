//! Elicitation: a server asking the user for input through the client
//! (2025-06-18 on), by form or (2025-11-25 on) by sending them to a URL,
//! and the restricted, flat schemas a form may ask for.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Number, Value};

use crate::revision::keep_if;
use crate::{Extra, ForRevision, Meta, ProtocolVersion, RequestedSchema, TaskMetadata};

/// Defines a one-value enum standing for a constant string of the schema
/// (a `type` or `mode`), so that a wrong value fails to parse.
macro_rules! const_tag {
    ($(#[$doc:meta])* $name:ident::$variant:ident = $wire:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            #[doc = concat!("`\"", $wire, "\"`.")]
            #[default]
            #[serde(rename = $wire)]
            $variant,
        }
    };
}
pub(crate) use const_tag;

/// Whether `notifications/elicitation/complete` and the `elicitationId` it
/// refers to exist: they came with URL mode in 2025-11-25 and left with the
/// handshake in 2026-07-28, where retries carry the outcome instead.
fn has_elicitation_complete(version: ProtocolVersion) -> bool {
    version.has_url_elicitation() && version.has_handshake()
}

/// Params of `elicitation/create`: a form, or (2025-11-25 on) a URL.
///
/// Read by `mode`: `"url"` is URL mode, `"form"` or no `mode` is form mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Ask for structured input through a form the client renders.
    Form(ElicitRequestFormParams),
    /// Send the user to a URL, for input that must not pass through the client.
    Url(ElicitRequestURLParams),
}

impl ElicitRequestParams {
    /// The `_meta` of whichever mode this is.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            Self::Form(form) => form.meta.as_ref(),
            Self::Url(url) => url.meta.as_ref(),
        }
    }

    /// The `_meta` of whichever mode this is, to set entries.
    pub fn meta_mut(&mut self) -> &mut Option<Meta> {
        match self {
            Self::Form(form) => &mut form.meta,
            Self::Url(url) => &mut url.meta,
        }
    }

    /// A form request showing `message` and asking for `schema`.
    pub fn form(message: impl Into<String>, schema: RequestedSchema) -> Self {
        Self::Form(ElicitRequestFormParams::new(message, schema))
    }

    /// A URL request showing `message` and sending the user to `url`.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Url(ElicitRequestURLParams::new(message, url))
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    /// Chooses by `mode`, not by trying each variant in turn.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let map = Map::deserialize(deserializer)?;
        let is_url = match map.get("mode") {
            None => false,
            Some(Value::String(mode)) if mode == "form" => false,
            Some(Value::String(mode)) if mode == "url" => true,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "unknown elicitation mode {other}, expected \"form\" or \"url\""
                )));
            }
        };
        let value = Value::Object(map);
        if is_url {
            ElicitRequestURLParams::deserialize(value)
                .map(Self::Url)
                .map_err(D::Error::custom)
        } else {
            ElicitRequestFormParams::deserialize(value)
                .map(Self::Form)
                .map_err(D::Error::custom)
        }
    }
}

impl ForRevision for ElicitRequestParams {
    /// URL mode has no older form: capability gating (the client's
    /// `elicitation.url`) must keep it from peers before 2025-11-25.
    fn fit_to(&mut self, version: ProtocolVersion) {
        match self {
            Self::Form(form) => form.fit_to(version),
            Self::Url(url) => url.fit_to(version),
        }
    }
}

const_tag!(
    /// The `mode` of a form request: always `"form"`.
    FormElicitationMode::Form = "form"
);

const_tag!(
    /// The `mode` of a URL request: always `"url"`.
    UrlElicitationMode::Url = "url"
);

/// Params of a form-mode `elicitation/create`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `"form"`, which may be omitted (2025-11-25 on; 2025-06-18 has no modes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormElicitationMode>,
    /// What is asked and why.
    pub message: String,
    /// The flat schema the answer must match.
    pub requested_schema: RequestedSchema,
    /// Asks for the request to run as a task (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Metadata (handshake revisions; 2026-07-28 carries these params inside
    /// an input request, which has no `_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ElicitRequestFormParams {
    /// A form request showing `message` and asking for `schema`.
    pub fn new(message: impl Into<String>, schema: RequestedSchema) -> Self {
        Self {
            message: message.into(),
            requested_schema: schema,
            ..Self::default()
        }
    }
}

impl ForRevision for ElicitRequestFormParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_url_elicitation(), &mut self.mode);
        self.requested_schema.fit_to(version);
        keep_if(version.has_core_tasks(), &mut self.task);
        keep_if(version.has_server_requests(), &mut self.meta);
    }
}

/// Params of a URL-mode `elicitation/create` (2025-11-25 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestURLParams {
    /// `"url"`.
    pub mode: UrlElicitationMode,
    /// Why the user should go there.
    pub message: String,
    /// Where to send the user.
    pub url: String,
    /// Identifies the elicitation for `notifications/elicitation/complete`;
    /// opaque to the client. Required in 2025-11-25, gone in 2026-07-28.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Asks for the request to run as a task (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Metadata (2025-11-25; 2026-07-28 has none here).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ElicitRequestURLParams {
    /// A URL request showing `message` and sending the user to `url`.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            url: url.into(),
            ..Self::default()
        }
    }

    /// The same request carrying `elicitation_id` (needed for 2025-11-25).
    pub fn with_elicitation_id(mut self, elicitation_id: impl Into<String>) -> Self {
        self.elicitation_id = Some(elicitation_id.into());
        self
    }
}

impl ForRevision for ElicitRequestURLParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(has_elicitation_complete(version), &mut self.elicitation_id);
        keep_if(version.has_core_tasks(), &mut self.task);
        keep_if(version.has_server_requests(), &mut self.meta);
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted the form, or agreed to open the URL.
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The client's answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values, by property name; only for `accept` in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
    /// Metadata (handshake revisions; 2026-07-28 sends this as an input
    /// response, which has no `_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ElicitResult {
    /// A result with `action` and no content.
    pub fn new(action: ElicitAction) -> Self {
        Self {
            action,
            content: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// An `accept` carrying the submitted `content`.
    pub fn accept(content: BTreeMap<String, ElicitValue>) -> Self {
        Self {
            content: Some(content),
            ..Self::new(ElicitAction::Accept)
        }
    }
}

impl ForRevision for ElicitResult {
    /// Before 2025-11-25 values cannot be lists; a multi-select answer
    /// becomes its choices joined by `", "`.
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_server_requests(), &mut self.meta);
        if version.has_url_elicitation() {
            return;
        }
        for value in self.content.iter_mut().flat_map(BTreeMap::values_mut) {
            if let ElicitValue::StringArray(items) = value {
                *value = ElicitValue::String(items.join(", "));
            }
        }
    }
}

/// One submitted value: a string, number, boolean or (2025-11-25 on) a list
/// of strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A string.
    String(String),
    /// A number, kept as JSON wrote it so integers stay integers.
    Number(Number),
    /// A boolean.
    Boolean(bool),
    /// The choices of a multi-select (2025-11-25 on).
    StringArray(Vec<String>),
}

/// Params of `notifications/elicitation/complete` (2025-11-25 only): a
/// URL-mode elicitation finished out of band.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the request that finished.
    pub elicitation_id: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ElicitationCompleteNotificationParams {
    /// Completion of the elicitation `elicitation_id`.
    pub fn new(elicitation_id: impl Into<String>) -> Self {
        Self {
            elicitation_id: elicitation_id.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ElicitationCompleteNotificationParams {
    /// Exists in 2025-11-25 only, with the same shape throughout.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::elicitation_schema::*;
    use crate::fitted;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(parsed).unwrap()
    }

    /// Rewrites numbers as floats: schema `number`s are read as `f64`.
    fn floats(value: Value) -> Value {
        match value {
            Value::Number(n) => json!(n.as_f64().unwrap()),
            Value::Array(items) => Value::Array(items.into_iter().map(floats).collect()),
            Value::Object(map) => {
                Value::Object(map.into_iter().map(|(k, v)| (k, floats(v))).collect())
            }
            other => other,
        }
    }

    fn github_form() -> Value {
        json!({ "mode": "form", "message": "Please provide your GitHub username",
            "requestedSchema": { "type": "object", "required": ["name"],
                "properties": { "name": { "type": "string", "title": "GitHub Username" } } } })
    }

    #[test]
    fn spec_examples_of_requests_and_results_round_trip() {
        let url = json!({ "mode": "url", "url": "https://mcp.example.com/ui/set_api_key",
            "message": "Please provide your API key to continue." });
        for request in [github_form(), url] {
            assert_eq!(round_trip::<ElicitRequestParams>(&request), request);
        }
        for result in [
            json!({ "action": "accept" }),
            json!({ "action": "accept", "content": { "name": "Monalisa Octocat", "age": 30 } }),
            json!({ "action": "decline" }),
        ] {
            assert_eq!(round_trip::<ElicitResult>(&result), result);
        }
        let done = json!({ "elicitationId": "550e8400-e29b-41d4-a716-446655440000" });
        let parsed: ElicitationCompleteNotificationParams =
            serde_json::from_value(done.clone()).unwrap();
        assert_eq!(serde_json::to_value(parsed).unwrap(), done);
    }

    #[test]
    fn mode_chooses_the_variant_and_its_absence_means_form() {
        let mut form = github_form();
        form.as_object_mut().unwrap().remove("mode");
        let parsed: ElicitRequestParams = serde_json::from_value(form.clone()).unwrap();
        assert!(matches!(parsed, ElicitRequestParams::Form(ref f) if f.mode.is_none()));
        assert_eq!(serde_json::to_value(parsed).unwrap(), form);
        let url: ElicitRequestParams =
            serde_json::from_value(json!({ "mode": "url", "message": "m", "url": "https://a" }))
                .unwrap();
        assert!(matches!(url, ElicitRequestParams::Url(_)));
        let err = serde_json::from_value::<ElicitRequestParams>(json!({ "mode": "voice" }));
        assert!(err.unwrap_err().to_string().contains("voice"));
    }

    #[test]
    fn form_fitted_to_2025_06_18_loses_mode_task_and_schema_dialect() {
        let mut form = github_form();
        form["task"] = json!({ "ttl": 100 });
        form["requestedSchema"]["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        let parsed: ElicitRequestParams = serde_json::from_value(form).unwrap();
        let mut expected = github_form();
        expected.as_object_mut().unwrap().remove("mode");
        let old = fitted(parsed, ProtocolVersion::V2025_06_18);
        assert_eq!(serde_json::to_value(old).unwrap(), expected);
    }

    #[test]
    fn url_elicitation_id_and_all_meta_exist_only_in_handshake_revisions() {
        let mut url =
            ElicitRequestURLParams::new("m", "https://a.example").with_elicitation_id("e");
        url.meta = Some(Meta::new());
        let old = fitted(url.clone(), ProtocolVersion::V2025_11_25);
        assert!(old.elicitation_id.is_some() && old.meta.is_some());
        let latest = fitted(url, ProtocolVersion::V2026_07_28);
        assert_eq!((latest.elicitation_id, latest.meta), (None, None));
        let mut result = ElicitResult::new(ElicitAction::Cancel);
        result.meta = Some(Meta::new());
        let (v2025, v2026) = (ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28);
        assert!(fitted(result.clone(), v2025).meta.is_some());
        assert_eq!(fitted(result, v2026).meta, None);
    }

    #[test]
    fn list_answers_are_joined_before_2025_11_25_and_non_primitives_rejected() {
        let mut content = BTreeMap::new();
        let colors = ElicitValue::StringArray(vec!["Red".into(), "Blue".into()]);
        content.insert("colors".to_owned(), colors.clone());
        content.insert("age".to_owned(), ElicitValue::Number(30.into()));
        let result = ElicitResult::accept(content);
        let old = fitted(result.clone(), ProtocolVersion::V2025_06_18);
        assert_eq!(
            serde_json::to_value(old).unwrap(),
            json!({ "action": "accept", "content": { "colors": "Red, Blue", "age": 30 } })
        );
        let latest = fitted(result, ProtocolVersion::V2026_07_28);
        assert_eq!(latest.content.unwrap()["colors"], colors);
        for bad in [json!({ "y": 1 }), json!([1]), Value::Null] {
            let result = json!({ "action": "accept", "content": { "x": bad } });
            assert!(serde_json::from_value::<ElicitResult>(result).is_err());
        }
    }

    #[test]
    fn spec_examples_of_every_field_shape_are_read_as_their_own_variant() {
        let names = "String Number Boolean UntitledSingleSelect TitledSingleSelect \
            UntitledMultiSelect TitledMultiSelect LegacyTitled Number";
        let examples = [
            json!({ "type": "string", "minLength": 3, "maxLength": 50, "format": "email",
                "default": "user@example.com" }),
            json!({ "type": "number", "minimum": 0, "maximum": 100, "default": 50 }),
            json!({ "type": "boolean", "title": "Display Name", "default": false }),
            json!({ "type": "string", "enum": ["Red", "Green"], "default": "Red" }),
            json!({ "type": "string", "oneOf": [{ "const": "#FF0000", "title": "Red" }],
                "default": "#FF0000" }),
            json!({ "type": "array", "minItems": 1, "maxItems": 2, "default": ["Red"],
                "items": { "type": "string", "enum": ["Red", "Green", "Blue"] } }),
            json!({ "type": "array", "description": "Choose colors", "default": ["#FF0000"],
                "items": { "anyOf": [{ "const": "#FF0000", "title": "Red" }] } }),
            json!({ "type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"] }),
            json!({ "type": "integer", "minimum": 18 }),
        ];
        for (variant, example) in names.split_whitespace().zip(examples) {
            let parsed: PrimitiveSchemaDefinition =
                serde_json::from_value(example.clone()).unwrap();
            assert!(format!("{parsed:?}").starts_with(variant), "{variant}");
            let written = serde_json::to_value(parsed).unwrap();
            assert_eq!(floats(written), floats(example));
        }
    }

    #[test]
    fn unknown_string_formats_are_kept_and_non_primitive_fields_rejected() {
        let field: StringSchema =
            serde_json::from_value(json!({ "type": "string", "format": "ipv4" })).unwrap();
        assert_eq!(field.format, Some(StringFormat::Other("ipv4".into())));
        let field: StringSchema =
            serde_json::from_value(json!({ "type": "string", "format": "date-time" })).unwrap();
        assert_eq!(field.format, Some(StringFormat::DateTime));
        let nested = json!({ "type": "object", "properties": {} });
        for bad in [nested, json!({ "enum": ["a"] })] {
            assert!(serde_json::from_value::<PrimitiveSchemaDefinition>(bad).is_err());
        }
    }

    #[test]
    fn rich_fields_fitted_to_2025_06_18_become_legacy_enums() {
        let schema: RequestedSchema = serde_json::from_value(json!({ "type": "object",
            "properties": {
                "color": { "type": "string", "title": "Color", "default": "#F00", "oneOf": [
                    { "const": "#F00", "title": "Red" }, { "const": "#0F0", "title": "Green" }] },
                "tags": { "type": "array", "items": { "type": "string", "enum": ["x", "y"] },
                    "default": ["x"] },
                "sizes": { "type": "array", "items": { "anyOf": [{ "const": "s", "title": "S" }] } },
                "name": { "type": "string", "default": "n" },
                "ok": { "type": "boolean", "default": true } } }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(fitted(schema, ProtocolVersion::V2025_06_18)).unwrap(),
            json!({ "type": "object", "properties": {
                "color": { "type": "string", "title": "Color", "enum": ["#F00", "#0F0"],
                    "enumNames": ["Red", "Green"] },
                "tags": { "type": "string", "enum": ["x", "y"] },
                "sizes": { "type": "string", "enum": ["s"], "enumNames": ["S"] },
                "name": { "type": "string" },
                "ok": { "type": "boolean", "default": true } } })
        );
    }

    #[test]
    fn builders_produce_the_documented_wire_shape_and_unknown_fields_survive() {
        let field = PrimitiveSchemaDefinition::String(StringSchema::default());
        let schema = RequestedSchema::default().with_property("name", field, true);
        assert_eq!(
            serde_json::to_value(ElicitRequestParams::form("Who?", schema)).unwrap(),
            json!({ "message": "Who?", "requestedSchema": { "type": "object",
                "properties": { "name": { "type": "string" } }, "required": ["name"] } })
        );
        let form = json!({ "message": "m", "x-vendor": 1,
            "requestedSchema": { "type": "object", "properties": {}, "x-s": true } });
        assert_eq!(round_trip::<ElicitRequestParams>(&form), form);
        let result = json!({ "action": "cancel", "x-vendor": [] });
        assert_eq!(round_trip::<ElicitResult>(&result), result);
    }
}
