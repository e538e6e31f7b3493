//! Maximal instances against the strict schemas: for every method of the
//! table and every revision that has it, the params and result fixtures
//! (every field of every revision set, `tests/fixtures/<RustType>.json`)
//! are read into the model, fitted to the revision, and must validate
//! against the revision's definition with unknown fields forbidden. So a
//! field the model forgets to remove for an older revision fails here, and a
//! new method in the table fails until it has fixtures.

use std::collections::BTreeSet;

use mcpwire_types::ProtocolVersion;
use mcpwire_types::methods::{METHODS, MethodInfo};
use serde_json::{Map, Value, json};

use crate::model::{round_trip_params, round_trip_result};
use crate::support::{Failures, Schemas, fixtures_dir, read_json};

/// One instance of a fixture, and the first revision that can express it.
struct Instance {
    since: ProtocolVersion,
    value: Value,
}

/// The instances of a fixture. A file holds one object, or an array when
/// the type is a union (e.g. form and URL elicitation params); an array
/// element may be `{"since": "<revision>", "instance": {...}}` for an
/// alternative that older revisions cannot express at all (a URL-mode
/// elicitation cannot be sent to a 2025-06-18 client; the session refuses,
/// there is nothing to fit).
fn fixture(rust_type: &str) -> Result<Vec<Instance>, String> {
    let path = fixtures_dir().join(format!("{rust_type}.json"));
    if !path.exists() {
        return Err(format!("no fixture {}", path.display()));
    }
    let values = match read_json(&path) {
        Value::Array(values) => values,
        single => vec![single],
    };
    values
        .into_iter()
        .map(|value| match (value.get("since"), value.get("instance")) {
            (Some(since), Some(instance)) => {
                let since = since.as_str().ok_or("`since` is not a string")?;
                let since = ProtocolVersion::parse(since).map_err(|error| error.to_string())?;
                Ok(Instance {
                    since,
                    value: instance.clone(),
                })
            }
            _ => Ok(Instance {
                since: ProtocolVersion::ALL[0],
                value,
            }),
        })
        .collect()
}

/// The instances of `rust_type` that `version` can express.
fn fixture_for(rust_type: &str, version: ProtocolVersion) -> Result<Vec<Value>, String> {
    Ok(fixture(rust_type)?
        .into_iter()
        .filter(|instance| instance.since <= version)
        .map(|instance| instance.value)
        .collect())
}

/// Whether `version` exchanges the method at all (as a message, or inside a
/// 2026-07-28 `InputRequiredResult`).
fn exchanged_in(info: &MethodInfo, version: ProtocolVersion) -> bool {
    info.in_revision(version) || info.is_input_request_in(version)
}

/// The message `params` travel in, shaped like the method's definition in
/// `version`: `jsonrpc` and `id` only where that definition names them.
fn envelope(
    schemas: &Schemas,
    version: ProtocolVersion,
    definition: &str,
    method: &str,
    params: Value,
) -> Value {
    let properties = schemas
        .definition(version, definition)
        .and_then(|definition| definition.get("properties"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut message = Map::new();
    if properties.contains_key("jsonrpc") {
        message.insert("jsonrpc".into(), json!("2.0"));
    }
    if properties.contains_key("id") {
        message.insert("id".into(), json!(1));
    }
    message.insert("method".into(), json!(method));
    message.insert("params".into(), params);
    Value::Object(message)
}

#[test]
fn maximal_instances_fitted_to_each_revision_validate_against_its_strict_schema() {
    let mut schemas = Schemas::load();
    let mut failures = Failures::new("maximal instances, strict schemas");
    for info in METHODS {
        for version in ProtocolVersion::ALL
            .into_iter()
            .filter(|v| exchanged_in(info, *v))
        {
            let case = format!("{} {version} params {}", info.name, info.params_type);
            let outcome = fixture_for(info.params_type, version).and_then(|instances| {
                let definition = schemas
                    .method_definition(version, info.name)
                    .ok_or_else(|| format!("{version} does not define {}", info.name))?
                    .to_owned();
                for instance in instances {
                    let params = round_trip_params(info.name, Some(&instance), version)?;
                    let message = envelope(&schemas, version, &definition, info.name, params);
                    schemas.validate(version, &definition, true, &message)?;
                }
                Ok(())
            });
            failures.check(case, outcome);

            let mut results: Vec<&str> = info.result_type.into_iter().collect();
            if info.may_require_input_in(version) {
                results.push("InputRequiredResult");
            }
            for result_type in results {
                let case = format!("{} {version} result {result_type}", info.name);
                let outcome = fixture_for(result_type, version).and_then(|instances| {
                    for instance in instances {
                        let result = round_trip_result(info.name, &instance, version)?;
                        schemas.validate(version, result_type, true, &result)?;
                    }
                    Ok(())
                });
                failures.check(case, outcome);
            }
        }
    }
    failures.finish(150);
}

/// The property names an object schema allows, looking through `$ref`,
/// `allOf`, `anyOf` and `oneOf` (for unions, the names of every alternative).
fn property_names(
    schemas: &Schemas,
    version: ProtocolVersion,
    schema: &Value,
    names: &mut BTreeSet<String>,
) {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next().unwrap_or_default();
        if let Some(definition) = schemas.definition(version, name) {
            property_names(schemas, version, definition, names);
        }
    }
    for combinator in ["allOf", "anyOf", "oneOf"] {
        for member in schema
            .get(combinator)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            property_names(schemas, version, member, names);
        }
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        names.extend(properties.keys().cloned());
    }
}

#[test]
fn every_fixture_sets_every_field_any_revision_defines() {
    let schemas = Schemas::load();
    let mut failures = Failures::new("fixture completeness");
    let mut checked = BTreeSet::new();
    for info in METHODS {
        let mut wanted: Vec<(&str, BTreeSet<String>)> = Vec::new();
        let mut params_fields = BTreeSet::new();
        let mut result_fields = BTreeSet::new();
        for version in ProtocolVersion::ALL
            .into_iter()
            .filter(|v| exchanged_in(info, *v))
        {
            if let Some(params) = schemas
                .method_definition(version, info.name)
                .and_then(|name| schemas.definition(version, name))
                .and_then(|definition| definition.pointer("/properties/params"))
            {
                property_names(&schemas, version, params, &mut params_fields);
            }
            if let Some(result) = info
                .result_type
                .and_then(|name| schemas.definition(version, name))
            {
                property_names(&schemas, version, result, &mut result_fields);
            }
        }
        wanted.push((info.params_type, params_fields));
        if let Some(result_type) = info.result_type {
            wanted.push((result_type, result_fields));
        }
        for (rust_type, fields) in wanted {
            let case = format!("{rust_type} (for {})", info.name);
            let outcome = fixture(rust_type).and_then(|instances| {
                let present: BTreeSet<String> = instances
                    .iter()
                    .filter_map(|instance| instance.value.as_object())
                    .flat_map(|object| object.keys().cloned())
                    .collect();
                let missing: Vec<&String> = fields.difference(&present).collect();
                if missing.is_empty() {
                    Ok(())
                } else {
                    Err(format!("fields never set: {missing:?}"))
                }
            });
            checked.insert(rust_type);
            failures.check(case, outcome);
        }
    }
    assert!(
        checked.len() >= 30,
        "only {} fixtures checked",
        checked.len()
    );
    failures.finish(30);
}
