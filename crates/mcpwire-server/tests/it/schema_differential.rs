//! Differential test of the built-in validator for simple schemas against the jsonschema crate:
//! on generated schemas of the subset it handles and generated instances, both must compile the
//! schema (so it is valid under its dialect's meta-schema, JSCH-06) and give the same verdict and
//! the same violations (instance paths and messages, in order) under the declared or default
//! dialect (JSCH-01, JSCH-03).

use mcpwire_server::schema::{CompiledSchema, Dialect, MAX_REPORTED_ERRORS};
use serde_json::{Map, Value, json};

/// Schemas generated per dialect.
const SCHEMAS_PER_DIALECT: usize = 250;

/// Instances checked against each schema.
const INSTANCES_PER_SCHEMA: usize = 40;

/// A small deterministic generator (xorshift64*), so that a failure repeats.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }
}

const NAMES: [&str; 6] = ["a", "b", "c", "d/e", "~x", "é"];
const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

fn numbers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(1.0),
        json!(2.5),
        json!(-0.5),
        json!(3),
        json!(1e20),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(0.1),
        json!(9_007_199_254_740_993_u64),
    ]
}

fn plain_values() -> Vec<Value> {
    vec![
        json!("a"),
        json!("b"),
        json!(""),
        json!("héllo"),
        json!(true),
        json!(false),
        json!(null),
    ]
}

fn strings() -> Vec<Value> {
    vec![
        json!(""),
        json!("a"),
        json!("b"),
        json!("héllo"),
        json!("abcd"),
    ]
}

/// A schema of the subset; `modern` allows `format` and `deprecated` (2019-09 and later).
fn schema(random: &mut Random, depth: usize, modern: bool) -> Value {
    if random.chance(8) {
        return json!(random.chance(50));
    }
    let mut map = Map::new();
    if random.chance(60) {
        let kind = if random.chance(70) {
            json!(random.pick(&TYPES))
        } else {
            let mut names: Vec<&str> = Vec::new();
            for _ in 0..1 + random.below(3) {
                let name = random.pick(&TYPES);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            json!(names)
        };
        map.insert("type".into(), kind);
    }
    if depth > 0 && random.chance(45) {
        let mut properties = Map::new();
        for _ in 0..random.below(4) {
            properties.insert(
                random.pick(&NAMES).into(),
                schema(random, depth - 1, modern),
            );
        }
        map.insert("properties".into(), Value::Object(properties));
    }
    if random.chance(35) {
        let additional = match random.below(3) {
            0 => json!(true),
            1 => json!(false),
            _ if depth > 0 => schema(random, depth - 1, modern),
            _ => json!(false),
        };
        map.insert("additionalProperties".into(), additional);
    }
    if random.chance(35) {
        let mut required: Vec<&str> = Vec::new();
        for _ in 0..random.below(4) {
            let name = random.pick(&NAMES);
            if !required.contains(&name) {
                required.push(name);
            }
        }
        map.insert("required".into(), json!(required));
    }
    if random.chance(15) {
        let options: Vec<Value> = (0..1 + random.below(3))
            .map(|_| random.pick(&plain_values()))
            .collect();
        map.insert("enum".into(), Value::Array(options));
    }
    if random.chance(8) {
        map.insert("const".into(), random.pick(&plain_values()));
    }
    for keyword in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if random.chance(12) {
            map.insert(keyword.into(), random.pick(&numbers()));
        }
    }
    for keyword in [
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    ] {
        if random.chance(10) {
            map.insert(keyword.into(), json!(random.below(4)));
        }
    }
    if depth > 0 && random.chance(30) {
        map.insert("items".into(), schema(random, depth - 1, modern));
    }
    if random.chance(20) {
        map.insert("description".into(), json!("what it is"));
    }
    if random.chance(10) {
        map.insert("title".into(), json!("It"));
    }
    if random.chance(10) {
        map.insert("default".into(), random.pick(&plain_values()));
    }
    if random.chance(5) {
        map.insert("examples".into(), json!(["a", 1]));
    }
    if modern && random.chance(10) {
        map.insert(
            "format".into(),
            json!(random.pick(&["email", "uri", "date-time"])),
        );
    }
    if modern && random.chance(5) {
        map.insert("deprecated".into(), json!(false));
    }
    Value::Object(map)
}

/// An instance: any JSON value, with members named like the schemas' properties.
fn instance(random: &mut Random, depth: usize) -> Value {
    let choice = if depth == 0 {
        random.below(4)
    } else {
        random.below(6)
    };
    match choice {
        0 => random.pick(&plain_values()),
        1 => random.pick(&numbers()),
        2 => random.pick(&strings()),
        3 => json!(null),
        4 => Value::Array(
            (0..random.below(4))
                .map(|_| instance(random, depth - 1))
                .collect(),
        ),
        _ => {
            let mut map = Map::new();
            for _ in 0..random.below(5) {
                map.insert(random.pick(&NAMES).into(), instance(random, depth - 1));
            }
            Value::Object(map)
        }
    }
}

