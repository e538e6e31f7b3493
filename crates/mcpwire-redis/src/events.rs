//! `RedisEventStore`: the event log of every stream in Redis lists, with
//! the same bounded retention as the in-memory store (by count per stream
//! and per session, by bytes per session, oldest dropped first) and a TTL
//! on every key.
//!
//! Keys of session `ID` (`P` is the configured prefix):
//!
//! * `P:ev:ID:meta`, a hash: `o:N` marks stream `N` open, `f:N` finished,
//!   `d:N` its delivery mark, `b:N` the bytes of its events; `total`
//!   counts the session's events and `bytes` their bytes.
//! * `P:ev:ID:order`, a list of stream numbers, one per retained event in
//!   append order: its head names the stream holding the session's oldest
//!   event, which is what per-session retention drops.
//! * `P:ev:ID:s:N`, a list of stream `N`'s events as `seq:json`.
//! * `P:ev:ID:done`, a list of the streams delivered whole
//!   (`EventStore::completed`), oldest first: only the latest
//!   [`KEEP_COMPLETED`] stay replayable, as in the in-memory store, for a
//!   client whose connection broke at their very end.
//!
//! Each operation is one Lua script, so it is atomic across instances.
//! Every write refreshes the TTL of the keys it touches to the configured
//! event TTL: a session that nobody removes (its instance died) vanishes
//! by itself.

use bytes::Bytes;
use mcpwire_store::{EventStore, Replay, SessionId, StoreFuture, StoredEvent, StreamKey};

use crate::connection::{Redis, millis, script};

/// `KEYS[1]` meta, `KEYS[2]` order, `KEYS[3]` done; `ARGV[1]` the stream
/// list prefix.
/// Drops a session's log, then (when `ARGV[2]` is `1`) starts a new one
/// with its standalone stream 0; `ARGV[3]` the TTL.
const RESET_SESSION: &str = r"
local fields = redis.call('HKEYS', KEYS[1])
for _, field in ipairs(fields) do
  if string.sub(field, 1, 2) == 'o:' then
    redis.call('DEL', ARGV[1] .. string.sub(field, 3))
  end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'o:0', 1, 'total', 0, 'bytes', 0)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
";

/// Opens stream `ARGV[2]` of a known session; `ARGV[3]` the TTL.
const OPEN: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSETNX', KEYS[1], 'o:' .. ARGV[2], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
";

// The stream scripts below are put together from these pieces (macros, so
// that `concat!` can join them at compile time): appending the last event
// of a stream and finishing it is one script, one round trip.

/// Leaves the script (0) unless stream `ARGV[2]` is open; names it `n`.
macro_rules! lua_stream_is_open {
    () => {
        r"
local n = ARGV[2]
if redis.call('HEXISTS', KEYS[1], 'o:' .. n) == 0 then return 0 end
"
    };
}

/// Opens stream `ARGV[2]` unless it is open, and names it `n`; leaves the
/// script (0) when the session is unknown. An append opens the stream it
/// writes to, so that a stream's first event costs no `OPEN` of its own.
macro_rules! lua_open_stream_now {
    () => {
        r"
local n = ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[1], 'o:' .. n, 1) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
end
"
    };
}

