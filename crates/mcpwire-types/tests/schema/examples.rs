//! The schema's own 2026-07-28 examples and the JSON examples of the prose
//! pages: each reads into the model, is written back for its revision,
//! validates against its definition and equals the input.
//!
//! What may differ between input and output, and nothing else (see
//! [`support::differences`]): numbers compare by value (`50` and `50.0`), and
//! for 2026-07-28 the fields the model fills when absent, `resultType:
//! "complete"`, `ttlMs: 0` and `cacheScope: "private"`. A request whose
//! input has no `params` may keep none when its params encode as `{}`.

use std::path::PathBuf;

use mcpwire_types::ProtocolVersion;
use mcpwire_types::methods::METHODS;
use serde_json::Value;

use crate::model::{
    round_trip_error_object, round_trip_error_response, round_trip_message, round_trip_response,
    round_trip_result, round_trip_value,
};
use crate::support::{Failures, Schemas, read_json, same_json, schema_dir};

/// Every file of `examples-2026-07-28/<Definition>/`, with its definition, sorted.
fn schema_examples() -> Vec<(String, PathBuf)> {
    let dir = schema_dir().join("examples-2026-07-28");
    let mut examples = Vec::new();
    for definition in std::fs::read_dir(&dir).unwrap() {
        let definition = definition.unwrap().path();
        let name = definition
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for file in std::fs::read_dir(&definition).unwrap() {
            examples.push((name.clone(), file.unwrap().path()));
        }
    }
    examples.sort();
    examples
}

/// Reads a schema example of `definition` the way a peer's message would be
/// read: envelopes through the routing enums, results by the method whose
/// result they are, errors through the JSON-RPC model, others by type.
fn round_trip_schema_example(
    schemas: &Schemas,
    definition: &str,
    example: &Value,
    version: ProtocolVersion,
) -> Result<Value, String> {
    let schema = schemas
        .definition(version, definition)
        .ok_or_else(|| format!("{version} has no definition {definition}"))?;
    if let Some(result) = definition.strip_suffix("Response") {
        let method = METHODS
            .iter()
            .find(|info| info.result_type == Some(result))
            .ok_or_else(|| format!("no method answers with {result}"))?;
        return round_trip_response(example, method.name, version);
    }
    if schema.pointer("/properties/method/const").is_some() {
        return if example.get("jsonrpc").is_some() {
            round_trip_message(example, version)
        } else {
            // 2026-07-28 input requests: `{method, params}` inside an InputRequiredResult.
            round_trip_value("InputRequest", example, version)
                .unwrap_or_else(|| Err("no InputRequest type".into()))
        };
    }
    if schema.pointer("/properties/error").is_some() {
        return round_trip_error_response(example);
    }
    if schema.pointer("/properties/code").is_some()
        && schema.pointer("/properties/message").is_some()
    {
        return round_trip_error_object(example);
    }
    round_trip_value(definition, example, version).unwrap_or_else(|| {
        Err(format!(
            "no Rust type is listed for {definition} in model.rs"
        ))
    })
}

#[test]
fn every_schema_example_round_trips_validates_and_keeps_its_json() {
    let version = ProtocolVersion::V2026_07_28;
    let mut schemas = Schemas::load();
    let mut failures = Failures::new("2026-07-28 schema examples");
    for (definition, path) in schema_examples() {
        let input = read_json(&path);
        let outcome =
            round_trip_schema_example(&schemas, &definition, &input, version).and_then(|output| {
                schemas.validate(version, &definition, false, &output)?;
                same_json(&input, &output)
            });
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        failures.check(format!("{definition}/{file}"), outcome);
    }
    failures.finish(120);
}

/// One entry of `docs-examples/manifest.json`.
struct DocsExample {
    label: String,
    file: Option<String>,
    revision: ProtocolVersion,
    skip: Option<String>,
    invalid_as_printed: Option<String>,
    definition: String,
    pointer: String,
    each: bool,
    decode: String,
    method: Option<String>,
}

fn docs_examples() -> Vec<DocsExample> {
    let manifest = read_json(&schema_dir().join("docs-examples").join("manifest.json"));
    let text = |entry: &Value, key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
    manifest["examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| DocsExample {
            label: format!("{} block {}", text(entry, "page").unwrap(), entry["block"]),
            file: text(entry, "file"),
            revision: ProtocolVersion::parse(&text(entry, "revision").unwrap()).unwrap(),
            skip: text(entry, "skip"),
            invalid_as_printed: text(entry, "invalid_as_printed"),
            definition: text(entry, "definition").unwrap_or_default(),
            pointer: text(entry, "pointer").unwrap_or_default(),
            each: entry.get("each").and_then(Value::as_bool).unwrap_or(false),
            decode: text(entry, "decode").unwrap_or_default(),
            method: text(entry, "method"),
        })
        .collect()
}

/// The instances an example holds: the value at its pointer, or each
/// element of the array there.
fn instances(example: &DocsExample, json: &Value) -> Result<Vec<(String, Value)>, String> {
    let at = json
        .pointer(&example.pointer)
        .ok_or_else(|| format!("nothing at pointer {:?}", example.pointer))?;
    if !example.each {
        return Ok(vec![(example.pointer.clone(), at.clone())]);
    }
    let items = at
        .as_array()
        .ok_or("`each` names something that is not an array")?;
    Ok(items
        .iter()
        .enumerate()
        .map(|(i, item)| (format!("{}/{i}", example.pointer), item.clone()))
        .collect())
}

