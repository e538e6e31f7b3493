//! The Redis task store against a real `redis-server`: mcpwire-server's
//! task store contract (`tasks::store_contract`, the checks the in-memory
//! store runs too: paging by owner, expiry, duplicate ids) and what
//! sharing adds: a task created through one instance's store is read,
//! changed and cancelled through another's, and concurrent changes from
//! several instances are all applied exactly once (compare-and-set).

use crate::support::RedisServer;
use mcpwire_redis::RedisStores;
use mcpwire_server::tasks::TaskRecord;
use mcpwire_server::tasks::{TaskChange, TaskStore, store_contract};
use serde_json::json;

fn record(id: &str, created: u64, owner: Option<&str>) -> TaskRecord {
    let mut record = TaskRecord::new(id.to_owned(), "tools/call", created);
    record.owner = owner.map(str::to_owned);
    record.ttl_ms = Some(1_000);
    record
}

#[tokio::test]
async fn listing_pages_through_only_the_owners_unexpired_tasks() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().tasks;
    store_contract::task_store_lists_pages_of_only_the_owners_unexpired_tasks(&*store).await;
}

#[tokio::test]
async fn expired_tasks_read_as_absent_and_are_purged() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().tasks;
    store_contract::task_store_expired_tasks_read_as_absent_and_are_purged(&*store).await;
}

#[tokio::test]
async fn a_duplicate_id_is_refused() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().tasks;
    store_contract::task_store_refuses_a_duplicate_id(&*store).await;
}

/// The per-requestor cap counts exactly the requestor's tasks in Redis
/// (the trait's default counted a page of what the owner may see,
/// unbound tasks included).
#[tokio::test]
async fn an_owner_count_holds_only_its_unexpired_tasks() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().tasks;
    store_contract::task_store_counts_only_the_owners_unexpired_tasks(&*store).await;
}

#[tokio::test]
async fn a_terminal_task_ignores_later_changes() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().tasks;
    store_contract::task_store_a_terminal_task_ignores_later_changes(&*store).await;
}

#[tokio::test]
async fn a_task_created_on_one_instance_is_polled_and_cancelled_through_others() {
    let redis = RedisServer::start();
    let one = RedisStores::connect(redis.config()).await.unwrap().tasks;
    let two = RedisStores::connect(redis.config()).await.unwrap().tasks;
    let three = RedisStores::connect(redis.config()).await.unwrap().tasks;
    one.create(record("shared", 0, Some("me"))).await.unwrap();
    let polled = two.get("shared".into(), 10).await.unwrap().unwrap();
    assert_eq!(polled.owner.as_deref(), Some("me"));
    let (cancelled, changed) = three
        .update("shared".into(), TaskChange::Cancel, 20)
        .await
        .unwrap()
        .unwrap();
    assert!(changed);
    // Terminal: a late completion from the instance running it changes nothing.
    let complete = TaskChange::Complete {
        result: json!({"content": []}),
        message: None,
    };
    let (after, changed) = one
        .update("shared".into(), complete, 30)
        .await
        .unwrap()
        .unwrap();
    assert!(!changed);
    assert_eq!(after.status, cancelled.status);
    assert_eq!(two.get("shared".into(), 40).await.unwrap(), Some(after));
}

#[tokio::test]
async fn concurrent_changes_from_several_instances_each_apply_once() {
    let redis = RedisServer::start();
    let stores = [
        RedisStores::connect(redis.config()).await.unwrap().tasks,
        RedisStores::connect(redis.config()).await.unwrap().tasks,
        RedisStores::connect(redis.config()).await.unwrap().tasks,
    ];
    stores[0].create(record("busy", 0, None)).await.unwrap();
    let before = stores[0].get("busy".into(), 0).await.unwrap().unwrap();
    // Twelve concurrent non-terminal changes: each bumps the revision once.
    let mut handles = Vec::new();
    for round in 0..12_u64 {
        let store = stores[usize::try_from(round % 3).unwrap()].clone();
        handles.push(tokio::spawn(async move {
            let change = TaskChange::InputRequired {
                requests: Default::default(),
                state: Some(round.to_be_bytes().to_vec()),
            };
            store
                .update("busy".into(), change, 1)
                .await
                .unwrap()
                .unwrap()
                .1
        }));
    }
    for handle in handles {
        assert!(handle.await.unwrap());
    }
    let after = stores[1].get("busy".into(), 2).await.unwrap().unwrap();
    assert_eq!(after.revision, before.revision + 12);
}
