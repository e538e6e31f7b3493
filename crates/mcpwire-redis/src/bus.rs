//! `RedisBus`: the message bus between instances on Redis pub/sub.
//!
//! Each instance has a random id and listens on its own channel
//! `P:bus:inst:ID` and on the broadcast channel `P:bus:all`. Two kinds of
//! route keys say where things live, each with a TTL that the owner's
//! heartbeat refreshes (so a dead instance's routes vanish by themselves):
//!
//! * `P:bus:rt:SESSION` = the instance running the session's runtime;
//!   `deliver` publishes a POSTed message there.
//! * `P:bus:conn:SESSION:N` = `instance/token` of the connection attached
//!   to stream `N`; `publish` sends the event there. A new `subscribe`
//!   overwrites it and tells the previous holder to end its connection.
//!
//! Within one instance, everything goes through tokio channels, exactly
//! like the in-memory bus, with the same back-pressure.
//!
//! # Delivery guarantees
//!
//! Redis pub/sub is at most once. `PUBLISH` answers how many listeners got
//! the frame, so `deliver` and `publish` return `false` when the target
//! instance is gone or not listening (its routes still there until their
//! TTL). A frame is lost only if the receiving instance's listener
//! connection drops after Redis accepted the frame: an event is then still
//! in the event store, and the client gets it by resuming with
//! `Last-Event-ID`; a lost POST shows up as a request that is never
//! answered (the client's timeout and cancellation apply). Frames from
//! one instance to another arrive in the order they were published.
//! A receiving instance waits at most the command timeout for room in a
//! full local buffer: a connection that does not read is then ended (the
//! client resumes); a message for a runtime whose inbox stays full is
//! refused, each of its requests answered with a JSON-RPC internal error
//! on its POST's stream (the session lives on: a 404 would tell the
//! client to start a new one); and a message for a runtime that ended here
//! as the message came is dropped with a warning and its POST's stream
//! ended (the POST gets 404 rather than waiting for answers that cannot
//! come). When an instance loses its subscription (Redis
//! restarted, network cut), it ends every connection it holds, since frames
//! for them may have been lost: their clients resume with `Last-Event-ID`
//! and get what they missed from the event store.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use mcpwire_jsonrpc::ErrorObject;
use mcpwire_store::{
    Envelope, Inbox, MessageBus, SessionId, StoreError, StoreFuture, StreamEvent, StreamKey,
    Subscription,
};

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::connection::{Redis, millis, script};
use crate::wire::Frame;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Deletes `KEYS[1]` only while it still holds `ARGV[1]`.
const DELETE_IF: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

/// The connection attached to one stream on this instance.
#[derive(Debug)]
struct Connection {
    token: u64,
    sender: mpsc::Sender<StreamEvent>,
    /// Whether its route is in Redis. A POST's stream on the instance
    /// running its session's runtime gets one only when its response is
    /// about to send an event id (`MessageBus::announce`): an answer sent
    /// as plain JSON then costs no route.
    announced: bool,
}

/// What runs on this instance.
#[derive(Debug, Default)]
struct Local {
    runtimes: HashMap<SessionId, mpsc::Sender<Envelope>>,
    connections: HashMap<(SessionId, u64), Connection>,
    /// Where other instances run session runtimes, as last read from
    /// Redis, so that a request reaching a session whose runtime runs
    /// elsewhere does not look it up twice per call (attaching its stream,
    /// then delivering). A runtime runs on one instance for its session's
    /// whole life, so an entry goes stale only when the session ends (the
    /// broadcast `Close` removes it) or its instance dies (a frame sent
    /// there finds no listener, and the entry is dropped and read again).
    /// Cleared when the listener resubscribes (a `Close` may have been
    /// missed meanwhile), and at once when it reaches [`MAX_OWNERS`].
    owners: HashMap<SessionId, Arc<str>>,
}

/// The most remote runtimes an instance remembers (see `Local::owners`):
/// about 200 bytes each, some 13 MiB at most.
const MAX_OWNERS: usize = 65_536;

impl Local {
    /// Forgets the connection of `key` if it is still `token`; whether its
    /// route was announced, if it was there.
    fn remove_connection(&mut self, session: &SessionId, stream: u64, token: u64) -> Option<bool> {
        let slot = (session.clone(), stream);
        if self
            .connections
            .get(&slot)
            .is_some_and(|c| c.token == token)
        {
            return self.connections.remove(&slot).map(|c| c.announced);
        }
        None
    }

