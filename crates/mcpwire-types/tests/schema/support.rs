//! Shared machinery of the schema suite: the vendored schemas, validators
//! for one definition (as published or made strict), JSON comparison and a
//! collector that reports every failing case at once.

use std::collections::HashMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};

use jsonschema::{Draft, Validator};
use mcpwire_types::ProtocolVersion;
use serde_json::{Map, Value, json};

/// The vendored schemas and examples.
pub(crate) fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema")
}

/// The maximal instances, one per Rust type.
pub(crate) fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

/// Reads a JSON file, panicking with its path (test data must exist).
pub(crate) fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()))
}

/// Collects the failing cases of a data-driven test and fails once, listing
/// all of them, so that one bad case does not hide the others.
pub(crate) struct Failures {
    what: &'static str,
    checked: usize,
    cases: Vec<String>,
}

impl Failures {
    /// A collector for cases of `what`.
    pub(crate) fn new(what: &'static str) -> Self {
        Self {
            what,
            checked: 0,
            cases: Vec::new(),
        }
    }

    /// Records the outcome of one case.
    pub(crate) fn check(&mut self, case: impl Display, outcome: Result<(), String>) {
        self.checked += 1;
        if let Err(message) = outcome {
            self.cases.push(format!(
                "{case}:\n      {}",
                message.replace('\n', "\n      ")
            ));
        }
    }

    /// Fails listing every failing case; also fails when fewer than
    /// `at_least` cases ran, so that a test whose data went missing cannot
    /// pass by checking nothing.
    pub(crate) fn finish(self, at_least: usize) {
        assert!(
            self.checked >= at_least,
            "{}: only {} cases ran, expected at least {at_least}",
            self.what,
            self.checked
        );
        if !self.cases.is_empty() {
            panic!(
                "{}: {} of {} cases failed:\n  - {}",
                self.what,
                self.cases.len(),
                self.checked,
                self.cases.join("\n  - ")
            );
        }
    }
}

/// The published schema of one revision, and validators built from it.
pub(crate) struct Schemas {
    roots: HashMap<ProtocolVersion, Value>,
    validators: HashMap<(ProtocolVersion, String, bool), Validator>,
}

impl Schemas {
    /// Loads `schema-<revision>.json` for every revision.
    pub(crate) fn load() -> Self {
        let roots = ProtocolVersion::ALL
            .into_iter()
            .map(|version| {
                (
                    version,
                    read_json(&schema_dir().join(format!("schema-{version}.json"))),
                )
            })
            .collect();
        Self {
            roots,
            validators: HashMap::new(),
        }
    }

    /// The definitions of `version` (`definitions` or `$defs`).
    pub(crate) fn definitions(&self, version: ProtocolVersion) -> &Map<String, Value> {
        let root = &self.roots[&version];
        root.get("$defs")
            .or_else(|| root.get("definitions"))
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("schema {version} has no definitions"))
    }

    /// The definition `name` of `version`, if it has one.
    pub(crate) fn definition(&self, version: ProtocolVersion, name: &str) -> Option<&Value> {
        self.definitions(version).get(name)
    }

    /// The definition that describes the message of `method` in `version`
    /// (never the sender unions, which 2026-07-28 sometimes inlines).
    pub(crate) fn method_definition(&self, version: ProtocolVersion, method: &str) -> Option<&str> {
        const UNIONS: [&str; 4] = [
            "ClientRequest",
            "ServerRequest",
            "ClientNotification",
            "ServerNotification",
        ];
        self.definitions(version)
            .iter()
            .filter(|(name, _)| !UNIONS.contains(&name.as_str()))
            .find(|(_, definition)| {
                definition
                    .pointer("/properties/method/const")
                    .and_then(Value::as_str)
                    == Some(method)
            })
            .map(|(name, _)| name.as_str())
    }

    /// Validates `instance` against definition `name` of `version`, as
    /// published or in the strict form (see [`strict_definitions`]); the
    /// error lists every violation.
    pub(crate) fn validate(
        &mut self,
        version: ProtocolVersion,
        name: &str,
        strict: bool,
        instance: &Value,
    ) -> Result<(), String> {
        let violations = self.violations(version, name, strict, instance)?;
        if violations.is_empty() {
            Ok(())
        } else {
            let form = if strict { "strict " } else { "" };
            Err(format!(
                "invalid against {form}{version} {name}: {}",
                violations.join("; ")
            ))
        }
    }

    /// Every way `instance` violates definition `name` of `version`, each
    /// with the place in the instance; errors only when no validator can be built.
    pub(crate) fn violations(
        &mut self,
        version: ProtocolVersion,
        name: &str,
        strict: bool,
        instance: &Value,
    ) -> Result<Vec<String>, String> {
        let key = (version, name.to_owned(), strict);
        if !self.validators.contains_key(&key) {
            let validator = self.build(version, name, strict)?;
            self.validators.insert(key.clone(), validator);
        }
        Ok(self.validators[&key]
            .iter_errors(instance)
            .map(|error| format!("{error} (at {:?})", error.instance_path.to_string()))
            .collect())
    }

    fn build(
        &self,
        version: ProtocolVersion,
        name: &str,
        strict: bool,
    ) -> Result<Validator, String> {
        let is_2020_12 = version.defaults_to_json_schema_2020_12();
        if self.definition(version, name).is_none() {
            return Err(format!("{version} has no definition {name}"));
        }
        let definitions = if strict {
            strict_definitions(self.definitions(version), is_2020_12)
        } else {
            self.definitions(version).clone()
        };
        let (draft, key) = if is_2020_12 {
            (Draft::Draft202012, "$defs")
        } else {
            (Draft::Draft7, "definitions")
        };
        let mut root = Map::new();
        root.insert("$schema".into(), self.roots[&version]["$schema"].clone());
        root.insert("$ref".into(), json!(format!("#/{key}/{name}")));
        root.insert(key.into(), Value::Object(definitions));
        jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(true)
            .build(&Value::Object(root))
            .map_err(|error| format!("cannot build a validator for {version} {name}: {error}"))
    }
}

