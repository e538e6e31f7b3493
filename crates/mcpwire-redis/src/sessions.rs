//! `RedisSessionStore`: session records as Redis hashes with native idle
//! TTLs, plus one sorted set of idle deadlines so that any instance can
//! sweep the sessions that expired and free what they held.
//!
//! Keys (`P` is the configured prefix):
//!
//! * `P:session:ID`, a hash: `v` the negotiated revision, `n` the last
//!   stream number handed out, `o` the owner (the identity that created the
//!   session, when it had one: every lookup returns it, and the server
//!   answers another identity as it answers an unknown id); `PEXPIRE`d to
//!   the idle timeout on every touch.
//! * `P:sessions`, a sorted set: each session id scored by its idle
//!   deadline in Redis time (ms); entries leave it on `remove` and when
//!   swept by `take_expired`; its TTL is kept at twice the longest idle
//!   timeout written, so it vanishes when no instance is left.
//!
//! Deadlines are computed from Redis's own clock (`TIME` inside the
//! scripts), so instances with skewed clocks agree on them.

use std::time::Duration;

use mcpwire_store::{SessionId, SessionRecord, SessionStore, StoreFuture};
use mcpwire_types::ProtocolVersion;

use crate::connection::{Redis, millis, script};

/// The Lua lines that refresh a record's idle deadline, shared by the
/// scripts that create or touch one: `KEYS[1]` the hash, `KEYS[2]` the
/// deadline set, `ARGV[1]` the id, `ARGV[2]` the idle timeout (ms). The
/// hash expires with its deadline, the set keeps its entry at the same
/// deadline in Redis time, and the set itself outlives the longest idle
/// timeout written.
macro_rules! refresh {
    () => {
        r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
local keep = tonumber(ARGV[2]) * 2
if redis.call('PTTL', KEYS[2]) < keep then redis.call('PEXPIRE', KEYS[2], keep) end
"
    };
}

/// Creates a record: `KEYS[1]` the hash, `KEYS[2]` the deadline set,
/// `ARGV[1]` the id, `ARGV[2]` the idle timeout (ms).
const CREATE: &str = concat!(
    r"
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'n', 0)
",
    refresh!(),
    r"
return 1
"
);

/// Refreshes a live record and returns `{revision or '', owner or ''}`
/// (the owner's first character is `=` when there is one, so that an empty
/// owner and none differ), or nil: same keys and arguments as `CREATE`.
const TOUCH: &str = concat!(
    r"
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
",
    refresh!(),
    r"
local v = redis.call('HGET', KEYS[1], 'v')
if not v then v = '' end
local o = redis.call('HGET', KEYS[1], 'o')
if not o then o = '' else o = '=' .. o end
return {v, o}
"
);

/// Sets a field of a live record only: `KEYS[1]`, `ARGV[1]` field,
/// `ARGV[2]` value.
const SET_IF_LIVE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
";

/// Allocates the next stream number of a live record: `KEYS[1]`.
const NEXT_STREAM: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
return redis.call('HINCRBY', KEYS[1], 'n', 1)
";

/// `TOUCH` and `NEXT_STREAM` at once for a caller, `ARGV[3]` (`=` and its
/// owner key, or empty without one): nil when the record is gone or bound
/// to another identity (then neither refreshed nor numbered), otherwise
/// `{revision or '', owner as in TOUCH, stream number}`.
const TOUCH_AND_OPEN: &str = concat!(
    r"
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local o = redis.call('HGET', KEYS[1], 'o')
if o then
  o = '=' .. o
  if o ~= ARGV[3] then return nil end
else
  o = ''
end
",
    refresh!(),
    r"
local v = redis.call('HGET', KEYS[1], 'v')
if not v then v = '' end
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
return {v, o, tostring(n)}
"
);

/// Removes the deadline entries that passed and returns their ids, also
/// deleting any hash left behind: `KEYS[1]` the set, `ARGV[1]` the hash
/// key prefix, `ARGV[2]` the most to take.
const TAKE_EXPIRED: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('DEL', ARGV[1] .. id)
end
return ids
";

/// The most expired sessions one sweep takes, so that a sweep after a long
/// outage stays a bounded script; the next sweep takes the rest.
const SWEEP_BATCH: usize = 1000;

/// Session records in Redis, shared by every instance.
#[derive(Debug, Clone)]
pub struct RedisSessionStore {
    redis: Redis,
}

impl RedisSessionStore {
    pub(crate) fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn record_key(&self, id: &SessionId) -> String {
        self.redis.key(&["session", id.as_str()])
    }

    fn deadlines_key(&self) -> String {
        self.redis.key(&["sessions"])
    }
}

/// Reads a stored revision name; an unknown one (written by a newer
/// instance) reads as not yet negotiated.
fn parse_version(text: &str) -> Option<ProtocolVersion> {
    ProtocolVersion::parse(text).ok()
}

/// The record of `id` from its stored revision and owner fields.
fn record_of(id: SessionId, version: Option<&str>, owner: Option<String>) -> SessionRecord {
    SessionRecord::new(id, version.and_then(parse_version)).owned_by(owner)
}