    fn close(&mut self, session: &SessionId) -> Vec<u64> {
        self.runtimes.remove(session);
        self.owners.remove(session);
        let streams: Vec<u64> = self
            .connections
            .keys()
            .filter(|(owner, _)| owner == session)
            .map(|(_, stream)| *stream)
            .collect();
        for stream in &streams {
            self.connections.remove(&(session.clone(), *stream));
        }
        streams
    }
}

/// State shared by the bus and its background tasks.
#[derive(Debug)]
struct Inner {
    redis: Redis,
    instance: String,
    local: Mutex<Local>,
    next_token: AtomicU64,
}

/// The message bus on Redis pub/sub (see the module docs for routing and
/// delivery guarantees). Dropping it stops its background tasks.
#[derive(Debug)]
pub struct RedisBus {
    inner: Arc<Inner>,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for RedisBus {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// A random instance id: 16 bytes of the OS's randomness in hex.
fn instance_id() -> Result<String, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|error| StoreError::new(format!("no randomness for an instance id: {error}")))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

impl RedisBus {
    /// Starts the bus: its listener is subscribed when this returns.
    pub(crate) async fn start(redis: Redis) -> Result<Self, StoreError> {
        let inner = Arc::new(Inner {
            instance: instance_id()?,
            redis,
            local: Mutex::default(),
            next_token: AtomicU64::new(1),
        });
        let (ready_tx, mut ready_rx) = watch::channel(false);
        let listener = tokio::spawn(listen(Arc::downgrade(&inner), ready_tx));
        let heartbeat = tokio::spawn(heartbeat(Arc::downgrade(&inner)));
        let bus = Self {
            inner,
            tasks: vec![listener, heartbeat],
        };
        let timeout = bus.inner.redis.config.command_timeout;
        tokio::time::timeout(timeout, ready_rx.wait_for(|ready| *ready))
            .await
            .map_err(|_| StoreError::new("redis: subscribing the bus listener timed out"))?
            .map_err(|_| StoreError::new("redis: the bus listener stopped"))?;
        Ok(bus)
    }

    /// This instance's id on the bus.
    pub fn instance(&self) -> &str {
        &self.inner.instance
    }

    /// How many session runtimes are registered on this instance.
    pub fn runtime_count(&self) -> usize {
        lock(&self.inner.local).runtimes.len()
    }

    /// How many stream connections are attached on this instance.
    pub fn connection_count(&self) -> usize {
        lock(&self.inner.local).connections.len()
    }
}

impl Inner {
    fn runtime_key(&self, session: &SessionId) -> String {
        self.redis.key(&["bus", "rt", session.as_str()])
    }

    fn connection_key(&self, session: &SessionId, stream: u64) -> String {
        self.redis
            .key(&["bus", "conn", session.as_str(), &stream.to_string()])
    }

    fn channel(&self, instance: &str) -> String {
        self.redis.key(&["bus", "inst", instance])
    }

    fn broadcast(&self) -> String {
        self.redis.key(&["bus", "all"])
    }

    fn ttl(&self) -> u64 {
        millis(self.redis.config.route_ttl)
    }

    /// Publishes a frame; `true` when some listener got it.
    async fn send_frame(&self, channel: String, frame: &Frame) -> Result<bool, StoreError> {
        let Some(bytes) = frame.encode() else {
            return Ok(false);
        };
        let listeners: i64 = self
            .redis
            .run(
                "publishing on the bus",
                redis::cmd("PUBLISH").arg(channel).arg(bytes),
            )
            .await?;
        Ok(listeners > 0)
    }

    /// Deletes a route key while it still names `value`.
    async fn delete_route(&self, key: String, value: String) -> Result<(), StoreError> {
        let script = script(DELETE_IF);
        let mut invocation = script.prepare_invoke();
        invocation.key(key).arg(value);
        self.redis
            .eval::<i64>("dropping a bus route", &invocation)
            .await?;
        Ok(())
    }

