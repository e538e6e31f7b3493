//! Catalog changes shared between server instances: a [`Change`] made on
//! one instance (a tool added, a resource updated) reaches the sessions
//! and `subscriptions/listen` requests that other instances run, through a
//! pluggable [`ChangeFeed`] (`mcpwire-redis` has one on Redis pub/sub); the server runtime
//! (`mcpwire-server`) is the [`ChangeReceiver`] behind each [`ChangeSink`].
//!
//! Without a feed (the default) a server announces its changes to its own
//! sessions only, which is all a single instance needs.

use std::sync::Weak;

use serde::{Deserialize, Serialize};

/// A change to what a server offers, announced to every live session: as
/// `notifications/*/list_changed` and `notifications/resources/updated` in
/// the handshake era, and on each `subscriptions/listen` request whose
/// filter asks for it in 2026-07-28.
///
/// It serializes as `{"kind": "tools"}`, `{"kind": "prompts"}`,
/// `{"kind": "resources"}`, `{"kind": "resourceUpdated", "uri": URI}` or
/// `{"kind": "missed"}`, so that a feed can carry it between processes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "uri", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed.
    Tools,
    /// The prompt list changed.
    Prompts,
    /// The resource list changed.
    Resources,
    /// The resource at this URI changed.
    ResourceUpdated(String),
    /// Changes may have been lost (a feed lost its connection for a
    /// while): every session is told that every list changed and that each
    /// resource it subscribed to was updated. Harmless when nothing was
    /// lost: clients list and read again.
    Missed,
}

/// Carries catalog changes between the instances of one service.
///
/// `ServerBuilder::change_feed` (in `mcpwire-server`) gives
/// a feed to a server: the server [`attach`](Self::attach)es its
/// [`ChangeSink`] once, when built, and [`publish`](Self::publish)es every
/// change it makes after announcing it to its own sessions. A feed delivers
/// the changes other instances published into the sink, and never the
/// server's own changes back (they were announced locally already).
pub trait ChangeFeed: Send + Sync + 'static {
    /// Shares `change`, made on this instance, with the other instances.
    /// It must not block or wait: it is called from synchronous methods
    /// such as `Server::add_tool`.
    fn publish(&self, change: &Change);

    /// Receives the sink of a server: changes published by other instances
    /// go into it from now on.
    fn attach(&self, sink: ChangeSink);
}

/// What a [`ChangeSink`] hands changes to: a server runtime, which
/// announces each change to the sessions it runs (`mcpwire-server`
/// implements it for its servers).
pub trait ChangeReceiver: Send + Sync + 'static {
    /// Announces `change`, made on another instance, to this instance's
    /// sessions (without publishing it again).
    fn receive(&self, change: Change);
}

/// Where a [`ChangeFeed`] delivers the changes made on other instances:
/// the announcements of one server, to every session it runs here.
///
/// It does not keep the server alive: once the server is dropped,
/// [`deliver`](Self::deliver) answers `false` and the feed may forget it.
#[derive(Clone)]
pub struct ChangeSink {
    receiver: Weak<dyn ChangeReceiver>,
}

impl std::fmt::Debug for ChangeSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeSink")
            .field("live", &(self.receiver.strong_count() > 0))
            .finish()
    }
}

impl ChangeSink {
    /// A sink delivering to `receiver` for as long as it lives (the server
    /// runtime makes one for each server it builds with a feed).
    pub fn new(receiver: Weak<dyn ChangeReceiver>) -> Self {
        Self { receiver }
    }

    /// Announces `change`, made on another instance, to the sessions of
    /// this one (it is not published again). `false` once the server is
    /// gone.
    pub fn deliver(&self, change: Change) -> bool {
        let Some(receiver) = self.receiver.upgrade() else {
            return false;
        };
        receiver.receive(change);
        true
    }

    /// Whether the server is still alive.
    pub fn is_live(&self) -> bool {
        self.receiver.strong_count() > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_survives_a_json_round_trip_in_its_documented_shape() {
        let cases = [
            (Change::Tools, r#"{"kind":"tools"}"#),
            (Change::Prompts, r#"{"kind":"prompts"}"#),
            (Change::Resources, r#"{"kind":"resources"}"#),
            (
                Change::ResourceUpdated("file:///a".to_owned()),
                r#"{"kind":"resourceUpdated","uri":"file:///a"}"#,
            ),
            (Change::Missed, r#"{"kind":"missed"}"#),
        ];
        for (change, json) in cases {
            assert_eq!(serde_json::to_string(&change).unwrap(), json);
            assert_eq!(serde_json::from_str::<Change>(json).unwrap(), change);
        }
        assert!(serde_json::from_str::<Change>(r#"{"kind":"other"}"#).is_err());
        assert!(serde_json::from_str::<Change>(r#"{"kind":"resourceUpdated"}"#).is_err());
    }
}
