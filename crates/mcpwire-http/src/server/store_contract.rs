//! The contract every `SessionStore`, `EventStore` and `MessageBus` keeps:
//! `mcpwire_store::store_contract`, re-exported under its old path, with
//! the session store's expiry check on tokio's clock.
//!
//! ```
//! use mcpwire_http::server::{MemoryEventStore, store_contract};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // In a `#[tokio::test]`, with your own store in place of this one:
//! let store = MemoryEventStore::new();
//! store_contract::event_store_replays_only_the_named_stream_after_the_given_event(&store).await;
//! # }
//! ```

use std::time::Duration;

pub use mcpwire_store::store_contract::*;

use super::SessionStore;

/// Checks that sessions expire after `idle` without a touch, that a touch
/// refreshes the deadline, that an expired session reads as absent (no
/// record, no new stream numbers) but is counted until `take_expired`
/// hands it over exactly once, and that stream numbers count from 1
/// (`mcpwire_store::store_contract`'s check, waiting with
/// `tokio::time::sleep`).
///
/// The check sleeps for about 2.3 times `idle` in all: a store on tokio's
/// clock can be tested with paused time and a long `idle`; a store on
/// another clock needs real time and an `idle` long enough for its
/// resolution (a few hundred milliseconds for Redis). The store must be
/// empty.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn session_store_expires_idle_sessions_and_touch_refreshes(
    store: &dyn SessionStore,
    idle: Duration,
) {
    mcpwire_store::store_contract::session_store_expires_idle_sessions_and_touch_refreshes(
        store,
        idle,
        tokio::time::sleep,
    )
    .await;
}
