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
        .build(&Value::Object(schema))
        .map_err(|e| e.to_string())
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
    options.build(schema).err().map(|e| e.to_string())
}
