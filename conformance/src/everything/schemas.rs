//! The JSON schemas the runner inspects: the elicitation forms of
//! SEP-1034 (defaults) and SEP-1330 (enum shapes), and the JSON Schema
//! 2020-12 input schema that `tools/list` must show verbatim.

use mcpwire_types::RequestedSchema;
use serde_json::{Value, json};

/// The dialect URI `json_schema_2020_12_tool` declares.
pub(super) const JSON_SCHEMA_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The input schema of `json_schema_2020_12_tool`, which `tools/list` must
/// show exactly as written here: `$schema`, `$defs` with an `$anchor`,
/// a `$ref`, composition (`allOf`/`anyOf`), a conditional
/// (`if`/`then`/`else`) and `additionalProperties: false` (the 0.1.16
/// checks and the SEP-2106 checks of 0.2).
pub(super) fn json_schema_2020_12() -> Value {
    json!({
        "$schema": JSON_SCHEMA_2020_12,
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {
            "properties": {"contactMethod": {"const": "phone"}},
            "required": ["contactMethod"]
        },
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// The form `test_elicitation` asks for: a user name and an e-mail address.
pub(super) fn user_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "Your user name"},
            "email": {"type": "string", "description": "Your e-mail address"}
        },
        "required": ["username", "email"]
    })
}

/// The SEP-1034 form: one optional field of each primitive type, each with
/// a default.
pub(super) fn defaults_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {
                "type": "string",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "default": true}
        },
        "required": []
    })
}

/// The SEP-1330 form: every enum shape once. Titled shapes carry no `enum`
/// and the untitled multi-select no `anyOf`, because the runner checks
/// those absences.
pub(super) fn enums_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}
                    ]
                }
            }
        },
        "required": []
    })
}

/// Reads one of the forms above as the typed `requestedSchema`.
///
/// # Errors
///
/// When `form` is not a valid flat elicitation schema (a bug in this file,
/// caught by the tests below).
pub(super) fn requested(form: Value) -> Result<RequestedSchema, serde_json::Error> {
    serde_json::from_value(form)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::transcript::matching::{Captures, check_message};

    /// The typed model must write each form back as given, or the runner
    /// would see something else than what this file promises. Numbers are
    /// compared by value: the model keeps number defaults as `f64`, so the
    /// integer default `30` goes out as `30.0`, which JSON Schema and the
    /// runner both read as the integer 30.
    #[test]
    fn every_form_survives_the_typed_model_unchanged() {
        for form in [user_form(), defaults_form(), enums_form()] {
            let written = serde_json::to_value(requested(form.clone()).unwrap()).unwrap();
            check_message(&form, &written, &mut Captures::new()).unwrap();
        }
    }
}
