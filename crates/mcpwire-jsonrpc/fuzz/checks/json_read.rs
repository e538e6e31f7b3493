//! The property of the `json_read` fuzz target, shared with the test that
//! replays its corpus (`tests/roundtrip.rs`).
//!
//! Differential against serde_json on arbitrary bytes:
//! * `RawJson` (the crate's own scanner) accepts exactly the texts serde_json
//!   accepts as JSON (read with `IgnoredAny`: lone surrogate escapes such as
//!   `"\ude00"` are valid JSON text that only a Rust `String` cannot hold),
//!   and keeps a text that reads as the same `Value`;
//! * a message `Message::from_slice` accepts is JSON serde_json reads, and
//!   the members it decoded (`jsonrpc`, `id`, `method`, `params`, `result`,
//!   `error`), re-encoded, read as the same values as serde_json's reading
//!   of the input.

use mcpwire_jsonrpc::{Message, RawJson};
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    let reference = serde_json::from_slice::<Value>(data).ok();
    let syntax = serde_json::from_slice::<IgnoredAny>(data).is_ok();
    if let Ok(text) = std::str::from_utf8(data) {
        match RawJson::from_string(text.to_owned()) {
            Ok(raw) => {
                assert!(syntax, "RawJson accepted what serde_json refuses");
                let kept = serde_json::from_str::<Value>(raw.get()).ok();
                assert_eq!(kept, reference, "RawJson kept another value");
            }
            Err(_) => assert!(!syntax, "RawJson refused what serde_json accepts"),
        }
    }
    let Ok(message) = Message::from_slice(data) else {
        return;
    };
    assert!(syntax, "a message that is not JSON to serde_json");
    // Without a `Value` (a lone surrogate escape somewhere), there is
    // nothing to compare the members with.
    let Some(input) = reference else {
        return;
    };
    assert!(input.is_object(), "a message that is not a JSON object");
    let Value::Object(input) = input else {
        return;
    };
    let decoded = members(&message);
    let mut expected: Map<String, Value> = input
        .into_iter()
        .filter(|(key, _)| decoded.contains_key(key))
        .collect();
    // An error object keeps only the members JSON-RPC defines.
    if let Some(Value::Object(error)) = expected.get_mut("error") {
        error.retain(|key, _| matches!(key.as_str(), "code" | "message" | "data"));
    }
    // An error answer without an id is written with `"id": null`, the
    // member JSON-RPC requires (its value when the id is unknown).
    if decoded.get("id") == Some(&Value::Null) && decoded.contains_key("error") {
        expected.entry("id").or_insert(Value::Null);
    }
    assert_eq!(
        decoded, expected,
        "the decoder read other members than serde_json"
    );
}

/// The members `message` holds, read back as JSON values.
fn members(message: &Message) -> Map<String, Value> {
    serde_json::from_slice::<Map<String, Value>>(&message.to_vec()).unwrap_or_default()
}
