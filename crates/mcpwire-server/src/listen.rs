//! `subscriptions/listen` (2026-07-28) in the session driver: each listen
//! request is held open, acknowledged with the filter the server agreed to,
//! and sent the catalog changes that filter asks for, tagged with its id.

use std::collections::{BTreeSet, HashMap};

use mcpwire_jsonrpc::RequestId;
use mcpwire_session::ServerSession;
use mcpwire_types::methods::{ServerNotification, ServerResult};
use mcpwire_types::{
    Meta, ResourceUpdatedNotificationParams, ServerCapabilities, SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenResult, meta_keys,
};

use crate::server::Change;

/// The open subscriptions of one session, by the id of the request that
/// opened each, with the filter the server acknowledged.
#[derive(Debug, Default)]
pub(crate) struct Listens {
    open: HashMap<RequestId, SubscriptionFilter>,
}

impl Listens {
    /// Opens the subscription of request `id`: acknowledges the part of
    /// `requested` the server can honor (the acknowledgement is the first
    /// message of the subscription), with at most `max_uris` distinct
    /// resource URIs, and keeps it until it ends.
    pub(crate) fn open(
        &mut self,
        session: &mut ServerSession,
        id: RequestId,
        requested: &SubscriptionFilter,
        capabilities: &ServerCapabilities,
        max_uris: usize,
    ) {
        let accepted = accepted_filter(requested, capabilities, max_uris);
        let ack = SubscriptionsAcknowledgedNotificationParams::new(&id, accepted.clone());
        let notification = ServerNotification::SubscriptionsAcknowledged(Box::new(ack));
        if let Err(error) = session.notify(notification, Some(&id)) {
            tracing::debug!(%id, %error, "subscription not acknowledged");
            return;
        }
        self.open.insert(id, accepted);
    }

    /// How many subscriptions are open.
    pub(crate) fn len(&self) -> usize {
        self.open.len()
    }

    /// Gives back the table's spare room (all of it when none is open).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.open.shrink_to_fit();
    }

    /// Forgets the subscription of request `id` (the client cancelled it).
    pub(crate) fn remove(&mut self, id: &RequestId) {
        self.open.remove(id);
    }

    /// Every resource URI some subscription asks updates of.
    pub(crate) fn subscribed_uris(&self) -> BTreeSet<String> {
        self.open
            .values()
            .filter_map(|filter| filter.resource_subscriptions.as_ref())
            .flatten()
            .cloned()
            .collect()
    }

    /// Sends `change` on every subscription whose filter asks for it.
    pub(crate) fn announce(&self, session: &mut ServerSession, change: &Change) {
        for (id, filter) in &self.open {
            let notification = match change {
                Change::Tools if filter.wants_tools_list_changed() => {
                    ServerNotification::ToolListChanged(Box::default())
                }
                Change::Prompts if filter.wants_prompts_list_changed() => {
                    ServerNotification::PromptListChanged(Box::default())
                }
                Change::Resources if filter.wants_resources_list_changed() => {
                    ServerNotification::ResourceListChanged(Box::default())
                }
                Change::ResourceUpdated(uri) if filter.wants_resource_updates(uri) => {
                    ServerNotification::ResourceUpdated(Box::new(
                        ResourceUpdatedNotificationParams::new(uri.clone()),
                    ))
                }
                _ => continue,
            };
            let notification = tagged(notification, id);
            if let Err(error) = session.notify(notification, Some(id)) {
                tracing::debug!(%id, %error, "change not sent on the subscription");
            }
        }
    }

    /// Ends every subscription gracefully (the session is ending): each
    /// listen request gets its completion result.
    pub(crate) fn close_all(&mut self, session: &mut ServerSession) {
        for (id, _) in self.open.drain() {
            let result = SubscriptionsListenResult::new(id.clone());
            let answer = Ok(ServerResult::SubscriptionsListen(Box::new(result)));
            if let Err(error) = session.respond(&id, answer) {
                tracing::debug!(%id, %error, "subscription end not sent");
            }
        }
    }
}

/// The part of `requested` the server honors: list changes it declared
/// `listChanged` for, resource updates if it declared `subscribe`, for the
/// first `max_uris` distinct URIs (`Limits::max_subscriptions`: each is
/// kept for the subscription's life, and a missed change is answered with
/// an update per URI). The rest is omitted from the acknowledgement, as
/// the spec asks ("the subset the server agreed to honor"), and never sent.
fn accepted_filter(
    requested: &SubscriptionFilter,
    capabilities: &ServerCapabilities,
    max_uris: usize,
) -> SubscriptionFilter {
    let honored = |wanted: bool, supported: bool| (wanted && supported).then_some(true);
    let resource_subscriptions = requested
        .resource_subscriptions
        .as_ref()
        .filter(|_| capabilities.supports_resource_subscribe())
        .map(|uris| {
            let mut seen = BTreeSet::new();
            uris.iter()
                .filter(|uri| seen.insert(uri.as_str()))
                .take(max_uris)
                .cloned()
                .collect()
        });
    SubscriptionFilter {
        tools_list_changed: honored(
            requested.wants_tools_list_changed(),
            capabilities.supports_tools_list_changed(),
        ),
        prompts_list_changed: honored(
            requested.wants_prompts_list_changed(),
            capabilities.supports_prompts_list_changed(),
        ),
        resources_list_changed: honored(
            requested.wants_resources_list_changed(),
            capabilities.supports_resources_list_changed(),
        ),
        resource_subscriptions,
        ..SubscriptionFilter::default()
    }
}

/// `notification` with the subscription id of request `id` in its `_meta`.
fn tagged(mut notification: ServerNotification, id: &RequestId) -> ServerNotification {
    let value = serde_json::to_value(id).unwrap_or_default();
    notification
        .meta_mut()
        .get_or_insert_with(Meta::new)
        .insert(meta_keys::SUBSCRIPTION_ID, value);
    notification
}
