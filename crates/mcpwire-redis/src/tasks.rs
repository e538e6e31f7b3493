//! `RedisTaskStore`: mcpwire-server's task records in Redis, so that a task
//! created on one instance is polled, answered and cancelled through any.
//!
//! Keys (`P` is the configured prefix):
//!
//! * `P:task:ID`, the record as JSON; when the task has a TTL, the key
//!   expires a minute after the task does (records read as absent from
//!   their expiry on, whatever the key's TTL).
//! * `P:tasks`, a sorted set of task ids scored by creation time (ms), for
//!   listing oldest first; entries leave it with `purge_expired`.
//!
//! Updates are optimistic: read the record, apply the change in Rust
//! (`TaskRecord::apply`), and write it back only if the stored JSON is
//! still what was read (one Lua compare-and-set), retrying a bounded
//! number of times under contention.

use mcpwire_server::BoxFuture;
use mcpwire_server::tasks::{TaskChange, TaskPage, TaskRecord, TaskStore, TaskStoreError};

use crate::connection::{Redis, script};

/// Stores a new record unless its id is known: `KEYS[1]` the record,
/// `KEYS[2]` the set; `ARGV[1]` id, `ARGV[2]` JSON, `ARGV[3]` created
/// (ms), `ARGV[4]` the key's TTL (ms) or `0` for none.
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return 0
end
if ARGV[4] == '0' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
";

/// Replaces `KEYS[1]` with `ARGV[2]` only while it holds `ARGV[1]`,
/// keeping its TTL.
const COMPARE_AND_SET: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
";

/// How long a record's key outlives the task's own expiry.
const KEY_SLACK_MS: u64 = 60_000;

/// How many times an update is retried when another instance changed the
/// record in between.
const UPDATE_ATTEMPTS: usize = 16;

/// How many ids `list` and `purge_expired` read per round trip.
const BATCH: isize = 100;

/// Task records in Redis, shared by every instance.
#[derive(Debug, Clone)]
pub struct RedisTaskStore {
    redis: Redis,
}

fn backend(error: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError::Backend(error.to_string())
}

impl RedisTaskStore {
    pub(crate) fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn record_key(&self, id: &str) -> String {
        self.redis.key(&["task", id])
    }

    fn index_key(&self) -> String {
        self.redis.key(&["tasks"])
    }

