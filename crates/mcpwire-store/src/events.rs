//! The event log of every stream, for resumption with `Last-Event-ID`:
//! stream keys, stored events, replays and the [`EventStore`] trait.

use bytes::Bytes;

use crate::{SessionId, StoreError, StoreFuture};

/// Names one stream of one session.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StreamKey {
    /// The session.
    pub session: SessionId,
    /// The stream: [`STANDALONE`](Self::STANDALONE) (0) for the standalone
    /// GET stream, 1 and up for the streams of POSTed requests.
    pub stream: u64,
}

impl StreamKey {
    /// The number of every session's standalone GET stream.
    pub const STANDALONE: u64 = 0;

    /// Stream `stream` of `session`.
    pub fn new(session: SessionId, stream: u64) -> Self {
        Self { session, stream }
    }
}

/// One message sent on a stream, kept for replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its position in the stream: 1, 2, ... (0 is the priming event,
    /// which carries no message and is never stored).
    pub seq: u64,
    /// The JSON text of the packet.
    pub data: Bytes,
}

/// What a stream still holds after a given event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replay {
    /// The retained events after the given one, oldest first.
    pub events: Vec<StoredEvent>,
    /// Whether the stream has ended: after these events nothing follows.
    pub finished: bool,
}

/// The event log of every stream, for resumption with `Last-Event-ID`
/// (HTTP-30..33).
///
/// Retention is bounded (the in-memory default keeps a fixed number of
/// events per stream and per session and drops the oldest first), so a
/// client that resumes too late may find a gap; it never gets another
/// stream's events. Only [`EventStore::create_session`] brings a session
/// into being: every other method ignores sessions it does not know, so a
/// late write after the session ended cannot resurrect it.
pub trait EventStore: Send + Sync + 'static {
    /// Starts the log of a new session, with its standalone stream 0.
    fn create_session(&self, session: &SessionId) -> StoreFuture<'_, ()>;

    /// Starts the log of a stream (before a priming event names it, for
    /// example: a client may resume from it before any event is logged).
    fn open(&self, key: &StreamKey) -> StoreFuture<'_, ()>;

    /// Appends an event to a stream, opening the stream first when it was
    /// never opened: a stream's first event needs no call of its own (one
    /// round trip fewer per request for a store across the network). The
    /// stream is opened even when the event is too large to keep, so that
    /// a client resuming it finds the stream. A session the store does not
    /// know is still ignored.
    fn append(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()>;

    /// Marks a stream ended: its last event has been appended. A stream
    /// that was never opened stays unknown.
    fn finish(&self, key: &StreamKey) -> StoreFuture<'_, ()>;

    /// Appends a stream's last event and marks the stream ended: what
    /// [`append`](Self::append) then [`finish`](Self::finish) do, in one
    /// call, as a server does with the answer that ends a POST stream (a
    /// stream never opened is opened, as `append` does). The default makes
    /// the two calls; a store across the network makes it one round trip.
    fn append_last(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()> {
        let key = key.clone();
        Box::pin(async move {
            self.append(&key, event).await?;
            self.finish(&key).await
        })
    }

    /// [`append`](Self::append) (or, with `last`,
    /// [`append_last`](Self::append_last)) for a store that can do it
    /// without a future (an in-memory store): `Ok` with what the call
    /// would answer, or `Err` with the event when it cannot, and the
    /// caller then makes the call. A session then logs an answer with no
    /// future to box. The default cannot.
    ///
    /// # Errors
    ///
    /// `Err(event)` when the event cannot be appended at once.
    fn append_now(
        &self,
        key: &StreamKey,
        event: StoredEvent,
        last: bool,
    ) -> Result<Result<(), StoreError>, StoredEvent> {
        let _ = (key, last);
        Err(event)
    }

    /// The events after `after`, or after the stream's delivery mark when
    /// `after` is `None`; `None` when the stream is unknown (never opened,
    /// forgotten, or its session is gone).
    fn replay(&self, key: &StreamKey, after: Option<u64>) -> StoreFuture<'_, Option<Replay>>;

    /// Records that the events up to `seq` were written to a connection
    /// (used for the standalone stream, so that a fresh GET gets what no
    /// connection was sent).
    fn mark_delivered(&self, key: &StreamKey, seq: u64) -> StoreFuture<'_, ()>;

    /// Drops a stream and its events (a stream answered as plain JSON).
    fn forget(&self, key: &StreamKey) -> StoreFuture<'_, ()>;

    /// Every event of a finished stream was written to a connection, so
    /// resumption is unlikely to need them. The default drops the stream
    /// ([`forget`](Self::forget)); a store may instead keep the latest few
    /// for a client whose connection broke just before the end
    /// ([`MemoryEventStore`](crate::MemoryEventStore) keeps four per
    /// session).
    fn completed(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        self.forget(key)
    }

    /// Drops everything of a session.
    fn remove_session(&self, session: &SessionId) -> StoreFuture<'_, ()>;

    /// How many events are retained in all.
    fn count(&self) -> StoreFuture<'_, usize>;
}
