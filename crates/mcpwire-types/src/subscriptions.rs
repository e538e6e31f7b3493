//! `subscriptions/listen` (2026-07-28): one long-lived request over which
//! the server delivers the notifications the client opted in to. It
//! replaces `resources/subscribe` and the HTTP GET stream.

use mcpwire_jsonrpc::RequestId;
use serde::{Deserialize, Serialize};

use crate::result::fit_result_type;
use crate::{Extra, ForRevision, Implementation, Meta, ProtocolVersion, ResultType, meta_keys};

/// The notifications a client opts in to on a subscription stream; the
/// server sends nothing it was not asked for. Absent means not asked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these resource URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl SubscriptionFilter {
    /// Whether tool list changes are asked for.
    pub fn wants_tools_list_changed(&self) -> bool {
        self.tools_list_changed.unwrap_or(false)
    }

    /// Whether prompt list changes are asked for.
    pub fn wants_prompts_list_changed(&self) -> bool {
        self.prompts_list_changed.unwrap_or(false)
    }

    /// Whether resource list changes are asked for.
    pub fn wants_resources_list_changed(&self) -> bool {
        self.resources_list_changed.unwrap_or(false)
    }

    /// Whether updates of the resource `uri` are asked for.
    pub fn wants_resource_updates(&self, uri: &str) -> bool {
        self.resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == uri))
    }
}

impl ForRevision for SubscriptionFilter {
    /// Exists in 2026-07-28 only.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of `subscriptions/listen`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// What to deliver on the stream.
    pub notifications: SubscriptionFilter,
    /// Metadata (required; the session fills in version and capabilities).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl SubscriptionsListenRequestParams {
    /// A request for the notifications in `filter`.
    pub fn new(filter: SubscriptionFilter) -> Self {
        Self {
            notifications: filter,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for SubscriptionsListenRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.notifications.fit_to(version);
    }
}

/// Params of `notifications/subscriptions/acknowledged`: the subset of the
/// requested notifications the server will deliver. It is the first message
/// of a subscription.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// What the server agreed to deliver.
    pub notifications: SubscriptionFilter,
    /// Metadata; carries the subscription id under
    /// [`meta_keys::SUBSCRIPTION_ID`](crate::meta_keys::SUBSCRIPTION_ID).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl SubscriptionsAcknowledgedNotificationParams {
    /// Acknowledges `filter` on the subscription opened by request `subscription_id`.
    pub fn new(subscription_id: &RequestId, filter: SubscriptionFilter) -> Self {
        let mut meta = Meta::new();
        meta.insert(
            meta_keys::SUBSCRIPTION_ID,
            request_id_value(subscription_id),
        );
        Self {
            notifications: filter,
            meta: Some(meta),
            extra: Extra::new(),
        }
    }

    /// The subscription this acknowledges, from `_meta`.
    pub fn subscription_id(&self) -> Option<RequestId> {
        self.meta
            .as_ref()
            .and_then(|m| m.get_as(meta_keys::SUBSCRIPTION_ID))
    }
}

impl ForRevision for SubscriptionsAcknowledgedNotificationParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.notifications.fit_to(version);
    }
}

/// The `_meta` of a [`SubscriptionsListenResult`]: which subscription ended
/// and, as on every result, who the server is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenResultMetaObject {
    /// The id of the `subscriptions/listen` request that opened the stream.
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    pub subscription_id: RequestId,
    /// The server's identity.
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    /// Other metadata.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The response to `subscriptions/listen`, sent only when the server ends
/// the subscription gracefully (an abrupt close sends none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// Metadata naming the subscription that ended.
    #[serde(rename = "_meta")]
    pub meta: SubscriptionsListenResultMetaObject,
    /// `complete`; filled in when fitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl SubscriptionsListenResult {
    /// The closing result of the subscription opened by request `subscription_id`.
    pub fn new(subscription_id: RequestId) -> Self {
        Self {
            meta: SubscriptionsListenResultMetaObject {
                subscription_id,
                server_info: None,
                extra: Extra::new(),
            },
            result_type: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for SubscriptionsListenResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        fit_result_type(&mut self.result_type, version);
        self.meta.server_info.fit_to(version);
    }
}

/// A request id as the JSON it is written as.
fn request_id_value(id: &RequestId) -> serde_json::Value {
    match id {
        RequestId::Number(n) => (*n).into(),
        RequestId::String(s) => s.as_str().into(),
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
        let listen = json!({
            "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { "name": "ExampleClient", "version": "1.0.0" },
                "io.modelcontextprotocol/clientCapabilities": {} },
            "notifications": { "toolsListChanged": true,
                "resourceSubscriptions": ["file:///project/config.json"] }
        });
        assert_eq!(
            round_trip::<SubscriptionsListenRequestParams>(&listen),
            listen
        );
        let acknowledged = json!({ "_meta": { "io.modelcontextprotocol/subscriptionId": "listen-1" },
            "notifications": { "toolsListChanged": true,
                "resourceSubscriptions": ["file:///project/config.json"] } });
        assert_eq!(
            round_trip::<SubscriptionsAcknowledgedNotificationParams>(&acknowledged),
            acknowledged
        );
        let closed = json!({ "resultType": "complete",
            "_meta": { "io.modelcontextprotocol/subscriptionId": "listen-1" } });
        assert_eq!(round_trip::<SubscriptionsListenResult>(&closed), closed);
    }

    #[test]
    fn acknowledgement_carries_the_subscription_id_of_either_kind() {
        for id in [RequestId::Number(1), RequestId::String("listen-1".into())] {
            let ack = SubscriptionsAcknowledgedNotificationParams::new(
                &id,
                SubscriptionFilter::default(),
            );
            assert_eq!(ack.subscription_id(), Some(id));
        }
    }

    #[test]
    fn closing_result_is_complete_and_requires_its_subscription_id() {
        let result = fitted(
            SubscriptionsListenResult::new(RequestId::Number(1)),
            ProtocolVersion::V2026_07_28,
        );
        assert_eq!(
            serde_json::to_value(result).unwrap(),
            json!({ "resultType": "complete", "_meta": { "io.modelcontextprotocol/subscriptionId": 1 } })
        );
        assert!(
            serde_json::from_value::<SubscriptionsListenResult>(json!({ "_meta": {} })).is_err()
        );
    }

    #[test]
    fn filter_queries_treat_absent_as_not_asked() {
        let filter: SubscriptionFilter = serde_json::from_value(
            json!({ "toolsListChanged": true, "resourceSubscriptions": ["file:///a"] }),
        )
        .unwrap();
        assert!(filter.wants_tools_list_changed() && !filter.wants_prompts_list_changed());
        assert!(
            filter.wants_resource_updates("file:///a")
                && !filter.wants_resource_updates("file:///b")
        );
        assert!(!filter.wants_resources_list_changed());
    }

    #[test]
    fn unknown_fields_survive() {
        let closed = json!({ "resultType": "complete", "x-vendor": 1,
            "_meta": { "io.modelcontextprotocol/subscriptionId": 2, "x-m": true } });
        assert_eq!(round_trip::<SubscriptionsListenResult>(&closed), closed);
        let filter = json!({ "x-future": true });
        assert_eq!(round_trip::<SubscriptionFilter>(&filter), filter);
    }
}
