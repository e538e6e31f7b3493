//! Logging: severity levels, `logging/setLevel` and `notifications/message`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Extra, ForRevision, Meta, ProtocolVersion};

/// The severity of a log message, as in syslog (RFC 5424).
///
/// Levels are ordered from least to most severe, so `level >= threshold`
/// says whether a message passes a minimum level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];

    /// The wire name, e.g. `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ForRevision for LoggingLevel {
    /// Every revision has all eight levels.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of `logging/setLevel` (before 2026-07-28, where each request
/// carries its level in `_meta` instead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetLevelRequestParams {
    /// The least severe level the client wants to receive.
    pub level: LoggingLevel,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl SetLevelRequestParams {
    /// Params asking for messages at `level` or more severe.
    pub fn new(level: LoggingLevel) -> Self {
        Self {
            level,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for SetLevelRequestParams {
    /// Every field exists wherever the request does.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of `notifications/message`: one log message from the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoggingMessageNotificationParams {
    /// The message's severity.
    pub level: LoggingLevel,
    /// The name of the logger that produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// What to log: a string or any JSON value.
    pub data: Value,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl LoggingMessageNotificationParams {
    /// A message at `level` carrying `data`.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        Self {
            level,
            logger: None,
            data: data.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for LoggingMessageNotificationParams {
    /// Every field exists in every revision.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn spec_example_round_trips() {
        let example = json!({
            "level": "error",
            "logger": "database",
            "data": { "error": "Connection failed", "details": { "host": "localhost", "port": 5432 } }
        });
        let parsed: LoggingMessageNotificationParams =
            serde_json::from_value(example.clone()).unwrap();
        assert_eq!(parsed.level, LoggingLevel::Error);
        assert_eq!(serde_json::to_value(parsed).unwrap(), example);
    }

    #[test]
    fn levels_are_ordered_by_severity() {
        for pair in LoggingLevel::ALL.windows(2) {
            assert!(pair[0] < pair[1], "{} should be below {}", pair[0], pair[1]);
        }
        assert!(LoggingLevel::Debug < LoggingLevel::Emergency);
        assert!(LoggingLevel::Warning >= LoggingLevel::Notice);
    }

    #[test]
    fn levels_use_their_syslog_names_on_the_wire() {
        for level in LoggingLevel::ALL {
            assert_eq!(serde_json::to_value(level).unwrap(), json!(level.as_str()));
            assert_eq!(
                serde_json::from_value::<LoggingLevel>(json!(level.as_str())).unwrap(),
                level
            );
        }
        assert!(serde_json::from_value::<LoggingLevel>(json!("verbose")).is_err());
    }

    #[test]
    fn data_is_required() {
        assert!(
            serde_json::from_value::<LoggingMessageNotificationParams>(json!({ "level": "info" }))
                .is_err()
        );
        let null_data: LoggingMessageNotificationParams =
            serde_json::from_value(json!({ "level": "info", "data": null })).unwrap();
        assert_eq!(null_data.data, Value::Null);
    }

    #[test]
    fn unknown_fields_survive() {
        let params = json!({ "level": "debug", "_meta": { "k": 1 }, "x-vendor": true });
        let parsed: SetLevelRequestParams = serde_json::from_value(params.clone()).unwrap();
        assert_eq!(serde_json::to_value(parsed).unwrap(), params);
        let message = json!({ "level": "info", "data": "hi", "x-vendor": [1] });
        let parsed: LoggingMessageNotificationParams =
            serde_json::from_value(message.clone()).unwrap();
        assert_eq!(serde_json::to_value(parsed).unwrap(), message);
    }
}
