//! Tests of `mcpwire_server::schema`: dialects, `$ref` policy, limits and error reporting.

use mcpwire_server::schema::{
    CompiledSchema, DEFAULT_MAX_DEPTH, Dialect, MAX_REPORTED_ERRORS, SchemaError, SchemaLimits,
    require_object_schema,
};
use serde_json::{Value, json};

/// `{"items": {"items": ... {"type": "integer"}}}` with `levels` objects in all.
fn nested_items(levels: usize) -> Value {
    let mut schema = json!({"type": "integer"});
    for _ in 1..levels {
        schema = json!({ "items": schema });
    }
    schema
}

#[test]
fn schema_without_dollar_schema_is_2020_12() {
    let schema = json!({"type": "array", "prefixItems": [{"type": "integer"}]});
    let compiled = CompiledSchema::compile(&schema).unwrap();
    assert_eq!(compiled.dialect(), Dialect::Draft202012);
    // `prefixItems` only exists in 2020-12, so it being enforced proves the dialect.
    assert!(compiled.is_valid(&json!([1, "anything"])));
    assert!(!compiled.is_valid(&json!(["not an integer"])));
}

#[test]
fn every_spelling_of_the_draft_07_uri_selects_draft_07() {
    for uri in [
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-07/schema/",
        "http://json-schema.org/draft-07/schema/#",
    ] {
        // The array form of `items` is a tuple in draft-07 but invalid in 2020-12.
        let schema = json!({"$schema": uri, "type": "array", "items": [{"type": "integer"}]});
        let compiled =
            CompiledSchema::compile(&schema).unwrap_or_else(|error| panic!("{uri}: {error}"));
        assert_eq!(compiled.dialect(), Dialect::Draft07, "{uri}");
        assert!(compiled.is_valid(&json!([1, "extra"])), "{uri}");
        assert!(!compiled.is_valid(&json!(["x"])), "{uri}");
    }
}

#[test]
fn the_other_supported_dialects_compile_under_their_own_rules() {
    let cases = [
        (
            "https://json-schema.org/draft/2020-12/schema",
            Dialect::Draft202012,
        ),
        (
            "https://json-schema.org/draft/2019-09/schema",
            Dialect::Draft201909,
        ),
        ("http://json-schema.org/draft-06/schema#", Dialect::Draft06),
        ("http://json-schema.org/draft-04/schema#", Dialect::Draft04),
    ];
    for (uri, dialect) in cases {
        let schema = json!({"$schema": uri, "type": "object", "required": ["a"]});
        let compiled = CompiledSchema::compile(&schema).unwrap();
        assert_eq!(compiled.dialect(), dialect);
        assert_eq!(Dialect::from_schema_uri(dialect.uri()), Some(dialect));
        assert!(compiled.is_valid(&json!({"a": 1})));
        assert!(!compiled.is_valid(&json!({})));
    }
    // draft-04 has boolean `exclusiveMaximum`; later drafts have a number.
    let draft4 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 5,
        "exclusiveMaximum": true
    });
    let compiled = CompiledSchema::compile(&draft4).unwrap();
    assert!(compiled.is_valid(&json!(4)));
    assert!(!compiled.is_valid(&json!(5)));
}

#[test]
fn unsupported_dialects_are_refused_by_name() {
    for dialect in [
        json!("http://json-schema.org/draft-03/schema#"),
        json!("https://example.com/my-dialect"),
        json!("draft-07"),
        json!(7),
    ] {
        let schema = json!({"$schema": dialect, "type": "object"});
        let error = CompiledSchema::compile(&schema).unwrap_err();
        assert!(
            matches!(error, SchemaError::UnsupportedDialect { .. }),
            "{dialect}: {error:?}"
        );
        let text = error.to_string();
        assert!(text.contains("unsupported JSON Schema dialect"), "{text}");
        assert!(text.contains("2020-12"), "{text}");
    }
}

#[test]
fn references_outside_the_schema_are_never_fetched_and_fail_to_compile() {
    for reference in [
        "https://example.com/schemas/address.json",
        "http://127.0.0.1:9/private.json",
        "file:///etc/passwd",
        "other.json",
    ] {
        let schema = json!({
            "type": "object",
            "properties": {"address": {"$ref": reference}}
        });
        let error = CompiledSchema::compile(&schema).unwrap_err();
        let SchemaError::UnresolvedReference {
            reference: resolved,
        } = &error
        else {
            panic!("{reference}: expected UnresolvedReference, got {error:?}");
        };
        let last_segment = reference.rsplit('/').next().unwrap();
        assert!(resolved.ends_with(last_segment), "{resolved}");
        assert!(
            error
                .to_string()
                .contains("remote $ref resolution is disabled")
        );
    }
}

