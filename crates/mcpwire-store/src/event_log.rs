//! `MemoryEventStore`: the in-memory event log for resumption, bounded by
//! count per stream and per session and by bytes per session and per
//! server, oldest events evicted first in constant amortized time.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::small_queue::SmallQueue;
use crate::{EventStore, Replay, SessionId, StoreError, StoreFuture, StoredEvent, StreamKey};

/// A keyed hash cheaper than SipHash, for tables looked up on every request.
type FastHash = ahash::RandomState;

/// Locks a mutex, ignoring poisoning: every critical section leaves the
/// log consistent after each single change.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Stream event logs in this process's memory, with bounded retention.
///
/// Each stream keeps at most `per_stream` events; each session at most
/// `per_session` events and [`max_session_bytes`](Self::max_session_bytes)
/// bytes of event data; the whole store at most
/// [`max_total_bytes`](Self::max_total_bytes). Past a bound the oldest
/// event (of the stream, the session or the store) goes first. An event
/// larger than a byte bound is not kept at all (it would push out
/// everything else, then itself): it is still delivered live, but a
/// resumption after an earlier event skips it.
///
/// Once a request's stream has been written whole to a connection the
/// server says so ([`EventStore::completed`]); the store then keeps only
/// the latest four such streams of each session, for a client whose
/// connection broke at their very end. The log so holds what resumption
/// may still need: the standalone stream's recent events, streams whose
/// connection broke before their end, and those few.
#[derive(Debug)]
pub struct MemoryEventStore {
    logs: Mutex<Logs>,
    limits: Limits,
}

#[derive(Clone, Copy, Debug)]
struct Limits {
    per_stream: usize,
    per_session: usize,
    session_bytes: usize,
    total_bytes: usize,
}

#[derive(Debug, Default)]
struct Logs {
    sessions: HashMap<SessionId, SessionLog, FastHash>,
    /// Events retained in all.
    total: usize,
    /// Bytes of event data retained in all.
    bytes: usize,
    /// Orders events across the store (and within each session).
    next_order: u64,
    /// Every retained event by age, oldest first, for store-wide eviction.
    /// Entries of events already gone are skipped when met, and the queue
    /// is rebuilt when they outnumber the live ones.
    age: VecDeque<(u64, SessionId, u64)>,
}

#[derive(Debug, Default)]
struct SessionLog {
    /// The streams' logs. The standalone stream (0) is there only once it
    /// was written to: an idle session's log allocates nothing.
    streams: HashMap<u64, StreamLog, FastHash>,
    /// Whether the standalone stream was finished or forgotten (until
    /// then, its absence from `streams` means an empty log).
    standalone_gone: bool,
    total: usize,
    bytes: usize,
    /// The session's events by age, as [`Logs::age`] for the store.
    age: VecDeque<(u64, u64)>,
    /// The streams delivered whole, oldest first, kept for a client whose
    /// connection broke at their very end (at most [`KEEP_COMPLETED`]).
    completed: VecDeque<u64>,
}

#[derive(Debug, Default)]
struct StreamLog {
    /// Inline while it holds one event (a POST stream's answer): opening
    /// and logging a stream allocates nothing then.
    events: SmallQueue<(u64, StoredEvent)>,
    finished: bool,
    delivered: u64,
}

impl SessionLog {
    /// The log of stream `number`, the standalone stream's made now if it
    /// was never written to.
    fn stream_mut(&mut self, number: u64) -> Option<&mut StreamLog> {
        if number == StreamKey::STANDALONE && !self.standalone_gone {
            return Some(self.streams.entry(StreamKey::STANDALONE).or_default());
        }
        self.streams.get_mut(&number)
    }

    /// The log of stream `number`, opened now if it never was (an append
    /// opens the stream it writes to); `None` for a standalone stream that
    /// was finished or forgotten.
    fn stream_or_open(&mut self, number: u64) -> Option<&mut StreamLog> {
        if number == StreamKey::STANDALONE && self.standalone_gone {
            return None;
        }
        Some(self.streams.entry(number).or_default())
    }

    /// Drops the log of stream `number`.
    fn remove_stream(&mut self, number: u64) -> Option<StreamLog> {
        if number == StreamKey::STANDALONE {
            self.standalone_gone = true;
        }
        self.streams.remove(&number)
    }

