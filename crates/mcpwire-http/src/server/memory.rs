//! The in-memory defaults of the session store and the message bus
//! (the event store's is in `event_log`): everything in this process,
//! bounded, expired lazily and by the server's sweeper.

use std::collections::HashMap;
use std::sync::Mutex;

use super::service::lock;
use std::time::Duration;

use mcpwire_types::ProtocolVersion;
use tokio::time::Instant;

use super::pipe::{PipeSender, TrySendError, pipe};
use mcpwire_store::{
    Envelope, Inbox, MessageBus, SessionId, SessionRecord, SessionStore, StoreError, StoreFuture,
    StreamEvent, StreamKey, Subscription, answered, done,
};

/// A keyed hash cheaper than SipHash, for tables looked up on every request.
type FastHash = ahash::RandomState;

/// Session records in this process's memory.
#[derive(Debug, Default)]
pub struct MemorySessionStore {
    sessions: Mutex<HashMap<SessionId, SessionEntry, FastHash>>,
}

#[derive(Debug)]
struct SessionEntry {
    version: Option<ProtocolVersion>,
    owner: Option<String>,
    deadline: Instant,
    next_stream: u64,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl SessionStore for MemorySessionStore {
    fn create(&self, id: &SessionId, idle: Duration) -> StoreFuture<'_, ()> {
        let entry = SessionEntry {
            version: None,
            owner: None,
            deadline: Instant::now() + idle,
            next_stream: 1,
        };
        lock(&self.sessions).insert(id.clone(), entry);
        done()
    }

    fn touch(&self, id: &SessionId, idle: Duration) -> StoreFuture<'_, Option<SessionRecord>> {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let record = match sessions.get_mut(id) {
            // Expired: gone for requests already; the sweep frees it.
            Some(entry) if entry.deadline <= now => None,
            Some(entry) => {
                entry.deadline = now + idle;
                Some(SessionRecord::new(id.clone(), entry.version).owned_by(entry.owner.clone()))
            }
            None => None,
        };
        Box::pin(async move { Ok(record) })
    }

    fn get(&self, id: &SessionId) -> StoreFuture<'_, Option<SessionRecord>> {
        let now = Instant::now();
        let record = lock(&self.sessions)
            .get(id)
            .filter(|entry| entry.deadline > now)
            .map(|entry| {
                SessionRecord::new(id.clone(), entry.version).owned_by(entry.owner.clone())
            });
        Box::pin(async move { Ok(record) })
    }

    fn set_owner(&self, id: &SessionId, owner: &str) -> StoreFuture<'_, ()> {
        if let Some(entry) = lock(&self.sessions).get_mut(id) {
            entry.owner = Some(owner.to_owned());
        }
        done()
    }

    fn set_version(&self, id: &SessionId, version: ProtocolVersion) -> StoreFuture<'_, ()> {
        if let Some(entry) = lock(&self.sessions).get_mut(id) {
            entry.version = Some(version);
        }
        done()
    }

    fn next_stream(&self, id: &SessionId) -> StoreFuture<'_, Option<u64>> {
        let now = Instant::now();
        // An expired session is gone for good (the trait's rule), even
        // before the sweep frees it: it opens no more streams.
        let mut sessions = lock(&self.sessions);
        let live = sessions.get_mut(id).filter(|entry| entry.deadline > now);
        let number = live.map(|entry| {
            let number = entry.next_stream;
            entry.next_stream += 1;
            number
        });
        Box::pin(async move { Ok(number) })
    }

    fn touch_and_open_stream(
        &self,
        id: &SessionId,
        idle: Duration,
        caller: Option<&str>,
    ) -> StoreFuture<'_, Option<(SessionRecord, u64)>> {
        let opened = self.touch_and_open_stream_now(id, idle, caller);
        Box::pin(async move { opened.unwrap_or(Ok(None)) })
    }

    fn touch_and_open_stream_now(
        &self,
        id: &SessionId,
        idle: Duration,
        caller: Option<&str>,
    ) -> Option<Result<Option<(SessionRecord, u64)>, StoreError>> {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let opened = match sessions.get_mut(id) {
            // Expired: gone for requests already; the sweep frees it.
            Some(entry) if entry.deadline <= now => None,
            Some(entry) => {
                let record =
                    SessionRecord::new(id.clone(), entry.version).owned_by(entry.owner.clone());
                // Another identity gets what an unknown id gets (SEC-10),
                // and neither refreshes the session nor numbers a stream.
                record.admits(caller).then(|| {
                    entry.deadline = now + idle;
                    let number = entry.next_stream;
                    entry.next_stream += 1;
                    (record, number)
                })
            }
            None => None,
        };
        Some(Ok(opened))
    }

    fn remove(&self, id: &SessionId) -> StoreFuture<'_, bool> {
        let mut sessions = lock(&self.sessions);
        let existed = sessions.remove(id).is_some();
        mcpwire_store::shrink_sparse(&mut sessions);
        drop(sessions);
        Box::pin(async move { Ok(existed) })
    }

    fn take_expired(&self) -> StoreFuture<'_, Vec<SessionId>> {
        let now = Instant::now();
        let mut expired = Vec::new();
        let mut sessions = lock(&self.sessions);
        sessions.retain(|id, entry| {
            let live = entry.deadline > now;
            if !live {
                expired.push(id.clone());
            }
            live
        });
        mcpwire_store::shrink_sparse(&mut sessions);
        drop(sessions);
        Box::pin(async move { Ok(expired) })
    }

    fn count(&self) -> StoreFuture<'_, usize> {
        let count = lock(&self.sessions).len();
        Box::pin(async move { Ok(count) })
    }
}

