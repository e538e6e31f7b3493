//! The contract every [`TaskStore`] keeps, as checks that anyone
//! implementing the trait can run against their own store (the in-memory
//! store and the Redis store run the same ones).
//!
//! Each check is an async function that drives the store through one
//! scenario and panics with a message naming the broken rule: it is test
//! support, meant to be called from an async test (it needs no particular
//! runtime). Every check wants
//! a store with no tasks and uses task ids of its own. The module exists
//! with the `store-contract` feature only, so that normal builds carry
//! none of it.
//!
//! ```
//! use mcpwire_store::tasks::{InMemoryTaskStore, store_contract};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // In a `#[tokio::test]`, with your own store in place of this one:
//! let store = InMemoryTaskStore::new();
//! store_contract::task_store_refuses_a_duplicate_id(&store).await;
//! # }
//! ```

#![allow(
    clippy::panic,
    reason = "test support: a panic is how a check reports a broken rule"
)]

use std::fmt::Debug;

use serde_json::json;

use super::{TaskChange, TaskPage, TaskRecord, TaskStore, TaskStoreError};

/// Unwraps a store call, panicking with what was being done.
#[track_caller]
fn ok<T>(result: Result<T, TaskStoreError>, doing: &str) -> T {
    match result {
        Ok(value) => value,
        Err(error) => panic!("task store contract: {doing} failed: {error}"),
    }
}

/// Asserts two values are equal, naming the rule when they are not.
#[track_caller]
#[allow(
    clippy::needless_pass_by_value,
    reason = "taking values keeps the checks free of borrows of temporaries"
)]
fn expect_eq<T: PartialEq + Debug>(actual: T, expected: T, rule: &str) {
    assert_eq!(actual, expected, "task store contract: {rule}");
}

/// A `tools/call` task created at `created` (ms), owned by `owner`, that
/// expires 1,000 ms after its creation (TASK-18).
fn record(id: &str, created: u64, owner: Option<&str>) -> TaskRecord {
    let mut record = TaskRecord::new(id.to_owned(), "tools/call", created);
    record.owner = owner.map(str::to_owned);
    record.ttl_ms = Some(1_000);
    record
}

/// The ids of a page's tasks, in order.
fn ids(page: &TaskPage) -> Vec<&str> {
    page.tasks.iter().map(|r| r.task_id.as_str()).collect()
}

/// Checks that `list` gives, oldest first and a page at a time, only the
/// tasks the owner may see (its own and unowned ones, TASK-47) that have
/// not expired, and that the last page has no `next_after`.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn task_store_lists_pages_of_only_the_owners_unexpired_tasks(store: &dyn TaskStore) {
    let owners = [Some("me"), Some("other"), Some("me"), None, Some("me")];
    for (created, (i, owner)) in (0..).step_by(10).zip(owners.into_iter().enumerate()) {
        let task = record(&format!("t{i}"), created, owner);
        ok(store.create(task).await, "create");
    }
    let first = ok(store.list(Some("me".into()), None, 2, 50).await, "list");
    expect_eq(
        ids(&first),
        vec!["t0", "t2"],
        "a page holds the owner's visible tasks, oldest first, up to the limit",
    );
    let second = ok(
        store.list(Some("me".into()), first.next_after, 2, 50).await,
        "list the next page",
    );
    expect_eq(
        ids(&second),
        vec!["t3", "t4"],
        "the next page starts after next_after and includes unowned tasks",
    );
    expect_eq(second.next_after, None, "the last page has no next_after");
    let later = ok(
        store.list(Some("me".into()), None, 10, 1_025).await,
        "list later",
    );
    expect_eq(
        ids(&later),
        vec!["t3", "t4"],
        "expired tasks are not listed",
    );
}

/// Checks that a task reads as absent from its expiry on (TASK-18), cannot
/// be changed then, and is purged exactly once, while a younger task stays.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn task_store_expired_tasks_read_as_absent_and_are_purged(store: &dyn TaskStore) {
    ok(store.create(record("t", 0, None)).await, "create t");
    ok(store.create(record("u", 500, None)).await, "create u");
    assert!(
        ok(store.get("t".into(), 999).await, "get").is_some(),
        "task store contract: a task is readable until its expiry"
    );
    assert!(
        ok(store.get("t".into(), 1_000).await, "get").is_none(),
        "task store contract: a task reads as absent from its expiry on"
    );
    let cancel = ok(
        store.update("t".into(), TaskChange::Cancel, 1_000).await,
        "update",
    );
    assert!(
        cancel.is_none(),
        "task store contract: an expired task cannot be changed"
    );
    expect_eq(
        ok(store.purge_expired(1_000).await, "purge_expired"),
        1,
        "purge_expired removes the expired tasks and counts them",
    );
    expect_eq(
        ok(store.purge_expired(1_000).await, "purge_expired again"),
        0,
        "a purged task is not purged twice",
    );
    assert!(
        ok(store.get("u".into(), 1_000).await, "get u").is_some(),
        "task store contract: purging keeps the tasks that have not expired"
    );
}

