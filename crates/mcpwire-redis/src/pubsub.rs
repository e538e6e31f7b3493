//! A subscription to one Redis pub/sub channel that outlives connection
//! losses: a background task resubscribes with a capped backoff and tells
//! its subscriber, which may have missed messages meanwhile.

use std::sync::Weak;
use std::time::Duration;

use futures_util::StreamExt;
use mcpwire_store::StoreError;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::connection::Redis;

/// What a subscription does with what arrives. Both calls must return
/// promptly (hand longer work to a task): they run on the receiving loop.
pub(crate) trait Subscriber: Send + Sync + 'static {
    /// A message published on the channel.
    fn message(&self, payload: &[u8]);

    /// Subscribed again after a loss: messages may have been missed.
    fn resubscribed(&self);
}

/// Subscribes `subscriber` to `channel` and keeps it subscribed until the
/// subscriber is dropped (or the task aborted). Returns once the first
/// subscription is in place, or an error when it is not within the
/// command timeout.
pub(crate) async fn follow<S: Subscriber>(
    redis: &Redis,
    channel: String,
    subscriber: Weak<S>,
) -> Result<JoinHandle<()>, StoreError> {
    let (ready_tx, mut ready_rx) = watch::channel(false);
    let task = tokio::spawn(receive(
        redis.client.clone(),
        redis.config.command_timeout,
        channel,
        subscriber,
        ready_tx,
    ));
    let subscribed = tokio::time::timeout(
        redis.config.command_timeout,
        ready_rx.wait_for(|ready| *ready),
    )
    .await;
    match subscribed {
        Ok(Ok(_)) => Ok(task),
        Ok(Err(_)) => {
            task.abort();
            Err(StoreError::new("redis: a subscription stopped"))
        }
        Err(_) => {
            task.abort();
            Err(StoreError::new("redis: subscribing timed out"))
        }
    }
}

async fn receive<S: Subscriber>(
    client: redis::Client,
    timeout: Duration,
    channel: String,
    subscriber: Weak<S>,
    ready: watch::Sender<bool>,
) {
    let mut backoff = Duration::from_millis(50);
    let mut lost = false;
    loop {
        if subscriber.strong_count() == 0 {
            return;
        }
        let connected = tokio::time::timeout(timeout, async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channel).await?;
            Ok::<_, redis::RedisError>(pubsub)
        })
        .await;
        match connected {
            Ok(Ok(pubsub)) => {
                backoff = Duration::from_millis(50);
                ready.send_replace(true);
                if lost {
                    let Some(strong) = subscriber.upgrade() else {
                        return;
                    };
                    strong.resubscribed();
                }
                let mut messages = pubsub.into_on_message();
                while let Some(message) = messages.next().await {
                    let Some(strong) = subscriber.upgrade() else {
                        return;
                    };
                    strong.message(message.get_payload_bytes());
                }
                tracing::warn!(%channel, "lost a Redis subscription; resubscribing");
                lost = true;
            }
            Ok(Err(error)) => {
                tracing::warn!(%channel, %error, "could not subscribe to Redis");
                lost = true;
            }
            Err(_) => {
                tracing::warn!(%channel, "subscribing to Redis timed out");
                lost = true;
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(1));
    }
}