/// The suffix of the open copies of definitions that `allOf` combines.
const OPEN_SUFFIX: &str = "__open";

/// Properties whose values the strict form leaves as published:
/// - `_meta` is an open map in every revision (keys are namespaced by whoever
///   defines them; 2025-06-18 on say so with `additionalProperties: {}`);
/// - `inputSchema` / `outputSchema` are JSON Schema documents the model
///   carries as free-form maps.
const OPEN_PROPERTIES: [&str; 3] = ["_meta", "inputSchema", "outputSchema"];

/// The definitions of a schema made strict, so that a field the revision
/// does not define fails validation:
///
/// 1. every object schema with `properties` and neither
///    `additionalProperties` nor `unevaluatedProperties` gets
///    `additionalProperties: false`;
/// 2. an object schema with `allOf` (2020-12 only) gets
///    `unevaluatedProperties: false` instead, and its members are left open
///    (inline members as written, `$ref` members through an open copy of the
///    target without its `additionalProperties: {}`), since a closed member
///    would reject the fields of its siblings;
/// 3. the values of [`OPEN_PROPERTIES`] and the `*MetaObject` definitions
///    stay as published;
/// 4. request and notification params written inline without `_meta` get an
///    open `_meta`: every revision's base `Request`/`Notification` params
///    declare it, and the schema generator drops it when a method re-declares
///    its params (2024-11-05 to 2025-06-18).
pub(crate) fn strict_definitions(
    definitions: &Map<String, Value>,
    is_2020_12: bool,
) -> Map<String, Value> {
    let mut strict = Map::new();
    let mut open_copies = Vec::new();
    for (name, definition) in definitions {
        let mut definition = definition.clone();
        allow_meta_in_inline_params(&mut definition);
        if name.ends_with("MetaObject") {
            strict.insert(name.clone(), definition);
            continue;
        }
        close(&mut definition, is_2020_12, &mut open_copies);
        strict.insert(name.clone(), definition);
    }
    open_copies.sort();
    open_copies.dedup();
    for target in open_copies {
        if let Some(definition) = strict.get(&target).cloned() {
            let mut open = definition;
            if let Some(object) = open.as_object_mut() {
                object.remove("additionalProperties");
                object.remove("unevaluatedProperties");
            }
            strict.insert(format!("{target}{OPEN_SUFFIX}"), open);
        }
    }
    strict
}

fn allow_meta_in_inline_params(definition: &mut Value) {
    if definition.pointer("/properties/method/const").is_none() {
        return;
    }
    if let Some(properties) = definition
        .pointer_mut("/properties/params/properties")
        .and_then(Value::as_object_mut)
    {
        properties
            .entry("_meta")
            .or_insert_with(|| json!({ "type": "object" }));
    }
}

/// Closes `schema` and every subschema under it (rules 1 to 3 of
/// [`strict_definitions`]), noting the definitions `allOf` needs open copies of.
fn close(schema: &mut Value, is_2020_12: bool, open_copies: &mut Vec<String>) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let unconstrained = !object.contains_key("additionalProperties")
        && !object.contains_key("unevaluatedProperties");
    if let Some(members) = object.get_mut("allOf").and_then(Value::as_array_mut) {
        for member in members.iter_mut() {
            let target = member
                .get("$ref")
                .and_then(Value::as_str)
                .map(str::to_owned);
            match target {
                Some(reference) => {
                    let target = reference.rsplit('/').next().unwrap_or_default().to_owned();
                    member["$ref"] = json!(format!("{reference}{OPEN_SUFFIX}"));
                    open_copies.push(target);
                }
                None => close_children(member, is_2020_12, open_copies),
            }
        }
        if unconstrained && is_2020_12 {
            object.insert("unevaluatedProperties".into(), json!(false));
        }
    } else if unconstrained && object.contains_key("properties") {
        object.insert("additionalProperties".into(), json!(false));
    }
    close_children(schema, is_2020_12, open_copies);
}

