//! Comparing a received message with a transcript's expectation, and the
//! placeholders that stand for values a transcript cannot know in advance.
//!
//! A placeholder is a JSON string value (never a key):
//!
//! | placeholder | matches |
//! |---|---|
//! | `"$any"` | any value (the key must still be present) |
//! | `"$string"` | any string |
//! | `"$number"` | any number |
//! | `"$capture:NAME"` | any value, remembered as `NAME` |
//! | `"${NAME}"` | the value remembered as `NAME` (also in sent messages) |
//!
//! Everything else is compared exactly: objects must have the same keys
//! (a missing or an extra key is a mismatch), arrays the same elements in
//! the same order, numbers the same value (`30` equals `30.0`). The one
//! exception is a batch: a top-level array matches an array holding the
//! same elements in any order, because the answers in a batch response
//! need not follow the order of the requests.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Values captured so far, by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Captures(BTreeMap<String, Value>);

impl Captures {
    /// No captures yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value captured as `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }
}

/// What a placeholder string asks for.
enum Placeholder<'a> {
    Any,
    String,
    Number,
    Capture(&'a str),
    Recall(&'a str),
}

fn placeholder(text: &str) -> Option<Placeholder<'_>> {
    match text {
        "$any" => Some(Placeholder::Any),
        "$string" => Some(Placeholder::String),
        "$number" => Some(Placeholder::Number),
        _ => {
            if let Some(name) = text.strip_prefix("$capture:") {
                return Some(Placeholder::Capture(name));
            }
            text.strip_prefix("${")
                .and_then(|rest| rest.strip_suffix('}'))
                .map(Placeholder::Recall)
        }
    }
}

/// Replaces every `"${NAME}"` in `template` by its captured value.
///
/// # Errors
///
/// When a name was never captured.
pub fn substitute(template: &Value, captures: &Captures) -> Result<Value, String> {
    Ok(match template {
        Value::String(text) => match placeholder(text) {
            Some(Placeholder::Recall(name)) => captures
                .get(name)
                .cloned()
                .ok_or_else(|| format!("nothing was captured as {name:?}"))?,
            _ => template.clone(),
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| substitute(item, captures))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| Ok((key.clone(), substitute(value, captures)?)))
                .collect::<Result<Map<_, _>, String>>()?,
        ),
        other => other.clone(),
    })
}

/// Checks a received message against its expectation, recording captures.
///
/// # Errors
///
/// A sentence naming the first difference and where it is (a JSON
/// pointer into the message). Captures are left untouched on failure.
pub fn check_message(
    expected: &Value,
    actual: &Value,
    captures: &mut Captures,
) -> Result<(), String> {
    let mut attempt = captures.clone();
    match (expected, actual) {
        (Value::Array(wanted), Value::Array(got)) => {
            check_unordered(wanted, got, &mut attempt, "")?;
        }
        _ => check(expected, actual, &mut attempt, "")?,
    }
    *captures = attempt;
    Ok(())
}

/// Every expected element matches a distinct received one, in any order.
fn check_unordered(
    wanted: &[Value],
    got: &[Value],
    captures: &mut Captures,
    path: &str,
) -> Result<(), String> {
    if wanted.len() != got.len() {
        return Err(format!(
            "at {}: expected a batch of {} messages, got {}",
            shown(path),
            wanted.len(),
            got.len()
        ));
    }
    let mut used = vec![false; got.len()];
    'expected: for (index, expected) in wanted.iter().enumerate() {
        let mut first_error = None;
        for (slot, actual) in got.iter().enumerate() {
            if used[slot] {
                continue;
            }
            let mut attempt = captures.clone();
            match check(expected, actual, &mut attempt, &format!("{path}/{slot}")) {
                Ok(()) => {
                    used[slot] = true;
                    *captures = attempt;
                    continue 'expected;
                }
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        return Err(format!(
            "batch element {index} matches no remaining message (first difference: {})",
            first_error.unwrap_or_else(|| "none left".to_owned())
        ));
    }
    Ok(())
}

fn check(
    expected: &Value,
    actual: &Value,
    captures: &mut Captures,
    path: &str,
) -> Result<(), String> {
    if let Value::String(text) = expected
        && let Some(placeholder) = placeholder(text)
    {
        return check_placeholder(&placeholder, actual, captures, path);
    }
    match (expected, actual) {
        (Value::Object(wanted), Value::Object(got)) => check_object(wanted, got, captures, path),
        (Value::Array(wanted), Value::Array(got)) => {
            if wanted.len() != got.len() {
                return Err(format!(
                    "at {}: expected {} elements, got {}: {}",
                    shown(path),
                    wanted.len(),
                    got.len(),
                    actual
                ));
            }
            for (index, (wanted, got)) in wanted.iter().zip(got).enumerate() {
                check(wanted, got, captures, &format!("{path}/{index}"))?;
            }
            Ok(())
        }
        (Value::Number(wanted), Value::Number(got)) => {
            let same = wanted == got || wanted.as_f64() == got.as_f64();
            if same {
                Ok(())
            } else {
                Err(mismatch(path, expected, actual))
            }
        }
        _ if expected == actual => Ok(()),
        _ => Err(mismatch(path, expected, actual)),
    }
}

fn check_object(
    wanted: &Map<String, Value>,
    got: &Map<String, Value>,
    captures: &mut Captures,
    path: &str,
) -> Result<(), String> {
    let missing: Vec<&str> = wanted
        .keys()
        .filter(|key| !got.contains_key(*key))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(format!("at {}: missing key(s) {missing:?}", shown(path)));
    }
    let extra: Vec<&str> = got
        .keys()
        .filter(|key| !wanted.contains_key(*key))
        .map(String::as_str)
        .collect();
    if !extra.is_empty() {
        return Err(format!("at {}: unexpected key(s) {extra:?}", shown(path)));
    }
    for (key, value) in wanted {
        if let Some(actual) = got.get(key) {
            check(value, actual, captures, &format!("{path}/{}", escape(key)))?;
        }
    }
    Ok(())
}

