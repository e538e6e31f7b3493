//! Redis-backed state for mcpwire's Streamable HTTP server, so that one
//! MCP service runs across several server instances behind a load
//! balancer: every POST and GET may land on any instance.
//!
//! [`RedisStores::connect`] opens one reconnecting connection and builds
//! on it the stores of `mcpwire-store`'s traits: the three of the
//! Streamable HTTP server (`mcpwire_http::server`) and the shared state of
//! the server runtime (`mcpwire_server`). This crate depends on
//! `mcpwire-store` alone, neither on the transport nor on the runtime:
//!
//! * [`RedisSessionStore`]: session records (hashes with idle TTLs);
//! * [`RedisEventStore`]: every stream's events for `Last-Event-ID`
//!   resumption (lists with bounded retention and TTLs);
//! * [`RedisBus`]: routes each POST to the instance running its session's
//!   runtime, and each event to the instance holding its stream's
//!   connection (pub/sub; see its docs for the delivery guarantees);
//! * [`RedisTaskStore`]: mcpwire-server's task records (JSON strings with
//!   TTLs, updated by compare-and-set), so any instance serves any task;
//! * [`RedisChangeFeed`]: mcpwire-server's catalog changes (list changes,
//!   resource updates) between instances, so that they reach sessions and
//!   `subscriptions/listen` requests wherever they run;
//! * [`RedisKeyRing`] ([`RedisStores::key_ring`]): the keys sealing
//!   `requestState` (2026-07-28), created once, rotated by any instance,
//!   followed by all.
//!
//! ```no_run
//! use mcpwire_http::server::{Config, StreamableHttp};
//! use mcpwire_redis::{RedisConfig, RedisStores};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let stores = RedisStores::connect(RedisConfig::new("redis://127.0.0.1:6379/")).await?;
//! let config = stores.apply(Config::default());
//! let service = StreamableHttp::new(config, |_transport| { /* spawn a runtime */ });
//! # drop(service);
//! # Ok(())
//! # }
//! ```
//!
//! Every command is bounded by [`RedisConfig::command_timeout`]: when Redis
//! is unreachable, requests fail promptly (the server answers 500) and the
//! connection is re-established in the background. Every key carries a
//! TTL. docs/scale-out.md describes the keys, TTLs and failure modes.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod bus;
mod changes;
mod connection;
mod events;
mod keyring;
mod pubsub;
mod sessions;
mod tasks;
mod wire;

use std::sync::Arc;

use mcpwire_store::{StoreError, UseStores};

pub use bus::RedisBus;
pub use changes::RedisChangeFeed;
pub use connection::RedisConfig;
pub use events::RedisEventStore;
pub use keyring::RedisKeyRing;
pub use sessions::RedisSessionStore;
pub use tasks::RedisTaskStore;

/// The shared state of one server instance, on one Redis connection (and
/// a pub/sub connection each for the bus, the change feed and, once asked
/// for, the key ring).
#[derive(Debug, Clone)]
pub struct RedisStores {
    /// Session records.
    pub sessions: Arc<RedisSessionStore>,
    /// Stream event logs.
    pub events: Arc<RedisEventStore>,
    /// The message bus of this instance.
    pub bus: Arc<RedisBus>,
    /// Task records, for `mcpwire_server::tasks` (give it to the server's
    /// task configuration so that any instance can serve any task).
    pub tasks: Arc<RedisTaskStore>,
    /// Catalog changes between instances, for `mcpwire_server` (give it to
    /// the server with `ServerBuilder::change_feed`, so that list changes
    /// and resource updates reach sessions and `subscriptions/listen`
    /// requests on every instance).
    pub changes: Arc<RedisChangeFeed>,
    redis: connection::Redis,
    /// The key ring, once [`key_ring`](Self::key_ring) started it.
    key_ring: Arc<tokio::sync::OnceCell<Arc<RedisKeyRing>>>,
}

impl RedisStores {
    /// Connects to Redis and starts this instance's bus listener; fails
    /// when Redis does not answer within the command timeout.
    pub async fn connect(config: RedisConfig) -> Result<Self, StoreError> {
        let redis = connection::Redis::connect(config).await?;
        let bus = RedisBus::start(redis.clone()).await?;
        let changes = RedisChangeFeed::start(redis.clone(), bus.instance().to_owned()).await?;
        Ok(Self {
            changes: Arc::new(changes),
            key_ring: Arc::default(),
            redis: redis.clone(),
            sessions: Arc::new(RedisSessionStore::new(redis.clone())),
            events: Arc::new(RedisEventStore::new(redis.clone())),
            tasks: Arc::new(RedisTaskStore::new(redis)),
            bus: Arc::new(bus),
        })
    }

    /// The keys sealing `requestState` (2026-07-28), shared by every
    /// instance through Redis: give `ring()` to the server with
    /// `ServerBuilder::request_state_keys`. Started by the first call (it
    /// creates the first key in Redis if there is none, so only services
    /// that use multi round-trip requests store keys); later calls, on any
    /// clone of these stores, answer the same ring, which follows
    /// rotations for as long as the stores live.
    pub async fn key_ring(&self) -> Result<Arc<RedisKeyRing>, StoreError> {
        self.key_ring
            .get_or_try_init(|| async {
                RedisKeyRing::start(self.redis.clone()).await.map(Arc::new)
            })
            .await
            .cloned()
    }

    /// `config` (`mcpwire_http::server::Config`) with these stores as its
    /// session store, event store and message bus.
    pub fn apply<C: UseStores>(&self, config: C) -> C {
        config.use_stores(self.sessions.clone(), self.events.clone(), self.bus.clone())
    }
}

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