/// A message bus within this process: session inboxes and stream
/// connections are `pipe`s, which hold no buffer while they carry one
/// message at a time, and take what fits at once without a future.
#[derive(Debug, Default)]
pub struct MemoryBus {
    slots: Mutex<HashMap<SessionId, Slot, FastHash>>,
}

struct Slot {
    /// The runtime's inbox. Envelopes are queued as they are, not boxed:
    /// the pipe allocates nothing for one message in flight.
    inbox: PipeSender<Envelope>,
    /// The connection attached to each stream. A pipe rather than a tokio
    /// channel: one is made for every POST (see `pipe`).
    streams: Attached,
}

/// The connections attached to one session's streams. A session usually
/// has one at a time (a POST's, or its GET's): that one is held inline,
/// and a table is made only while more are attached, so that an idle
/// session's slot allocates nothing and looks nothing up by hash.
#[derive(Default)]
struct Attached {
    first: Option<(u64, PipeSender<StreamEvent>)>,
    /// The others, never holding `first`'s stream; `None` when empty.
    #[expect(
        clippy::box_collection,
        reason = "a table rarely made: the slot holds a pointer, not the table's 64 bytes"
    )]
    more: Option<Box<HashMap<u64, PipeSender<StreamEvent>, FastHash>>>,
}

impl Attached {
    fn get(&self, stream: u64) -> Option<&PipeSender<StreamEvent>> {
        match &self.first {
            Some((number, sender)) if *number == stream => Some(sender),
            _ => self.more.as_ref()?.get(&stream),
        }
    }

    /// Attaches `sender` to `stream`, dropping (so ending) the connection
    /// attached before, if any.
    fn insert(&mut self, stream: u64, sender: PipeSender<StreamEvent>) {
        if let Some((number, old)) = &mut self.first
            && *number == stream
        {
            *old = sender;
            return;
        }
        if self.first.is_none()
            && self
                .more
                .as_ref()
                .is_none_or(|more| !more.contains_key(&stream))
        {
            self.first = Some((stream, sender));
            return;
        }
        self.more
            .get_or_insert_with(Box::default)
            .insert(stream, sender);
    }

    fn remove(&mut self, stream: u64) -> Option<PipeSender<StreamEvent>> {
        if self
            .first
            .as_ref()
            .is_some_and(|(number, _)| *number == stream)
        {
            return self.first.take().map(|(_, sender)| sender);
        }
        let more = self.more.as_mut()?;
        let removed = more.remove(&stream);
        if more.is_empty() {
            self.more = None;
        }
        removed
    }

    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.as_ref().map_or(0, |more| more.len())
    }
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot")
            .field("streams", &self.streams.len())
            .finish_non_exhaustive()
    }
}

