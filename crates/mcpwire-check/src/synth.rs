//! Arguments for a tool call synthesized from its `inputSchema`: the
//! required properties only, each the simplest value its schema accepts
//! (`const`, then the first `enum` value, then `default`, then a value of
//! its type within its bounds and format). The result is validated against
//! the schema before use; a schema too clever for this synthesizer gives
//! `None`, never arguments the tool would reject.

use serde_json::{Map, Value, json};

/// How deep nested schemas are followed (a recursive `$ref` stops here).
const MAX_DEPTH: usize = 16;

/// Arguments valid for `schema` in `dialect`, or why none were found.
pub(crate) fn arguments(schema: &Value, draft_2020_12: bool) -> Result<Value, String> {
    let value = synthesize(schema, schema, 0).ok_or("a part of the schema has no simple value")?;
    let draft = match draft_2020_12 {
        true => jsonschema::Draft::Draft202012,
        false => jsonschema::Draft::Draft7,
    };
    let options = jsonschema::options();
    let options = match schema.get("$schema") {
        Some(_) => options,
        None => options.with_draft(draft),
    };
    let validator = options.build(schema).map_err(|e| e.to_string())?;
    let problem = validator.iter_errors(&value).next().map(|e| e.to_string());
    match problem {
        None => Ok(value),
        Some(error) => Err(format!(
            "the simplest arguments {value} do not fit it: {error}"
        )),
    }
}

/// The schema a local `$ref` points at.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

fn synthesize(root: &Value, schema: &Value, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let schema = match schema {
        Value::Bool(true) => return Some(json!({})),
        Value::Object(map) => map,
        _ => return None,
    };
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return synthesize(root, resolve(root, reference)?, depth + 1);
    }
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
    {
        return Some(first.clone());
    }
    if let Some(value) = schema.get("default") {
        return Some(value.clone());
    }
    if let Some(first) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
    {
        return Some(first.clone());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|v| v.first())
        {
            return synthesize(root, first, depth + 1);
        }
    }
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        return all_of(root, parts, depth);
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        // Several types: the first that is not null.
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .or_else(|| kinds.first().and_then(Value::as_str))?,
        _ if schema.contains_key("properties") || schema.contains_key("required") => "object",
        _ if schema.contains_key("items") => "array",
        _ => return Some(Value::String("mcpwire-check".into())),
    };
    match kind {
        "object" => object(root, schema, depth),
        "array" => array(root, schema, depth),
        "string" => Some(Value::String(string(schema))),
        "integer" => integer(schema).map(Value::from),
        "number" => number(schema),
        "boolean" => Some(Value::Bool(false)),
        "null" => Some(Value::Null),
        _ => None,
    }
}

fn all_of(root: &Value, parts: &[Value], depth: usize) -> Option<Value> {
    let mut merged = Map::new();
    for part in parts {
        match synthesize(root, part, depth + 1)? {
            Value::Object(map) => merged.extend(map),
            other if parts.len() == 1 => return Some(other),
            _ => return None,
        }
    }
    Some(Value::Object(merged))
}

fn object(root: &Value, schema: &Map<String, Value>, depth: usize) -> Option<Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let property = properties
            .and_then(|p| p.get(name))
            .unwrap_or(&Value::Bool(true));
        let value = match property {
            Value::Bool(true) => Value::String("mcpwire-check".into()),
            property => synthesize(root, property, depth + 1)?,
        };
        out.insert(name.to_owned(), value);
    }
    Some(Value::Object(out))
}

fn array(root: &Value, schema: &Map<String, Value>, depth: usize) -> Option<Value> {
    let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
    if min == 0 {
        return Some(json!([]));
    }
    let items = schema.get("items").unwrap_or(&Value::Bool(true));
    let item = match items {
        Value::Bool(true) => Value::String("mcpwire-check".into()),
        items => synthesize(root, items, depth + 1)?,
    };
    // Unique items would need distinct values; one item is all we offer.
    if min > 1 && schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        return None;
    }
    Some(Value::Array(vec![item; usize::try_from(min.min(16)).ok()?]))
}