    /// Logs `event` (the store's `order`-th) on stream `number`, opening
    /// it if need be, and evicts what the session's bounds then push out.
    /// Whether the event was kept.
    fn append(&mut self, number: u64, order: u64, event: StoredEvent, limits: Limits) -> bool {
        let size = event.data.len();
        let Some(stream) = self.stream_or_open(number) else {
            return false;
        };
        if size > limits.session_bytes || size > limits.total_bytes {
            // It would push out everything else and then itself; the
            // stream stays open, so that a client resuming it finds it.
            return false;
        }
        stream.events.push_back((order, event));
        let overflow = stream.events.len() > limits.per_stream;
        self.total += 1;
        self.bytes += size;
        self.age.push_back((order, number));
        if overflow {
            self.evict_front(number);
        }
        self.bound(limits);
        true
    }

    /// Drops the oldest event of stream `number`: its size, if there was one.
    fn evict_front(&mut self, number: u64) -> Option<usize> {
        let stream = self.streams.get_mut(&number)?;
        let (_, event) = stream.events.pop_front()?;
        if stream.finished && stream.events.is_empty() {
            self.remove_stream(number);
        }
        let size = event.data.len();
        self.total -= 1;
        self.bytes -= size;
        Some(size)
    }

    /// Whether the oldest event of stream `number` is the one of `order`
    /// (an age entry that is not stale).
    fn is_front(&self, number: u64, order: u64) -> bool {
        self.streams
            .get(&number)
            .and_then(|stream| stream.events.front())
            .is_some_and(|(front, _)| *front == order)
    }

    /// Evicts the oldest events while the session is over a bound.
    fn bound(&mut self, limits: Limits) {
        while self.total > limits.per_session || self.bytes > limits.session_bytes {
            let Some((order, number)) = self.age.pop_front() else {
                return;
            };
            if self.is_front(number, order) {
                self.evict_front(number);
            }
        }
    }

    /// Marks stream `number` ended, dropping its log when it holds nothing.
    fn finish(&mut self, number: u64) {
        if let Some(stream) = self.stream_mut(number) {
            stream.finished = true;
            if stream.events.is_empty() {
                self.remove_stream(number);
            }
        }
    }

    /// Drops stream `number` and its events.
    fn forget(&mut self, number: u64) {
        if let Some(stream) = self.remove_stream(number) {
            let bytes: usize = stream.events.iter().map(|(_, e)| e.data.len()).sum();
            self.total -= stream.events.len();
            self.bytes -= bytes;
        }
    }

    /// Rebuilds the age queue when its entries of events already gone
    /// (evicted from a stream's front, forgotten streams) outnumber the
    /// live ones: each rebuild is paid for by as many appends.
    fn compact(&mut self) {
        if self.age.len() > 2 * self.total + AGE_SLACK {
            let mut live: Vec<(u64, u64)> = self
                .streams
                .iter()
                .flat_map(|(number, log)| log.events.iter().map(|(order, _)| (*order, *number)))
                .collect();
            live.sort_unstable();
            self.age = live.into();
        }
    }
}

/// How many streams delivered whole a session keeps replayable.
const KEEP_COMPLETED: usize = 4;

/// Slack before an age queue holding entries of events already gone is
/// rebuilt (then it holds at most twice the live events plus this).
const AGE_SLACK: usize = 64;

impl MemoryEventStore {
    /// Default retention per stream, in events.
    pub const DEFAULT_PER_STREAM: usize = 256;
    /// Default retention per session, in events.
    pub const DEFAULT_PER_SESSION: usize = 1024;
    /// Default retention per session, in bytes of event data (4 MiB).
    pub const DEFAULT_SESSION_BYTES: usize = 4 * 1024 * 1024;
    /// Default retention of the whole store, in bytes of event data (64 MiB).
    pub const DEFAULT_TOTAL_BYTES: usize = 64 * 1024 * 1024;

    /// A store with the default retention.
    pub fn new() -> Self {
        Self::with_retention(Self::DEFAULT_PER_STREAM, Self::DEFAULT_PER_SESSION)
    }

    /// A store keeping at most `per_stream` events per stream and
    /// `per_session` per session (each at least 1), with the default byte
    /// bounds.
    pub fn with_retention(per_stream: usize, per_session: usize) -> Self {
        Self {
            logs: Mutex::default(),
            limits: Limits {
                per_stream: per_stream.max(1),
                per_session: per_session.max(1),
                session_bytes: Self::DEFAULT_SESSION_BYTES,
                total_bytes: Self::DEFAULT_TOTAL_BYTES,
            },
        }
    }