impl MemoryBus {
    /// An empty bus.
    pub fn new() -> Self {
        Self::default()
    }

    /// Attaches a connection to a stream (see [`MessageBus::subscribe`]).
    fn attach(&self, key: &StreamKey, capacity: usize) -> Subscription {
        let mut slots = lock(&self.slots);
        match slots.get_mut(&key.session) {
            Some(slot) => {
                let (sender, receiver) = pipe(capacity);
                // Replacing the sender drops the old one: the earlier
                // connection sees its stream end.
                slot.streams.insert(key.stream, sender);
                Box::pin(receiver)
            }
            None => Box::pin(futures_util::stream::empty()),
        }
    }

    /// How many session runtimes are registered.
    pub fn runtime_count(&self) -> usize {
        lock(&self.slots).len()
    }

    /// How many stream connections are attached.
    pub fn connection_count(&self) -> usize {
        lock(&self.slots)
            .values()
            .map(|slot| slot.streams.len())
            .sum()
    }
}

impl MessageBus for MemoryBus {
    fn register(&self, session: &SessionId, capacity: usize) -> StoreFuture<'_, Inbox> {
        let (sender, receiver) = pipe(capacity);
        let slot = Slot {
            inbox: sender,
            streams: Attached::default(),
        };
        lock(&self.slots).insert(session.clone(), slot);
        let inbox: Inbox = Box::pin(receiver);
        Box::pin(async move { Ok(inbox) })
    }

    fn deliver(&self, session: &SessionId, envelope: Envelope) -> StoreFuture<'_, bool> {
        let slots = lock(&self.slots);
        let Some(slot) = slots.get(session) else {
            return answered(false);
        };
        // Room in the inbox (the usual case): queued now, answered at once.
        match slot.inbox.try_send(envelope) {
            Ok(()) => answered(true),
            Err(TrySendError::Closed(envelope)) => {
                // Dropped outside the lock: its extensions may hold anything.
                drop(slots);
                drop(envelope);
                answered(false)
            }
            Err(TrySendError::Full(envelope)) => {
                let inbox = slot.inbox.clone();
                drop(slots);
                Box::pin(async move { Ok(inbox.send(envelope).await.is_ok()) })
            }
        }
    }

    fn subscribe(&self, key: &StreamKey, capacity: usize) -> StoreFuture<'_, Subscription> {
        let subscription = self.attach(key, capacity);
        Box::pin(async move { Ok(subscription) })
    }

    fn subscribe_now(&self, key: &StreamKey, capacity: usize) -> Option<Subscription> {
        Some(self.attach(key, capacity))
    }

    fn publish_now(
        &self,
        key: &StreamKey,
        event: StreamEvent,
    ) -> Result<Result<bool, StoreError>, StreamEvent> {
        let fin = event.is_final();
        let mut slots = lock(&self.slots);
        let Some(streams) = slots.get_mut(&key.session).map(|slot| &mut slot.streams) else {
            return Ok(Ok(false));
        };
        let Some(sender) = streams.get(key.stream) else {
            return Ok(Ok(false));
        };
        // Room in the connection's buffer (the usual case): queued now.
        match sender.try_send(event) {
            Ok(()) => {
                if fin {
                    // The stream ends with this event: nothing can follow
                    // it on this connection.
                    streams.remove(key.stream);
                }
                Ok(Ok(true))
            }
            Err(TrySendError::Closed(_)) => {
                // The connection is gone: forget it.
                streams.remove(key.stream);
                Ok(Ok(false))
            }
            Err(TrySendError::Full(event)) => Err(event),
        }
    }

    fn publish(&self, key: &StreamKey, event: StreamEvent) -> StoreFuture<'_, bool> {
        let event = match self.publish_now(key, event) {
            Ok(Ok(published)) => return answered(published),
            Ok(Err(error)) => return Box::pin(std::future::ready(Err(error))),
            Err(event) => event,
        };
        // The connection's buffer is full: wait for room.
        let fin = event.is_final();
        let mut slots = lock(&self.slots);
        let Some(streams) = slots.get_mut(&key.session).map(|slot| &mut slot.streams) else {
            return answered(false);
        };
        let sender = if fin {
            // Taken out of the table now rather than looked up again once
            // the event is delivered.
            streams.remove(key.stream)
        } else {
            streams.get(key.stream).cloned()
        };
        drop(slots);
        let key = key.clone();
        Box::pin(async move {
            let Some(sender) = sender else {
                return Ok(false);
            };
            if sender.send(event).await.is_ok() {
                return Ok(true);
            }
            // The connection is gone: forget it unless it was replaced
            // meanwhile.
            let mut slots = lock(&self.slots);
            if let Some(slot) = slots.get_mut(&key.session)
                && slot
                    .streams
                    .get(key.stream)
                    .is_some_and(|current| current.same_pipe(&sender))
            {
                slot.streams.remove(key.stream);
            }
            Ok(false)
        })
    }

    fn detach(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        if let Some(slot) = lock(&self.slots).get_mut(&key.session) {
            slot.streams.remove(key.stream);
        }
        done()
    }

    fn close(&self, session: &SessionId) -> StoreFuture<'_, ()> {
        let mut slots = lock(&self.slots);
        slots.remove(session);
        mcpwire_store::shrink_sparse(&mut slots);
        drop(slots);
        done()
    }
}