    /// The instance running `session`'s runtime, read from Redis, and
    /// remembered when it is another one (`Local::owners`); `None` when no
    /// instance runs it.
    async fn find_owner(&self, session: &SessionId) -> Result<Option<Arc<str>>, StoreError> {
        let owner: Option<String> = self
            .redis
            .run(
                "finding a session's runtime",
                redis::cmd("GET").arg(self.runtime_key(session)),
            )
            .await?;
        let owner: Option<Arc<str>> = owner.map(Arc::from);
        if let Some(owner) = &owner
            && **owner != *self.instance
        {
            let mut local = lock(&self.local);
            if local.owners.len() >= MAX_OWNERS {
                local.owners.clear();
            }
            local.owners.insert(session.clone(), owner.clone());
        }
        Ok(owner)
    }

    fn route_value(&self, token: u64) -> String {
        format!("{}/{token}", self.instance)
    }

    /// Attaches a connection to `key` on this instance (replacing a local
    /// one drops its sender: it ends); `announced` when its route is
    /// about to be written.
    fn attach_here(
        &self,
        key: &StreamKey,
        capacity: usize,
        announced: bool,
    ) -> (u64, Subscription) {
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::channel(capacity.max(1));
        let connection = Connection {
            token,
            sender,
            announced,
        };
        lock(&self.local)
            .connections
            .insert((key.session.clone(), key.stream), connection);
        (token, Box::pin(receiver_stream(receiver)))
    }

    /// Writes the route of the connection `token` attached to `key` here,
    /// and ends the connection it replaces on another instance.
    async fn write_route(&self, key: &StreamKey, token: u64) -> Result<(), StoreError> {
        let previous: Option<String> = self
            .redis
            .run(
                "attaching a stream",
                redis::cmd("SET")
                    .arg(self.connection_key(&key.session, key.stream))
                    .arg(self.route_value(token))
                    .arg("PX")
                    .arg(self.ttl())
                    .arg("GET"),
            )
            .await?;
        if let Some((owner, old_token)) = previous.as_deref().and_then(|v| v.split_once('/'))
            && owner != self.instance
            && let Ok(old_token) = old_token.parse()
        {
            let frame = Frame::Detach {
                session: key.session.clone(),
                stream: key.stream,
                token: old_token,
            };
            self.send_frame(self.channel(owner), &frame).await?;
        }
        Ok(())
    }

    /// Handles one frame from another instance.
    async fn receive(&self, frame: Frame) {
        let wait = self.redis.config.command_timeout;
        match frame {
            Frame::Deliver { session, envelope } => {
                let stream = envelope.stream;
                let inbox = lock(&self.local).runtimes.get(&session).cloned();
                let Some(inbox) = inbox else {
                    tracing::warn!(?session, "dropped a message for a runtime that ended here");
                    // Its POST awaits answers on that stream, which will not
                    // come: end the stream's connection, so that the POST is
                    // answered (404: the session is gone) instead of held
                    // open. It happens when the session ended here just as
                    // another instance sent the message.
                    if let Some(stream) = stream
                        && let Err(error) = self.detach(&StreamKey::new(session, stream)).await
                    {
                        tracing::debug!(%error, "could not end the stream of a dropped message");
                    }
                    return;
                };
                // A refused envelope comes back, for its refusals below.
                let envelope = match inbox.send_timeout(envelope, wait).await {
                    Ok(()) => return,
                    Err(
                        mpsc::error::SendTimeoutError::Timeout(envelope)
                        | mpsc::error::SendTimeoutError::Closed(envelope),
                    ) => envelope,
                };
                tracing::warn!(
                    ?session,
                    "a runtime took no message for the command timeout"
                );
                // The session lives but its runtime takes messages more
                // slowly than they come: each request is answered with an
                // error on its stream (as a POST on the runtime's own
                // instance is refused with 503), not with the 404 that
                // would tell the client to start a new session.
                if let Some(stream) = stream {
                    let key = StreamKey::new(session, stream);
                    let error = ErrorObject::internal_error("the session is not taking messages");
                    for event in envelope.refusals(&error) {
                        if let Err(error) = self.publish(&key, event).await {
                            tracing::debug!(%error, "could not answer a refused message");
                            break;
                        }
                    }
                }
            }
            Frame::Event {
                session,
                stream,
                token,
                event,
            } => {
                let sender = lock(&self.local)
                    .connections
                    .get(&(session.clone(), stream))
                    .filter(|connection| connection.token == token)
                    .map(|connection| connection.sender.clone());
                let Some(sender) = sender else { return };
                let fin = event.is_final();
                let delivered = matches!(
                    tokio::time::timeout(wait, sender.send(event)).await,
                    Ok(Ok(()))
                );
                if fin || !delivered {
                    self.drop_connection(&session, stream, token).await;
                }
            }
            Frame::Detach {
                session,
                stream,
                token,
            } => {
                lock(&self.local).remove_connection(&session, stream, token);
            }
            Frame::Close { session } => {
                lock(&self.local).close(&session);
            }
        }
    }

