//! `RedisKeyRing`: the keys that seal the `requestState` of multi
//! round-trip requests (2026-07-28), shared by every instance through
//! Redis, so that a round started on one instance finishes on any other.
//!
//! Keys (`P` is the configured prefix):
//!
//! * `P:statekeys`, a list of raw 32-byte keys, newest first: the first
//!   seals, all of them (the current and at most
//!   `mcpwire_server::MAX_PREVIOUS_KEYS` previous) open. No TTL: the keys
//!   must outlive every instance.
//! * `P:statekeys:rotated`, a channel on which a rotation is announced.
//!
//! The first instance to start a ring creates the list with one random key (one
//! Lua script: create unless present, then read, so concurrent starts
//! agree); later ones read it. [`RedisKeyRing::rotate`], called on any
//! instance (or by an operator's tool), pushes a new key, drops the
//! oldest beyond the limit and announces it; every instance re-reads the
//! list on the announcement, after resubscribing, and every
//! [`RedisKeyRing::REFRESH`] in any case, so that an instance follows a
//! rotation within that bound even if the announcement was lost. Should
//! Redis lose the list (restarted without persistence), the next instance
//! to re-read it writes back the keys it holds, so rounds in flight
//! survive.
//!
//! The keys are secrets: whoever can read `P:statekeys` can forge any
//! `requestState`, and whoever can write it can make instances seal with a
//! key of their choosing. Protect Redis accordingly (authentication, TLS,
//! a private network).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcpwire_store::StoreError;
use mcpwire_store::{MAX_PREVIOUS_KEYS, StateKeyRing};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::connection::{Redis, script};
use crate::pubsub::{self, Subscriber};

/// Creates `KEYS[1]` from `ARGV[2..]` unless it exists, then answers its
/// first `ARGV[1] + 1` entries.
const LOAD: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 and #ARGV > 1 then
  for i = 2, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
end
return redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]))
";

/// Pushes the key `ARGV[2]` in front of `KEYS[1]`, keeps its first
/// `ARGV[1] + 1` entries, announces the rotation on the channel `ARGV[3]`
/// and answers the list.
const ROTATE: &str = r"
redis.call('LPUSH', KEYS[1], ARGV[2])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1]))
redis.call('PUBLISH', ARGV[3], 'rotated')
return redis.call('LRANGE', KEYS[1], 0, -1)
";

/// One key, as stored.
type Key = [u8; 32];

/// A fresh key from the operating system's CSPRNG.
fn random_key() -> Result<Key, StoreError> {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key)
        .map_err(|error| StoreError::new(format!("no randomness for a state key: {error}")))?;
    Ok(key)
}

/// State shared by the ring and its background tasks.
struct Shared {
    redis: Redis,
    ring: StateKeyRing,
    /// The keys last read from Redis, newest first.
    known: Mutex<Vec<Key>>,
    /// Wakes the refresher (a rotation was announced).
    wake: Notify,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys never appear in logs.
        f.debug_struct("Shared")
            .field("ring", &self.ring)
            .finish_non_exhaustive()
    }
}

impl Subscriber for Shared {
    fn message(&self, _payload: &[u8]) {
        self.wake.notify_one();
    }

    fn resubscribed(&self) {
        // A rotation may have been announced meanwhile.
        self.wake.notify_one();
    }
}

impl Shared {
    fn list_key(&self) -> String {
        self.redis.key(&["statekeys"])
    }

    /// Makes `stored` (newest first) the ring's keys; an error when Redis
    /// answered no usable key.
    fn apply(&self, stored: Vec<Vec<u8>>) -> Result<(), StoreError> {
        let keys: Vec<Key> = stored
            .into_iter()
            .filter_map(|key| Key::try_from(key.as_slice()).ok())
            .collect();
        let Some((current, previous)) = keys.split_first() else {
            return Err(StoreError::new(
                "redis: no usable requestState key is stored",
            ));
        };
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        if *known != keys {
            self.ring.replace(*current, previous);
            *known = keys;
        }
        Ok(())
    }

