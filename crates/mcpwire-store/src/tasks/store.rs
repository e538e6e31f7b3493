//! Where tasks live: the [`TaskStore`] trait (async, over serialisable
//! records, so that instances can share a store) and the in-memory default.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Mutex, PoisonError};

use crate::tasks::{TaskChange, TaskRecord};

/// The future every [`TaskStore`] method returns: boxed, so that the trait
/// is object safe and an implementation may do network I/O. (The same type
/// as `mcpwire_server::BoxFuture<Result<T, TaskStoreError>>`.)
/// The workspace's one boxed-future shape (`mcpwire_jsonrpc::BoxFuture`).
pub type TaskFuture<T> = mcpwire_jsonrpc::BoxFuture<'static, Result<T, TaskStoreError>>;

/// Why a store could not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// A task with this id exists already.
    #[error("a task with id {0} exists already")]
    Duplicate(String),
    /// The store itself failed (connection, serialisation, ...).
    #[error("the task store failed: {0}")]
    Backend(String),
}

/// One page of [`TaskStore::list`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskPage {
    /// The tasks, oldest first.
    pub tasks: Vec<TaskRecord>,
    /// The id to pass as `after` for the next page, when there is one.
    pub next_after: Option<String>,
}

/// Keeps task records for the runtime.
///
/// Every method is async and takes and returns plain data, so that an
/// implementation may keep records elsewhere (Redis, a database) and
/// several server instances may share it: any instance can then answer
/// `tasks/get` for a task another instance runs. Times come in as
/// milliseconds since the Unix epoch. Expired records (TASK-18) must read
/// as absent; a store may delete them whenever it likes.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record; it must be readable (by any instance) as soon
    /// as this returns (the task is created "durably" before the answer).
    fn create(&self, record: TaskRecord) -> TaskFuture<()>;

    /// The record of `task_id`, unless it is unknown or expired at `now_ms`.
    fn get(&self, task_id: String, now_ms: u64) -> TaskFuture<Option<TaskRecord>>;

    /// Applies `change` to `task_id` atomically with [`TaskRecord::apply`],
    /// and returns the record afterwards with whether it changed (`None`
    /// when the task is unknown or expired).
    fn update(
        &self,
        task_id: String,
        change: TaskChange,
        now_ms: u64,
    ) -> TaskFuture<Option<(TaskRecord, bool)>>;

    /// Up to `limit` unexpired tasks `owner` may see (TASK-40), oldest
    /// first, starting after the task `after`.
    fn list(
        &self,
        owner: Option<String>,
        after: Option<String>,
        limit: usize,
        now_ms: u64,
    ) -> TaskFuture<TaskPage>;

    /// Deletes the records expired at `now_ms`; returns how many went.
    fn purge_expired(&self, now_ms: u64) -> TaskFuture<usize>;

    /// How many unexpired tasks `owner` holds, counted up to `limit` (a
    /// result of `limit` means "at least"), for the per-requestor cap
    /// (`TaskOptions::max_tasks_per_requestor` in `mcpwire-server`).
    /// The default counts a page of [`list`](Self::list), which also holds
    /// the unbound tasks `owner` may see; a store should count exactly.
    fn count_owned(&self, owner: Option<String>, limit: usize, now_ms: u64) -> TaskFuture<usize> {
        let page = self.list(owner, None, limit, now_ms);
        Box::pin(async move { Ok(page.await?.tasks.len()) })
    }
}

/// The default store: records in this process's memory, lost on restart
/// and not shared between instances.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    /// By creation order then id, so that listing pages are stable.
    records: Mutex<BTreeMap<(u64, String), TaskRecord>>,
    keys: Mutex<BTreeMap<String, u64>>,
    /// The expiry of every record with a ttl, soonest first, and how many
    /// records each owner holds: purging costs what it removes, not a scan
    /// of every record, and counting an owner's tasks costs nothing.
    index: Mutex<Index>,
}

#[derive(Debug, Default)]
struct Index {
    expiry: BTreeSet<(u64, u64, String)>,
    owned: HashMap<Option<String>, usize>,
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&mut BTreeMap<(u64, String), TaskRecord>, &mut BTreeMap<String, u64>) -> T,
    ) -> T {
        // Both maps are only ever changed together under both locks, so a
        // panic elsewhere cannot leave them half-updated: poisoning is ignored.
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut records, &mut keys)
    }

    fn index(&self) -> std::sync::MutexGuard<'_, Index> {
        self.index.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes the records expired at `now_ms`, soonest first.
    fn purge(&self, now_ms: u64) -> usize {
        self.with(|records, keys| {
            let mut index = self.index();
            let mut purged = 0;
            while let Some(first) = index.expiry.first() {
                if first.0 > now_ms {
                    break;
                }
                let Some((_, created, id)) = index.expiry.pop_first() else {
                    break;
                };
                keys.remove(&id);
                if let Some(record) = records.remove(&(created, id)) {
                    purged += 1;
                    if let Some(count) = index.owned.get_mut(&record.owner) {
                        *count = count.saturating_sub(1);
                        if *count == 0 {
                            index.owned.remove(&record.owner);
                        }
                    }
                }
            }
            purged
        })
    }
}