fn string(schema: &Map<String, Value>) -> String {
    let base = match schema.get("format").and_then(Value::as_str) {
        Some("email" | "idn-email") => "check@example.com",
        Some("uri" | "iri" | "url") => "https://example.com/",
        Some("uri-reference" | "iri-reference") => "/mcpwire-check",
        Some("date") => "2025-01-01",
        Some("date-time") => "2025-01-01T00:00:00Z",
        Some("time") => "00:00:00Z",
        Some("duration") => "PT1S",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        Some("ipv4") => "127.0.0.1",
        Some("ipv6") => "::1",
        Some("hostname" | "idn-hostname") => "localhost",
        _ => "mcpwire-check",
    };
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
    let max = schema.get("maxLength").and_then(Value::as_u64);
    let mut text = base.to_owned();
    if let Some(max) = max.and_then(|m| usize::try_from(m).ok())
        && text.chars().count() > max
    {
        text = "x".repeat(max);
    }
    while (text.chars().count() as u64) < min && text.len() < 10_000 {
        text.push('x');
    }
    text
}

fn integer(schema: &Map<String, Value>) -> Option<i64> {
    let number = |key| schema.get(key).and_then(Value::as_f64);
    let mut low = number("minimum").map(f64::ceil);
    if let Some(exclusive) = number("exclusiveMinimum") {
        low = Some(low.unwrap_or(f64::MIN).max(exclusive.floor() + 1.0));
    }
    let mut high = number("maximum").map(f64::floor);
    if let Some(exclusive) = number("exclusiveMaximum") {
        high = Some(high.unwrap_or(f64::MAX).min(exclusive.ceil() - 1.0));
    }
    let mut value = match (low, high) {
        (Some(low), _) => low,
        (None, Some(high)) if high < 1.0 => high,
        _ => 1.0,
    };
    if let Some(step) = number("multipleOf").filter(|s| *s >= 1.0 && s.fract() == 0.0) {
        value = (value / step).ceil() * step;
    }
    if high.is_some_and(|high| value > high) || !value.is_finite() || value.abs() > 9.0e15 {
        return None;
    }
    #[allow(clippy::cast_possible_truncation, reason = "bounded to +-9e15 above")]
    Some(value as i64)
}

fn number(schema: &Map<String, Value>) -> Option<Value> {
    let bound = |key| schema.get(key).and_then(Value::as_f64);
    let has_exclusive = bound("exclusiveMinimum").is_some() || bound("exclusiveMaximum").is_some();
    if schema.contains_key("multipleOf") || has_exclusive {
        return integer(schema).map(Value::from);
    }
    let value = match (bound("minimum"), bound("maximum")) {
        (Some(low), _) => low,
        (None, Some(high)) if high < 1.0 => high,
        _ => 1.0,
    };
    serde_json::Number::from_f64(value).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_properties_get_values_within_their_bounds_formats_and_enums() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "minimum": 5, "maximum": 9},
                "b": {"type": "string", "enum": ["x", "y"]},
                "c": {"type": "string", "format": "email"},
                "d": {"type": "array", "items": {"type": "number"}, "minItems": 2},
                "e": {"$ref": "#/$defs/inner"},
                "f": {"type": "string", "minLength": 20},
                "optional": {"type": "string"}
            },
            "required": ["a", "b", "c", "d", "e", "f"],
            "$defs": {"inner": {"type": "object", "properties": {"z": {"type": "boolean"}}, "required": ["z"]}}
        });
        let args = arguments(&schema, true).unwrap();
        assert_eq!(args["a"], 5);
        assert_eq!(args["b"], "x");
        assert_eq!(args["c"], "check@example.com");
        assert_eq!(args["d"], json!([1.0, 1.0]));
        assert_eq!(args["e"], json!({"z": false}));
        assert!(args["f"].as_str().unwrap().len() >= 20);
        assert!(args.get("optional").is_none());
    }

    #[test]
    fn a_schema_the_synthesizer_cannot_satisfy_gives_no_arguments() {
        let schema = json!({
            "type": "object",
            "properties": {"p": {"type": "string", "pattern": "^[0-9]{4}$"}},
            "required": ["p"]
        });
        assert!(arguments(&schema, true).is_err());
    }

    #[test]
    fn exclusive_bounds_and_multiples_are_respected() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10, "multipleOf": 3}
        }, "required": ["n"]});
        assert_eq!(arguments(&schema, true).unwrap()["n"], 3);
    }
}
