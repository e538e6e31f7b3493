//! Cancellation and progress: the two notifications that accompany any
//! request in flight.

use mcpwire_jsonrpc::RequestId;
use serde::{Deserialize, Serialize};

use crate::revision::keep_if;
use crate::{Extra, ForRevision, Meta, ProgressToken, ProtocolVersion};

/// Params of `notifications/cancelled`: the sender no longer wants the
/// result of a request it sent.
///
/// In 2026-07-28 only the client cancels, except that on stdio the server
/// uses it to end a `subscriptions/listen` stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The id of the request to cancel. Optional only in 2025-11-25 (where
    /// tasks are cancelled with `tasks/cancel` instead); required elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs or the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CancelledNotificationParams {
    /// Cancels the request `request_id`.
    pub fn new(request_id: impl Into<RequestId>) -> Self {
        Self {
            request_id: Some(request_id.into()),
            ..Self::default()
        }
    }

    /// The same cancellation giving `reason`.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

impl ForRevision for CancelledNotificationParams {
    /// Every revision has the same fields.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of `notifications/progress`: how far a long request has come.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token the request gave in `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; it should grow with every notification.
    pub progress: f64,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What is happening now (2025-03-26 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ProgressNotificationParams {
    /// Progress `progress` for the request that gave `progress_token`.
    pub fn new(progress_token: ProgressToken, progress: f64) -> Self {
        Self {
            progress_token,
            progress,
            total: None,
            message: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The same progress out of `total`.
    pub fn with_total(mut self, total: f64) -> Self {
        self.total = Some(total);
        self
    }

    /// The same progress saying `message`.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

impl ForRevision for ProgressNotificationParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_progress_message(), &mut self.message);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::fitted;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(parsed).unwrap()
    }

    #[test]
    fn spec_examples_round_trip() {
        let cancelled = json!({ "requestId": "123", "reason": "User requested cancellation" });
        assert_eq!(
            round_trip::<CancelledNotificationParams>(&cancelled),
            cancelled
        );
        // The spec example writes whole numbers; they come back as floats,
        // which JSON treats as the same numbers.
        let progress = json!({ "progressToken": "oivaizmir", "progress": 50, "total": 100,
            "message": "Reticulating splines..." });
        let parsed: ProgressNotificationParams = serde_json::from_value(progress).unwrap();
        assert_eq!((parsed.progress, parsed.total), (50.0, Some(100.0)));
        assert_eq!(
            serde_json::to_value(&parsed).unwrap(),
            json!({ "progressToken": "oivaizmir", "progress": 50.0, "total": 100.0,
                "message": "Reticulating splines..." })
        );
    }

    #[test]
    fn request_ids_keep_their_kind() {
        let params: CancelledNotificationParams =
            serde_json::from_value(json!({ "requestId": 7 })).unwrap();
        assert_eq!(params.request_id, Some(RequestId::Number(7)));
        assert_eq!(
            serde_json::to_value(CancelledNotificationParams::new("7")).unwrap(),
            json!({ "requestId": "7" })
        );
    }

    #[test]
    fn progress_message_exists_from_2025_03_26() {
        let progress =
            ProgressNotificationParams::new(ProgressToken::Number(1), 0.5).with_message("half");
        assert_eq!(
            fitted(progress.clone(), ProtocolVersion::V2024_11_05).message,
            None
        );
        assert_eq!(
            fitted(progress, ProtocolVersion::V2025_03_26)
                .message
                .as_deref(),
            Some("half")
        );
    }

    #[test]
    fn unknown_fields_survive() {
        let cancelled = json!({ "requestId": 1, "_meta": { "k": 1 }, "x-vendor": true });
        assert_eq!(
            round_trip::<CancelledNotificationParams>(&cancelled),
            cancelled
        );
        let progress = json!({ "progressToken": 1, "progress": 0.25, "x-vendor": "v" });
        assert_eq!(
            round_trip::<ProgressNotificationParams>(&progress),
            progress
        );
    }
}
