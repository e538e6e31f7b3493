//! The restricted, flat schemas an elicitation form may ask for: strings,
//! numbers, booleans and the single- and multi-select enum shapes.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::elicitation::const_tag;
use crate::revision::keep_if;
use crate::{Extra, ForRevision, ProtocolVersion};

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
