//! Elicitation: a server asking the user for input through the client
//! (2025-06-18 on), by form or (2025-11-25 on) by sending them to a URL,
//! and the restricted, flat schemas a form may ask for.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Number, Value};

use crate::revision::keep_if;
use crate::{Extra, ForRevision, Meta, ProtocolVersion, TaskMetadata};

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

/// Whether the schema forms of 2025-11-25 exist: titled and multi-select
/// enums, `default` on every primitive, `$schema`. They came with URL mode.
fn has_rich_form_schemas(version: ProtocolVersion) -> bool {
    version.has_url_elicitation()
}

/// The `requestedSchema` of a form: a flat object schema whose properties
/// are all primitives.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestedSchema {
    /// The JSON Schema dialect (2025-11-25 on).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// `"object"`.
    #[serde(rename = "type")]
    pub schema_type: ObjectType,
    /// The fields, by name. Read into a sorted map, so the order the server
    /// wrote them in is not kept.
    pub properties: BTreeMap<String, PrimitiveSchemaDefinition>,
    /// The names of the fields that must be filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl RequestedSchema {
    /// Adds the field `name` described by `schema`, required or not.
    pub fn with_property(
        mut self,
        name: impl Into<String>,
        schema: PrimitiveSchemaDefinition,
        required: bool,
    ) -> Self {
        let name = name.into();
        if required {
            self.required
                .get_or_insert_with(Vec::new)
                .push(name.clone());
        }
        self.properties.insert(name, schema);
        self
    }
}

impl ForRevision for RequestedSchema {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(has_rich_form_schemas(version), &mut self.schema);
        for property in self.properties.values_mut() {
            property.fit_to(version);
        }
    }
}

const_tag!(
    /// The `type` of an object schema: always `"object"`.
    ObjectType::Object = "object"
);

const_tag!(
    /// The `type` of a string-valued schema: always `"string"`.
    StringType::String = "string"
);

const_tag!(
    /// The `type` of a boolean schema: always `"boolean"`.
    BooleanType::Boolean = "boolean"
);

const_tag!(
    /// The `type` of a multi-select schema: always `"array"`.
    ArrayType::Array = "array"
);

/// The `type` of a number schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// Whole numbers only.
    Integer,
}

/// One field of a form: a string, number, boolean or one of the enum shapes.
///
/// Read by `type` and by which of `enum`, `enumNames`, `oneOf` and `items`
/// are present, never by trying each shape in turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// Free text.
    String(StringSchema),
    /// A number or integer.
    Number(NumberSchema),
    /// A yes/no choice.
    Boolean(BooleanSchema),
    /// One of several strings (`enum`).
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// One of several values with display titles (`oneOf`, 2025-11-25 on).
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Several of several strings (2025-11-25 on).
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// Several of several values with display titles (2025-11-25 on).
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// One of several strings titled by `enumNames` (deprecated; the only
    /// titled form in 2025-06-18).
    LegacyTitled(LegacyTitledEnumSchema),
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        type Parse = fn(Value) -> Result<PrimitiveSchemaDefinition, serde_json::Error>;
        let map = Map::deserialize(deserializer)?;
        let has = |key: &str| map.contains_key(key);
        let items_have_any_of = map
            .get("items")
            .and_then(Value::as_object)
            .is_some_and(|i| i.contains_key("anyOf"));
        let parse: Parse = match map.get("type").and_then(Value::as_str) {
            Some("string") if has("oneOf") => {
                |v| Deserialize::deserialize(v).map(Self::TitledSingleSelect)
            }
            Some("string") if has("enum") && has("enumNames") => {
                |v| Deserialize::deserialize(v).map(Self::LegacyTitled)
            }
            Some("string") if has("enum") => {
                |v| Deserialize::deserialize(v).map(Self::UntitledSingleSelect)
            }
            Some("string") => |v| Deserialize::deserialize(v).map(Self::String),
            Some("number" | "integer") => |v| Deserialize::deserialize(v).map(Self::Number),
            Some("boolean") => |v| Deserialize::deserialize(v).map(Self::Boolean),
            Some("array") if items_have_any_of => {
                |v| Deserialize::deserialize(v).map(Self::TitledMultiSelect)
            }
            Some("array") => |v| Deserialize::deserialize(v).map(Self::UntitledMultiSelect),
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "form fields must be string, number, integer, boolean or array, not {other:?}"
                )));
            }
            None => return Err(D::Error::missing_field("type")),
        };
        parse(Value::Object(map)).map_err(D::Error::custom)
    }
}

