//! Tools' `x-mcp-header` parameters (2026-07-28): reading and validating
//! them from `tools/list` results, and dropping tools whose annotations are
//! invalid, as clients on Streamable HTTP must.

use std::collections::HashSet;

use http::HeaderName;
use mcpwire_jsonrpc::RawJson;
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::headers::MCP_PARAM_PREFIX;

/// The schema keyword that mirrors a tool parameter into a header.
const ANNOTATION: &str = "x-mcp-header";

/// One tool parameter mirrored into an `Mcp-Param-{name}` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeaderParam {
    /// The full header name, lower-cased.
    pub(crate) header: HeaderName,
    /// The chain of `properties` keys from the arguments to the value.
    pub(crate) path: Vec<String>,
}

/// What a `tools/list` result taught: each valid tool's header parameters,
/// and the result to deliver instead when invalid tools had to be dropped.
#[derive(Debug, Default)]
pub(crate) struct ToolsListOutcome {
    pub(crate) tools: Vec<(String, Vec<HeaderParam>)>,
    pub(crate) rewritten: Option<RawJson>,
}

/// Reads a `tools/list` result. Returns `None` when it has no readable
/// `tools` array (it is then delivered as it is).
pub(crate) fn inspect_tools_list(result: &RawJson) -> Option<ToolsListOutcome> {
    let Ok(Entries(entries)) = serde_json::from_str::<Entries>(result.get()) else {
        return None;
    };
    let (_, tools_raw) = entries.iter().find(|(key, _)| key == "tools")?;
    let tools: Vec<Box<RawValue>> = serde_json::from_str(tools_raw.get()).ok()?;
    let mut outcome = ToolsListOutcome::default();
    let mut kept = Vec::with_capacity(tools.len());
    let mut dropped = false;
    for tool in tools {
        let Ok(view) = serde_json::from_str::<ToolView>(tool.get()) else {
            // Not a tool we can read: not ours to judge.
            kept.push(tool);
            continue;
        };
        match header_params(view.input_schema.as_ref().unwrap_or(&Value::Null)) {
            Ok(params) => {
                outcome.tools.push((view.name, params));
                kept.push(tool);
            }
            Err(reason) => {
                tracing::warn!(
                    tool = view.name.as_str(),
                    reason = reason.as_str(),
                    "ignoring a tool whose x-mcp-header annotations are invalid"
                );
                dropped = true;
            }
        }
    }
    if dropped {
        outcome.rewritten = rebuild(&entries, &kept);
    }
    Some(outcome)
}

/// The result with its `tools` array replaced by `kept`, every other member
/// copied byte for byte, in order.
fn rebuild(entries: &[(String, Box<RawValue>)], kept: &[Box<RawValue>]) -> Option<RawJson> {
    let mut text = String::from("{");
    for (index, (key, value)) in entries.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        text.push_str(&serde_json::to_string(key).ok()?);
        text.push(':');
        if key == "tools" {
            text.push('[');
            for (position, tool) in kept.iter().enumerate() {
                if position > 0 {
                    text.push(',');
                }
                text.push_str(tool.get());
            }
            text.push(']');
        } else {
            text.push_str(value.get());
        }
    }
    text.push('}');
    RawJson::from_string(text).ok()
}

#[derive(Deserialize)]
struct ToolView {
    name: String,
    #[serde(rename = "inputSchema", default)]
    input_schema: Option<Value>,
}