/// jsonschema's violations, as `CompiledSchema::validate` words them, and how many were left out.
fn reference_errors(
    validator: &jsonschema::Validator,
    instance: &Value,
) -> (Vec<(String, String)>, usize) {
    let all: Vec<(String, String)> = validator
        .iter_errors(instance)
        .map(|error| (error.instance_path.to_string(), error.to_string()))
        .collect();
    let omitted = all.len().saturating_sub(MAX_REPORTED_ERRORS);
    (all.into_iter().take(MAX_REPORTED_ERRORS).collect(), omitted)
}

#[test]
fn the_built_in_validator_agrees_with_jsonschema_on_generated_simple_schemas() {
    let dialects: [(Option<&str>, Dialect, jsonschema::Draft); 4] = [
        (None, Dialect::Draft202012, jsonschema::Draft::Draft202012),
        (
            Some("https://json-schema.org/draft/2020-12/schema"),
            Dialect::Draft202012,
            jsonschema::Draft::Draft202012,
        ),
        (
            Some("https://json-schema.org/draft/2019-09/schema"),
            Dialect::Draft201909,
            jsonschema::Draft::Draft201909,
        ),
        (
            Some("http://json-schema.org/draft-07/schema#"),
            Dialect::Draft07,
            jsonschema::Draft::Draft7,
        ),
    ];
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let (mut checked, mut refused) = (0_usize, 0_usize);
    for (uri, dialect, draft) in dialects {
        let modern = dialect != Dialect::Draft07;
        for _ in 0..SCHEMAS_PER_DIALECT {
            let mut schema = schema(&mut random, 3, modern);
            if let (Some(uri), Value::Object(map)) = (uri, &mut schema) {
                map.insert("$schema".into(), json!(uri));
            }
            let compiled = CompiledSchema::compile(&schema).unwrap();
            assert!(
                compiled.is_built_in(),
                "not taken by the built-in validator: {schema}"
            );
            // A boolean schema cannot name a dialect: it is 2020-12, and the same in any.
            if schema.is_object() {
                assert_eq!(compiled.dialect(), dialect, "{schema}");
            }
            let reference = jsonschema::options()
                .with_draft(draft)
                .build(&schema)
                .unwrap_or_else(|error| panic!("jsonschema refuses {schema}: {error}"));
            for _ in 0..INSTANCES_PER_SCHEMA {
                let instance = instance(&mut random, 3);
                let expected_valid = reference.is_valid(&instance);
                assert_eq!(
                    compiled.is_valid(&instance),
                    expected_valid,
                    "verdict on {instance} under {schema}"
                );
                let ours = match compiled.validate(&instance) {
                    Ok(()) => (Vec::new(), 0),
                    Err(failure) => (
                        failure
                            .errors()
                            .iter()
                            .map(|error| (error.instance_path.clone(), error.message.clone()))
                            .collect(),
                        failure.omitted(),
                    ),
                };
                assert_eq!(
                    ours,
                    reference_errors(&reference, &instance),
                    "violations of {instance} under {schema}"
                );
                checked += 1;
                refused += usize::from(!expected_valid);
            }
        }
    }
    // The generator must exercise both outcomes, or the comparison proves little.
    assert!(
        refused > checked / 5 && refused < checked * 4 / 5,
        "{refused} of {checked} refused"
    );
}

#[test]
fn schemas_outside_the_subset_still_compile_with_jsonschema() {
    for schema in [
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}}),
        json!({"type": "string", "pattern": "^a+$"}),
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "format": "email"}),
    ] {
        let compiled = CompiledSchema::compile(&schema).unwrap();
        assert!(!compiled.is_built_in(), "{schema}");
    }
    assert!(
        !CompiledSchema::compile(&json!({"type": "string", "pattern": "^a+$"}))
            .unwrap()
            .is_valid(&json!("b"))
    );
}

#[test]
fn the_common_tool_schemas_are_taken_by_the_built_in_validator() {
    // The shapes SDKs emit: pydantic (titles, defaults), zod (draft-07, closed objects).
    for schema in [
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        json!({
            "title": "AddArguments", "type": "object",
            "properties": {
                "a": {"title": "A", "type": "integer"},
                "b": {"title": "B", "type": "integer", "default": 0}
            },
            "required": ["a"]
        }),
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "array", "items": {"type": "number", "minimum": 0}, "maxItems": 7}
            },
            "required": ["unit"],
            "additionalProperties": false
        }),
    ] {
        assert!(
            CompiledSchema::compile_tool_input(&schema)
                .unwrap()
                .is_built_in(),
            "{schema}"
        );
    }
}