    /// Sends `event` to the connection attached to `key`, here or on
    /// another instance (`MessageBus::publish`).
    async fn publish(&self, key: &StreamKey, event: StreamEvent) -> Result<bool, StoreError> {
        let local = lock(&self.local)
            .connections
            .get(&(key.session.clone(), key.stream))
            .map(|connection| (connection.token, connection.sender.clone()));
        if let Some((token, sender)) = local {
            let fin = event.is_final();
            let delivered = sender.send(event).await.is_ok();
            if fin || !delivered {
                self.drop_connection(&key.session, key.stream, token).await;
            }
            return Ok(delivered);
        }
        let route: Option<String> = self
            .redis
            .run(
                "finding a stream's connection",
                redis::cmd("GET").arg(self.connection_key(&key.session, key.stream)),
            )
            .await?;
        let Some((owner, token)) = route.as_deref().and_then(|v| v.split_once('/')) else {
            return Ok(false);
        };
        let Ok(token) = token.parse() else {
            return Ok(false);
        };
        if owner == self.instance {
            // A stale route to a connection this instance no longer holds.
            return Ok(false);
        }
        let frame = Frame::Event {
            session: key.session.clone(),
            stream: key.stream,
            token,
            event,
        };
        self.send_frame(self.channel(owner), &frame).await
    }

    /// `MessageBus::publish_now`: an event for a connection attached here,
    /// with room in its buffer, is queued at once, and so is the end of a
    /// stream whose connection has no route to drop (an answer sent as
    /// JSON, or a stream never announced). Anything that needs Redis (a
    /// connection elsewhere, a route to delete) or waits for room is given
    /// back for `publish`.
    fn publish_now(
        &self,
        key: &StreamKey,
        event: StreamEvent,
    ) -> Result<Result<bool, StoreError>, StreamEvent> {
        let fin = event.is_final();
        let slot = (key.session.clone(), key.stream);
        let mut local = lock(&self.local);
        let Some(connection) = local.connections.get(&slot) else {
            return Err(event);
        };
        if connection.announced && fin {
            return Err(event);
        }
        match connection.sender.try_send(event) {
            Ok(()) => {
                if fin {
                    local.connections.remove(&slot);
                }
                Ok(Ok(true))
            }
            Err(mpsc::error::TrySendError::Closed(event)) if connection.announced => Err(event),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                // Gone, with no route to drop: forgotten here alone.
                local.connections.remove(&slot);
                Ok(Ok(false))
            }
            Err(mpsc::error::TrySendError::Full(event)) => Err(event),
        }
    }

    /// Ends the connection attached to `key`, here or on another instance,
    /// and its route (`MessageBus::detach`).
    async fn detach(&self, key: &StreamKey) -> Result<(), StoreError> {
        let slot = (key.session.clone(), key.stream);
        let local = lock(&self.local).connections.remove(&slot);
        let route_key = self.connection_key(&key.session, key.stream);
        if let Some(connection) = local {
            if !connection.announced {
                return Ok(());
            }
            return self
                .delete_route(route_key, self.route_value(connection.token))
                .await;
        }
        let route: Option<String> = self
            .redis
            .run(
                "finding a stream's connection",
                redis::cmd("GET").arg(&route_key),
            )
            .await?;
        let Some(route) = route else { return Ok(()) };
        if let Some((owner, token)) = route.split_once('/')
            && let Ok(token) = token.parse()
        {
            let frame = Frame::Detach {
                session: key.session.clone(),
                stream: key.stream,
                token,
            };
            self.send_frame(self.channel(owner), &frame).await?;
        }
        self.delete_route(route_key, route).await
    }

