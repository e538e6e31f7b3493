//! Reading JSON-RPC objects in one pass over the text, without building a JSON tree.
//!
//! The scanner ([`Cursor`]) reports only syntax errors, so a syntax error
//! always means that the text is not JSON (-32700). Everything the readers
//! here find wrong with well-formed JSON is an invalid request (-32600),
//! for which the rest of the object is still read, so that the id can be
//! recovered wherever it appears. Payloads (`params`, `result`,
//! `error.data`) are checked and kept as [`RawJson`] text; members that are
//! not looked at are only checked.

use std::borrow::Cow;

use serde::de::{self, Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::classify::{ClassifyError, Inbound};
use crate::error::ErrorObject;
use crate::message::{Message, Packet};
use crate::raw::RawJson;
use crate::shape::{Members, classify, error_object};
use crate::syntax::{Cursor, Probe, SyntaxError};

/// Classifies one JSON text that is known to be UTF-8.
pub(crate) fn classify_str(text: &str) -> Inbound {
    let top = match read_top(text) {
        Ok(top) => top,
        Err(error) => return Inbound::Invalid(ClassifyError::parse_error(error.to_string())),
    };
    match top {
        Top::Single(Ok(message)) => Inbound::Single(message),
        Top::Single(Err(error)) => Inbound::Invalid(error),
        Top::Batch(items) if items.is_empty() => Inbound::Invalid(ClassifyError::invalid_request(
            "a batch must not be empty",
            None,
        )),
        Top::Batch(items) => Inbound::Batch(items),
        Top::Other(kind) => Inbound::Invalid(ClassifyError::invalid_request(
            format!("expected a message object or a batch array, found {kind}"),
            None,
        )),
    }
}

/// What the top level of a JSON text turned out to be.
enum Top {
    Single(Result<Message, ClassifyError>),
    Batch(Vec<Result<Message, ClassifyError>>),
    /// A scalar, described by its kind.
    Other(&'static str),
}

/// Reads a whole JSON text: a message object, a batch array, or anything
/// else (described by its kind).
fn read_top(text: &str) -> Result<Top, SyntaxError> {
    let mut cursor = Cursor::new(text);
    let top = match cursor.peek() {
        Some(b'{') => Top::Single(read_message(&mut cursor)?),
        Some(b'[') => {
            let mut items = Vec::new();
            cursor.elements(|cursor| {
                let item = match cursor.peek() {
                    Some(b'{') => read_message(cursor)?,
                    _ => Err(ClassifyError::invalid_request(
                        format!(
                            "a batch element must be a message object, found {}",
                            cursor.probe()?.plain_kind()
                        ),
                        None,
                    )),
                };
                items.push(item);
                Ok(())
            })?;
            Top::Batch(items)
        }
        _ => Top::Other(cursor.probe()?.plain_kind()),
    };
    cursor.end()?;
    Ok(top)
}

/// Reads the value at the cursor into `slot` with `read`, or, when `slot`
/// is already filled, skips it and records `name` as a duplicate.
fn read_once<'a, T>(
    cursor: &mut Cursor<'a>,
    slot: &mut Option<T>,
    name: &'static str,
    duplicate: &mut Option<&'static str>,
    read: impl FnOnce(&mut Cursor<'a>) -> Result<T, SyntaxError>,
) -> Result<(), SyntaxError> {
    if slot.is_some() {
        duplicate.get_or_insert(name);
        cursor.skip_value()
    } else {
        *slot = Some(read(cursor)?);
        Ok(())
    }
}

/// Reads a payload: checks it and keeps its text.
fn raw_json(cursor: &mut Cursor<'_>) -> Result<RawJson, SyntaxError> {
    cursor.raw_owned().map(RawJson::from_checked_string)
}

/// Reads every member of the message object at the cursor (on its `{`),
/// then classifies it.
///
/// The outer error is a syntax error of the JSON text; the inner one is why
/// well-formed JSON is not a JSON-RPC message.
fn read_message(cursor: &mut Cursor<'_>) -> Result<Result<Message, ClassifyError>, SyntaxError> {
    let mut members = Members::default();
    let Members {
        jsonrpc,
        id,
        method,
        params,
        result,
        error,
        duplicate,
    } = &mut members;
    cursor.members(|cursor, name| match &*name {
        "jsonrpc" => read_once(cursor, jsonrpc, "jsonrpc", duplicate, Cursor::probe),
        "id" => read_once(cursor, id, "id", duplicate, Cursor::probe),
        "method" => read_once(cursor, method, "method", duplicate, Cursor::probe),
        "params" => read_once(cursor, params, "params", duplicate, raw_json),
        "result" => read_once(cursor, result, "result", duplicate, raw_json),
        "error" => read_once(cursor, error, "error", duplicate, read_error_member),
        _ => cursor.skip_value(),
    })?;
    Ok(classify(members))
}

/// Reads the value of an `error` member: an error object, or why it is not one.
fn read_error_member(cursor: &mut Cursor<'_>) -> Result<Result<ErrorObject, String>, SyntaxError> {
    match cursor.peek() {
        Some(b'{') => read_error_object(cursor),
        _ => {
            let kind = cursor.probe()?.plain_kind();
            Ok(Err(format!("\"error\" must be an object, found {kind}")))
        }
    }
}

/// Reads the `error` object at the cursor (on its `{`).
fn read_error_object(cursor: &mut Cursor<'_>) -> Result<Result<ErrorObject, String>, SyntaxError> {
    let mut code: Option<Probe<'_>> = None;
    let mut message: Option<Probe<'_>> = None;
    let mut data: Option<RawJson> = None;
    let mut duplicate = None;
    cursor.members(|cursor, name: Cow<'_, str>| match &*name {
        "code" => read_once(cursor, &mut code, "code", &mut duplicate, Cursor::probe),
        "message" => read_once(
            cursor,
            &mut message,
            "message",
            &mut duplicate,
            Cursor::probe,
        ),
        "data" => read_once(cursor, &mut data, "data", &mut duplicate, raw_json),
        _ => cursor.skip_value(),
    })?;
    Ok(error_object(code, message, data, duplicate))
}

/// Reads the JSON text of a serde_json raw value with `read`, turning a
/// syntax error (which serde_json's own check leaves only for numbers out
/// of range) into a deserializer error.
fn read_raw<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    read: impl FnOnce(&mut Cursor<'_>) -> Result<T, SyntaxError>,
) -> Result<T, D::Error> {
    let raw = Box::<RawValue>::deserialize(deserializer)?;
    let mut cursor = Cursor::new(raw.get());
    read(&mut cursor)
        .and_then(|value| cursor.end().map(|()| value))
        .map_err(de::Error::custom)
}

/// Reads an `error` object, refusing a malformed one.
///
/// The value is taken as serde_json's raw value first, which only serde_json's
/// deserializers support.
impl<'de> Deserialize<'de> for ErrorObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read_raw(deserializer, read_error_member)?.map_err(de::Error::custom)
    }
}