impl ForRevision for PrimitiveSchemaDefinition {
    /// Before 2025-11-25 defaults go (except on booleans), titled choices
    /// become `enum` + `enumNames`, and a multi-select becomes a
    /// single-select over the same choices: the nearest 2025-06-18 can ask.
    fn fit_to(&mut self, version: ProtocolVersion) {
        if has_rich_form_schemas(version) {
            return;
        }
        match self {
            Self::String(s) => s.default = None,
            Self::Number(n) => n.default = None,
            Self::Boolean(_) => {}
            Self::UntitledSingleSelect(e) => e.default = None,
            Self::LegacyTitled(e) => e.default = None,
            Self::TitledSingleSelect(e) => {
                let options = std::mem::take(&mut e.one_of);
                let legacy = LegacyTitledEnumSchema::from_options(
                    e.title.take(),
                    e.description.take(),
                    options,
                );
                *self = Self::LegacyTitled(legacy);
            }
            Self::TitledMultiSelect(e) => {
                let options = std::mem::take(&mut e.items.any_of);
                let legacy = LegacyTitledEnumSchema::from_options(
                    e.title.take(),
                    e.description.take(),
                    options,
                );
                *self = Self::LegacyTitled(legacy);
            }
            Self::UntitledMultiSelect(e) => {
                let single = UntitledSingleSelectEnumSchema {
                    title: e.title.take(),
                    description: e.description.take(),
                    values: std::mem::take(&mut e.items.values),
                    ..UntitledSingleSelectEnumSchema::default()
                };
                *self = Self::UntitledSingleSelect(single);
            }
        }
    }
}

/// A text field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// `"string"`.
    #[serde(rename = "type")]
    pub schema_type: StringType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to enter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Most characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// A format the text must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Pre-filled value (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this model does not name (e.g. `pattern`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A format a text field must have.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringFormat {
    /// An email address.
    #[serde(rename = "email")]
    Email,
    /// A URI.
    #[serde(rename = "uri")]
    Uri,
    /// A calendar date.
    #[serde(rename = "date")]
    Date,
    /// A date and time.
    #[serde(rename = "date-time")]
    DateTime,
    /// A format this model does not name, kept as written.
    #[serde(untagged)]
    Other(String),
}

/// A number field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub schema_type: NumberType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to enter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Smallest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// Largest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// Pre-filled value (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A yes/no field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// `"boolean"`.
    #[serde(rename = "type")]
    pub schema_type: BooleanType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to choose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A choice of one string (the 2025-06-18 `EnumSchema` without `enumNames`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// `"string"`.
    #[serde(rename = "type")]
    pub schema_type: StringType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to choose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Pre-selected choice (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A value with a display title, in a titled choice.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value submitted.
    #[serde(rename = "const")]
    pub value: String,
    /// What the user sees.
    pub title: String,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl EnumOption {
    /// The choice `value`, shown as `title`.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            title: title.into(),
            extra: Extra::new(),
        }
    }
}

/// A choice of one value with display titles (2025-11-25 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// `"string"`.
    #[serde(rename = "type")]
    pub schema_type: StringType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to choose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    pub one_of: Vec<EnumOption>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A choice of several strings (2025-11-25 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// `"array"`.
    #[serde(rename = "type")]
    pub schema_type: ArrayType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to choose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: UntitledEnumItems,
    /// Pre-selected choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `items` of an untitled multi-select.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// `"string"`.
    #[serde(rename = "type")]
    pub schema_type: StringType,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A choice of several values with display titles (2025-11-25 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// `"array"`.
    #[serde(rename = "type")]
    pub schema_type: ArrayType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to choose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledEnumItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `items` of a titled multi-select.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The choices.
    pub any_of: Vec<EnumOption>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A choice of one string with titles in `enumNames` (deprecated in favour
/// of [`TitledSingleSelectEnumSchema`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// `"string"`.
    #[serde(rename = "type")]
    pub schema_type: StringType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to choose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display names, one per choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Pre-selected choice (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl LegacyTitledEnumSchema {
    fn from_options(
        title: Option<String>,
        description: Option<String>,
        options: Vec<EnumOption>,
    ) -> Self {
        let (values, names) = options.into_iter().map(|o| (o.value, o.title)).unzip();
        Self {
            title,
            description,
            values,
            enum_names: Some(names),
            ..Self::default()
        }
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
