//! Redis-backed state for mcpwire's Streamable HTTP server, so that one
//! MCP service runs across several server instances behind a load
//! balancer: every POST and GET may land on any instance.
//!
//! [`RedisStores::connect`] opens one reconnecting connection and builds
//! the three stores of `mcpwire_http::server` on it:
//!
//! * [`RedisSessionStore`]: session records (hashes with idle TTLs);
//! * [`RedisEventStore`]: every stream's events for `Last-Event-ID`
//!   resumption (lists with bounded retention and TTLs);
//! * [`RedisBus`]: routes each POST to the instance running its session's
//!   runtime, and each event to the instance holding its stream's
//!   connection (pub/sub; see its docs for the delivery guarantees);
//! * [`RedisTaskStore`]: mcpwire-server's task records (JSON strings with
//!   TTLs, updated by compare-and-set), so any instance serves any task.
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

mod bus;
mod connection;
mod events;
mod sessions;
mod tasks;
mod wire;

use std::sync::Arc;

use mcpwire_http::server::{Config, StoreError};

pub use bus::RedisBus;
pub use connection::RedisConfig;
pub use events::RedisEventStore;
pub use sessions::RedisSessionStore;
pub use tasks::RedisTaskStore;

/// The three stores of one server instance, on one Redis connection.
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
}

impl RedisStores {
    /// Connects to Redis and starts this instance's bus listener; fails
    /// when Redis does not answer within the command timeout.
    pub async fn connect(config: RedisConfig) -> Result<Self, StoreError> {
        let redis = connection::Redis::connect(config).await?;
        let bus = RedisBus::start(redis.clone()).await?;
        Ok(Self {
            sessions: Arc::new(RedisSessionStore::new(redis.clone())),
            events: Arc::new(RedisEventStore::new(redis.clone())),
            tasks: Arc::new(RedisTaskStore::new(redis)),
            bus: Arc::new(bus),
        })
    }

    /// `config` with these stores as its session store, event store and
    /// message bus.
    pub fn apply(&self, config: Config) -> Config {
        config
            .session_store(self.sessions.clone())
            .event_store(self.events.clone())
            .message_bus(self.bus.clone())
    }
}
