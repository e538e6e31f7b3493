//! `KEY=VALUE` arguments on the command line, typed by a tool's input
//! schema (numbers, booleans, JSON for objects and arrays, else strings).

use serde_json::{Map, Value};

use crate::error::{CliError, CliResult};

/// Splits `KEY=VALUE` words into pairs.
///
/// # Errors
///
/// A usage error for a word without `=` or with an empty key.
pub(crate) fn pairs(words: &[String]) -> CliResult<Vec<(String, String)>> {
    words
        .iter()
        .map(|word| match word.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
            _ => Err(CliError::usage(format!("expected KEY=VALUE, got {word:?}"))),
        })
        .collect()
}

/// The JSON types a property's schema allows (`type` as a string or an
/// array); empty when it does not say.
fn allowed_types(property: Option<&Value>) -> Vec<&str> {
    match property.and_then(|p| p.get("type")) {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Reads `text` as the value of the property `key` of `schema`.
///
/// # Errors
///
/// A usage error when the schema asks for a number, boolean, object or
/// array and `text` is not one.
pub(crate) fn typed_value(schema: Option<&Value>, key: &str, text: &str) -> CliResult<Value> {
    let property = schema
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(key));
    let kinds = allowed_types(property);
    if kinds.is_empty() {
        // No type said: JSON when it reads as a number, boolean, null,
        // object or array, else the text itself.
        return Ok(serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())));
    }
    if kinds.contains(&"string") {
        return Ok(Value::String(text.to_owned()));
    }
    for kind in &kinds {
        let parsed = match *kind {
            "integer" => text.parse::<i64>().ok().map(Value::from),
            "number" => serde_json::from_str::<serde_json::Number>(text)
                .ok()
                .map(Value::Number),
            "boolean" => match text {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            "null" => (text == "null").then_some(Value::Null),
            "object" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_object),
            "array" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_array),
            _ => None,
        };
        if let Some(value) = parsed {
            return Ok(value);
        }
    }
    Err(CliError::usage(format!(
        "{key}={text} does not fit the tool's input schema, which wants {}",
        kinds.join(" or ")
    )))
}

/// Builds the arguments object from `KEY=VALUE` words, or from `--args-json`.
///
/// # Errors
///
/// A usage error for malformed words, values that do not fit, or JSON
/// that is not an object.
pub(crate) fn build(
    schema: Option<&Value>,
    words: &[String],
    json: Option<&str>,
) -> CliResult<Map<String, Value>> {
    let mut arguments = match json {
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(CliError::usage("--args-json must be a JSON object")),
            Err(error) => return Err(CliError::usage(format!("--args-json: {error}"))),
        },
        None => Map::new(),
    };
    for (key, text) in pairs(words)? {
        let value = typed_value(schema, &key, &text)?;
        arguments.insert(key, value);
    }
    Ok(arguments)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn values_are_typed_by_the_input_schema() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "x": {"type": "number"}, "ok": {"type": "boolean"},
            "tags": {"type": "array"}, "opts": {"type": "object"}, "name": {"type": "string"},
            "maybe": {"type": ["integer", "string"]}
        }});
        let args = build(
            Some(&schema),
            &words(&[
                "n=3",
                "x=2.5",
                "ok=true",
                "tags=[1,2]",
                "opts={\"a\":1}",
                "name=42",
                "maybe=7",
            ]),
            None,
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"n": 3, "x": 2.5, "ok": true, "tags": [1, 2], "opts": {"a": 1}, "name": "42", "maybe": "7"})
        );
    }

    #[test]
    fn values_that_do_not_fit_the_schema_are_usage_errors() {
        let schema = json!({"properties": {"n": {"type": "integer"}}});
        assert!(matches!(
            build(Some(&schema), &words(&["n=x"]), None),
            Err(CliError::Usage(_))
        ));
        assert!(matches!(
            build(None, &words(&["novalue"]), None),
            Err(CliError::Usage(_))
        ));
        assert!(matches!(
            build(None, &[], Some("[1]")),
            Err(CliError::Usage(_))
        ));
    }

    #[test]
    fn untyped_values_are_json_when_they_read_as_json_and_text_otherwise() {
        let args = build(
            None,
            &words(&["a=1", "b=hello", "c=true"]),
            Some("{\"d\": 0}"),
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"a": 1, "b": "hello", "c": true, "d": 0})
        );
    }
}