    /// Ends a local connection and its route, if both are still `token`.
    async fn drop_connection(&self, session: &SessionId, stream: u64, token: u64) {
        let removed = lock(&self.local).remove_connection(session, stream, token);
        if removed == Some(false) {
            // Never announced: no route to drop.
            return;
        }
        let key = self.connection_key(session, stream);
        if let Err(error) = self.delete_route(key, self.route_value(token)).await {
            tracing::warn!(%error, "could not drop a connection route");
        }
    }

    /// Refreshes the routes of everything running here.
    async fn refresh_routes(&self) -> Result<(), StoreError> {
        let (runtimes, connections): (Vec<SessionId>, Vec<(SessionId, u64)>) = {
            let local = lock(&self.local);
            (
                local.runtimes.keys().cloned().collect(),
                local
                    .connections
                    .iter()
                    .filter(|(_, connection)| connection.announced)
                    .map(|(slot, _)| slot.clone())
                    .collect(),
            )
        };
        if runtimes.is_empty() && connections.is_empty() {
            return Ok(());
        }
        let ttl = self.ttl();
        let mut pipeline = redis::pipe();
        for session in &runtimes {
            pipeline
                .cmd("SET")
                .arg(self.runtime_key(session))
                .arg(&self.instance)
                .arg("PX")
                .arg(ttl)
                .ignore();
        }
        for (session, stream) in &connections {
            pipeline
                .cmd("PEXPIRE")
                .arg(self.connection_key(session, *stream))
                .arg(ttl)
                .ignore();
        }
        self.redis
            .pipe::<()>("refreshing bus routes", &pipeline)
            .await
    }
}

/// Receives this instance's frames, reconnecting (with a capped backoff)
/// whenever the pub/sub connection drops; stops when the bus is dropped.
async fn listen(inner: std::sync::Weak<Inner>, ready: watch::Sender<bool>) {
    let mut backoff = Duration::from_millis(50);
    loop {
        let Some(strong) = inner.upgrade() else {
            return;
        };
        let timeout = strong.redis.config.command_timeout;
        let channels = [strong.channel(&strong.instance), strong.broadcast()];
        let client = strong.redis.client.clone();
        drop(strong);
        let connected = tokio::time::timeout(timeout, async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channels).await?;
            Ok::<_, redis::RedisError>(pubsub)
        })
        .await;
        match connected {
            Ok(Ok(pubsub)) => {
                backoff = Duration::from_millis(50);
                ready.send_replace(true);
                let mut messages = pubsub.into_on_message();
                while let Some(message) = messages.next().await {
                    let Some(strong) = inner.upgrade() else {
                        return;
                    };
                    match Frame::decode(message.get_payload_bytes()) {
                        Some(frame) => strong.receive(frame).await,
                        None => tracing::warn!("ignored a bus frame this version cannot read"),
                    }
                }
                tracing::warn!("the bus lost its Redis subscription; reconnecting");
                // Frames for this instance's connections may have been lost
                // meanwhile: end them, so that their clients resume from the
                // event store (which also re-checks the session).
                if let Some(strong) = inner.upgrade() {
                    let mut local = lock(&strong.local);
                    local.connections.clear();
                    local.owners.clear();
                }
            }
            Ok(Err(error)) => tracing::warn!(%error, "the bus could not subscribe to Redis"),
            Err(_) => tracing::warn!("subscribing the bus to Redis timed out"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(1));
    }
}

/// Refreshes this instance's routes at a third of their TTL.
async fn heartbeat(inner: std::sync::Weak<Inner>) {
    let every = match inner.upgrade() {
        Some(strong) => (strong.redis.config.route_ttl / 3).max(Duration::from_millis(10)),
        None => return,
    };
    let mut interval = tokio::time::interval(every);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let Some(strong) = inner.upgrade() else {
            return;
        };
        if let Err(error) = strong.refresh_routes().await {
            tracing::warn!(%error, "could not refresh the bus routes");
        }
    }
}

/// Ends with the receiver; used for an unknown session's subscription.
fn receiver_stream<T: Send + 'static>(
    receiver: mpsc::Receiver<T>,
) -> impl futures_util::Stream<Item = T> + Send {
    futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|item| (item, receiver))
    })
}

