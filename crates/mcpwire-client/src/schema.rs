//! Validation of `structuredContent` against the `outputSchema` a server
//! listed for its tools (TOOL-15), with a cache of compiled schemas.
//!
//! Schemas compile by the same rules as on the server (`mcpwire-types`'
//! `schema` module): JSON Schema 2020-12 when `$schema` is absent, the
//! dialect `$schema` names otherwise (JSCH-01..04), never a remote `$ref`,
//! and bounded schema size. The cache of compiled schemas is bounded in
//! entries and in bytes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcpwire_types::Tool;
use mcpwire_types::schema::CompiledSchema;
use serde_json::{Map, Value};

use crate::weight::json_len;

/// A tool's output schema, compiled, or why it cannot be used.
pub(crate) type OutputSchema = Arc<Result<CompiledSchema, String>>;

/// How many tools' output schemas the cache holds by default: a server
/// that lists new names on every page, and never says its list changed,
/// must not grow the client without bound. Past it the cache forgets
/// another tool's schema for each new one (a tool whose schema is
/// forgotten has its results taken unchecked until it is listed again).
pub(crate) const DEFAULT_MAX_SCHEMAS: usize = 1024;

/// How many bytes the remembered schemas may weigh together by default.
/// Counted apart from the entries, since one schema can be nearly a whole
/// message (the transports' default limit is 4 MiB), which would make the
/// worst case of the count bound alone some 4 GiB. 4 MiB keeps the largest
/// schema a default transport can deliver, and the full 1,024 schemas
/// when they average 4 KiB, far above what real tools declare.
pub(crate) const DEFAULT_MAX_SCHEMA_BYTES: usize = 4 * 1024 * 1024;

/// What an entry weighs besides its schema and its tool's name: the entry,
/// the map's bookkeeping and the compiled form's fixed parts, so that many
/// small schemas weigh too.
const ENTRY_OVERHEAD: usize = 128;

/// Output schemas by tool name, as last seen in `tools/list`; at most
/// `max_schemas` of them weighing `max_bytes` together, each within the
/// schema size limits.
pub(crate) struct SchemaCache {
    tools: Mutex<Schemas>,
    max_schemas: usize,
    max_bytes: usize,
}

/// The schemas and what they weigh together, kept in step: every change
/// goes through [`Schemas::insert`], [`Schemas::remove`] or
/// [`Schemas::clear`].
#[derive(Default)]
struct Schemas {
    map: HashMap<String, Held>,
    bytes: usize,
}

/// A remembered schema and what it weighs (see [`weight`]).
struct Held {
    schema: OutputSchema,
    weight: usize,
}

impl Schemas {
    fn insert(&mut self, name: String, held: Held) {
        self.bytes = self.bytes.saturating_add(held.weight);
        if let Some(older) = self.map.insert(name, held) {
            self.bytes = self.bytes.saturating_sub(older.weight);
        }
    }

    fn remove(&mut self, name: &str) {
        if let Some(older) = self.map.remove(name) {
            self.bytes = self.bytes.saturating_sub(older.weight);
        }
    }

    fn clear(&mut self) {
        self.map.clear();
        self.bytes = 0;
    }
}

impl Default for SchemaCache {
    fn default() -> Self {
        Self::with_limits(DEFAULT_MAX_SCHEMAS, DEFAULT_MAX_SCHEMA_BYTES)
    }
}

impl SchemaCache {
    /// An empty cache holding up to `max_schemas` schemas weighing
    /// `max_bytes` together (see [`weight`]).
    pub(crate) fn with_limits(max_schemas: usize, max_bytes: usize) -> Self {
        Self {
            tools: Mutex::new(Schemas::default()),
            max_schemas: max_schemas.max(1),
            max_bytes,
        }
    }

    fn schemas(&self) -> std::sync::MutexGuard<'_, Schemas> {
        // Every write keeps the map and its weight in step before it
        // returns, and none can panic midway, so a poisoned lock is whole.
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the schemas of a page of tools: a tool without an output
    /// schema forgets any older one. When the new schema would pass either
    /// bound, other tools' schemas are forgotten until it fits; one that
    /// weighs more than the whole byte bound on its own is not kept (its
    /// tool's results are then taken unchecked, as a forgotten one's are).
    pub(crate) fn learn(&self, tools: &[Tool]) {
        // Compiled and weighed before the lock is taken, so that the
        // checks of other calls' results do not wait on that work.
        let compiled: Vec<(String, Option<Held>)> = tools
            .iter()
            .map(|tool| {
                let held = tool.output_schema.as_ref().map(|schema| {
                    let compiled = compile(schema);
                    let weight = weight(&tool.name, schema, &compiled);
                    Held {
                        schema: Arc::new(compiled),
                        weight,
                    }
                });
                (tool.name.clone(), held)
            })
            .collect();
        let mut schemas = self.schemas();
        for (name, held) in compiled {
            // A relisted tool's new schema replaces its old one, kept or
            // not.
            schemas.remove(&name);
            let Some(held) = held else {
                continue;
            };
            if held.weight > self.max_bytes {
                tracing::debug!(
                    tool = %name,
                    weight = held.weight,
                    "an output schema heavier than the cache's whole bound is not kept"
                );
                continue;
            }
            while schemas.map.len() >= self.max_schemas
                || schemas.bytes.saturating_add(held.weight) > self.max_bytes
            {
                // Any other tool's, as the count bound always did: no
                // order is kept, since a server that floods the cache
                // decides what is in it whatever the order.
                let Some(older) = schemas.map.keys().next().cloned() else {
                    break;
                };
                schemas.remove(&older);
            }
            schemas.insert(name, held);
        }
    }

