//! `RedisChangeFeed`: mcpwire-server's catalog changes (tools, prompts or
//! resources listed anew, a resource updated) carried between instances on
//! the Redis channel `P:changes`, so that a change made on one instance
//! reaches the sessions and `subscriptions/listen` requests of every other.
//!
//! Each message is JSON, `{"from": INSTANCE, "change": CHANGE}`, with the
//! change as `mcpwire_server::Change` serializes it. An instance ignores
//! its own messages: its server announced the change to its own sessions
//! already.
//!
//! # Delivery guarantees
//!
//! At most once, like all of Redis pub/sub, with a catch-up for the two
//! ways a change is lost that an instance can notice. When this instance
//! could not publish a change (Redis unreachable, or the local queue
//! full), it publishes `missed` as soon as Redis answers again; when its
//! subscription broke, it announces `missed` to its own sessions once
//! resubscribed. `missed` tells every session that every list changed and
//! every resource it subscribed to was updated, so clients list and read
//! again. A change is lost for good only when a receiving instance's
//! connection breaks after Redis accepted the message and before the
//! instance noticed (then too the next reconnection announces `missed`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcpwire_store::StoreError;
use mcpwire_store::{Change, ChangeFeed, ChangeSink};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::connection::Redis;
use crate::pubsub::{self, Subscriber};

/// How many changes may wait for the publisher before new ones are
/// dropped (and `missed` owed).
const QUEUE: usize = 1024;

/// How often the publisher retries publishing an owed `missed` while no
/// other change comes.
const RETRY: Duration = Duration::from_secs(1);

/// State shared by the feed and its background tasks.
#[derive(Debug)]
struct Shared {
    instance: String,
    sinks: Mutex<Vec<ChangeSink>>,
    outgoing: mpsc::Sender<Change>,
    /// Set when a change was dropped before it reached Redis.
    dropped: AtomicBool,
}

impl Shared {
    fn deliver(&self, change: &Change) {
        let mut sinks = self.sinks.lock().unwrap_or_else(PoisonError::into_inner);
        // A sink whose server is gone is forgotten.
        sinks.retain(|sink| sink.deliver(change.clone()));
    }
}

impl Subscriber for Shared {
    fn message(&self, payload: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(payload) else {
            tracing::warn!("ignored a change message that is not JSON");
            return;
        };
        if message.get("from").and_then(Value::as_str) == Some(self.instance.as_str()) {
            return;
        }
        match message
            .get("change")
            .cloned()
            .map(serde_json::from_value::<Change>)
        {
            Some(Ok(change)) => self.deliver(&change),
            _ => tracing::warn!("ignored a change message this version cannot read"),
        }
    }

    fn resubscribed(&self) {
        // Changes published while the subscription was down are lost.
        self.deliver(&Change::Missed);
    }
}

/// Carries an instance's catalog changes to the others and theirs to it
/// (see the module docs for the channel and the delivery guarantees).
/// Give it to the server with
/// `ServerBuilder::change_feed(stores.changes.clone())`. Dropping the last
/// handle stops its background tasks.
#[derive(Debug)]
pub struct RedisChangeFeed {
    shared: Arc<Shared>,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for RedisChangeFeed {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl RedisChangeFeed {
    /// Starts the feed of the instance `instance`: subscribed when this
    /// returns.
    pub(crate) async fn start(redis: Redis, instance: String) -> Result<Self, StoreError> {
        let (outgoing, queue) = mpsc::channel(QUEUE);
        let shared = Arc::new(Shared {
            instance,
            sinks: Mutex::new(Vec::new()),
            outgoing,
            dropped: AtomicBool::new(false),
        });
        let channel = redis.key(&["changes"]);
        let listener = pubsub::follow(&redis, channel.clone(), Arc::downgrade(&shared)).await?;
        let publisher = tokio::spawn(publish_queued(
            redis,
            channel,
            Arc::downgrade(&shared),
            queue,
        ));
        Ok(Self {
            shared,
            tasks: vec![listener, publisher],
        })
    }

    /// The id this instance's messages carry.
    pub fn instance(&self) -> &str {
        &self.shared.instance
    }
}

impl ChangeFeed for RedisChangeFeed {
    fn publish(&self, change: &Change) {
        if self.shared.outgoing.try_send(change.clone()).is_err() {
            tracing::warn!("dropped a catalog change: the change feed's queue is full");
            self.shared.dropped.store(true, Ordering::Relaxed);
        }
    }

    fn attach(&self, sink: ChangeSink) {
        let mut sinks = self
            .shared
            .sinks
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        sinks.retain(ChangeSink::is_live);
        sinks.push(sink);
    }
}

/// Publishes one change; `false` when Redis did not take it.
async fn send(redis: &Redis, channel: &str, instance: &str, change: &Change) -> bool {
    let message = json!({"from": instance, "change": change}).to_string();
    let published = redis
        .run::<i64>(
            "publishing a catalog change",
            redis::cmd("PUBLISH").arg(channel).arg(message),
        )
        .await;
    match published {
        Ok(_) => true,
        Err(error) => {
            tracing::warn!(%error, "a catalog change did not reach the other instances");
            false
        }
    }
}

/// Publishes the queued changes in order, and `missed` after any that did
/// not reach Redis (retried every [`RETRY`] until it does).
async fn publish_queued(
    redis: Redis,
    channel: String,
    shared: std::sync::Weak<Shared>,
    mut queue: mpsc::Receiver<Change>,
) {
    let mut owed_missed = false;
    loop {
        let next = if owed_missed {
            tokio::select! {
                next = queue.recv() => next,
                () = tokio::time::sleep(RETRY) => {
                    let Some(strong) = shared.upgrade() else { return };
                    owed_missed = !send(&redis, &channel, &strong.instance, &Change::Missed).await;
                    continue;
                }
            }
        } else {
            queue.recv().await
        };
        let (Some(change), Some(strong)) = (next, shared.upgrade()) else {
            return;
        };
        owed_missed |= strong.dropped.swap(false, Ordering::Relaxed);
        if owed_missed {
            owed_missed = !send(&redis, &channel, &strong.instance, &Change::Missed).await;
        }
        if !send(&redis, &channel, &strong.instance, &change).await {
            owed_missed = true;
        }
    }
}
