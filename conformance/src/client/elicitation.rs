//! Answering elicitation as a user who accepts every form as it was
//! pre-filled: each field takes its schema's `default` (SEP-1034), which is
//! what the runner's `elicitation-sep1034-client-defaults` scenario checks.

use std::collections::BTreeMap;

use mcpwire_client::{BoxFuture, ClientHandler, HandlerContext};
use mcpwire_jsonrpc::ErrorObject;
use mcpwire_types::{
    ElicitAction, ElicitRequestParams, ElicitResult, ElicitValue, NumberType,
    PrimitiveSchemaDefinition, RequestedSchema,
};
use serde_json::Number;

/// A [`ClientHandler`] that accepts every form elicitation with the
/// defaults of its schema, and declines URL-mode elicitation (there is no
/// browser to open).
#[derive(Debug, Clone, Copy, Default)]
pub struct AcceptDefaults;

impl ClientHandler for AcceptDefaults {
    fn elicit(
        &self,
        params: ElicitRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        Box::pin(std::future::ready(Ok(answer(&params))))
    }
}

/// The answer a user who changes nothing gives to `params`.
pub fn answer(params: &ElicitRequestParams) -> ElicitResult {
    match params {
        ElicitRequestParams::Form(form) => ElicitResult::accept(defaults(&form.requested_schema)),
        ElicitRequestParams::Url(_) => ElicitResult::new(ElicitAction::Decline),
    }
}

/// The values a form is pre-filled with: every field whose schema has a
/// `default`, and no others.
pub fn defaults(schema: &RequestedSchema) -> BTreeMap<String, ElicitValue> {
    schema
        .properties
        .iter()
        .filter_map(|(name, field)| Some((name.clone(), default_of(field)?)))
        .collect()
}

/// The `default` of one field, typed as the field is.
fn default_of(field: &PrimitiveSchemaDefinition) -> Option<ElicitValue> {
    use PrimitiveSchemaDefinition as Field;
    match field {
        Field::String(schema) => schema.default.clone().map(ElicitValue::String),
        Field::Number(schema) => schema
            .default
            .and_then(|value| number(value, schema.schema_type)),
        Field::Boolean(schema) => schema.default.map(ElicitValue::Boolean),
        Field::UntitledSingleSelect(schema) => schema.default.clone().map(ElicitValue::String),
        Field::TitledSingleSelect(schema) => schema.default.clone().map(ElicitValue::String),
        Field::LegacyTitled(schema) => schema.default.clone().map(ElicitValue::String),
        Field::UntitledMultiSelect(schema) => schema.default.clone().map(ElicitValue::StringArray),
        Field::TitledMultiSelect(schema) => schema.default.clone().map(ElicitValue::StringArray),
    }
}

/// `value` as JSON writes it: an integer field's whole default stays an
/// integer (`30`, not `30.0`).
fn number(value: f64, kind: NumberType) -> Option<ElicitValue> {
    let whole = value.fract() == 0.0 && value.abs() < 9.0e15;
    let number = if kind == NumberType::Integer && whole {
        // Exact: a whole number below 2^53 in magnitude fits i64 as it is.
        Number::from(value as i64)
    } else {
        Number::from_f64(value)?
    };
    Some(ElicitValue::Number(number))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The schema of the runner's `test_client_elicitation_defaults` tool.
    fn sep1034_schema() -> RequestedSchema {
        serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "nickname": {"type": "string"}
            }
        }))
        .unwrap()
    }

    #[test]
    fn every_field_with_a_default_is_filled_with_it_and_typed_as_its_schema() {
        let content = serde_json::to_value(defaults(&sep1034_schema())).unwrap();
        assert_eq!(
            content,
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
        );
        assert!(
            content["age"].is_i64(),
            "an integer default stays an integer"
        );
    }

    #[test]
    fn forms_are_accepted_and_urls_declined() {
        let form = ElicitRequestParams::form("Fill in", sep1034_schema());
        let accepted = answer(&form);
        assert_eq!(accepted.action, ElicitAction::Accept);
        assert_eq!(accepted.content.map(|content| content.len()), Some(5));
        let url = ElicitRequestParams::url("Sign in", "https://example.com/login");
        assert_eq!(answer(&url).action, ElicitAction::Decline);
    }

    #[test]
    fn multi_select_defaults_are_lists() {
        let schema: RequestedSchema = serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "colors": {"type": "array", "items": {"type": "string", "enum": ["red", "green"]}, "default": ["green"]}
            }
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(defaults(&schema)).unwrap(),
            json!({"colors": ["green"]})
        );
    }
}
