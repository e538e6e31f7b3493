//! [`UseStores`]: how a backend crate hands its session store, event store
//! and bus to a server's configuration without depending on the transport.

use std::sync::Arc;

use crate::{EventStore, MessageBus, SessionStore};

/// A server configuration that takes the three stores of the Streamable
/// HTTP server: `mcpwire_http::server::Config` implements it, so that a
/// backend (`mcpwire-redis`'s `RedisStores::apply`) can install its stores
/// in one call while depending on this crate only.
pub trait UseStores: Sized {
    /// The configuration with `sessions`, `events` and `bus` in place of
    /// its stores.
    #[must_use]
    fn use_stores(
        self,
        sessions: Arc<dyn SessionStore>,
        events: Arc<dyn EventStore>,
        bus: Arc<dyn MessageBus>,
    ) -> Self;
}
