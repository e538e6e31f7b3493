//! Reading the vendored MCP schemas: definitions, the methods they name and
//! the unions that say which side sends what.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

/// Every revision, oldest first, spelled as in the schema file names.
pub(crate) const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// Names of the unions that group messages by sender. In a revision where a
/// union has a single member the schema generator inlines that member under
/// the union's name (2026-07-28 `ClientNotification` is `CancelledNotification`),
/// so these names are never taken as the definition of a method.
pub(crate) const SENDER_UNIONS: [&str; 4] = [
    "ClientRequest",
    "ServerRequest",
    "ClientNotification",
    "ServerNotification",
];

/// The union of requests a 2026-07-28 server embeds in an `InputRequiredResult`.
pub(crate) const INPUT_REQUEST_UNION: &str = "InputRequest";

/// One revision's JSON Schema.
pub(crate) struct Schema {
    /// The revision, e.g. `"2025-06-18"`.
    pub(crate) revision: &'static str,
    /// The definitions (`definitions` in draft-07 files, `$defs` in 2020-12 ones).
    definitions: Map<String, Value>,
}

impl Schema {
    /// Reads `schema-<revision>.json` from `dir`.
    pub(crate) fn load(dir: &Path, revision: &'static str) -> Result<Self, String> {
        let path = dir.join(format!("schema-{revision}.json"));
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("could not read {}: {error}", path.display()))?;
        let root: Value = serde_json::from_str(&text)
            .map_err(|error| format!("{} is not JSON: {error}", path.display()))?;
        let definitions = root
            .get("$defs")
            .or_else(|| root.get("definitions"))
            .and_then(Value::as_object)
            .cloned()
            .ok_or_else(|| format!("{} has no definitions", path.display()))?;
        Ok(Self {
            revision,
            definitions,
        })
    }

    /// Reads the schemas of every revision from `dir`, oldest first.
    pub(crate) fn load_all(dir: &Path) -> Result<Vec<Self>, String> {
        REVISIONS
            .iter()
            .map(|revision| Self::load(dir, revision))
            .collect()
    }

    /// The definition called `name`, if this revision has it.
    pub(crate) fn definition(&self, name: &str) -> Option<&Value> {
        self.definitions.get(name)
    }

    /// Whether this revision has a definition called `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.definitions.contains_key(name)
    }

    /// Every definition with its name, sorted by name.
    pub(crate) fn definitions(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.definitions.iter()
    }

    /// The members of the union `name`: the targets of its `anyOf`/`oneOf`
    /// references, the target of a plain `$ref`, or the definition itself
    /// when the generator inlined a single member under the union's name.
    pub(crate) fn union_members(&self, name: &str) -> Vec<String> {
        let Some(union) = self.definition(name) else {
            return Vec::new();
        };
        if let Some(alternatives) = union.get("anyOf").or_else(|| union.get("oneOf")) {
            return alternatives
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(ref_target)
                .collect();
        }
        if let Some(target) = ref_target(union) {
            return vec![target];
        }
        if method_const(union).is_some() {
            vec![name.to_owned()]
        } else {
            Vec::new()
        }
    }

    /// The method names of the members of the union `name`.
    pub(crate) fn union_methods(&self, name: &str) -> Vec<String> {
        self.union_members(name)
            .iter()
            .filter_map(|member| self.definition(member).and_then(method_const))
            .map(str::to_owned)
            .collect()
    }

    /// Every method this revision names, mapped to the definition that
    /// describes its message (never one of [`SENDER_UNIONS`]).
    pub(crate) fn method_definitions(&self) -> BTreeMap<String, String> {
        let mut methods = BTreeMap::new();
        for (name, definition) in self.definitions() {
            if SENDER_UNIONS.contains(&name.as_str()) {
                continue;
            }
            if let Some(method) = method_const(definition) {
                methods.insert(method.to_owned(), name.clone());
            }
        }
        methods
    }

    /// The definition of the error response whose `error.code` is the
    /// constant `code` (2025-11-25 on name some errors this way).
    pub(crate) fn error_definition_for_code(&self, code: i64) -> Option<String> {
        self.definitions()
            .find(|(_, definition)| {
                let Some(parts) = definition.pointer("/properties/error/allOf") else {
                    return false;
                };
                parts.as_array().into_iter().flatten().any(|part| {
                    part.pointer("/properties/code/const")
                        .and_then(Value::as_i64)
                        == Some(code)
                })
            })
            .map(|(name, _)| name.clone())
    }
}

/// The constant `method` of a request or notification definition.
pub(crate) fn method_const(definition: &Value) -> Option<&str> {
    definition
        .pointer("/properties/method/const")
        .and_then(Value::as_str)
}

/// The definition name a `{"$ref": "#/definitions/X"}` or `#/$defs/X` points at.
pub(crate) fn ref_target(schema: &Value) -> Option<String> {
    let reference = schema.get("$ref")?.as_str()?;
    reference.rsplit('/').next().map(str::to_owned)
}