    /// Keeps at most `bytes` of event data per session (default 4 MiB).
    pub fn max_session_bytes(mut self, bytes: usize) -> Self {
        self.limits.session_bytes = bytes;
        self
    }

    /// Keeps at most `bytes` of event data in all sessions together
    /// (default 64 MiB), so that many sessions cannot add up to more.
    pub fn max_total_bytes(mut self, bytes: usize) -> Self {
        self.limits.total_bytes = bytes;
        self
    }

    /// Bytes of event data retained now.
    pub fn bytes(&self) -> usize {
        lock(&self.logs).bytes
    }
}

impl Default for MemoryEventStore {
    fn default() -> Self {
        Self::new()
    }
}

impl Logs {
    /// Logs `event` on its stream (and ends the stream when `last`), with
    /// one lookup of its session: the session's bounds are kept on the
    /// session's log, the store's counters follow from what they changed.
    fn append(&mut self, key: &StreamKey, event: StoredEvent, limits: Limits, last: bool) {
        let order = self.next_order;
        let Some(session) = self.sessions.get_mut(&key.session) else {
            return;
        };
        let before = (session.total, session.bytes);
        let kept = session.append(key.stream, order, event, limits);
        if last {
            session.finish(key.stream);
        }
        session.compact();
        self.total = self.total - before.0 + session.total;
        self.bytes = self.bytes - before.1 + session.bytes;
        if kept {
            self.next_order += 1;
            self.age.push_back((order, key.session.clone(), key.stream));
            self.bound_store(limits);
            self.compact();
        }
    }

    /// Evicts the store's oldest events while it is over its byte bound.
    fn bound_store(&mut self, limits: Limits) {
        while self.bytes > limits.total_bytes {
            let Some((order, session_id, number)) = self.age.pop_front() else {
                return;
            };
            if let Some(session) = self.sessions.get_mut(&session_id)
                && session.is_front(number, order)
                && let Some(size) = session.evict_front(number)
            {
                self.total -= 1;
                self.bytes -= size;
            }
        }
    }

    /// Rebuilds the store's age queue when its entries of events already
    /// gone (evicted, forgotten, of removed sessions) outnumber the live
    /// ones, as [`SessionLog::compact`] does for a session's.
    fn compact(&mut self) {
        if self.age.len() > 2 * self.total + AGE_SLACK {
            let mut live: Vec<(u64, SessionId, u64)> = self
                .sessions
                .iter()
                .flat_map(|(id, session)| {
                    session.streams.iter().flat_map(move |(number, log)| {
                        log.events
                            .iter()
                            .map(move |(order, _)| (*order, id.clone(), *number))
                    })
                })
                .collect();
            live.sort_unstable_by_key(|(order, _, _)| *order);
            self.age = live.into();
        }
    }

    /// Changes the log of session `session_id` with `change`, in one lookup,
    /// and brings the store's counters and age queue along.
    fn change_session(&mut self, session_id: &SessionId, change: impl FnOnce(&mut SessionLog)) {
        let Some(session) = self.sessions.get_mut(session_id) else {
            return;
        };
        let before = (session.total, session.bytes);
        change(session);
        session.compact();
        self.total = self.total - before.0 + session.total;
        self.bytes = self.bytes - before.1 + session.bytes;
        self.compact();
    }
}

