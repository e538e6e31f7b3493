//! Validation of `structuredContent` against the `outputSchema` a server
//! listed for its tools (TOOL-15), with a cache of compiled schemas.
//!
//! Schemas compile by the same rules as on the server (`mcpwire-types`'
//! `schema` module): JSON Schema 2020-12 when `$schema` is absent, the
//! dialect `$schema` names otherwise (JSCH-01..04), never a remote `$ref`,
//! and bounded schema size.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcpwire_types::Tool;
use mcpwire_types::schema::CompiledSchema;
use serde_json::{Map, Value};

/// A tool's output schema, compiled, or why it cannot be used.
pub(crate) type OutputSchema = Arc<Result<CompiledSchema, String>>;

/// How many tools' output schemas the cache holds: a server that lists new
/// names on every page, and never says its list changed, must not grow the
/// client without bound. Past it the cache forgets another tool's schema
/// for each new one (a tool whose schema is forgotten has its results
/// taken unchecked until it is listed again).
const MAX_SCHEMAS: usize = 1024;

/// Output schemas by tool name, as last seen in `tools/list`; at most
/// [`MAX_SCHEMAS`] of them, each within the schema size limits.
#[derive(Default)]
pub(crate) struct SchemaCache {
    tools: Mutex<HashMap<String, OutputSchema>>,
}

impl SchemaCache {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, OutputSchema>> {
        // Every write is one insert or remove, so a poisoned map is whole.
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the schemas of a page of tools: a tool without an output
    /// schema forgets any older one.
    pub(crate) fn learn(&self, tools: &[Tool]) {
        let compiled: Vec<(String, Option<OutputSchema>)> = tools
            .iter()
            .map(|tool| {
                let schema = tool
                    .output_schema
                    .as_ref()
                    .map(|schema| Arc::new(compile(schema)));
                (tool.name.clone(), schema)
            })
            .collect();
        let mut map = self.map();
        for (name, schema) in compiled {
            match schema {
                Some(schema) => {
                    if map.len() >= MAX_SCHEMAS && !map.contains_key(&name) {
                        let older = map.keys().next().cloned();
                        if let Some(older) = older {
                            map.remove(&older);
                        }
                    }
                    map.insert(name, schema)
                }
                None => map.remove(&name),
            };
        }
    }

    /// Forgets every schema (the tool list changed).
    pub(crate) fn clear(&self) {
        self.map().clear();
    }

    /// The output schema of `tool`, if one was listed.
    pub(crate) fn get(&self, tool: &str) -> Option<OutputSchema> {
        self.map().get(tool).cloned()
    }
}

/// Checks a tool result's structured content against `schema`: a
/// non-error result of a tool with an output schema must carry conforming
/// `structuredContent` (TOOL-14, TOOL-15). Returns why not.
pub(crate) fn check(
    schema: &Result<CompiledSchema, String>,
    structured: Option<&Value>,
) -> Result<(), String> {
    let compiled = schema
        .as_ref()
        .map_err(|reason| format!("the tool's outputSchema cannot be used: {reason}"))?;
    let Some(value) = structured else {
        return Err("the tool declares an outputSchema but returned no structuredContent".into());
    };
    compiled
        .validate(value)
        .map_err(|failure| failure.to_string())
}

/// Compiles an output schema by MCP's rules, refusing oversized schemas
/// and remote references.
fn compile(schema: &Map<String, Value>) -> Result<CompiledSchema, String> {
    CompiledSchema::compile_object(schema).map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool_with_output(name: &str, schema: &Value) -> Tool {
        let mut tool = Tool::without_arguments(name);
        tool.output_schema = schema.as_object().cloned();
        tool
    }

    #[test]
    fn the_cache_holds_a_bounded_number_of_schemas_and_the_newest_listed() {
        let cache = SchemaCache::default();
        let schema = json!({"type": "object"});
        for page in 0..4 {
            let tools: Vec<Tool> = (0..MAX_SCHEMAS / 2)
                .map(|n| tool_with_output(&format!("tool-{page}-{n}"), &schema))
                .collect();
            cache.learn(&tools);
        }
        assert_eq!(cache.map().len(), MAX_SCHEMAS);
        assert!(
            cache
                .get(&format!("tool-3-{}", MAX_SCHEMAS / 2 - 1))
                .is_some()
        );
    }

    #[test]
    fn conforming_content_passes_and_a_violation_names_its_place() {
        let cache = SchemaCache::default();
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        cache.learn(&[tool_with_output("count", &schema)]);
        let schema = cache.get("count").unwrap();
        assert_eq!(check(&schema, Some(&json!({"n": 3}))), Ok(()));
        let reason = check(&schema, Some(&json!({"n": "three"}))).unwrap_err();
        assert!(reason.contains("/n"), "{reason}");
        assert!(check(&schema, None).is_err());
    }

    #[test]
    fn the_default_dialect_is_2020_12_and_draft_07_is_honoured() {
        // `prefixItems` exists in 2020-12 only; draft-07 ignores it.
        let tuple = json!({"type": "array", "prefixItems": [{"type": "integer"}]});
        let modern = compile(tuple.as_object().unwrap()).unwrap();
        assert!(!modern.is_valid(&json!(["x"])));
        let mut old = tuple.as_object().unwrap().clone();
        old.insert(
            "$schema".into(),
            json!("http://json-schema.org/draft-07/schema#"),
        );
        let old = compile(&old).unwrap();
        assert!(old.is_valid(&json!(["x"])));
    }

    #[test]
    fn unsupported_dialects_and_remote_references_are_refused() {
        let odd = json!({"$schema": "https://example.com/my-dialect"});
        let reason = compile(odd.as_object().unwrap()).unwrap_err();
        assert!(reason.contains("unsupported"), "{reason}");
        let remote = json!({"$ref": "https://example.com/schema.json"});
        assert!(compile(remote.as_object().unwrap()).is_err());
    }

    #[test]
    fn a_relisted_tool_without_a_schema_forgets_the_old_one_and_clear_forgets_all() {
        let cache = SchemaCache::default();
        cache.learn(&[tool_with_output("a", &json!({"type": "object"}))]);
        cache.learn(&[tool_with_output("b", &json!({"type": "object"}))]);
        assert!(cache.get("a").is_some());
        cache.learn(&[Tool::without_arguments("a")]);
        assert!(cache.get("a").is_none());
        cache.clear();
        assert!(cache.get("b").is_none());
    }
}