#[test]
fn local_references_resolve() {
    let schemas = [
        json!({
            "$defs": {"positive": {"type": "integer", "minimum": 1}},
            "type": "object",
            "properties": {"count": {"$ref": "#/$defs/positive"}}
        }),
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"positive": {"type": "integer", "minimum": 1}},
            "type": "object",
            "properties": {"count": {"$ref": "#/definitions/positive"}}
        }),
        json!({
            "$defs": {"positive": {"$anchor": "positive", "type": "integer", "minimum": 1}},
            "type": "object",
            "properties": {"count": {"$ref": "#positive"}}
        }),
        json!({
            "$id": "https://example.com/tool-input",
            "$defs": {"positive": {"$id": "positive", "type": "integer", "minimum": 1}},
            "type": "object",
            "properties": {"count": {"$ref": "https://example.com/positive"}}
        }),
    ];
    for schema in schemas {
        let compiled =
            CompiledSchema::compile(&schema).unwrap_or_else(|error| panic!("{schema}: {error}"));
        assert!(compiled.is_valid(&json!({"count": 3})), "{schema}");
        assert!(!compiled.is_valid(&json!({"count": 0})), "{schema}");
    }
}

#[test]
fn recursive_local_references_validate_nested_instances() {
    let tree = json!({
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                },
                "required": ["value"]
            }
        },
        "$ref": "#/$defs/node"
    });
    let compiled = CompiledSchema::compile(&tree).unwrap();
    assert!(compiled.is_valid(&json!({"value": 1, "children": [{"value": 2, "children": []}]})));
    let failure = compiled
        .validate(&json!({"value": 1, "children": [{"children": []}]}))
        .unwrap_err();
    assert_eq!(failure.errors()[0].instance_path, "/children/0");
}

#[test]
fn a_local_reference_to_nothing_fails_to_compile() {
    let schema = json!({"properties": {"a": {"$ref": "#/$defs/missing"}}});
    let error = CompiledSchema::compile(&schema).unwrap_err();
    assert!(
        matches!(error, SchemaError::BrokenReference { .. }),
        "{error:?}"
    );
}

#[test]
fn depth_limit_counts_nesting_levels_and_defaults_to_64() {
    assert!(CompiledSchema::compile(&nested_items(DEFAULT_MAX_DEPTH)).is_ok());
    let error = CompiledSchema::compile(&nested_items(DEFAULT_MAX_DEPTH + 1)).unwrap_err();
    assert_eq!(error, SchemaError::TooDeep { limit: 64 });
    assert_eq!(
        error.to_string(),
        "schema is nested more than 64 levels deep"
    );

    let limits = SchemaLimits {
        max_depth: 3,
        ..SchemaLimits::default()
    };
    assert!(CompiledSchema::compile_with_limits(&nested_items(3), limits).is_ok());
    assert_eq!(
        CompiledSchema::compile_with_limits(&nested_items(4), limits).unwrap_err(),
        SchemaError::TooDeep { limit: 3 }
    );
    // Arrays count as levels too.
    let in_arrays = json!({"allOf": [{"anyOf": [{"type": "string"}]}]});
    assert_eq!(
        CompiledSchema::compile_with_limits(&in_arrays, limits).unwrap_err(),
        SchemaError::TooDeep { limit: 3 }
    );
}

#[test]
fn size_limit_counts_every_json_value() {
    // 1 object + 1 array + 4 strings = 6 values.
    let schema = json!({"enum": ["a", "b", "c", "d"]});
    let fits = SchemaLimits {
        max_size: 6,
        ..SchemaLimits::default()
    };
    let too_small = SchemaLimits {
        max_size: 5,
        ..SchemaLimits::default()
    };
    assert!(CompiledSchema::compile_with_limits(&schema, fits).is_ok());
    assert_eq!(
        CompiledSchema::compile_with_limits(&schema, too_small).unwrap_err(),
        SchemaError::TooLarge { limit: 5 }
    );

    let huge: Vec<Value> = (0..20_000).map(Value::from).collect();
    let error = CompiledSchema::compile(&json!({"enum": huge})).unwrap_err();
    assert_eq!(error, SchemaError::TooLarge { limit: 10_000 });
}

#[test]
fn limits_are_checked_before_anything_else() {
    // Deep and with an unsupported dialect: the cheap structural check answers first.
    let mut schema = nested_items(200);
    schema["$schema"] = json!("https://example.com/unknown");
    assert_eq!(
        CompiledSchema::compile(&schema).unwrap_err(),
        SchemaError::TooDeep { limit: 64 }
    );
}