impl TaskStore for InMemoryTaskStore {
    fn create(&self, record: TaskRecord) -> TaskFuture<()> {
        let outcome = self.with(|records, keys| {
            if keys.contains_key(&record.task_id) {
                return Err(TaskStoreError::Duplicate(record.task_id.clone()));
            }
            keys.insert(record.task_id.clone(), record.created_at_ms);
            let mut index = self.index();
            if let Some(ttl) = record.ttl_ms {
                let expires = record.created_at_ms.saturating_add(ttl);
                index
                    .expiry
                    .insert((expires, record.created_at_ms, record.task_id.clone()));
            }
            *index.owned.entry(record.owner.clone()).or_default() += 1;
            records.insert((record.created_at_ms, record.task_id.clone()), record);
            Ok(())
        });
        Box::pin(std::future::ready(outcome))
    }

    fn get(&self, task_id: String, now_ms: u64) -> TaskFuture<Option<TaskRecord>> {
        let found = self.with(|records, keys| {
            let created = *keys.get(&task_id)?;
            records
                .get(&(created, task_id))
                .filter(|r| !r.is_expired(now_ms))
                .cloned()
        });
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update(
        &self,
        task_id: String,
        change: TaskChange,
        now_ms: u64,
    ) -> TaskFuture<Option<(TaskRecord, bool)>> {
        let outcome = self.with(|records, keys| {
            let created = *keys.get(&task_id)?;
            let record = records
                .get_mut(&(created, task_id))
                .filter(|r| !r.is_expired(now_ms))?;
            let changed = record.apply(change, now_ms);
            Some((record.clone(), changed))
        });
        Box::pin(std::future::ready(Ok(outcome)))
    }

    fn list(
        &self,
        owner: Option<String>,
        after: Option<String>,
        limit: usize,
        now_ms: u64,
    ) -> TaskFuture<TaskPage> {
        let page = self.with(|records, keys| {
            let start = after
                .as_ref()
                .and_then(|id| keys.get(id).map(|created| (*created, id.clone())));
            let visible = records
                .iter()
                .filter(|(key, _)| start.as_ref().is_none_or(|start| *key > start))
                .map(|(_, record)| record)
                .filter(|r| !r.is_expired(now_ms) && r.visible_to(owner.as_deref()));
            let mut tasks: Vec<TaskRecord> =
                visible.take(limit.saturating_add(1)).cloned().collect();
            let next_after = if tasks.len() > limit {
                tasks.truncate(limit);
                tasks.last().map(|r| r.task_id.clone())
            } else {
                None
            };
            TaskPage { tasks, next_after }
        });
        Box::pin(std::future::ready(Ok(page)))
    }

    fn purge_expired(&self, now_ms: u64) -> TaskFuture<usize> {
        let purged = self.purge(now_ms);
        Box::pin(std::future::ready(Ok(purged)))
    }

    fn count_owned(&self, owner: Option<String>, limit: usize, now_ms: u64) -> TaskFuture<usize> {
        self.purge(now_ms);
        let count = self.index().owned.get(&owner).copied().unwrap_or(0);
        Box::pin(std::future::ready(Ok(count.min(limit))))
    }
}

#[cfg(test)]
mod tests {
    //! The in-memory store runs the shared task store contract (the Redis
    //! store runs the same checks in mcpwire-redis).

    use super::*;
    use crate::tasks::store_contract;

    #[tokio::test]
    async fn listing_pages_through_only_the_owners_unexpired_tasks() {
        let store = InMemoryTaskStore::new();
        store_contract::task_store_lists_pages_of_only_the_owners_unexpired_tasks(&store).await;
    }

    #[tokio::test]
    async fn expired_tasks_read_as_absent_and_are_purged() {
        let store = InMemoryTaskStore::new();
        store_contract::task_store_expired_tasks_read_as_absent_and_are_purged(&store).await;
    }

    #[tokio::test]
    async fn a_duplicate_id_is_refused() {
        let store = InMemoryTaskStore::new();
        store_contract::task_store_refuses_a_duplicate_id(&store).await;
    }

    #[tokio::test]
    async fn purging_costs_what_it_removes_and_owners_are_counted() {
        let store = InMemoryTaskStore::new();
        // 50,000 live tasks and one creation after another: the purge at
        // each creation used to visit every record (O(n) per creation).
        let start = std::time::Instant::now();
        for n in 0..50_000_u64 {
            let mut record = TaskRecord::new(format!("t{n}"), "tools/call", n);
            record.owner = Some(if n % 2 == 0 { "a" } else { "b" }.to_owned());
            record.ttl_ms = Some(if n < 10 { 5 } else { 1_000_000 });
            store.create(record).await.unwrap();
            store.purge_expired(n).await.unwrap();
        }
        // Generous: a debug build does this in well under a second.
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        let count = |owner: &str| store.count_owned(Some(owner.to_owned()), usize::MAX, 50_000);
        // The ten short-lived ones (five each) expired and were purged.
        assert_eq!(count("a").await.unwrap(), 24_995);
        assert_eq!(count("b").await.unwrap(), 24_995);
        assert_eq!(store.count_owned(None, 10, 50_000).await.unwrap(), 0);
        assert_eq!(
            store
                .count_owned(Some("a".to_owned()), 10, 50_000)
                .await
                .unwrap(),
            10
        );
    }

    #[tokio::test]
    async fn an_owner_count_holds_only_its_unexpired_tasks() {
        let store = InMemoryTaskStore::new();
        store_contract::task_store_counts_only_the_owners_unexpired_tasks(&store).await;
    }

    #[tokio::test]
    async fn a_terminal_task_ignores_later_changes() {
        let store = InMemoryTaskStore::new();
        store_contract::task_store_a_terminal_task_ignores_later_changes(&store).await;
    }
}
