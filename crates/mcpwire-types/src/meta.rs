//! `_meta`: the open map every params, result and most objects may carry,
//! and the keys the protocol itself reserves in it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Keys reserved by the protocol inside `_meta`.
pub mod keys {
    /// The progress token a request asks progress notifications for.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// 2026-07-28: the revision a request speaks.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// 2026-07-28: the capabilities of the client sending a request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// 2026-07-28: the identity of the client sending a request.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// 2026-07-28: the identity of the server, on results.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// 2026-07-28: the minimum log level for `notifications/message` caused by a request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// 2026-07-28: the subscription a notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// 2025-11-25: the task a message relates to.
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
    /// W3C trace context (SEP-414).
    pub const TRACEPARENT: &str = "traceparent";
    /// W3C trace state (SEP-414).
    pub const TRACESTATE: &str = "tracestate";
    /// W3C baggage (SEP-414).
    pub const BAGGAGE: &str = "baggage";
}

/// The `_meta` object: an open map from keys to arbitrary JSON.
///
/// Unknown keys are kept as they are, so a value read from a peer and sent
/// back carries its `_meta` unchanged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Meta(pub Map<String, Value>);

impl Meta {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value under `key`, if any.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// The value under `key` read as `T`; `None` when absent or of another shape.
    pub fn get_as<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.0.get(key).and_then(|v| T::deserialize(v).ok())
    }

    /// The string under `key`, if it is a string.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// Sets `key` to `value`, replacing what was there.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) -> &mut Self {
        self.0.insert(key.into(), value.into());
        self
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.0.remove(key)
    }
}

impl From<Map<String, Value>> for Meta {
    fn from(map: Map<String, Value>) -> Self {
        Self(map)
    }
}

/// Fields a peer sent that this model does not name. They are kept so that a
/// value read and written again loses nothing.
pub type Extra = Map<String, Value>;