/// Reads one message, refusing anything that is not a well-formed message.
///
/// The value is taken as serde_json's raw value first, which only serde_json's
/// deserializers support.
impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let message = read_raw(deserializer, |cursor| match cursor.peek() {
            Some(b'{') => read_message(cursor).map(Ok),
            _ => cursor.probe().map(|probe| Err(probe.plain_kind())),
        })?;
        match message {
            Ok(Ok(message)) => Ok(message),
            Ok(Err(error)) => Err(de::Error::custom(error.message())),
            Err(kind) => Err(de::Error::custom(format!(
                "expected a message object, found {kind}"
            ))),
        }
    }
}

/// Reads a message or a non-empty batch, refusing anything malformed.
impl<'de> Deserialize<'de> for Packet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let items = match read_top(raw.get()).map_err(de::Error::custom)? {
            Top::Single(Ok(message)) => return Ok(Packet::Single(message)),
            Top::Single(Err(error)) => return Err(de::Error::custom(error.message())),
            Top::Other(kind) => {
                return Err(de::Error::custom(format!(
                    "expected a message object or a batch array, found {kind}"
                )));
            }
            Top::Batch(items) => items,
        };
        if items.is_empty() {
            return Err(de::Error::custom("a batch must not be empty"));
        }
        items
            .into_iter()
            .map(|item| item.map_err(|error| de::Error::custom(error.message())))
            .collect::<Result<Vec<_>, _>>()
            .map(Packet::Batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_named_for_the_top_level_and_for_batch_elements() {
        for (input, kind) in [
            ("-0", "a number"),
            ("1.5", "a number"),
            ("\"x\"", "a string"),
        ] {
            let Inbound::Invalid(error) = classify_str(input) else {
                panic!("{input}");
            };
            assert!(error.message().ends_with(kind), "{input}: {error}");
        }
        let Inbound::Batch(items) = classify_str("[null, 2e5]") else {
            panic!("expected a batch");
        };
        let messages: Vec<_> = items
            .iter()
            .map(|item| item.as_ref().err().map(ClassifyError::message))
            .collect();
        assert_eq!(
            messages,
            [
                Some("a batch element must be a message object, found null"),
                Some("a batch element must be a message object, found a number"),
            ]
        );
    }

    #[test]
    fn integer_ids_of_every_length_read_as_serde_json_reads_them() {
        // Up to eighteen digits an id is read digit by digit, beyond that
        // by the general parse: both must agree with serde_json.
        for digits in 1..=20 {
            for lead in ["1", "9"] {
                let id = format!("{lead}{}", "0".repeat(digits - 1));
                let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#);
                let expected = serde_json::from_str::<i64>(&id).ok();
                let found = match classify_str(&text) {
                    Inbound::Single(Message::Request(request)) => request.id.as_number(),
                    _ => None,
                };
                assert_eq!(found, expected, "{id}");
            }
        }
    }

    #[test]
    fn ids_are_read_as_serde_json_reads_numbers() {
        let cases = [
            ("-0", "found a number with a fraction or an exponent"),
            ("18446744073709551615", "beyond the 64-bit range"),
            (
                "18446744073709551616",
                "found a number with a fraction or an exponent",
            ),
            (
                "-9223372036854775809",
                "found a number with a fraction or an exponent",
            ),
            ("9223372036854775808", "beyond the 64-bit range"),
        ];
        for (id, ending) in cases {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#);
            let Inbound::Invalid(error) = classify_str(&text) else {
                panic!("{id}");
            };
            assert!(error.message().ends_with(ending), "{id}: {error}");
        }
    }
}