/// Checks that creating a task with an id already in use fails with
/// [`TaskStoreError::Duplicate`].
///
/// # Panics
///
/// When the store breaks this rule or one of its calls fails.
pub async fn task_store_refuses_a_duplicate_id(store: &dyn TaskStore) {
    ok(store.create(record("dup", 0, None)).await, "create");
    let again = store.create(record("dup", 5, None)).await;
    assert!(
        matches!(again, Err(TaskStoreError::Duplicate(_))),
        "task store contract: a duplicate id is refused with Duplicate, got {again:?}"
    );
}

/// Checks that an update reports whether it changed the task, that a
/// terminal task (cancelled) ignores a late completion, and that `get`
/// reads what the last update left.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn task_store_a_terminal_task_ignores_later_changes(store: &dyn TaskStore) {
    ok(store.create(record("ended", 0, Some("me"))).await, "create");
    let polled = ok(store.get("ended".into(), 10).await, "get");
    expect_eq(
        polled.and_then(|task| task.owner),
        Some("me".to_owned()),
        "a task reads back with its owner",
    );
    let Some((cancelled, changed)) = ok(
        store.update("ended".into(), TaskChange::Cancel, 20).await,
        "cancel",
    ) else {
        panic!("task store contract: a live task can be cancelled");
    };
    assert!(
        changed,
        "task store contract: cancelling a working task changes it"
    );
    let complete = TaskChange::Complete {
        result: json!({"content": []}),
        message: None,
    };
    let Some((after, changed)) = ok(store.update("ended".into(), complete, 30).await, "complete")
    else {
        panic!("task store contract: a terminal task is still readable until it expires");
    };
    assert!(
        !changed,
        "task store contract: a terminal task ignores a late completion"
    );
    expect_eq(
        &after.status,
        &cancelled.status,
        "a terminal task keeps its status",
    );
    expect_eq(
        ok(store.get("ended".into(), 40).await, "get"),
        Some(after),
        "get reads what the last update left",
    );
}

/// Checks that [`TaskStore::count_owned`] counts exactly the owner's
/// unexpired tasks, not the unbound ones an owner may also see nor
/// another owner's, and caps the count at `limit` (the per-requestor cap
/// of the runtime relies on it).
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn task_store_counts_only_the_owners_unexpired_tasks(store: &dyn TaskStore) {
    for (id, created, owner) in [
        ("count-a1", 0, Some("count-a")),
        ("count-a2", 10, Some("count-a")),
        ("count-a3", 500, Some("count-a")),
        ("count-b1", 10, Some("count-b")),
        ("count-u1", 10, None),
    ] {
        ok(store.create(record(id, created, owner)).await, "create");
    }
    let count = |owner: Option<&str>, limit: usize, now: u64| {
        store.count_owned(owner.map(str::to_owned), limit, now)
    };
    expect_eq(
        ok(count(Some("count-a"), usize::MAX, 100).await, "count_owned"),
        3,
        "an owner's count holds its own tasks only, not the unbound ones",
    );
    expect_eq(
        ok(count(Some("count-a"), 2, 100).await, "count_owned"),
        2,
        "a count stops at its limit",
    );
    expect_eq(
        ok(count(Some("count-b"), usize::MAX, 100).await, "count_owned"),
        1,
        "another owner's tasks are not counted",
    );
    expect_eq(
        ok(count(None, usize::MAX, 100).await, "count_owned"),
        1,
        "the unbound tasks are counted as nobody's",
    );
    expect_eq(
        ok(
            count(Some("count-a"), usize::MAX, 1_000).await,
            "count_owned",
        ),
        2,
        "a task expired at `now` is not counted (TASK-18)",
    );
    expect_eq(
        ok(
            count(Some("count-a"), usize::MAX, 1_600).await,
            "count_owned",
        ),
        0,
        "an owner whose tasks all expired holds none",
    );
}