    /// Forgets every schema (the tool list changed).
    pub(crate) fn clear(&self) {
        self.schemas().clear();
    }

    /// The output schema of `tool`, if one was listed.
    pub(crate) fn get(&self, tool: &str) -> Option<OutputSchema> {
        self.schemas()
            .map
            .get(tool)
            .map(|held| Arc::clone(&held.schema))
    }
}

/// What a remembered schema weighs: the schema's length as compact JSON
/// when it compiled (counted from the parsed schema, since the bytes it
/// came in are gone: a cheap stand-in for what the compiled form holds,
/// which cannot be measured), or the reason it did not (the schema itself
/// is not kept then), plus its tool's name and a fixed overhead.
fn weight(
    name: &str,
    schema: &Map<String, Value>,
    compiled: &Result<CompiledSchema, String>,
) -> usize {
    let held = match compiled {
        Ok(_) => json_len(schema),
        Err(reason) => reason.len(),
    };
    held.saturating_add(name.len())
        .saturating_add(ENTRY_OVERHEAD)
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
            let tools: Vec<Tool> = (0..DEFAULT_MAX_SCHEMAS / 2)
                .map(|n| tool_with_output(&format!("tool-{page}-{n}"), &schema))
                .collect();
            cache.learn(&tools);
        }
        assert_eq!(cache.schemas().map.len(), DEFAULT_MAX_SCHEMAS);
        assert!(
            cache
                .get(&format!("tool-3-{}", DEFAULT_MAX_SCHEMAS / 2 - 1))
                .is_some()
        );
    }

    /// An output schema whose `description` makes its JSON `text` bytes
    /// long, give or take a few dozen.
    fn big_schema(text: usize) -> Value {
        json!({"type": "object", "description": "x".repeat(text)})
    }

    /// What the cache holds in all, checked against the weights of what
    /// it holds.
    fn held_bytes(cache: &SchemaCache) -> usize {
        let schemas = cache.schemas();
        let sum: usize = schemas.map.values().map(|held| held.weight).sum();
        assert_eq!(schemas.bytes, sum, "the total and the entries disagree");
        sum
    }

    #[test]
    fn the_cache_holds_a_bounded_number_of_bytes_and_the_newest_listed() {
        const LIMIT: usize = 1024 * 1024;
        let cache = SchemaCache::with_limits(DEFAULT_MAX_SCHEMAS, LIMIT);
        // Ten schemas of 300 KiB, three times the bound: before it the
        // cache kept all ten (counted in entries only).
        for n in 0..10 {
            cache.learn(&[tool_with_output(
                &format!("big-{n}"),
                &big_schema(300 * 1024),
            )]);
            assert!(held_bytes(&cache) <= LIMIT, "{}", held_bytes(&cache));
        }
        assert_eq!(cache.schemas().map.len(), 3);
        assert!(cache.get("big-9").is_some());
        // Small schemas fit beside them as long as the bytes allow; each
        // new one is kept.
        for n in 0..100 {
            let name = format!("small-{n}");
            cache.learn(&[tool_with_output(&name, &json!({"type": "object"}))]);
            assert!(cache.get(&name).is_some());
            assert!(held_bytes(&cache) <= LIMIT, "{}", held_bytes(&cache));
        }
    }

    #[test]
    fn a_schema_heavier_than_the_whole_bound_is_not_kept_and_replaces_the_old_one() {
        let cache = SchemaCache::with_limits(DEFAULT_MAX_SCHEMAS, 64 * 1024);
        cache.learn(&[tool_with_output("a", &json!({"type": "object"}))]);
        cache.learn(&[tool_with_output("b", &json!({"type": "object"}))]);
        let before = held_bytes(&cache);
        // `a` relisted with a schema past the bound: its old schema is
        // forgotten (it no longer describes the tool), and nothing else.
        cache.learn(&[tool_with_output("a", &big_schema(100 * 1024))]);
        assert!(cache.get("a").is_none());
        assert!(cache.get("b").is_some());
        assert!(held_bytes(&cache) < before);
        // Relisting a tool replaces its weight rather than adding to it.
        for _ in 0..10 {
            cache.learn(&[tool_with_output("b", &big_schema(10 * 1024))]);
        }
        assert_eq!(cache.schemas().map.len(), 1);
        assert!(held_bytes(&cache) < 11 * 1024, "{}", held_bytes(&cache));
        cache.clear();
        assert_eq!(held_bytes(&cache), 0);
    }

    #[test]
    fn a_schema_weighs_its_json_or_its_refusal_plus_its_name() {
        let schema = big_schema(1000);
        let map = schema.as_object().unwrap();
        let compiled = compile(map);
        assert!(compiled.is_ok());
        assert_eq!(
            weight("tool", map, &compiled),
            schema.to_string().len() + "tool".len() + ENTRY_OVERHEAD
        );
        let refused: Result<CompiledSchema, String> = Err("too deep".to_owned());
        assert_eq!(
            weight("tool", map, &refused),
            "too deep".len() + "tool".len() + ENTRY_OVERHEAD
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