impl EventStore for MemoryEventStore {
    fn create_session(&self, session: &SessionId) -> StoreFuture<'_, ()> {
        // The standalone stream's log is made with its first event.
        let log = SessionLog::default();
        let mut logs = lock(&self.logs);
        if let Some(old) = logs.sessions.insert(session.clone(), log) {
            logs.total -= old.total;
            logs.bytes -= old.bytes;
        }
        crate::done()
    }

    fn open(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        if let Some(session) = lock(&self.logs).sessions.get_mut(&key.session) {
            session.streams.entry(key.stream).or_default();
        }
        crate::done()
    }

    fn append(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()> {
        lock(&self.logs).append(key, event, self.limits, false);
        crate::done()
    }

    fn finish(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        if let Some(session) = lock(&self.logs).sessions.get_mut(&key.session) {
            session.finish(key.stream);
        }
        crate::done()
    }

    fn append_last(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()> {
        lock(&self.logs).append(key, event, self.limits, true);
        crate::done()
    }

    fn append_now(
        &self,
        key: &StreamKey,
        event: StoredEvent,
        last: bool,
    ) -> Result<Result<(), StoreError>, StoredEvent> {
        lock(&self.logs).append(key, event, self.limits, last);
        Ok(Ok(()))
    }

    fn replay(&self, key: &StreamKey, after: Option<u64>) -> StoreFuture<'_, Option<Replay>> {
        let replay =
            lock(&self.logs)
                .sessions
                .get(&key.session)
                .and_then(|session| match session.streams.get(&key.stream) {
                    Some(stream) => {
                        let after = after.unwrap_or(stream.delivered);
                        Some(Replay {
                            events: stream
                                .events
                                .iter()
                                .filter(|(_, event)| event.seq > after)
                                .map(|(_, event)| event.clone())
                                .collect(),
                            finished: stream.finished,
                        })
                    }
                    // The standalone stream, never written to: empty.
                    None => (key.stream == StreamKey::STANDALONE && !session.standalone_gone).then(
                        || Replay {
                            events: Vec::new(),
                            finished: false,
                        },
                    ),
                });
        Box::pin(async move { Ok(replay) })
    }

    fn mark_delivered(&self, key: &StreamKey, seq: u64) -> StoreFuture<'_, ()> {
        if let Some(stream) = lock(&self.logs)
            .sessions
            .get_mut(&key.session)
            .and_then(|session| session.stream_mut(key.stream))
        {
            stream.delivered = stream.delivered.max(seq);
        }
        crate::done()
    }

    fn forget(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        lock(&self.logs).change_session(&key.session, |session| session.forget(key.stream));
        crate::done()
    }

    fn completed(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        lock(&self.logs).change_session(&key.session, |session| {
            session.completed.push_back(key.stream);
            if session.completed.len() > KEEP_COMPLETED
                && let Some(oldest) = session.completed.pop_front()
            {
                session.forget(oldest);
            }
        });
        crate::done()
    }

    fn remove_session(&self, session: &SessionId) -> StoreFuture<'_, ()> {
        let mut logs = lock(&self.logs);
        if let Some(log) = logs.sessions.remove(session) {
            logs.total -= log.total;
            logs.bytes -= log.bytes;
            crate::shrink_sparse(&mut logs.sessions);
        }
        crate::done()
    }

    fn count(&self) -> StoreFuture<'_, usize> {
        let total = lock(&self.logs).total;
        Box::pin(async move { Ok(total) })
    }
}

#[cfg(test)]
mod tests {
    //! The in-memory event store runs the shared store contract (the Redis
    //! store runs the same checks in mcpwire-redis), and its byte bounds.

    use bytes::Bytes;

    use super::*;
    use crate::store_contract;

    fn sized(seq: u64, bytes: usize) -> StoredEvent {
        StoredEvent {
            seq,
            data: Bytes::from(vec![b'x'; bytes]),
        }
    }

    fn session(name: &str) -> SessionId {
        SessionId::parse(name).unwrap()
    }

