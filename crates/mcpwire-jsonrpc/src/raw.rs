//! `RawJson`: one JSON value kept as its validated text, for `params`, `result` and `error.data`.

use core::fmt;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::value::RawValue;

use crate::syntax::Cursor;

/// One JSON value kept as its text, never parsed into a tree.
///
/// The text is always valid JSON holding exactly one value without
/// surrounding whitespace: the decoder checks it while classifying a
/// message, [`from_string`](Self::from_string) checks it, and
/// [`from_serialize`](Self::from_serialize) trusts serde_json, which wrote
/// it. Equality compares the text as it is, so `{"a":1}` and `{ "a": 1 }`
/// differ.
///
/// Parse it when its contents are needed, for example with
/// `serde_json::from_str(raw.get())`.
///
/// Its text, when large, goes back to a per-thread store of buffers when
/// it is dropped, for the next large payload or answer (see `recycle`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RawJson(String);

impl RawJson {
    /// Checks that `text` is one JSON value (whitespace around it is
    /// allowed and dropped) and keeps it.
    pub fn from_string(text: String) -> Result<Self, InvalidJson> {
        let mut cursor = Cursor::new(&text);
        let (start, end) = cursor
            .raw_value()
            .and_then(|range| cursor.end().map(|()| range))
            .map_err(|error| InvalidJson(error.to_string()))?;
        if start == 0 && end == text.len() {
            return Ok(Self(text));
        }
        // A value starts and ends on ASCII bytes, so the range is always
        // on character boundaries.
        text.get(start..end)
            .map(Self::from_checked)
            .ok_or_else(|| InvalidJson("invalid JSON: not one value".to_owned()))
    }

    /// `value` serialized to compact JSON.
    ///
    /// Fails only when `value` cannot be serialized (for example a map with
    /// non-string keys).
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        // The output is one valid JSON value (serde_json's bytes exactly,
        // see `to_json_vec`): nothing to check.
        crate::to_json_string(value).map(Self)
    }

    /// Keeps `text`, which the caller has checked to be one JSON value
    /// without surrounding whitespace.
    pub(crate) fn from_checked(text: &str) -> Self {
        Self(String::from(text))
    }

    /// Keeps `text`, already copied, which the caller has checked to be
    /// one JSON value without surrounding whitespace.
    pub(crate) fn from_checked_string(text: String) -> Self {
        Self(text)
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// The JSON text, by value.
    pub fn into_string(mut self) -> String {
        std::mem::take(&mut self.0)
    }
}

/// Gives a large text back to the thread's kept buffers.
impl Drop for RawJson {
    fn drop(&mut self) {
        if self.0.capacity() >= crate::recycle::SMALLEST {
            crate::recycle::give(std::mem::take(&mut self.0));
        }
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RawJson")
            .field(&format_args!("{}", self.0))
            .finish()
    }
}

/// Prints the JSON text as it is.
impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Box<RawValue>> for RawJson {
    /// serde_json's raw value, whose text serde_json has checked.
    fn from(raw: Box<RawValue>) -> Self {
        Self(Box::<str>::from(raw).into_string())
    }
}

impl TryFrom<String> for RawJson {
    type Error = InvalidJson;

    fn try_from(text: String) -> Result<Self, InvalidJson> {
        Self::from_string(text)
    }
}

/// The struct name through which `serde_json::value::RawValue` serializes
/// its text (one field of that name holding the JSON text): serde_json's
/// serializers, and ours, write such a field as it is.
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Writes the text as JSON, not as a string, the way serde_json's raw value
/// does: serde_json's serializers and ours copy it verbatim, others see a
/// struct. The text is valid by construction, so it is not checked again.
impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(RAW_VALUE_TOKEN, &*self.0)?;
        raw.end()
    }
}

/// Reads any JSON value as its text; only serde_json's deserializers
/// support this, as for serde_json's raw value.
impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Self::from)
    }
}

/// Why text given to [`RawJson::from_string`] is not one JSON value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidJson(String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_string_keeps_valid_text_without_surrounding_whitespace() {
        let raw = RawJson::from_string(" \n{\"a\": [1, 2.5e3]}\t".to_owned()).unwrap();
        assert_eq!(raw.get(), "{\"a\": [1, 2.5e3]}");
        assert_eq!(raw.to_string(), raw.get());
        let exact = RawJson::from_string("true".to_owned()).unwrap();
        assert_eq!(exact.into_string(), "true");
    }

    #[test]
    fn from_string_refuses_anything_but_one_value() {
        for bad in [
            "",
            " ",
            "{",
            "1 2",
            "[1,]",
            "{\"a\"}",
            "nul",
            "\"\u{1}\"",
            "01",
        ] {
            let error = RawJson::from_string(bad.to_owned()).unwrap_err();
            assert!(
                error.to_string().starts_with("invalid JSON: "),
                "{bad:?}: {error}"
            );
        }
    }

    #[test]
    fn serializes_as_json_not_as_a_string() {
        let raw = RawJson::from_serialize(&serde_json::json!({"k": ["v", 1]})).unwrap();
        assert_eq!(raw.get(), r#"{"k":["v",1]}"#);
        assert_eq!(
            serde_json::to_string(&[&raw]).unwrap(),
            r#"[{"k":["v",1]}]"#
        );
        let value = serde_json::to_value(&raw).unwrap();
        assert_eq!(value, serde_json::json!({"k": ["v", 1]}));
    }

    #[test]
    fn deserializes_from_text_and_from_a_value() {
        let raw: RawJson = serde_json::from_str(r#" [1, {"x": null}] "#).unwrap();
        assert_eq!(raw.get(), r#"[1, {"x": null}]"#);
        let raw: RawJson = serde_json::from_value(serde_json::json!({"a": 1})).unwrap();
        assert_eq!(raw.get(), r#"{"a":1}"#);
    }

    #[test]
    fn equality_and_debug_use_the_text() {
        let a = RawJson::from_string("[1]".to_owned()).unwrap();
        let b = RawJson::from_serialize(&[1]).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, RawJson::from_string("[ 1 ]".to_owned()).unwrap());
        assert_eq!(format!("{a:?}"), "RawJson([1])");
    }
}