fn check_placeholder(
    placeholder: &Placeholder<'_>,
    actual: &Value,
    captures: &mut Captures,
    path: &str,
) -> Result<(), String> {
    let fits = match placeholder {
        Placeholder::Any => true,
        Placeholder::String => actual.is_string(),
        Placeholder::Number => actual.is_number(),
        Placeholder::Capture(name) => match captures.0.get(*name) {
            Some(earlier) if earlier != actual => {
                return Err(format!(
                    "at {}: {name:?} was captured as {earlier} and now is {actual}",
                    shown(path)
                ));
            }
            _ => {
                captures.0.insert((*name).to_owned(), actual.clone());
                true
            }
        },
        Placeholder::Recall(name) => match captures.get(name) {
            Some(value) => value == actual,
            None => {
                return Err(format!(
                    "at {}: nothing was captured as {name:?}",
                    shown(path)
                ));
            }
        },
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "at {}: {actual} does not fit the placeholder",
            shown(path)
        ))
    }
}

fn mismatch(path: &str, expected: &Value, actual: &Value) -> String {
    format!("at {}: expected {expected}, got {actual}", shown(path))
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "the top" } else { path }
}

/// Escapes a key for a JSON pointer (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[allow(
        clippy::needless_pass_by_value,
        reason = "the tests pass json! literals, which read best by value"
    )]
    fn outcome(expected: Value, actual: Value) -> Result<(), String> {
        check_message(&expected, &actual, &mut Captures::new())
    }

    #[test]
    fn equal_values_match_and_numbers_compare_by_value() {
        assert!(outcome(json!({"a": [1, "x", null]}), json!({"a": [1, "x", null]})).is_ok());
        assert!(outcome(json!({"n": 30}), json!({"n": 30.0})).is_ok());
        assert!(outcome(json!({"n": 30}), json!({"n": 30.5})).is_err());
    }

    #[test]
    fn a_missing_or_extra_key_is_a_mismatch_naming_its_path() {
        let error = outcome(json!({"result": {}}), json!({"result": {"_meta": {}}})).unwrap_err();
        assert!(
            error.contains("/result") && error.contains("_meta"),
            "{error}"
        );
        let error = outcome(json!({"a": 1, "b": 2}), json!({"a": 1})).unwrap_err();
        assert!(error.contains("missing") && error.contains('b'), "{error}");
    }

    #[test]
    fn type_placeholders_accept_only_their_type() {
        assert!(outcome(json!({"v": "$any"}), json!({"v": [1]})).is_ok());
        assert!(outcome(json!({"v": "$string"}), json!({"v": "x"})).is_ok());
        assert!(outcome(json!({"v": "$string"}), json!({"v": 1})).is_err());
        assert!(outcome(json!({"v": "$number"}), json!({"v": 1.5})).is_ok());
        assert!(outcome(json!({"v": "$number"}), json!({"v": "1"})).is_err());
        assert!(outcome(json!({"v": "$any"}), json!({})).is_err());
    }

    #[test]
    fn captured_values_are_recalled_in_expectations_and_sent_messages() {
        let mut captures = Captures::new();
        check_message(
            &json!({"id": "$capture:request"}),
            &json!({"id": 7}),
            &mut captures,
        )
        .unwrap();
        assert!(
            check_message(
                &json!({"id": "${request}"}),
                &json!({"id": 7}),
                &mut captures
            )
            .is_ok()
        );
        assert!(
            check_message(
                &json!({"id": "${request}"}),
                &json!({"id": 8}),
                &mut captures
            )
            .is_err()
        );
        let sent =
            substitute(&json!({"id": "${request}", "x": ["${request}"]}), &captures).unwrap();
        assert_eq!(sent, json!({"id": 7, "x": [7]}));
        assert!(substitute(&json!("${unknown}"), &captures).is_err());
    }

    #[test]
    fn a_failed_match_leaves_the_captures_untouched() {
        let mut captures = Captures::new();
        let expected = json!({"a": "$capture:x", "b": 1});
        assert!(check_message(&expected, &json!({"a": 5, "b": 2}), &mut captures).is_err());
        assert_eq!(captures.get("x"), None);
    }

    #[test]
    fn a_batch_matches_in_any_order_but_nested_arrays_keep_order() {
        assert!(outcome(json!([{"id": 1}, {"id": 2}]), json!([{"id": 2}, {"id": 1}])).is_ok());
        assert!(outcome(json!([{"id": 1}, {"id": 1}]), json!([{"id": 1}, {"id": 2}])).is_err());
        assert!(outcome(json!([{"id": 1}]), json!([{"id": 1}, {"id": 2}])).is_err());
        assert!(outcome(json!({"a": [1, 2]}), json!({"a": [2, 1]})).is_err());
    }

    #[test]
    fn other_dollar_strings_are_literal() {
        assert!(outcome(json!({"$ref": "#/$defs/a"}), json!({"$ref": "#/$defs/a"})).is_ok());
        assert!(outcome(json!({"v": "$schema"}), json!({"v": "x"})).is_err());
    }
}