impl MessageBus for RedisBus {
    fn register(&self, session: &SessionId, capacity: usize) -> StoreFuture<'_, Inbox> {
        let session = session.clone();
        Box::pin(async move {
            let inner = &self.inner;
            let (sender, receiver) = mpsc::channel(capacity.max(1));
            lock(&inner.local).runtimes.insert(session.clone(), sender);
            let set = inner
                .redis
                .run::<()>(
                    "registering a runtime",
                    redis::cmd("SET")
                        .arg(inner.runtime_key(&session))
                        .arg(&inner.instance)
                        .arg("PX")
                        .arg(inner.ttl()),
                )
                .await;
            if let Err(error) = set {
                lock(&inner.local).runtimes.remove(&session);
                return Err(error);
            }
            let inbox: Inbox = Box::pin(receiver_stream(receiver));
            Ok(inbox)
        })
    }

    fn deliver(&self, session: &SessionId, envelope: Envelope) -> StoreFuture<'_, bool> {
        let session = session.clone();
        Box::pin(async move {
            let inner = &self.inner;
            let local = lock(&inner.local).runtimes.get(&session).cloned();
            if let Some(inbox) = local {
                return Ok(inbox.send(envelope).await.is_ok());
            }
            let remembered = lock(&inner.local).owners.get(&session).cloned();
            let frame = Frame::Deliver {
                session: session.clone(),
                envelope,
            };
            if let Some(owner) = remembered {
                if inner.send_frame(inner.channel(&owner), &frame).await? {
                    return Ok(true);
                }
                // Nobody listens there any more: read the route again.
                lock(&inner.local).owners.remove(&session);
            }
            match inner.find_owner(&session).await? {
                Some(owner) if *owner != *inner.instance => {
                    inner.send_frame(inner.channel(&owner), &frame).await
                }
                // No runtime anywhere, or a stale route to this instance.
                _ => Ok(false),
            }
        })
    }

    fn subscribe(&self, key: &StreamKey, capacity: usize) -> StoreFuture<'_, Subscription> {
        let key = key.clone();
        Box::pin(async move {
            let inner = &self.inner;
            let session = &key.session;
            let local_runtime = lock(&inner.local).runtimes.contains_key(session);
            if !local_runtime {
                let remembered = lock(&inner.local).owners.contains_key(session);
                if !remembered && inner.find_owner(session).await?.is_none() {
                    let empty: Subscription = Box::pin(futures_util::stream::empty());
                    return Ok(empty);
                }
            }
            let (token, subscription) = inner.attach_here(&key, capacity, true);
            inner.write_route(&key, token).await?;
            Ok(subscription)
        })
    }

    fn subscribe_here_now(&self, key: &StreamKey, capacity: usize) -> Option<Subscription> {
        let inner = &self.inner;
        if !lock(&inner.local).runtimes.contains_key(&key.session) {
            return None;
        }
        Some(inner.attach_here(key, capacity, false).1)
    }

    fn announce(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            let inner = &self.inner;
            let token = lock(&inner.local)
                .connections
                .get_mut(&(key.session.clone(), key.stream))
                .filter(|connection| !connection.announced)
                .map(|connection| {
                    connection.announced = true;
                    connection.token
                });
            match token {
                Some(token) => inner.write_route(&key, token).await,
                None => Ok(()),
            }
        })
    }

    fn publish(&self, key: &StreamKey, event: StreamEvent) -> StoreFuture<'_, bool> {
        let key = key.clone();
        Box::pin(async move { self.inner.publish(&key, event).await })
    }

    fn publish_now(
        &self,
        key: &StreamKey,
        event: StreamEvent,
    ) -> Result<Result<bool, StoreError>, StreamEvent> {
        self.inner.publish_now(key, event)
    }

    fn detach(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move { self.inner.detach(&key).await })
    }

    fn close(&self, session: &SessionId) -> StoreFuture<'_, ()> {
        let session = session.clone();
        Box::pin(async move {
            let inner = &self.inner;
            let streams = lock(&inner.local).close(&session);
            let mut pipeline = redis::pipe();
            pipeline
                .cmd("DEL")
                .arg(inner.runtime_key(&session))
                .ignore();
            for stream in streams {
                pipeline
                    .cmd("DEL")
                    .arg(inner.connection_key(&session, stream))
                    .ignore();
            }
            inner
                .redis
                .pipe::<()>("closing a session", &pipeline)
                .await?;
            inner
                .send_frame(inner.broadcast(), &Frame::Close { session })
                .await?;
            Ok(())
        })
    }
}