#[cfg(test)]
mod tests {
    //! The in-memory session store and bus run the shared store contract (the Redis stores
    //! run the same checks in mcpwire-redis).

    use crate::server::store_contract;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn session_store_expires_idle_sessions_and_touch_refreshes() {
        let store = MemorySessionStore::new();
        store_contract::session_store_expires_idle_sessions_and_touch_refreshes(
            &store,
            Duration::from_secs(10),
        )
        .await;
    }

    #[tokio::test]
    async fn session_store_binds_a_session_to_its_owner() {
        let store = MemorySessionStore::new();
        store_contract::session_store_binds_a_session_to_its_owner(&store).await;
    }

    #[tokio::test]
    async fn session_store_touches_and_opens_a_stream_at_once() {
        let store = MemorySessionStore::new();
        store_contract::session_store_touches_and_opens_a_stream_at_once(&store).await;
    }

    #[test]
    fn attached_streams_hold_the_first_inline_and_a_table_only_while_more_are_attached() {
        let mut attached = Attached::default();
        let (first, _first_rx) = pipe::<StreamEvent>(1);
        let (second, _second_rx) = pipe::<StreamEvent>(1);
        let (replacement, _replacement_rx) = pipe::<StreamEvent>(1);
        attached.insert(7, first.clone());
        assert!(attached.more.is_none());
        attached.insert(0, second.clone());
        assert_eq!(attached.len(), 2);
        assert!(
            attached
                .get(7)
                .is_some_and(|sender| sender.same_pipe(&first))
        );
        assert!(
            attached
                .get(0)
                .is_some_and(|sender| sender.same_pipe(&second))
        );
        // The inline one goes; the other stays reachable, and a later
        // attach of its number replaces it rather than adding a second.
        assert!(
            attached
                .remove(7)
                .is_some_and(|sender| sender.same_pipe(&first))
        );
        attached.insert(0, replacement.clone());
        assert_eq!(attached.len(), 1);
        assert!(
            attached
                .get(0)
                .is_some_and(|sender| sender.same_pipe(&replacement))
        );
        assert!(attached.remove(0).is_some());
        assert!(attached.remove(0).is_none());
        assert_eq!(attached.len(), 0);
        assert!(attached.first.is_none() && attached.more.is_none());
    }

    #[tokio::test]
    async fn bus_replaces_a_stream_connection_and_reports_absent_ones() {
        let bus = MemoryBus::new();
        store_contract::message_bus_replaces_a_stream_connection_and_reports_absent_ones(&bus)
            .await;
        assert_eq!(bus.runtime_count(), 0);
    }
}