    #[tokio::test]
    async fn the_standalone_stream_replays_empty_before_its_first_event_and_not_once_forgotten() {
        let store = MemoryEventStore::new();
        let s = session("standalone-lazy");
        store.create_session(&s).await.unwrap();
        let standalone = StreamKey::new(s.clone(), StreamKey::STANDALONE);
        // Nothing is allocated for it until it is written to.
        assert!(lock(&store.logs).sessions[&s].streams.is_empty());
        let replay = store.replay(&standalone, None).await.unwrap().unwrap();
        assert!(replay.events.is_empty() && !replay.finished);
        store.append(&standalone, sized(1, 3)).await.unwrap();
        store.mark_delivered(&standalone, 1).await.unwrap();
        store.append(&standalone, sized(2, 3)).await.unwrap();
        let replay = store.replay(&standalone, None).await.unwrap().unwrap();
        assert_eq!(replay.events.len(), 1);
        assert_eq!(replay.events[0].seq, 2);
        store.forget(&standalone).await.unwrap();
        assert!(store.replay(&standalone, None).await.unwrap().is_none());
        // A stream of an unknown session is unknown, the standalone one too.
        let unknown = StreamKey::new(session("standalone-unknown"), StreamKey::STANDALONE);
        assert!(store.replay(&unknown, None).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn event_store_replays_only_the_named_stream_after_the_given_event() {
        let store = MemoryEventStore::new();
        store_contract::event_store_replays_only_the_named_stream_after_the_given_event(&store)
            .await;
    }

    #[tokio::test]
    async fn event_store_append_last_appends_and_finishes() {
        let store = MemoryEventStore::new();
        store_contract::event_store_append_last_appends_and_finishes(&store).await;
    }

    #[tokio::test]
    async fn event_store_append_now_logs_as_append_and_append_last_do() {
        let store = MemoryEventStore::new();
        store_contract::event_store_append_now_logs_as_append_and_append_last_do(&store).await;
    }

    #[tokio::test]
    async fn event_store_retention_is_bounded_per_stream_and_per_session() {
        let store = MemoryEventStore::with_retention(3, 5);
        store_contract::event_store_retention_is_bounded_per_stream_and_per_session(&store).await;
    }

    #[tokio::test]
    async fn event_store_ignores_writes_for_sessions_it_does_not_know() {
        let store = MemoryEventStore::new();
        store_contract::event_store_ignores_writes_for_sessions_it_does_not_know(&store).await;
    }

    #[tokio::test]
    async fn standalone_replay_without_an_id_starts_after_the_delivery_mark() {
        let store = MemoryEventStore::new();
        store_contract::event_store_standalone_replay_without_an_id_starts_after_the_delivery_mark(
            &store,
        )
        .await;
    }

    #[tokio::test]
    async fn a_session_keeps_at_most_its_bytes_oldest_first_across_streams() {
        let store = MemoryEventStore::new().max_session_bytes(1000);
        store_contract::event_store_retention_is_bounded_by_bytes_per_session(&store).await;
        assert_eq!(
            store.bytes(),
            0,
            "the session's removal gave its bytes back"
        );
    }

    #[tokio::test]
    async fn the_store_keeps_at_most_its_bytes_across_sessions_and_queues_stay_small() {
        let store = MemoryEventStore::new()
            .max_session_bytes(10_000)
            .max_total_bytes(4_000);
        for name in 0..100 {
            let s = session(&format!("s{name}"));
            store.create_session(&s).await.unwrap();
            let key = StreamKey::new(s.clone(), 0);
            for seq in 1..=20 {
                store.append(&key, sized(seq, 100)).await.unwrap();
            }
            if name % 2 == 0 {
                store.remove_session(&s).await.unwrap();
            }
        }
        assert!(store.bytes() <= 4_000, "{}", store.bytes());
        let logs = lock(&store.logs);
        // Age entries of removed sessions and evicted events do not pile up.
        assert!(
            logs.age.len() <= 2 * logs.total + AGE_SLACK + 1,
            "{}",
            logs.age.len()
        );
        for session in logs.sessions.values() {
            assert!(session.age.len() <= 2 * session.total + AGE_SLACK + 1);
        }
    }

    #[tokio::test]
    async fn only_the_latest_streams_delivered_whole_stay_replayable() {
        let store = MemoryEventStore::new();
        let s = session("completed");
        store.create_session(&s).await.unwrap();
        for stream in 1..=10 {
            let key = StreamKey::new(s.clone(), stream);
            store.open(&key).await.unwrap();
            store.append(&key, sized(1, 100)).await.unwrap();
            store.finish(&key).await.unwrap();
            store.completed(&key).await.unwrap();
        }
        assert_eq!(store.count().await.unwrap(), KEEP_COMPLETED);
        assert!(
            store
                .replay(&StreamKey::new(s.clone(), 6), None)
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            store
                .replay(&StreamKey::new(s.clone(), 7), None)
                .await
                .unwrap()
                .is_some()
        );
    }

    #[tokio::test]
    async fn many_finished_streams_cost_no_scan_per_append() {
        // 20,000 one-event streams in one session under a 1,024-event bound:
        // eviction pops the age queue instead of scanning every stream
        // (quadratic before: about 20 million stream visits).
        let store = MemoryEventStore::new();
        let s = session("many");
        store.create_session(&s).await.unwrap();
        let start = std::time::Instant::now();
        for stream in 1..=20_000 {
            let key = StreamKey::new(s.clone(), stream);
            store.open(&key).await.unwrap();
            store.append(&key, sized(1, 10)).await.unwrap();
            store.finish(&key).await.unwrap();
        }
        assert_eq!(
            store.count().await.unwrap(),
            MemoryEventStore::DEFAULT_PER_SESSION
        );
        // Generous: a debug build does this in tens of milliseconds.
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
}