    /// The stored JSON and record of `id`, if any.
    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let json: Option<String> = self
            .redis
            .run("reading a task", redis::cmd("GET").arg(self.record_key(id)))
            .await
            .map_err(backend)?;
        match json {
            Some(json) => {
                let record = serde_json::from_str(&json).map_err(backend)?;
                Ok(Some((json, record)))
            }
            None => Ok(None),
        }
    }

    /// The ids at ranks `start..start + BATCH` of the index.
    async fn ids(&self, start: isize) -> Result<Vec<String>, TaskStoreError> {
        self.redis
            .run(
                "listing tasks",
                redis::cmd("ZRANGE")
                    .arg(self.index_key())
                    .arg(start)
                    .arg(start + BATCH - 1),
            )
            .await
            .map_err(backend)
    }

    /// The records of `ids` (`None` where the key is gone).
    async fn records(&self, ids: &[String]) -> Result<Vec<Option<TaskRecord>>, TaskStoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = ids.iter().map(|id| self.record_key(id)).collect();
        let jsons: Vec<Option<String>> = self
            .redis
            .run("reading tasks", redis::cmd("MGET").arg(keys))
            .await
            .map_err(backend)?;
        Ok(jsons
            .into_iter()
            .map(|json| json.and_then(|json| serde_json::from_str(&json).ok()))
            .collect())
    }

    async fn list_page(
        &self,
        owner: Option<String>,
        after: Option<String>,
        limit: usize,
        now_ms: u64,
    ) -> Result<TaskPage, TaskStoreError> {
        let mut start: isize = match &after {
            Some(after) => {
                let rank: Option<isize> = self
                    .redis
                    .run(
                        "listing tasks",
                        redis::cmd("ZRANK").arg(self.index_key()).arg(after),
                    )
                    .await
                    .map_err(backend)?;
                rank.map_or(0, |rank| rank + 1)
            }
            None => 0,
        };
        let mut tasks = Vec::new();
        loop {
            let ids = self.ids(start).await?;
            if ids.is_empty() {
                break;
            }
            start += BATCH;
            for record in self.records(&ids).await?.into_iter().flatten() {
                if !record.is_expired(now_ms) && record.visible_to(owner.as_deref()) {
                    tasks.push(record);
                }
            }
            if tasks.len() > limit {
                break;
            }
        }
        let next_after = if tasks.len() > limit {
            tasks.truncate(limit);
            tasks.last().map(|record| record.task_id.clone())
        } else {
            None
        };
        Ok(TaskPage { tasks, next_after })
    }

    async fn purge(&self, now_ms: u64) -> Result<usize, TaskStoreError> {
        let mut purged = 0;
        let mut start = 0;
        loop {
            let ids = self.ids(start).await?;
            if ids.is_empty() {
                return Ok(purged);
            }
            let records = self.records(&ids).await?;
            let mut kept: isize = 0;
            for (id, record) in ids.iter().zip(records) {
                let expired = record.is_none_or(|record| record.is_expired(now_ms));
                if !expired {
                    kept += 1;
                    continue;
                }
                let mut pipeline = redis::pipe();
                pipeline
                    .atomic()
                    .cmd("DEL")
                    .arg(self.record_key(id))
                    .ignore()
                    .cmd("ZREM")
                    .arg(self.index_key())
                    .arg(id);
                let (removed,): (i64,) = self
                    .redis
                    .pipe("purging a task", &pipeline)
                    .await
                    .map_err(backend)?;
                purged += usize::try_from(removed).unwrap_or(0);
            }
            // Removed entries shift the ranks: only kept ones are skipped.
            start += kept;
        }
    }

    async fn change(
        &self,
        task_id: String,
        change: TaskChange,
        now_ms: u64,
    ) -> Result<Option<(TaskRecord, bool)>, TaskStoreError> {
        for _ in 0..UPDATE_ATTEMPTS {
            let Some((json, mut record)) = self.read(&task_id).await? else {
                return Ok(None);
            };
            if record.is_expired(now_ms) {
                return Ok(None);
            }
            let changed = record.apply(change.clone(), now_ms);
            if !changed {
                return Ok(Some((record, false)));
            }
            let updated = serde_json::to_string(&record).map_err(backend)?;
            let script = script(COMPARE_AND_SET);
            let mut invocation = script.prepare_invoke();
            invocation
                .key(self.record_key(&task_id))
                .arg(json)
                .arg(updated);
            let written: i64 = self
                .redis
                .eval("updating a task", &invocation)
                .await
                .map_err(backend)?;
            if written == 1 {
                return Ok(Some((record, true)));
            }
        }
        Err(TaskStoreError::Backend(format!(
            "task {task_id} changed under {UPDATE_ATTEMPTS} concurrent updates"
        )))
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'static, Result<(), TaskStoreError>> {
        let store = self.clone();
        Box::pin(async move {
            let json = serde_json::to_string(&record).map_err(backend)?;
            let ttl = record
                .ttl_ms
                .map_or(0, |ttl| ttl.saturating_add(KEY_SLACK_MS));
            let script = script(CREATE);
            let mut invocation = script.prepare_invoke();
            invocation
                .key(store.record_key(&record.task_id))
                .key(store.index_key())
                .arg(&record.task_id)
                .arg(json)
                .arg(record.created_at_ms)
                .arg(ttl);
            let created: i64 = store
                .redis
                .eval("creating a task", &invocation)
                .await
                .map_err(backend)?;
            if created == 1 {
                Ok(())
            } else {
                Err(TaskStoreError::Duplicate(record.task_id))
            }
        })
    }

    fn get(
        &self,
        task_id: String,
        now_ms: u64,
    ) -> BoxFuture<'static, Result<Option<TaskRecord>, TaskStoreError>> {
        let store = self.clone();
        Box::pin(async move {
            Ok(store
                .read(&task_id)
                .await?
                .map(|(_, record)| record)
                .filter(|record| !record.is_expired(now_ms)))
        })
    }

    fn update(
        &self,
        task_id: String,
        change: TaskChange,
        now_ms: u64,
    ) -> BoxFuture<'static, Result<Option<(TaskRecord, bool)>, TaskStoreError>> {
        let store = self.clone();
        Box::pin(async move { store.change(task_id, change, now_ms).await })
    }

    fn list(
        &self,
        owner: Option<String>,
        after: Option<String>,
        limit: usize,
        now_ms: u64,
    ) -> BoxFuture<'static, Result<TaskPage, TaskStoreError>> {
        let store = self.clone();
        Box::pin(async move { store.list_page(owner, after, limit, now_ms).await })
    }

    fn purge_expired(&self, now_ms: u64) -> BoxFuture<'static, Result<usize, TaskStoreError>> {
        let store = self.clone();
        Box::pin(async move { store.purge(now_ms).await })
    }
}