#[test]
fn schemas_that_break_their_meta_schema_are_refused_with_a_location() {
    let error = CompiledSchema::compile(&json!({"properties": {"a": {"type": 5}}})).unwrap_err();
    let SchemaError::Invalid { location, .. } = &error else {
        panic!("expected Invalid, got {error:?}");
    };
    assert_eq!(location, "/properties/a/type");
    assert!(
        error
            .to_string()
            .starts_with("schema is invalid at /properties/a/type: ")
    );

    let bad_regex = CompiledSchema::compile(&json!({"pattern": "("})).unwrap_err();
    assert!(
        matches!(bad_regex, SchemaError::Invalid { .. }),
        "{bad_regex:?}"
    );
}

#[test]
fn input_schema_must_declare_type_object() {
    assert!(require_object_schema(&json!({"type": "object"})).is_ok());
    assert!(require_object_schema(&json!({"type": "object", "properties": {}})).is_ok());
    let refused = [
        (json!({}), "it has no \"type\""),
        (json!({"type": "string"}), "its \"type\" is \"string\""),
        (json!({"type": ["object"]}), "its \"type\" is [\"object\"]"),
        (json!(true), "it is a boolean schema"),
        (json!([]), "it is not a JSON object but an array"),
    ];
    for (schema, found) in refused {
        let error = require_object_schema(&schema).unwrap_err();
        assert_eq!(
            error,
            SchemaError::NotAnObjectSchema {
                found: found.to_owned()
            }
        );
        assert_eq!(
            error.to_string(),
            format!("a tool's inputSchema must have \"type\": \"object\", but {found}")
        );
    }
    assert!(matches!(
        CompiledSchema::compile_tool_input(&json!({"type": "string"})),
        Err(SchemaError::NotAnObjectSchema { .. })
    ));
    assert!(CompiledSchema::compile_tool_input(&json!({"type": "object"})).is_ok());
}

#[test]
fn validation_reports_every_violation_with_its_instance_path() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["name"]
    });
    let compiled = CompiledSchema::compile_tool_input(&schema).unwrap();
    assert_eq!(
        compiled.validate(&json!({"name": "Ada", "age": 36})),
        Ok(())
    );

    let failure = compiled
        .validate(&json!({"age": -1, "tags": ["ok", 2]}))
        .unwrap_err();
    let mut paths: Vec<&str> = failure
        .errors()
        .iter()
        .map(|error| error.instance_path.as_str())
        .collect();
    paths.sort_unstable();
    assert_eq!(paths, ["", "/age", "/tags/1"]);
    assert_eq!(failure.omitted(), 0);

    let text = failure.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines.contains(&"At the top level: \"name\" is a required property."),
        "{text}"
    );
    assert!(
        lines.contains(&"At /age: -1 is less than the minimum of 0."),
        "{text}"
    );
    assert!(
        lines.contains(&"At /tags/1: 2 is not of type \"string\"."),
        "{text}"
    );
}

#[test]
fn structured_results_validate_against_an_output_schema_map() {
    let output_schema = json!({
        "type": "object",
        "properties": {"temperature": {"type": "number"}},
        "required": ["temperature"],
        "additionalProperties": false
    });
    let compiled = CompiledSchema::compile_object(output_schema.as_object().unwrap()).unwrap();
    assert!(compiled.validate(&json!({"temperature": 21.5})).is_ok());
    let failure = compiled
        .validate(&json!({"temperature": "warm", "unit": "C"}))
        .unwrap_err();
    assert_eq!(failure.errors().len(), 2, "{failure}");
}

#[test]
fn reported_violations_are_capped_and_the_rest_counted() {
    let compiled =
        CompiledSchema::compile(&json!({"type": "array", "items": {"type": "string"}})).unwrap();
    let instance = Value::from((0..MAX_REPORTED_ERRORS as u64 + 50).collect::<Vec<_>>());
    let failure = compiled.validate(&instance).unwrap_err();
    assert_eq!(failure.errors().len(), MAX_REPORTED_ERRORS);
    assert_eq!(failure.omitted(), 50);
    assert!(
        failure
            .to_string()
            .ends_with("\n50 more errors are not shown.")
    );
}

#[test]
fn long_messages_are_shortened_in_the_failure_text() {
    let compiled = CompiledSchema::compile(&json!({"maxLength": 3})).unwrap();
    let failure = compiled
        .validate(&Value::from("x".repeat(10_000)))
        .unwrap_err();
    assert!(failure.errors()[0].message.len() > 10_000);
    let text = failure.to_string();
    assert!(text.chars().count() < 400, "{} chars", text.chars().count());
    assert!(text.contains(" … "), "{text}");
    assert!(text.ends_with("\" is longer than 3 characters."), "{text}");
}

#[test]
fn compiled_schemas_can_be_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CompiledSchema>();
    let compiled =
        std::sync::Arc::new(CompiledSchema::compile(&json!({"type": "integer"})).unwrap());
    let worker = {
        let compiled = std::sync::Arc::clone(&compiled);
        std::thread::spawn(move || compiled.is_valid(&json!(3)))
    };
    assert!(worker.join().unwrap());
}