/// Appends `ARGV[3]` to stream `n` (see [`APPEND`]).
macro_rules! lua_append_event {
    () => {
        r"
local size = #ARGV[3]
if size <= tonumber(ARGV[7]) then
  local list = ARGV[1] .. n
  redis.call('RPUSH', list, ARGV[3])
  redis.call('RPUSH', KEYS[2], n)
  redis.call('HINCRBY', KEYS[1], 'b:' .. n, size)
  local total = redis.call('HINCRBY', KEYS[1], 'total', 1)
  local bytes = redis.call('HINCRBY', KEYS[1], 'bytes', size)
  if redis.call('LLEN', list) > tonumber(ARGV[4]) then
    local dropped = redis.call('LPOP', list)
    redis.call('LREM', KEYS[2], 1, n)
    total = redis.call('HINCRBY', KEYS[1], 'total', -1)
    redis.call('HINCRBY', KEYS[1], 'b:' .. n, -#dropped)
    bytes = redis.call('HINCRBY', KEYS[1], 'bytes', -#dropped)
  end
  local rounds = 0
  while (total > tonumber(ARGV[5]) or bytes > tonumber(ARGV[7])) and rounds < 10000 do
    rounds = rounds + 1
    local oldest = redis.call('LPOP', KEYS[2])
    if not oldest then break end
    local olist = ARGV[1] .. oldest
    local dropped = redis.call('LPOP', olist)
    total = redis.call('HINCRBY', KEYS[1], 'total', -1)
    if dropped then
      redis.call('HINCRBY', KEYS[1], 'b:' .. oldest, -#dropped)
      bytes = redis.call('HINCRBY', KEYS[1], 'bytes', -#dropped)
    end
    if redis.call('HEXISTS', KEYS[1], 'f:' .. oldest) == 1 and redis.call('LLEN', olist) == 0 then
      redis.call('HDEL', KEYS[1], 'o:' .. oldest, 'f:' .. oldest, 'd:' .. oldest, 'b:' .. oldest)
    end
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
  redis.call('PEXPIRE', list, ARGV[6])
end
"
    };
}

/// Marks stream `n` finished (see [`FINISH`]).
macro_rules! lua_finish_stream {
    () => {
        r"
if redis.call('LLEN', ARGV[1] .. n) == 0 then
  redis.call('HDEL', KEYS[1], 'o:' .. n, 'f:' .. n, 'd:' .. n, 'b:' .. n)
  redis.call('DEL', ARGV[1] .. n)
else
  redis.call('HSET', KEYS[1], 'f:' .. n, 1)
end
"
    };
}

/// Appends `ARGV[3]` to stream `ARGV[2]` (opening it if it never was),
/// keeping at most `ARGV[4]` events in it, and `ARGV[5]` events and
/// `ARGV[7]` bytes in the session; `ARGV[6]` the TTL. An event larger than
/// the session's bytes is not kept: it would push out everything else and
/// then itself.
const APPEND: &str = concat!(lua_open_stream_now!(), lua_append_event!(), "return 1\n");

/// Marks stream `ARGV[2]` finished, dropping it at once when it is empty.
const FINISH: &str = concat!(lua_stream_is_open!(), lua_finish_stream!(), "return 1\n");

/// [`APPEND`] then [`FINISH`], in one script: the answer that ends a POST
/// stream costs one round trip.
const APPEND_LAST: &str = concat!(
    lua_open_stream_now!(),
    lua_append_event!(),
    lua_finish_stream!(),
    "return 1\n"
);

/// `{finished, delivered, events}` of stream `ARGV[2]`, or nil.
const REPLAY: &str = r"
local n = ARGV[2]
if redis.call('HEXISTS', KEYS[1], 'o:' .. n) == 0 then return nil end
local finished = redis.call('HEXISTS', KEYS[1], 'f:' .. n)
local delivered = redis.call('HGET', KEYS[1], 'd:' .. n) or '0'
return {finished, delivered, redis.call('LRANGE', ARGV[1] .. n, 0, -1)}
";

/// Raises the delivery mark of stream `ARGV[2]` to `ARGV[3]`.
const MARK_DELIVERED: &str = r"
local n = ARGV[2]
if redis.call('HEXISTS', KEYS[1], 'o:' .. n) == 0 then return 0 end
local current = tonumber(redis.call('HGET', KEYS[1], 'd:' .. n) or '0')
if tonumber(ARGV[3]) > current then
  redis.call('HSET', KEYS[1], 'd:' .. n, ARGV[3])
end
return 1
";

/// Drops stream `ARGV[2]` and its events.
const FORGET: &str = r"
local n = ARGV[2]
if redis.call('HEXISTS', KEYS[1], 'o:' .. n) == 0 then return 0 end
local dropped = redis.call('LLEN', ARGV[1] .. n)
local size = tonumber(redis.call('HGET', KEYS[1], 'b:' .. n) or '0')
redis.call('DEL', ARGV[1] .. n)
redis.call('HDEL', KEYS[1], 'o:' .. n, 'f:' .. n, 'd:' .. n, 'b:' .. n)
redis.call('LREM', KEYS[2], 0, n)
redis.call('HINCRBY', KEYS[1], 'total', -dropped)
redis.call('HINCRBY', KEYS[1], 'bytes', -size)
return 1
";

/// Records that stream `ARGV[2]` was delivered whole, and drops the
/// oldest such streams beyond the latest `ARGV[3]`; `ARGV[4]` the TTL.
/// Ignores a session it does not know.
const COMPLETED: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
local rounds = 0
while redis.call('LLEN', KEYS[3]) > tonumber(ARGV[3]) and rounds < 10000 do
  rounds = rounds + 1
  local n = redis.call('LPOP', KEYS[3])
  if redis.call('HEXISTS', KEYS[1], 'o:' .. n) == 1 then
    local dropped = redis.call('LLEN', ARGV[1] .. n)
    local size = tonumber(redis.call('HGET', KEYS[1], 'b:' .. n) or '0')
    redis.call('DEL', ARGV[1] .. n)
    redis.call('HDEL', KEYS[1], 'o:' .. n, 'f:' .. n, 'd:' .. n, 'b:' .. n)
    redis.call('LREM', KEYS[2], 0, n)
    redis.call('HINCRBY', KEYS[1], 'total', -dropped)
    redis.call('HINCRBY', KEYS[1], 'bytes', -size)
  end
end
return 1
";

/// How many streams delivered whole a session keeps replayable (as the
/// in-memory store does).
const KEEP_COMPLETED: u64 = 4;

/// The most `SCAN` rounds one `count` makes, so that it stays bounded.
const COUNT_ROUNDS: usize = 10_000;

/// Stream event logs in Redis, shared by every instance.
#[derive(Debug, Clone)]
pub struct RedisEventStore {
    redis: Redis,
}

/// The keys and arguments every script of one session starts with.
struct SessionKeys {
    meta: String,
    order: String,
    done: String,
    streams: String,
}

impl RedisEventStore {
    pub(crate) fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn keys(&self, session: &SessionId) -> SessionKeys {
        SessionKeys {
            meta: self.redis.key(&["ev", session.as_str(), "meta"]),
            order: self.redis.key(&["ev", session.as_str(), "order"]),
            done: self.redis.key(&["ev", session.as_str(), "done"]),
            streams: self.redis.key(&["ev", session.as_str(), "s", ""]),
        }
    }

    fn ttl(&self) -> u64 {
        millis(self.redis.config.event_ttl)
    }

    /// Runs one of the per-stream scripts with `extra` arguments after
    /// the stream number.
    /// The arguments of [`APPEND`] and [`APPEND_LAST`] after the stream's:
    /// the event and the bounds.
    fn append_arguments(&self, event: &StoredEvent) -> [Vec<u8>; 5] {
        let config = &self.redis.config;
        [
            encode(event),
            number(config.events_per_stream.max(1) as u64),
            number(config.events_per_session.max(1) as u64),
            number(self.ttl()),
            number(config.event_bytes_per_session as u64),
        ]
    }

    async fn stream_script<T: redis::FromRedisValue>(
        &self,
        what: &str,
        source: &'static str,
        key: &StreamKey,
        extra: &[Vec<u8>],
    ) -> Result<T, mcpwire_store::StoreError> {
        let keys = self.keys(&key.session);
        let script = script(source);
        let mut invocation = script.prepare_invoke();
        invocation
            .key(keys.meta)
            .key(keys.order)
            .key(keys.done)
            .arg(keys.streams)
            .arg(key.stream);
        for argument in extra {
            invocation.arg(argument.as_slice());
        }
        self.redis.eval(what, &invocation).await
    }

    async fn reset(
        &self,
        session: &SessionId,
        start: bool,
    ) -> Result<(), mcpwire_store::StoreError> {
        let keys = self.keys(session);
        let script = script(RESET_SESSION);
        let mut invocation = script.prepare_invoke();
        invocation
            .key(keys.meta)
            .key(keys.order)
            .key(keys.done)
            .arg(keys.streams)
            .arg(if start { "1" } else { "0" })
            .arg(self.ttl());
        self.redis
            .eval::<i64>("resetting a session's events", &invocation)
            .await?;
        Ok(())
    }
}

/// Encodes an event as `seq:json`.
fn encode(event: &StoredEvent) -> Vec<u8> {
    let mut entry = format!("{}:", event.seq).into_bytes();
    entry.extend_from_slice(&event.data);
    entry
}

/// Decodes `seq:json`; `None` for an entry this store did not write.
fn decode(entry: &[u8]) -> Option<StoredEvent> {
    let colon = entry.iter().position(|&byte| byte == b':')?;
    let seq = std::str::from_utf8(entry.get(..colon)?)
        .ok()?
        .parse()
        .ok()?;
    let data = Bytes::copy_from_slice(entry.get(colon + 1..)?);
    Some(StoredEvent { seq, data })
}

fn number(value: u64) -> Vec<u8> {
    value.to_string().into_bytes()
}

impl EventStore for RedisEventStore {
    fn create_session(&self, session: &SessionId) -> StoreFuture<'_, ()> {
        let session = session.clone();
        Box::pin(async move { self.reset(&session, true).await })
    }

    fn open(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            let ttl = number(self.ttl());
            self.stream_script::<i64>("opening a stream", OPEN, &key, &[ttl])
                .await?;
            Ok(())
        })
    }

    fn append(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            let arguments = self.append_arguments(&event);
            self.stream_script::<i64>("appending an event", APPEND, &key, &arguments)
                .await?;
            Ok(())
        })
    }

    fn finish(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            self.stream_script::<i64>("finishing a stream", FINISH, &key, &[])
                .await?;
            Ok(())
        })
    }

    fn append_last(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            let arguments = self.append_arguments(&event);
            self.stream_script::<i64>(
                "appending a stream's last event",
                APPEND_LAST,
                &key,
                &arguments,
            )
            .await?;
            Ok(())
        })
    }

    fn replay(&self, key: &StreamKey, after: Option<u64>) -> StoreFuture<'_, Option<Replay>> {
        let key = key.clone();
        Box::pin(async move {
            let found: Option<(i64, u64, Vec<Vec<u8>>)> = self
                .stream_script("replaying a stream", REPLAY, &key, &[])
                .await?;
            Ok(found.map(|(finished, delivered, entries)| {
                let after = after.unwrap_or(delivered);
                Replay {
                    events: entries
                        .iter()
                        .filter_map(|entry| decode(entry))
                        .filter(|event| event.seq > after)
                        .collect(),
                    finished: finished == 1,
                }
            }))
        })
    }

    fn mark_delivered(&self, key: &StreamKey, seq: u64) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            self.stream_script::<i64>("marking delivery", MARK_DELIVERED, &key, &[number(seq)])
                .await?;
            Ok(())
        })
    }

    fn forget(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            self.stream_script::<i64>("forgetting a stream", FORGET, &key, &[])
                .await?;
            Ok(())
        })
    }

    fn completed(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            let arguments = [number(KEEP_COMPLETED), number(self.ttl())];
            self.stream_script::<i64>("keeping a delivered stream", COMPLETED, &key, &arguments)
                .await?;
            Ok(())
        })
    }

    fn remove_session(&self, session: &SessionId) -> StoreFuture<'_, ()> {
        let session = session.clone();
        Box::pin(async move { self.reset(&session, false).await })
    }

    fn count(&self) -> StoreFuture<'_, usize> {
        // Monitoring only: a SCAN over the session logs, bounded in rounds.
        let pattern = self.redis.key(&["ev", "*", "meta"]);
        Box::pin(async move {
            let mut cursor = 0u64;
            let mut total = 0usize;
            for _ in 0..COUNT_ROUNDS {
                let (next, metas): (u64, Vec<String>) = self
                    .redis
                    .run(
                        "counting events",
                        redis::cmd("SCAN")
                            .arg(cursor)
                            .arg("MATCH")
                            .arg(&pattern)
                            .arg("COUNT")
                            .arg(500),
                    )
                    .await?;
                for meta in metas {
                    let held: Option<usize> = self
                        .redis
                        .run("counting events", redis::cmd("HGET").arg(meta).arg("total"))
                        .await?;
                    total += held.unwrap_or(0);
                }
                cursor = next;
                if cursor == 0 {
                    break;
                }
            }
            Ok(total)
        })
    }
}