/// Closes the subschemas of `schema` but not `schema` itself.
fn close_children(schema: &mut Value, is_2020_12: bool, open_copies: &mut Vec<String>) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    for (keyword, value) in object.iter_mut() {
        match keyword.as_str() {
            "properties" | "patternProperties" => {
                if let Some(properties) = value.as_object_mut() {
                    for (property, subschema) in properties.iter_mut() {
                        if !OPEN_PROPERTIES.contains(&property.as_str()) {
                            close(subschema, is_2020_12, open_copies);
                        }
                    }
                }
            }
            "additionalProperties"
            | "unevaluatedProperties"
            | "items"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else"
            | "propertyNames" => close(value, is_2020_12, open_copies),
            "anyOf" | "oneOf" | "prefixItems" => {
                if let Some(members) = value.as_array_mut() {
                    for member in members {
                        close(member, is_2020_12, open_copies);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The value the model fills in for `field` when it fits a value to
/// 2026-07-28 and the field is absent: a result's `resultType`
/// (`complete`, what an absent one means), and the cache hints of list and
/// read results (`ttlMs: 0`, immediately stale, and `cacheScope: "private"`).
pub(crate) fn filled_value(field: &str) -> Option<Value> {
    match field {
        "resultType" => Some(json!("complete")),
        "ttlMs" => Some(json!(0)),
        "cacheScope" => Some(json!("private")),
        _ => None,
    }
}

/// The differences between `expected` (the input) and `actual` (what the
/// model wrote), as paths with both values. Numbers compare by value (`50`
/// equals `50.0`: the model stores JSON `number` as `f64`), and a field
/// [`filled_value`] names may appear in `actual`, with that value, where
/// `expected` has none.
pub(crate) fn differences(expected: &Value, actual: &Value) -> Vec<String> {
    let mut found = Vec::new();
    compare(expected, actual, "", &mut found);
    found
}

fn compare(expected: &Value, actual: &Value, path: &str, found: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(left), Value::Object(right)) => {
            for (key, value) in left {
                let at = format!("{path}/{key}");
                match right.get(key) {
                    Some(other) => compare(value, other, &at, found),
                    None => found.push(format!("{at}: missing in output (input {value})")),
                }
            }
            for (key, value) in right {
                if left.contains_key(key) {
                    continue;
                }
                if filled_value(key).as_ref() != Some(value) {
                    found.push(format!("{path}/{key}: added in output ({value})"));
                }
            }
        }
        (Value::Array(left), Value::Array(right)) if left.len() == right.len() => {
            for (index, (a, b)) in left.iter().zip(right).enumerate() {
                compare(a, b, &format!("{path}/{index}"), found);
            }
        }
        (Value::Number(left), Value::Number(right)) if left.as_f64() == right.as_f64() => {}
        _ if expected == actual => {}
        _ => found.push(format!("{path}: input {expected}, output {actual}")),
    }
}

/// `Ok` when `actual` equals `expected` up to [`differences`].
pub(crate) fn same_json(expected: &Value, actual: &Value) -> Result<(), String> {
    let found = differences(expected, actual);
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("round trip changed the JSON: {}", found.join("; ")))
    }
}

#[test]
fn strict_form_rejects_unknown_fields_but_keeps_meta_open() {
    let mut schemas = Schemas::load();
    let v = ProtocolVersion::V2024_11_05;
    let tool = json!({ "name": "t", "inputSchema": { "type": "object" } });
    assert!(schemas.validate(v, "Tool", true, &tool).is_ok());
    let mut with_icons = tool.clone();
    with_icons["icons"] = json!([]);
    assert!(schemas.validate(v, "Tool", false, &with_icons).is_ok());
    assert!(schemas.validate(v, "Tool", true, &with_icons).is_err());
    let call = json!({
        "method": "tools/call",
        "params": { "name": "t", "_meta": { "progressToken": 1, "vendor/key": true } }
    });
    assert!(schemas.validate(v, "CallToolRequest", true, &call).is_ok());
}

#[test]
fn strict_form_closes_all_of_combinations_with_unevaluated_properties() {
    let mut schemas = Schemas::load();
    let v = ProtocolVersion::V2025_11_25;
    let task = json!({
        "taskId": "t", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": null, "_meta": {}
    });
    assert_eq!(schemas.validate(v, "GetTaskResult", true, &task), Ok(()));
    let mut unknown = task.clone();
    unknown["surprise"] = json!(1);
    assert!(
        schemas
            .validate(v, "GetTaskResult", false, &unknown)
            .is_ok()
    );
    assert!(
        schemas
            .validate(v, "GetTaskResult", true, &unknown)
            .is_err()
    );
}

#[test]
fn comparison_allows_only_the_filled_fields_and_numeric_equality() {
    let input = json!({ "content": [], "n": 50 });
    assert!(
        same_json(
            &input,
            &json!({ "content": [], "n": 50.0, "resultType": "complete" })
        )
        .is_ok()
    );
    assert!(
        same_json(
            &input,
            &json!({ "content": [], "n": 50, "resultType": "input_required" })
        )
        .is_err()
    );
    assert!(same_json(&input, &json!({ "content": [], "n": 50, "extra": 1 })).is_err());
    assert!(same_json(&input, &json!({ "content": [] })).is_err());
}
