//! Validation of `structuredContent` against the `outputSchema` a server
//! listed for its tools (TOOL-15), with a cache of compiled schemas.
//!
//! Schemas compile by the same rules as on the server (`mcpwire-types`'
//! `schema` module): JSON Schema 2020-12 when `$schema` is absent, the
//! dialect `$schema` names otherwise (JSCH-01..04), never a remote `$ref`,
//! and bounded schema size. The cache of compiled schemas is bounded in
//! entries and in bytes, and forgets the schema learned longest ago first,
//! as the Streamable HTTP client's table of tools' header parameters does:
//! a server with more tools than the bounds hold then keeps what it listed
//! last, which is what its next calls most likely name, rather than
//! whatever the map's order happens to pick.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use mcpwire_types::Tool;
use mcpwire_types::schema::CompiledSchema;
use serde_json::{Map, Value};

use crate::weight::json_len;

/// A tool's output schema, compiled, or why it cannot be used.
pub(crate) type OutputSchema = Arc<Result<CompiledSchema, String>>;

/// How many tools' output schemas the cache holds by default: a server
/// that lists new names on every page, and never says its list changed,
/// must not grow the client without bound. Past it the cache forgets the
/// schema learned longest ago for each new one (a tool whose schema is
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

/// The schemas, what they weigh together and the order they were learned
/// in, kept in step: every change goes through [`Schemas::insert`],
/// [`Schemas::remove`], [`Schemas::evict_oldest`] or [`Schemas::clear`].
#[derive(Default)]
struct Schemas {
    map: HashMap<String, Held>,
    bytes: usize,
    /// Tool names in the order their schemas were (last) learned, each
    /// with the generation of the entry it was pushed for. A pair whose
    /// generation no longer matches the map's entry (the tool was learned
    /// again, or forgotten) is stale: skipped when evicting, and dropped
    /// once stale pairs outnumber live ones, so that the order costs O(1)
    /// amortised per change however often the same tools are relisted,
    /// where removing a name from the middle of the queue would cost a
    /// scan each time.
    order: VecDeque<(u64, String)>,
    /// The generation the next inserted entry gets: every insertion counts
    /// as the newest, a replacement included.
    next_generation: u64,
}

/// A remembered schema, what it weighs (see [`weight`]) and when it was
/// learned (its pair in [`Schemas::order`]).
struct Held {
    schema: OutputSchema,
    weight: usize,
    generation: u64,
}

impl Schemas {
    /// Remembers `schema` for `name` as the newest entry, replacing any
    /// older one.
    fn insert(&mut self, name: String, schema: OutputSchema, weight: usize) {
        let generation = self.next_generation;
        self.next_generation = self.next_generation.wrapping_add(1);
        self.order.push_back((generation, name.clone()));
        self.bytes = self.bytes.saturating_add(weight);
        let held = Held {
            schema,
            weight,
            generation,
        };
        if let Some(older) = self.map.insert(name, held) {
            // Its pair in `order` is stale now.
            self.bytes = self.bytes.saturating_sub(older.weight);
        }
        self.compact();
    }

    /// Forgets `name`'s schema; its pair in `order` goes stale.
    fn remove(&mut self, name: &str) {
        if let Some(older) = self.map.remove(name) {
            self.bytes = self.bytes.saturating_sub(older.weight);
        }
    }

    /// Forgets the schema learned longest ago; false when none is left.
    fn evict_oldest(&mut self) -> bool {
        while let Some((generation, name)) = self.order.pop_front() {
            if self.is_live(generation, &name) {
                self.remove(&name);
                return true;
            }
        }
        false
    }

    fn is_live(&self, generation: u64, name: &str) -> bool {
        self.map
            .get(name)
            .is_some_and(|held| held.generation == generation)
    }

    /// Drops the stale pairs of `order` once they outnumber the live ones
    /// (with some slack, so that a small cache does not compact on every
    /// insertion): each compaction's cost is then paid for by the
    /// insertions that made the stale pairs.
    fn compact(&mut self) {
        if self.order.len() > 2 * self.map.len() + 16 {
            let map = &self.map;
            self.order.retain(|(generation, name)| {
                map.get(name.as_str())
                    .is_some_and(|held| held.generation == *generation)
            });
        }
    }

    fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
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
        // Every write keeps the map, its weight and its order in step
        // before it returns, and none can panic midway (a pair pushed to
        // the order without its entry would only be stale), so a poisoned
        // lock is whole.
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
        let compiled: Vec<(String, Option<(OutputSchema, usize)>)> = tools
            .iter()
            .map(|tool| {
                let held = tool.output_schema.as_ref().map(|schema| {
                    let compiled = compile(schema);
                    let weight = weight(&tool.name, schema, &compiled);
                    (Arc::new(compiled), weight)
                });
                (tool.name.clone(), held)
            })
            .collect();
        let mut schemas = self.schemas();
        for (name, held) in compiled {
            // A relisted tool's new schema replaces its old one, kept or
            // not.
            schemas.remove(&name);
            let Some((schema, weight)) = held else {
                continue;
            };
            if weight > self.max_bytes {
                tracing::debug!(
                    tool = %name,
                    weight,
                    "an output schema heavier than the cache's whole bound is not kept"
                );
                continue;
            }
            while schemas.map.len() >= self.max_schemas
                || schemas.bytes.saturating_add(weight) > self.max_bytes
            {
                // The schema learned longest ago first (see the module's
                // header). A server that floods the cache still decides
                // what is in it, but one that merely lists more tools than
                // fit keeps the ones it listed last. Every live entry has
                // its pair in `order`, so this stops only once the new
                // schema fits.
                if !schemas.evict_oldest() {
                    break;
                }
            }
            schemas.insert(name, schema, weight);
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
    /// it holds; checks too that every entry has exactly one live pair in
    /// the order (what eviction relies on).
    fn held_bytes(cache: &SchemaCache) -> usize {
        let schemas = cache.schemas();
        let sum: usize = schemas.map.values().map(|held| held.weight).sum();
        assert_eq!(schemas.bytes, sum, "the total and the entries disagree");
        let live: Vec<&str> = schemas
            .order
            .iter()
            .filter(|(generation, name)| schemas.is_live(*generation, name))
            .map(|(_, name)| name.as_str())
            .collect();
        assert_eq!(live.len(), schemas.map.len(), "live pairs: {live:?}");
        assert!(live.iter().all(|name| schemas.map.contains_key(*name)));
        sum
    }

    /// The names the cache holds, oldest first.
    fn held_names(cache: &SchemaCache) -> Vec<String> {
        let schemas = cache.schemas();
        schemas
            .order
            .iter()
            .filter(|(generation, name)| schemas.is_live(*generation, name))
            .map(|(_, name)| name.clone())
            .collect()
    }

    /// What `schema` weighs as `name`'s, computed apart from the cache.
    fn weight_of(name: &str, schema: &Value) -> usize {
        let map = schema.as_object().unwrap();
        weight(name, map, &compile(map))
    }

    /// `names` as owned strings, for comparing with [`held_names`].
    fn names(names: impl IntoIterator<Item = String>) -> Vec<String> {
        names.into_iter().collect()
    }

    #[test]
    fn full_cache_evicts_the_oldest_schema_first() {
        const MAX: usize = 16;
        let cache = SchemaCache::with_limits(MAX, usize::MAX);
        let schema = json!({"type": "object"});
        // 200 names through 16 places: before, the map's iteration order
        // picked which one went, and some tool other than the oldest was
        // all but certain to go at some point.
        for n in 0..200_usize {
            cache.learn(&[tool_with_output(&format!("tool-{n}"), &schema)]);
            let first = (n + 1).saturating_sub(MAX);
            for gone in 0..first {
                assert!(
                    cache.get(&format!("tool-{gone}")).is_none(),
                    "tool-{gone} at {n}"
                );
            }
            for kept in first..=n {
                assert!(
                    cache.get(&format!("tool-{kept}")).is_some(),
                    "tool-{kept} at {n}"
                );
            }
            let expected: usize = (first..=n)
                .map(|kept| weight_of(&format!("tool-{kept}"), &schema))
                .sum();
            assert_eq!(held_bytes(&cache), expected, "at {n}");
        }
        assert_eq!(
            held_names(&cache),
            names((200 - MAX..200).map(|n| format!("tool-{n}")))
        );
        // A page is learned in its order: its last tools are the newest.
        let page: Vec<Tool> = (0..MAX + 4)
            .map(|n| tool_with_output(&format!("page-{n}"), &schema))
            .collect();
        cache.learn(&page);
        assert_eq!(
            held_names(&cache),
            names((4..MAX + 4).map(|n| format!("page-{n}")))
        );
    }

    #[test]
    fn reinserted_schema_counts_as_newest() {
        const MAX: usize = 32;
        let cache = SchemaCache::with_limits(MAX, usize::MAX);
        let old = json!({"type": "object"});
        let new = big_schema(100);
        for n in 0..MAX {
            cache.learn(&[tool_with_output(&format!("a-{n}"), &old)]);
        }
        // The first half relisted with another schema: they are now newer
        // than the second half, and weigh what the new schema weighs.
        for n in 0..MAX / 2 {
            cache.learn(&[tool_with_output(&format!("a-{n}"), &new)]);
        }
        let relisted = || (0..MAX / 2).map(|n| format!("a-{n}"));
        let expected: usize = relisted().map(|name| weight_of(&name, &new)).sum::<usize>()
            + (MAX / 2..MAX)
                .map(|n| weight_of(&format!("a-{n}"), &old))
                .sum::<usize>();
        assert_eq!(held_bytes(&cache), expected);
        // Half a cache of new tools pushes out the half never relisted.
        for n in 0..MAX / 2 {
            cache.learn(&[tool_with_output(&format!("b-{n}"), &old)]);
        }
        assert_eq!(
            held_names(&cache),
            names(relisted().chain((0..MAX / 2).map(|n| format!("b-{n}"))))
        );
        let b_bytes: usize = (0..MAX / 2)
            .map(|n| weight_of(&format!("b-{n}"), &old))
            .sum();
        let relisted_bytes: usize = relisted().map(|name| weight_of(&name, &new)).sum();
        assert_eq!(held_bytes(&cache), relisted_bytes + b_bytes);
        // The relisted ones are the oldest now, and go next.
        for n in 0..MAX / 2 {
            cache.learn(&[tool_with_output(&format!("c-{n}"), &old)]);
        }
        assert!(relisted().all(|name| cache.get(&name).is_none()));
        let c_bytes: usize = (0..MAX / 2)
            .map(|n| weight_of(&format!("c-{n}"), &old))
            .sum();
        assert_eq!(held_bytes(&cache), b_bytes + c_bytes);
    }

    #[test]
    fn byte_bound_evicts_the_oldest_schemas_first_until_the_new_one_fits() {
        let small = json!({"type": "object"});
        let one = weight_of("s-0", &small);
        let cache = SchemaCache::with_limits(DEFAULT_MAX_SCHEMAS, 10 * one);
        for n in 0..10 {
            cache.learn(&[tool_with_output(&format!("s-{n}"), &small)]);
        }
        assert_eq!(held_bytes(&cache), 10 * one);
        // A schema weighing as much as a few small ones: exactly as many
        // of the oldest go as it takes to make room, no more.
        let big = big_schema(3 * one);
        let heavy = weight_of("big", &big);
        let evicted = heavy.div_ceil(one);
        assert!((3..10).contains(&evicted), "{heavy} / {one}");
        cache.learn(&[tool_with_output("big", &big)]);
        assert_eq!(
            held_names(&cache),
            names(
                (evicted..10)
                    .map(|n| format!("s-{n}"))
                    .chain(["big".to_owned()])
            )
        );
        assert_eq!(held_bytes(&cache), (10 - evicted) * one + heavy);
        // Replacing the heavy one by a small schema gives its bytes back
        // exactly.
        cache.learn(&[tool_with_output("big", &small)]);
        assert_eq!(
            held_bytes(&cache),
            (10 - evicted) * one + weight_of("big", &small)
        );
    }

    #[test]
    fn relisting_the_same_tools_forever_keeps_the_order_bounded() {
        let cache = SchemaCache::with_limits(8, usize::MAX);
        let schema = json!({"type": "object"});
        for round in 0..10_000 {
            cache.learn(&[tool_with_output(&format!("tool-{}", round % 3), &schema)]);
            if round % 7 == 0 {
                // A tool relisted without a schema leaves a stale pair too.
                cache.learn(&[Tool::without_arguments("tool-0")]);
            }
        }
        assert!(cache.schemas().order.len() <= 2 * 3 + 17);
        held_bytes(&cache);
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
