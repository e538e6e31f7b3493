//! The shared Redis connection of the stores: a reconnecting connection
//! manager whose every command is bounded in time, so that a lost Redis
//! turns into a prompt `StoreError` rather than a request that hangs.

use std::time::Duration;

use mcpwire_store::StoreError;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, FromRedisValue, RedisError};

/// How the stores reach Redis and how long they wait for it.
#[derive(Clone, Debug)]
pub struct RedisConfig {
    /// The Redis URL (`redis://127.0.0.1:6379/0`).
    pub url: String,
    /// The prefix of every key and channel, so that several services can
    /// share one Redis (`mcpwire` by default).
    pub prefix: String,
    /// The longest any single Redis command may take, reconnection
    /// included, before the caller gets an error (2 s by default).
    pub command_timeout: Duration,
    /// How long the event log of a session outlives its last write when
    /// nobody removes it (an instance died): 1 hour by default. Keep it
    /// above the server's idle timeout.
    pub event_ttl: Duration,
    /// How long a bus route (which instance runs a session, which holds a
    /// stream's connection) outlives its instance's last heartbeat (30 s
    /// by default; the heartbeat runs at a third of it).
    pub route_ttl: Duration,
    /// Events kept per stream (at least 1).
    pub events_per_stream: usize,
    /// Events kept per session, across its streams (at least 1).
    pub events_per_session: usize,
    /// Bytes of events kept per session, across its streams (4 MiB by
    /// default, as the in-memory store): past it the oldest go, and an
    /// event larger than it is not kept. Redis holds each session's log
    /// until its TTL; how many sessions there are is the server's
    /// `max_sessions` per instance.
    pub event_bytes_per_session: usize,
}

impl RedisConfig {
    /// The defaults, for Redis at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            prefix: "mcpwire".to_owned(),
            command_timeout: Duration::from_secs(2),
            event_ttl: Duration::from_secs(3600),
            route_ttl: Duration::from_secs(30),
            events_per_stream: 1024,
            events_per_session: 4096,
            event_bytes_per_session: 4 * 1024 * 1024,
        }
    }

    /// Sets the key prefix.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sets the bound on each command.
    #[must_use]
    pub fn command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout;
        self
    }

    /// Sets how long an abandoned event log lives.
    #[must_use]
    pub fn event_ttl(mut self, ttl: Duration) -> Self {
        self.event_ttl = ttl;
        self
    }

    /// Sets how long a bus route outlives its instance.
    #[must_use]
    pub fn route_ttl(mut self, ttl: Duration) -> Self {
        self.route_ttl = ttl;
        self
    }

    /// Sets the bytes of events kept per session.
    #[must_use]
    pub fn retention_bytes(mut self, per_session: usize) -> Self {
        self.event_bytes_per_session = per_session;
        self
    }

    /// Sets the event retention, per stream and per session.
    #[must_use]
    pub fn retention(mut self, per_stream: usize, per_session: usize) -> Self {
        self.events_per_stream = per_stream.max(1);
        self.events_per_session = per_session.max(1);
        self
    }
}

/// One multiplexed, automatically reconnecting connection, shared by clones.
#[derive(Clone)]
pub(crate) struct Redis {
    pub(crate) client: Client,
    manager: ConnectionManager,
    pub(crate) config: RedisConfig,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.config.prefix)
            .finish_non_exhaustive()
    }
}

/// A Redis failure as the stores report it.
pub(crate) fn store_error(what: &str, error: RedisError) -> StoreError {
    StoreError::with_source(format!("redis: {what} failed"), error)
}

impl Redis {
    /// Connects (the first connection must succeed within the command
    /// timeout; later losses are repaired in the background).
    pub(crate) async fn connect(config: RedisConfig) -> Result<Self, StoreError> {
        let client = Client::open(config.url.as_str())
            .map_err(|error| store_error("parsing the URL", error))?;
        // Bounded everywhere: a connection attempt, a response, and the
        // retries of one reconnection (with a capped backoff).
        let manager_config = ConnectionManagerConfig::new()
            .set_connection_timeout(config.command_timeout)
            .set_response_timeout(config.command_timeout)
            .set_number_of_retries(2)
            .set_exponent_base(2)
            .set_factor(50)
            .set_max_delay(500);
        let manager = tokio::time::timeout(
            config.command_timeout,
            ConnectionManager::new_with_config(client.clone(), manager_config),
        )
        .await
        .map_err(|_| StoreError::new("redis: connecting timed out"))?
        .map_err(|error| store_error("connecting", error))?;
        Ok(Self {
            client,
            manager,
            config,
        })
    }

    /// The key or channel `parts` under the configured prefix.
    pub(crate) fn key(&self, parts: &[&str]) -> String {
        let mut key = self.config.prefix.clone();
        for part in parts {
            key.push(':');
            key.push_str(part);
        }
        key
    }

    /// Runs `attempt` on the connection, bounded by the command timeout
    /// in all. A failure of the connection itself (refused, dropped, I/O)
    /// is retried up to twice after a short pause while the manager
    /// reconnects; any other error, and the timeout, go to the caller.
    async fn bounded<T, F, Fut>(&self, what: &str, attempt: F) -> Result<T, StoreError>
    where
        F: Fn(ConnectionManager) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        let tries = async {
            let mut failures = 0u32;
            loop {
                match attempt(self.manager.clone()).await {
                    Ok(value) => return Ok(value),
                    Err(error)
                        if failures < 2
                            && (error.is_connection_dropped()
                                || error.is_connection_refusal()
                                || error.is_io_error()) =>
                    {
                        failures += 1;
                        tokio::time::sleep(Duration::from_millis(50) * failures).await;
                    }
                    Err(error) => return Err(store_error(what, error)),
                }
            }
        };
        match tokio::time::timeout(self.config.command_timeout, tries).await {
            Ok(result) => result,
            Err(_) => Err(StoreError::new(format!("redis: {what} timed out"))),
        }
    }

    /// Runs one command (see `bounded`).
    pub(crate) async fn run<T: FromRedisValue>(
        &self,
        what: &str,
        command: &redis::Cmd,
    ) -> Result<T, StoreError> {
        self.bounded(what, |mut connection| async move {
            command.query_async(&mut connection).await
        })
        .await
    }

    /// Runs a Lua script (see `bounded`).
    pub(crate) async fn eval<T: FromRedisValue>(
        &self,
        what: &str,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> Result<T, StoreError> {
        self.bounded(what, |mut connection| async move {
            invocation.invoke_async(&mut connection).await
        })
        .await
    }

    /// Runs a pipeline (see `bounded`).
    pub(crate) async fn pipe<T: FromRedisValue>(
        &self,
        what: &str,
        pipeline: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        self.bounded(what, |mut connection| async move {
            pipeline.query_async(&mut connection).await
        })
        .await
    }
}

/// Milliseconds in `duration`, at least 1 (Redis refuses a zero expiry).
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// The script of `source`, hashed once per process: `Script::new` computes
/// the SHA-1 that `EVALSHA` sends, which need not be redone per command.
/// Sources are the crate's constants, so the cache holds a fixed handful.
pub(crate) fn script(source: &'static str) -> &'static redis::Script {
    static SCRIPTS: std::sync::Mutex<Vec<(&'static str, &'static redis::Script)>> =
        std::sync::Mutex::new(Vec::new());
    let mut scripts = SCRIPTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, script)) = scripts.iter().find(|(known, _)| *known == source) {
        return script;
    }
    let script: &'static redis::Script = Box::leak(Box::new(redis::Script::new(source)));
    scripts.push((source, script));
    script
}
