//! The request id: an integer or a string, never null.

use core::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// The id that ties a response to its request.
///
/// JSON-RPC allows a string, a number or null; MCP narrows this to a string
/// or an integer and forbids null, which is what this type can hold. An
/// error response whose request id could not be read carries no
/// `RequestId` at all (see [`ErrorResponse::id`](crate::ErrorResponse::id)).
///
/// Two ids are equal only when both kind and value match: `1` and `"1"` are
/// different ids, as they are on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id, such as `7`.
    Number(i64),
    /// A string id, such as `"req-7"`.
    String(String),
}

impl RequestId {
    /// The integer value, if this is an integer id.
    pub fn as_number(&self) -> Option<i64> {
        match self {
            Self::Number(number) => Some(*number),
            Self::String(_) => None,
        }
    }

    /// The string value, if this is a string id.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Number(_) => None,
            Self::String(string) => Some(string),
        }
    }
}

/// Integer ids print bare and string ids print quoted, so that `1` and `"1"`
/// stay distinguishable in logs.
impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(number) => write!(f, "{number}"),
            Self::String(string) => write!(f, "{string:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(number: i64) -> Self {
        Self::Number(number)
    }
}

impl From<i32> for RequestId {
    fn from(number: i32) -> Self {
        Self::Number(i64::from(number))
    }
}

impl From<u32> for RequestId {
    fn from(number: u32) -> Self {
        Self::Number(i64::from(number))
    }
}

impl From<String> for RequestId {
    fn from(string: String) -> Self {
        Self::String(string)
    }
}

impl From<&str> for RequestId {
    fn from(string: &str) -> Self {
        Self::String(string.to_owned())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Number(number) => serializer.serialize_i64(*number),
            Self::String(string) => serializer.serialize_str(string),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RequestIdVisitor)
    }
}

/// Accepts exactly the two shapes of an id; null, floats and integers beyond
/// the `i64` range are refused.
struct RequestIdVisitor;

impl Visitor<'_> for RequestIdVisitor {
    type Value = RequestId;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or an integer request id")
    }

    fn visit_i64<E: de::Error>(self, number: i64) -> Result<RequestId, E> {
        Ok(RequestId::Number(number))
    }

    fn visit_u64<E: de::Error>(self, number: u64) -> Result<RequestId, E> {
        i64::try_from(number)
            .map(RequestId::Number)
            .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(number), &self))
    }

    fn visit_str<E: de::Error>(self, string: &str) -> Result<RequestId, E> {
        Ok(RequestId::String(string.to_owned()))
    }

    fn visit_string<E: de::Error>(self, string: String) -> Result<RequestId, E> {
        Ok(RequestId::String(string))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_quotes_strings_but_not_numbers() {
        assert_eq!(RequestId::from(7).to_string(), "7");
        assert_eq!(RequestId::from("7").to_string(), "\"7\"");
    }

    #[test]
    fn serde_round_trips_both_kinds() {
        for id in [RequestId::from(-3), RequestId::from("a\"b")] {
            let text = serde_json::to_string(&id).unwrap();
            assert_eq!(serde_json::from_str::<RequestId>(&text).unwrap(), id);
        }
    }

    #[test]
    fn deserialize_refuses_null_float_and_out_of_range() {
        for text in ["null", "1.5", "18446744073709551615", "true", "[]"] {
            assert!(serde_json::from_str::<RequestId>(text).is_err(), "{text}");
        }
    }

    #[test]
    fn number_and_string_with_same_digits_differ() {
        assert_ne!(RequestId::from(1), RequestId::from("1"));
    }
}