fn round_trip_docs_instance(example: &DocsExample, instance: &Value) -> Result<Value, String> {
    let version = example.revision;
    let method = example.method.as_deref();
    match (example.decode.as_str(), method) {
        ("request" | "notification", _) => round_trip_message(instance, version),
        ("result", Some(method)) => round_trip_result(method, instance, version),
        ("error", _) => round_trip_error_response(instance),
        ("input_request", _) => round_trip_value("InputRequest", instance, version)
            .unwrap_or_else(|| Err("no InputRequest type".into())),
        ("value", _) => {
            round_trip_value(&example.definition, instance, version).unwrap_or_else(|| {
                Err(format!(
                    "no Rust type is listed for {} in model.rs",
                    example.definition
                ))
            })
        }
        (other, _) => Err(format!("manifest decode {other:?} without what it needs")),
    }
}

/// Checks one instance of a prose example: it round-trips to equal JSON and
/// the output validates, or, for an example the manifest marks as invalid
/// as printed, the input is indeed invalid and the output has no violation
/// the input did not have.
fn check_docs_instance(
    schemas: &mut Schemas,
    example: &DocsExample,
    instance: &Value,
) -> Result<(), String> {
    let output = round_trip_docs_instance(example, instance)?;
    let (version, definition) = (example.revision, example.definition.as_str());
    match &example.invalid_as_printed {
        None => schemas.validate(version, definition, false, &output)?,
        Some(reason) => {
            let before = schemas.violations(version, definition, false, instance)?;
            if before.is_empty() {
                return Err(format!(
                    "marked invalid as printed ({reason}) but the input is valid"
                ));
            }
            let added: Vec<String> = schemas
                .violations(version, definition, false, &output)?
                .into_iter()
                .filter(|violation| !before.contains(violation))
                .collect();
            if !added.is_empty() {
                return Err(format!("the model added violations: {}", added.join("; ")));
            }
        }
    }
    same_json(instance, &output)
}

#[test]
fn every_prose_example_round_trips_validates_and_keeps_its_json() {
    let mut schemas = Schemas::load();
    let mut failures = Failures::new("prose examples");
    let dir = schema_dir().join("docs-examples");
    for example in docs_examples()
        .iter()
        .filter(|example| example.skip.is_none())
    {
        let json = read_json(&dir.join(example.file.as_deref().unwrap()));
        let outcome = instances(example, &json).and_then(|instances| {
            let problems: Vec<String> = instances
                .iter()
                .filter_map(|(pointer, instance)| {
                    check_docs_instance(&mut schemas, example, instance)
                        .err()
                        .map(|problem| {
                            format!("at {pointer:?} as {}: {problem}", example.definition)
                        })
                })
                .collect();
            if problems.is_empty() {
                Ok(())
            } else {
                Err(problems.join("\n"))
            }
        });
        failures.check(&example.label, outcome);
    }
    failures.finish(200);
}

#[test]
fn prose_manifest_and_extracted_files_agree() {
    let dir = schema_dir().join("docs-examples");
    let examples = docs_examples();
    let listed: Vec<String> = examples
        .iter()
        .filter_map(|example| example.file.clone())
        .collect();
    let mut on_disk = Vec::new();
    for revision_dir in std::fs::read_dir(&dir).unwrap() {
        let revision_dir = revision_dir.unwrap().path();
        if !revision_dir.is_dir() {
            continue;
        }
        let prefix = revision_dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for file in std::fs::read_dir(&revision_dir).unwrap() {
            let name = file.unwrap().file_name().to_string_lossy().into_owned();
            on_disk.push(format!("{prefix}/{name}"));
        }
    }
    let mut failures = Failures::new("prose manifest");
    for file in &on_disk {
        let outcome = if listed.contains(file) {
            Ok(())
        } else {
            Err("not in the manifest".into())
        };
        failures.check(file, outcome);
    }
    for example in &examples {
        let outcome = match (&example.file, &example.skip) {
            (Some(file), _) if !on_disk.contains(file) => Err(format!("{file} does not exist")),
            (None, None) => Err("neither a file nor a skip reason".into()),
            (_, Some(reason)) if reason.trim().is_empty() => Err("empty skip reason".into()),
            (_, None) if example.definition.is_empty() => Err("no definition".into()),
            _ => Ok(()),
        };
        failures.check(&example.label, outcome);
    }
    failures.finish(240);
}

#[test]
fn the_codec_writes_every_schema_example_byte_for_byte_as_serde_json() {
    let mut failures = Failures::new("to_json_vec against serde_json::to_vec");
    for (definition, path) in schema_examples() {
        let value = read_json(&path);
        let ours = mcpwire_jsonrpc::to_json_vec(&value).map_err(|error| error.to_string());
        let theirs = serde_json::to_vec(&value).map_err(|error| error.to_string());
        let outcome = if ours == theirs {
            Ok(())
        } else {
            Err(format!("ours {ours:?}\ntheirs {theirs:?}"))
        };
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        failures.check(format!("{definition}/{file}"), outcome);
    }
    failures.finish(120);
}