/// An object's members in their order, values raw.
struct Entries(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// The header parameters an `inputSchema` declares, or why its
/// annotations make the tool invalid (2026-07-28 tools page, `x-mcp-header`).
pub(crate) fn header_params(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    let mut path = Vec::new();
    collect(schema, &mut path, true, &mut found)?;
    let mut seen = HashSet::new();
    let mut params = Vec::with_capacity(found.len());
    for (path, annotation, property) in found {
        let Value::String(name) = annotation else {
            return Err(format!("{ANNOTATION} of {path:?} is not a string"));
        };
        if name.is_empty() {
            return Err(format!("{ANNOTATION} of {path:?} is empty"));
        }
        if !name.bytes().all(is_tchar) {
            return Err(format!(
                "{ANNOTATION} {name:?} is not an HTTP field-name token"
            ));
        }
        if !seen.insert(name.to_ascii_lowercase()) {
            return Err(format!("{ANNOTATION} {name:?} is used twice"));
        }
        if !is_primitive(property) {
            return Err(format!(
                "{ANNOTATION} {name:?} is on a property that is not a string, integer or boolean"
            ));
        }
        let header = format!("{MCP_PARAM_PREFIX}{}", name.to_ascii_lowercase());
        let header = HeaderName::from_bytes(header.as_bytes())
            .map_err(|_| format!("{ANNOTATION} {name:?} cannot be a header name"))?;
        params.push(HeaderParam { header, path });
    }
    Ok(params)
}

/// Walks a schema and collects every annotation with its property path;
/// fails on an annotation that is not reachable through `properties`
/// alone (under `items`, `anyOf`, `$defs`, ..., or on the root itself).
fn collect<'a>(
    schema: &'a Value,
    path: &mut Vec<String>,
    reachable: bool,
    found: &mut Vec<(Vec<String>, &'a Value, &'a Value)>,
) -> Result<(), String> {
    match schema {
        Value::Object(members) => {
            if let Some(annotation) = members.get(ANNOTATION) {
                if !reachable || path.is_empty() {
                    return Err(format!(
                        "{ANNOTATION} at {path:?} is not on a property reachable through `properties` alone"
                    ));
                }
                found.push((path.clone(), annotation, schema));
            }
            for (keyword, value) in members {
                match keyword.as_str() {
                    "properties" => {
                        if let Value::Object(properties) = value {
                            for (name, property) in properties {
                                path.push(name.clone());
                                collect(property, path, reachable, found)?;
                                path.pop();
                            }
                        }
                    }
                    // Values, not schemas: an annotation-shaped key in
                    // them is data.
                    ANNOTATION | "enum" | "const" | "default" | "examples" => {}
                    _ => collect(value, path, false, found)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| collect(item, path, false, found)),
        _ => Ok(()),
    }
}

/// Whether the property's `type` is string, integer or boolean (or a list
/// of those, possibly with null). `number` is not allowed.
fn is_primitive(property: &Value) -> bool {
    let primitive = |name: &str| matches!(name, "string" | "integer" | "boolean");
    match property.get("type") {
        Some(Value::String(name)) => primitive(name),
        Some(Value::Array(names)) => {
            let names: Option<Vec<&str>> = names.iter().map(Value::as_str).collect();
            names.is_some_and(|names| {
                names.iter().any(|name| primitive(name))
                    && names.iter().all(|name| primitive(name) || *name == "null")
            })
        }
        _ => false,
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema_with(property: &Value) -> Value {
        json!({"type": "object", "properties": {"p": property}})
    }

    #[test]
    fn annotated_primitive_properties_become_header_params() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
                "query": {"type": "string"},
                "outer": {"type": "object", "properties": {
                    "flag": {"type": ["boolean", "null"], "x-mcp-header": "Flag"}
                }}
            }
        });
        let mut params = header_params(&schema).unwrap();
        params.sort_by(|a, b| a.header.as_str().cmp(b.header.as_str()));
        let names: Vec<_> = params.iter().map(|param| param.header.as_str()).collect();
        assert_eq!(names, ["mcp-param-flag", "mcp-param-n", "mcp-param-region"]);
        assert_eq!(params[0].path, ["outer", "flag"]);
    }

    #[test]
    fn invalid_annotations_are_refused() {
        let invalid = [
            schema_with(&json!({"type": "string", "x-mcp-header": ""})),
            schema_with(&json!({"type": "object", "x-mcp-header": "O"})),
            schema_with(&json!({"type": "array", "x-mcp-header": "A"})),
            schema_with(&json!({"type": "null", "x-mcp-header": "N"})),
            schema_with(&json!({"type": "number", "x-mcp-header": "F"})),
            schema_with(&json!({"type": "string", "x-mcp-header": "has space"})),
            schema_with(&json!({"type": "string", "x-mcp-header": "co:lon"})),
            schema_with(&json!({"type": "string", "x-mcp-header": "Région"})),
            schema_with(&json!({"type": "string", "x-mcp-header": "tab\there"})),
            schema_with(&json!({"type": "string", "x-mcp-header": 7})),
            json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"}
            }}),
            json!({"type": "object", "properties": {
                "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "I"}}
            }}),
            json!({"type": "object", "anyOf": [
                {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}
            ]}),
            json!({"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}),
            json!({"type": "object", "x-mcp-header": "Root"}),
        ];
        for schema in invalid {
            assert!(header_params(&schema).is_err(), "{schema}");
        }
    }

    #[test]
    fn annotation_shaped_data_is_not_an_annotation() {
        let schema = json!({"type": "object", "properties": {
            "x-mcp-header": {"type": "string"},
            "p": {"type": "object", "default": {"x-mcp-header": "NotOne"}}
        }});
        assert_eq!(header_params(&schema).unwrap(), []);
    }

    #[test]
    fn a_tools_list_with_invalid_tools_is_rewritten_without_them() {
        let result = RawJson::from_string(
            r#"{"tools":[{"name":"good","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}},{"name":"bad","inputSchema":{"type":"object","properties":{"f":{"type":"number","x-mcp-header":"F"}}}}],"nextCursor":"c2"}"#
                .to_owned(),
        )
        .unwrap();
        let outcome = inspect_tools_list(&result).unwrap();
        assert_eq!(outcome.tools.len(), 1);
        assert_eq!(outcome.tools[0].0, "good");
        assert_eq!(
            outcome.rewritten.unwrap().get(),
            r#"{"tools":[{"name":"good","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}}],"nextCursor":"c2"}"#
        );
    }

    #[test]
    fn a_valid_tools_list_is_left_as_it_is() {
        let result = RawJson::from_string(
            r#"{"tools":[{"name":"plain","inputSchema":{"type":"object"}}]}"#.to_owned(),
        )
        .unwrap();
        let outcome = inspect_tools_list(&result).unwrap();
        assert!(outcome.rewritten.is_none());
        assert_eq!(outcome.tools, [("plain".to_owned(), Vec::new())]);
    }
}
