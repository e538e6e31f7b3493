//! The official schemas of each revision (mcpwire-types' `official_schema`), as
//! validators of one definition, and JSON Schema dialect checks of the
//! schemas a server publishes for its tools.

use jsonschema::{Draft, Validator};
use mcpwire_types::ProtocolVersion;
use serde_json::{Map, Value, json};

/// A validator of the definition `name` of `version`'s schema.
pub(crate) fn definition(version: ProtocolVersion, name: &str) -> Result<Validator, String> {
    let root: Value = serde_json::from_str(mcpwire_types::official_schema::text(version))
        .map_err(|e| e.to_string())?;
    let is_2020_12 = version.defaults_to_json_schema_2020_12();
    let (draft, key) = match is_2020_12 {
        true => (Draft::Draft202012, "$defs"),
        false => (Draft::Draft7, "definitions"),
    };
    let definitions = root
        .get("$defs")
        .or_else(|| root.get("definitions"))
        .cloned()
        .unwrap_or_default();
    if definitions.get(name).is_none() {
        return Err(format!("{version} has no definition {name}"));
    }
    let mut schema = Map::new();
    schema.insert("$ref".into(), json!(format!("#/{key}/{name}")));
    schema.insert(key.into(), definitions);
    jsonschema::options()
        .with_draft(draft)
        .with_format("uri-template", is_uri_template)
        .build(&Value::Object(schema))
        .map_err(|e| e.to_string())
}

/// Whether `text` is an RFC 6570 URI template. (jsonschema 0.30's own
/// check takes only lower-case variable names, so `{resourceId}` would
/// fail although RFC 6570 allows any ALPHA.)
fn is_uri_template(text: &str) -> bool {
    let mut rest = text;
    loop {
        let (literal, after) = match rest.split_once('{') {
            Some((literal, after)) => (literal, Some(after)),
            None => (rest, None),
        };
        let literal_ok = literal
            .chars()
            .all(|c| !c.is_control() && !c.is_whitespace() && !"\"'<>\\^`{|}".contains(c));
        if !literal_ok {
            return false;
        }
        let Some(after) = after else {
            return true;
        };
        let Some((expression, tail)) = after.split_once('}') else {
            return false;
        };
        let expression = expression
            .strip_prefix(['+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|'])
            .unwrap_or(expression);
        let spec_ok = |spec: &str| {
            let name = spec.strip_suffix('*').unwrap_or(spec);
            let name = match name.split_once(':') {
                Some((name, length)) => {
                    let length_ok = !length.is_empty()
                        && length.len() <= 4
                        && length.bytes().all(|b| b.is_ascii_digit())
                        && !length.starts_with('0');
                    if !length_ok {
                        return false;
                    }
                    name
                }
                None => name,
            };
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%'))
        };
        if !expression.split(',').all(spec_ok) {
            return false;
        }
        rest = tail;
    }
}

/// The first few ways `instance` breaks `validator`.
pub(crate) fn violations(validator: &Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .take(5)
        .map(|error| format!("{error} (at {})", error.instance_path))
        .collect()
}

/// Why `schema`, a tool's input or output schema, is not a JSON Schema
/// a client can use in `version` (2020-12 unless `$schema` says otherwise
/// from 2025-11-25 on; draft-07 before).
pub(crate) fn compile_error(version: ProtocolVersion, schema: &Value) -> Option<String> {
    tool_validator(version, schema).err()
}

/// A validator of `schema`, a tool's input or output schema, in its
/// dialect (as [`compile_error`] reads it).
pub(crate) fn tool_validator(
    version: ProtocolVersion,
    schema: &Value,
) -> Result<Validator, String> {
    let draft = match version.defaults_to_json_schema_2020_12() {
        true => Draft::Draft202012,
        false => Draft::Draft7,
    };
    let explicit = schema.get("$schema").is_some();
    let options = jsonschema::options();
    let options = if explicit {
        options
    } else {
        options.with_draft(draft)
    };
    options.build(schema).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::is_uri_template;

    #[test]
    fn uri_templates_take_mixed_case_names_operators_and_modifiers() {
        assert!(is_uri_template("demo://resource/dynamic/text/{resourceId}"));
        assert!(is_uri_template("file:///{+path}{?q,page:3}{&list*}"));
        assert!(is_uri_template("plain://uri"));
        assert!(!is_uri_template("bad://{open"));
        assert!(!is_uri_template("bad://{}"));
        assert!(!is_uri_template("bad://with space/{x}"));
        assert!(!is_uri_template("bad://{a b}"));
    }
}