impl SessionStore for RedisSessionStore {
    fn create(&self, id: &SessionId, idle: Duration) -> StoreFuture<'_, ()> {
        let (record, deadlines) = (self.record_key(id), self.deadlines_key());
        let id = id.clone();
        Box::pin(async move {
            let script = script(CREATE);
            let mut invocation = script.prepare_invoke();
            invocation
                .key(record)
                .key(deadlines)
                .arg(id.as_str())
                .arg(millis(idle));
            self.redis
                .eval::<i64>("creating a session", &invocation)
                .await?;
            Ok(())
        })
    }

    fn touch(&self, id: &SessionId, idle: Duration) -> StoreFuture<'_, Option<SessionRecord>> {
        let (record, deadlines) = (self.record_key(id), self.deadlines_key());
        let id = id.clone();
        Box::pin(async move {
            let script = script(TOUCH);
            let mut invocation = script.prepare_invoke();
            invocation
                .key(record)
                .key(deadlines)
                .arg(id.as_str())
                .arg(millis(idle));
            let found: Option<Vec<String>> =
                self.redis.eval("touching a session", &invocation).await?;
            Ok(found.map(|fields| {
                let owner = fields
                    .get(1)
                    .and_then(|text| text.strip_prefix('='))
                    .map(str::to_owned);
                record_of(id, fields.first().map(String::as_str), owner)
            }))
        })
    }

    fn get(&self, id: &SessionId) -> StoreFuture<'_, Option<SessionRecord>> {
        let record = self.record_key(id);
        let id = id.clone();
        Box::pin(async move {
            let (stream, version, owner): (Option<String>, Option<String>, Option<String>) = self
                .redis
                .run(
                    "reading a session",
                    redis::cmd("HMGET").arg(record).arg("n").arg("v").arg("o"),
                )
                .await?;
            Ok(stream.map(|_| record_of(id, version.as_deref(), owner)))
        })
    }

    fn set_version(&self, id: &SessionId, version: ProtocolVersion) -> StoreFuture<'_, ()> {
        let record = self.record_key(id);
        Box::pin(async move {
            let script = script(SET_IF_LIVE);
            let mut invocation = script.prepare_invoke();
            invocation.key(record).arg("v").arg(version.as_str());
            self.redis
                .eval::<i64>("recording a session's revision", &invocation)
                .await?;
            Ok(())
        })
    }

    fn set_owner(&self, id: &SessionId, owner: &str) -> StoreFuture<'_, ()> {
        let record = self.record_key(id);
        let owner = owner.to_owned();
        Box::pin(async move {
            let script = script(SET_IF_LIVE);
            let mut invocation = script.prepare_invoke();
            invocation.key(record).arg("o").arg(owner);
            self.redis
                .eval::<i64>("binding a session to its owner", &invocation)
                .await?;
            Ok(())
        })
    }

    fn next_stream(&self, id: &SessionId) -> StoreFuture<'_, Option<u64>> {
        let record = self.record_key(id);
        Box::pin(async move {
            let script = script(NEXT_STREAM);
            let mut invocation = script.prepare_invoke();
            invocation.key(record);
            self.redis
                .eval::<Option<u64>>("numbering a stream", &invocation)
                .await
        })
    }

    fn touch_and_open_stream(
        &self,
        id: &SessionId,
        idle: Duration,
        caller: Option<&str>,
    ) -> StoreFuture<'_, Option<(SessionRecord, u64)>> {
        let (record, deadlines) = (self.record_key(id), self.deadlines_key());
        let id = id.clone();
        let caller = caller.map_or_else(String::new, |caller| format!("={caller}"));
        Box::pin(async move {
            let script = script(TOUCH_AND_OPEN);
            let mut invocation = script.prepare_invoke();
            invocation
                .key(record)
                .key(deadlines)
                .arg(id.as_str())
                .arg(millis(idle))
                .arg(caller);
            let found: Option<Vec<String>> = self
                .redis
                .eval("opening a stream of a session", &invocation)
                .await?;
            let Some(fields) = found else {
                return Ok(None);
            };
            let Some(number) = fields.get(2).and_then(|text| text.parse::<u64>().ok()) else {
                return Err(mcpwire_store::StoreError::new(
                    "Redis answered a stream number that is not one",
                ));
            };
            let owner = fields
                .get(1)
                .and_then(|text| text.strip_prefix('='))
                .map(str::to_owned);
            Ok(Some((
                record_of(id, fields.first().map(String::as_str), owner),
                number,
            )))
        })
    }

    fn remove(&self, id: &SessionId) -> StoreFuture<'_, bool> {
        let (record, deadlines) = (self.record_key(id), self.deadlines_key());
        let id = id.clone();
        Box::pin(async move {
            let mut pipeline = redis::pipe();
            pipeline
                .atomic()
                .cmd("DEL")
                .arg(record)
                .cmd("ZREM")
                .arg(deadlines)
                .arg(id.as_str());
            let (deleted, _): (i64, i64) = self.redis.pipe("removing a session", &pipeline).await?;
            Ok(deleted > 0)
        })
    }

    fn take_expired(&self) -> StoreFuture<'_, Vec<SessionId>> {
        let deadlines = self.deadlines_key();
        let prefix = self.redis.key(&["session", ""]);
        Box::pin(async move {
            let script = script(TAKE_EXPIRED);
            let mut invocation = script.prepare_invoke();
            invocation.key(deadlines).arg(prefix).arg(SWEEP_BATCH);
            let ids: Vec<String> = self
                .redis
                .eval("sweeping expired sessions", &invocation)
                .await?;
            Ok(ids.iter().filter_map(|id| SessionId::parse(id)).collect())
        })
    }

    fn count(&self) -> StoreFuture<'_, usize> {
        let deadlines = self.deadlines_key();
        Box::pin(async move {
            self.redis
                .run("counting sessions", redis::cmd("ZCARD").arg(deadlines))
                .await
        })
    }
}
