//! Tool parameters mirrored into `Mcp-Param-*` headers (2026-07-28,
//! `x-mcp-header`): reading the annotations from an `inputSchema`, and
//! where the server finds them for a tool.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use serde_json::{Map, Value};

/// One tool parameter annotated with `x-mcp-header`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    name: String,
    path: Vec<String>,
}

impl ParamHeader {
    /// The parameter at `path` (the chain of `properties` keys from the
    /// schema root) mirrored into `Mcp-Param-{name}`; `None` when `name` is
    /// not an HTTP token (such an annotation makes the tool invalid, so no
    /// conforming client sends its header) or `path` is empty.
    pub fn new(name: impl Into<String>, path: Vec<String>) -> Option<Self> {
        let name = name.into();
        (is_token(&name) && !path.is_empty()).then_some(Self { name, path })
    }

    /// The annotation's value: the part after `Mcp-Param-`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The property path of the parameter inside the tool's arguments.
    pub fn path(&self) -> &[String] {
        &self.path
    }

    /// The header's name, in lower case.
    pub fn header_name(&self) -> String {
        format!(
            "{}{}",
            crate::headers::MCP_PARAM_PREFIX,
            self.name.to_ascii_lowercase()
        )
    }

    /// The parameter's value in `arguments`, if present and not `null`.
    pub(crate) fn value_in<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        let mut value = arguments;
        for key in &self.path {
            value = value.get(key)?;
        }
        (!value.is_null()).then_some(value)
    }
}

/// Whether `text` is an RFC 9110 token (`1*tchar`).
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `x-mcp-header` annotations of a tool's `inputSchema`.
///
/// Only properties reachable from the root through `properties` keys
/// count; annotations anywhere else (under `items`, `oneOf`, `$ref`, ...)
/// are not recognized, as a conforming client rejects such tools.
pub fn param_headers(input_schema: &Value) -> Vec<ParamHeader> {
    input_schema
        .as_object()
        .map(object_param_headers)
        .unwrap_or_default()
}

/// As [`param_headers`], for an `inputSchema` held as a JSON object (as
/// `mcpwire_types::Tool` holds it), without copying it.
pub fn object_param_headers(input_schema: &Map<String, Value>) -> Vec<ParamHeader> {
    let mut found = Vec::new();
    collect(input_schema, &mut Vec::new(), &mut found);
    found
}

fn collect(schema: &Map<String, Value>, path: &mut Vec<String>, found: &mut Vec<ParamHeader>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, property) in properties {
        let Some(property) = property.as_object() else {
            continue;
        };
        path.push(key.clone());
        if let Some(name) = property.get("x-mcp-header").and_then(Value::as_str)
            && let Some(header) = ParamHeader::new(name, path.clone())
        {
            found.push(header);
        }
        // Nested objects are reachable through their own `properties`.
        if path.len() < 32 {
            collect(property, path, found);
        }
        path.pop();
    }
}

/// Where the server finds the `x-mcp-header` parameters of a tool, to
/// check the `Mcp-Param-*` headers of a `tools/call` (2026-07-28).
///
/// Implement it over your tool catalog, or use a closure
/// `Fn(&str) -> Option<Arc<[ParamHeader]>>`.
pub trait ToolParamHeaders: Send + Sync + 'static {
    /// The annotated parameters of `tool`, or `None` when the tool is
    /// unknown here (its headers are then not checked).
    fn lookup(&self, tool: &str) -> Option<Arc<[ParamHeader]>>;

    /// Sees each tool of every `tools/list` result the server sends.
    fn observe(&self, tool: &str, input_schema: &Value) {
        let _ = (tool, input_schema);
    }
}

impl<F> ToolParamHeaders for F
where
    F: Fn(&str) -> Option<Arc<[ParamHeader]>> + Send + Sync + 'static,
{
    fn lookup(&self, tool: &str) -> Option<Arc<[ParamHeader]>> {
        self(tool)
    }
}

/// The default source: learns each tool's annotations from the
/// `tools/list` results the server sends, so a `tools/call` of a tool
/// listed before is checked.
#[derive(Debug, Default)]
pub struct LearnedParamHeaders {
    tools: RwLock<HashMap<String, Arc<[ParamHeader]>>>,
}

impl LearnedParamHeaders {
    /// Knows no tool yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ToolParamHeaders for LearnedParamHeaders {
    fn lookup(&self, tool: &str) -> Option<Arc<[ParamHeader]>> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
            .cloned()
    }

    fn observe(&self, tool: &str, input_schema: &Value) {
        let headers: Arc<[ParamHeader]> = param_headers(input_schema).into();
        self.tools
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(tool.to_owned(), headers);
    }
}

/// Feeds every tool of a `tools/list` result to `source`.
pub(crate) fn observe_tools_list(source: &dyn ToolParamHeaders, result: &Value) {
    let Some(tools) = result.get("tools").and_then(Value::as_array) else {
        return;
    };
    for tool in tools {
        if let (Some(name), Some(schema)) = (
            tool.get("name").and_then(Value::as_str),
            tool.get("inputSchema"),
        ) {
            source.observe(name, schema);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn annotations_reachable_through_properties_are_found() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"},
                "target": {"type": "object", "properties": {
                    "zone": {"type": "integer", "x-mcp-header": "Zone"}
                }},
                "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
                "bad": {"type": "string", "x-mcp-header": "has space"}
            }
        });
        let mut found = param_headers(&schema);
        found.sort_by(|a, b| a.name().cmp(b.name()));
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].name(), "Region");
        assert_eq!(found[0].header_name(), "mcp-param-region");
        assert_eq!(found[1].path(), ["target", "zone"]);
        assert_eq!(
            found[1].value_in(&json!({"target": {"zone": 3}})),
            Some(&json!(3))
        );
        assert_eq!(found[1].value_in(&json!({"target": {"zone": null}})), None);
    }

    #[test]
    fn learned_headers_come_from_tools_list_results() {
        let learned = LearnedParamHeaders::new();
        assert!(learned.lookup("sql").is_none());
        let result = json!({"tools": [{"name": "sql", "inputSchema": {"type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}}]});
        observe_tools_list(&learned, &result);
        assert_eq!(learned.lookup("sql").unwrap().len(), 1);
    }
}