    /// Reads the keys, writing `seed` (newest first) when none are stored.
    async fn load(&self, seed: &[Key]) -> Result<(), StoreError> {
        let mut invocation = script(LOAD).prepare_invoke();
        invocation.key(self.list_key()).arg(MAX_PREVIOUS_KEYS);
        for key in seed {
            invocation.arg(key.as_slice());
        }
        let stored: Vec<Vec<u8>> = self
            .redis
            .eval("reading the requestState keys", &invocation)
            .await?;
        self.apply(stored)
    }

    /// Re-reads the keys, restoring the ones held here if Redis lost them.
    async fn refresh(&self) -> Result<(), StoreError> {
        let seed = self
            .known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        self.load(&seed).await
    }
}

/// The `requestState` keys of every instance, kept in Redis (see the
/// module docs for what is stored and how rotations spread). Get it with
/// `RedisStores::key_ring` and give [`ring`](Self::ring) to the server
/// with `ServerBuilder::request_state_keys`; the ring follows Redis by
/// itself. Dropping the last handle stops the following (the server's
/// ring keeps the keys it had).
#[derive(Debug)]
pub struct RedisKeyRing {
    shared: Arc<Shared>,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for RedisKeyRing {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl RedisKeyRing {
    /// How often every instance re-reads the keys even without an
    /// announcement: the bound on how long an instance may still seal
    /// with a key rotated out elsewhere when an announcement is lost.
    pub const REFRESH: Duration = Duration::from_secs(10);

    /// Loads the keys (creating the first one if none is stored) and
    /// starts following rotations: the ring holds the shared keys when
    /// this returns.
    pub(crate) async fn start(redis: Redis) -> Result<Self, StoreError> {
        let first = random_key()?;
        let shared = Arc::new(Shared {
            redis: redis.clone(),
            ring: StateKeyRing::new(first),
            known: Mutex::new(Vec::new()),
            wake: Notify::new(),
        });
        shared.load(&[first]).await?;
        let channel = redis.key(&["statekeys", "rotated"]);
        let listener = pubsub::follow(&redis, channel, Arc::downgrade(&shared)).await?;
        let refresher = tokio::spawn(follow_rotations(Arc::downgrade(&shared), Self::REFRESH));
        Ok(Self {
            shared,
            tasks: vec![listener, refresher],
        })
    }

    /// The ring to give the server (`ServerBuilder::request_state_keys`):
    /// it always holds the keys last read from Redis.
    pub fn ring(&self) -> StateKeyRing {
        self.shared.ring.clone()
    }

    /// Rotates the keys for every instance: a new random key seals from
    /// now on; the current one and the newest older ones, up to
    /// `MAX_PREVIOUS_KEYS` in all, still open. This instance uses the new key when this returns; the
    /// others within [`REFRESH`](Self::REFRESH) at most, usually at once.
    pub async fn rotate(&self) -> Result<(), StoreError> {
        let next = random_key()?;
        let channel = self.shared.redis.key(&["statekeys", "rotated"]);
        let mut invocation = script(ROTATE).prepare_invoke();
        invocation
            .key(self.shared.list_key())
            .arg(MAX_PREVIOUS_KEYS)
            .arg(next.as_slice())
            .arg(channel);
        let stored: Vec<Vec<u8>> = self
            .shared
            .redis
            .eval("rotating the requestState keys", &invocation)
            .await?;
        self.shared.apply(stored)
    }

    /// Re-reads the keys from Redis now.
    pub async fn refresh(&self) -> Result<(), StoreError> {
        self.shared.refresh().await
    }
}

/// Re-reads the keys when a rotation is announced and every `every`.
async fn follow_rotations(shared: std::sync::Weak<Shared>, every: Duration) {
    let mut interval = tokio::time::interval(every);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is immediate; the keys were just loaded.
    interval.tick().await;
    loop {
        let Some(strong) = shared.upgrade() else {
            return;
        };
        tokio::select! {
            () = strong.wake.notified() => {}
            _ = interval.tick() => {}
        }
        if let Err(error) = strong.refresh().await {
            tracing::warn!(%error, "could not re-read the requestState keys");
        }
    }
}
