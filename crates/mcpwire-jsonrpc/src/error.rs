//! Error codes and the `error` member of an error response.

use core::fmt;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde::{Deserialize, Deserializer};

use crate::raw::RawJson;

/// A JSON-RPC error code.
///
/// The type is open: any `i64` is a valid code, because applications define
/// their own. The constants name the codes JSON-RPC 2.0 reserves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// The JSON received is not a valid JSON-RPC request object.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// Invalid method parameters.
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: Self = Self(-32603);

    /// The range JSON-RPC leaves to implementation-defined server errors.
    pub const SERVER_ERROR_RANGE: core::ops::RangeInclusive<i64> = -32099..=-32000;
    /// The whole range JSON-RPC reserves for itself.
    pub const RESERVED_RANGE: core::ops::RangeInclusive<i64> = -32768..=-32000;

    /// The numeric value.
    pub const fn code(self) -> i64 {
        self.0
    }

    /// Whether the code lies in the implementation-defined server error range
    /// (-32099 to -32000).
    pub const fn is_server_error(self) -> bool {
        self.0 >= -32099 && self.0 <= -32000
    }

    /// Whether the code lies in the range JSON-RPC reserves (-32768 to -32000).
    pub const fn is_reserved(self) -> bool {
        self.0 >= -32768 && self.0 <= -32000
    }

    /// The short name JSON-RPC 2.0 gives this code, if it is one of the five
    /// predefined codes.
    pub const fn standard_message(self) -> Option<&'static str> {
        match self.0 {
            -32700 => Some("Parse error"),
            -32600 => Some("Invalid Request"),
            -32601 => Some("Method not found"),
            -32602 => Some("Invalid params"),
            -32603 => Some("Internal error"),
            _ => None,
        }
    }
}

impl From<i64> for ErrorCode {
    fn from(code: i64) -> Self {
        Self(code)
    }
}

impl From<ErrorCode> for i64 {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

/// Prints the number, followed by its JSON-RPC name when it has one.
impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.standard_message() {
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        i64::deserialize(deserializer).map(Self)
    }
}

/// The `error` member of an error response.
///
/// `data` is kept as raw JSON text; equality compares that text as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorObject {
    /// What kind of error occurred.
    pub code: ErrorCode,
    /// A short description, ideally one sentence.
    pub message: String,
    /// Additional information defined by the sender, as raw JSON.
    pub data: Option<RawJson>,
}

impl ErrorObject {
    /// An error without `data`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data` set to `data` serialized to JSON.
    pub fn with_data(self, data: &impl Serialize) -> Result<Self, serde_json::Error> {
        Ok(Self {
            data: Some(RawJson::from_serialize(data)?),
            ..self
        })
    }

    /// A parse error (-32700) with the given message.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message)
    }

    /// An invalid request error (-32600) with the given message.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// A method not found error (-32601) naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// An invalid params error (-32602) with the given message.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// An internal error (-32603) with the given message.
    pub fn internal_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code.0)
    }
}

impl Serialize for ErrorObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let len = if self.data.is_some() { 3 } else { 2 };
        let mut object = serializer.serialize_struct("ErrorObject", len)?;
        object.serialize_field("code", &self.code)?;
        object.serialize_field("message", &self.message)?;
        if let Some(data) = &self.data {
            object.serialize_field("data", data)?;
        }
        object.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_error_range_is_inclusive_and_nothing_more() {
        let cases = [
            (-32100, false),
            (-32099, true),
            (-32050, true),
            (-32000, true),
            (-31999, false),
            (-32600, false),
        ];
        for (code, expected) in cases {
            assert_eq!(ErrorCode(code).is_server_error(), expected, "{code}");
        }
    }

    #[test]
    fn reserved_range_covers_the_predefined_codes() {
        for code in [
            ErrorCode::PARSE_ERROR,
            ErrorCode::INVALID_REQUEST,
            ErrorCode::METHOD_NOT_FOUND,
            ErrorCode::INVALID_PARAMS,
            ErrorCode::INTERNAL_ERROR,
        ] {
            assert!(code.is_reserved(), "{code}");
            assert!(code.standard_message().is_some(), "{code}");
        }
        assert!(!ErrorCode(-1).is_reserved());
        assert!(!ErrorCode(-32769).is_reserved());
    }

    #[test]
    fn display_names_standard_codes_only() {
        assert_eq!(
            ErrorCode::METHOD_NOT_FOUND.to_string(),
            "-32601 (Method not found)"
        );
        assert_eq!(ErrorCode(-32002).to_string(), "-32002");
    }

    #[test]
    fn error_object_serializes_code_message_data_in_order() {
        let error = ErrorObject::invalid_params("bad")
            .with_data(&[1, 2])
            .unwrap();
        assert_eq!(
            serde_json::to_string(&error).unwrap(),
            r#"{"code":-32602,"message":"bad","data":[1,2]}"#
        );
        let without = ErrorObject::internal_error("x");
        assert_eq!(
            serde_json::to_string(&without).unwrap(),
            r#"{"code":-32603,"message":"x"}"#
        );
    }
}
