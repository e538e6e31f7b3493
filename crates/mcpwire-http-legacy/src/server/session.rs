//! The sessions of a legacy server: the registry POSTs find their session
//! in, and each session's SSE stream, whose end is the session's end.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use mcpwire_http::sse::encode_comment;
use mcpwire_jsonrpc::Inbound;
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, Interval, MissedTickBehavior};

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What every part of one session shares: its id, whether it has ended,
/// and when a message last went either way (for idle expiry).
#[derive(Debug)]
pub(crate) struct SessionState {
    pub(crate) id: Arc<str>,
    ended: watch::Sender<bool>,
    last_activity: Mutex<Instant>,
}

impl SessionState {
    pub(crate) fn new(id: Arc<str>) -> Self {
        Self {
            id,
            ended: watch::Sender::new(false),
            last_activity: Mutex::new(Instant::now()),
        }
    }

    /// Notes that a message went one way or the other.
    pub(crate) fn touch(&self) {
        *lock(&self.last_activity) = Instant::now();
    }

    fn last_activity(&self) -> Instant {
        *lock(&self.last_activity)
    }

    pub(crate) fn is_ended(&self) -> bool {
        *self.ended.borrow()
    }

    /// A receiver that sees the session end.
    pub(crate) fn subscribe(&self) -> watch::Receiver<bool> {
        self.ended.subscribe()
    }
}

/// Waits until the session behind `ended` has ended (or its state is gone).
pub(crate) async fn wait_ended(ended: &mut watch::Receiver<bool>) {
    // The guard `wait_for` returns is dropped at once: it must not live
    // across an await, or the future would not be `Send`.
    let _ = ended.wait_for(|ended| *ended).await;
}

/// What the registry keeps of a session: where its POSTs go.
struct Entry {
    inbox: mpsc::Sender<Inbound>,
    state: Arc<SessionState>,
}

/// The live sessions by id.
#[derive(Default)]
pub(crate) struct Registry {
    sessions: Mutex<HashMap<Arc<str>, Entry>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("sessions", &self.len())
            .finish()
    }
}

impl Registry {
    /// Adds a session unless `max` sessions are live already.
    pub(crate) fn insert(
        &self,
        state: &Arc<SessionState>,
        inbox: mpsc::Sender<Inbound>,
        max: usize,
    ) -> bool {
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= max {
            return false;
        }
        let entry = Entry {
            inbox,
            state: Arc::clone(state),
        };
        sessions.insert(Arc::clone(&state.id), entry);
        true
    }

    /// Where POSTs to session `id` go, if it is live.
    pub(crate) fn lookup(&self, id: &str) -> Option<(mpsc::Sender<Inbound>, Arc<SessionState>)> {
        lock(&self.sessions)
            .get(id)
            .map(|entry| (entry.inbox.clone(), Arc::clone(&entry.state)))
    }

    /// Ends a session: later POSTs to it get 404, its runtime's `recv`
    /// returns `None` once drained, and its stream ends. Idempotent.
    pub(crate) fn end(&self, state: &SessionState) {
        {
            let mut sessions = lock(&self.sessions);
            let ours = sessions
                .get(&state.id)
                .is_some_and(|entry| core::ptr::eq(Arc::as_ptr(&entry.state), state));
            if ours {
                sessions.remove(&state.id);
            }
        }
        state.ended.send_replace(true);
    }

    /// Ends every session.
    pub(crate) fn end_all(&self) {
        let entries: Vec<Entry> = lock(&self.sessions).drain().map(|(_, e)| e).collect();
        for entry in entries {
            entry.state.ended.send_replace(true);
        }
    }

    pub(crate) fn len(&self) -> usize {
        lock(&self.sessions).len()
    }
}

/// Ends its session when dropped: the SSE body holds it, and hyper drops
/// the body when the client's connection closes (or the stream ends).
struct SessionGuard {
    registry: Arc<Registry>,
    state: Arc<SessionState>,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        if !self.state.is_ended() {
            tracing::debug!(session = %self.state.id, "the legacy SSE stream closed: the session ends");
        }
        self.registry.end(&self.state);
    }
}

/// How a session's stream runs.
pub(crate) struct StreamSettings {
    pub(crate) keep_alive: Option<Duration>,
    pub(crate) idle_timeout: Option<Duration>,
}

/// The state of a session's SSE body between two chunks.
struct SseBody {
    endpoint: Option<Bytes>,
    outbox: mpsc::Receiver<Bytes>,
    ended: watch::Receiver<bool>,
    keep_alive: Option<Interval>,
    idle_timeout: Option<Duration>,
    guard: SessionGuard,
}

/// The SSE body of a session: the `endpoint` event first (LEG-04), then
/// what the runtime sends (already encoded as `message` events, LEG-06)
/// and keep-alive comments. It ends when the runtime closes its sending
/// half (after what was queued), when the session ends, or when the
/// session has been idle too long; dropping it ends the session.
pub(crate) fn stream(
    registry: Arc<Registry>,
    state: Arc<SessionState>,
    endpoint: Bytes,
    outbox: mpsc::Receiver<Bytes>,
    settings: &StreamSettings,
) -> impl Stream<Item = Bytes> + Send + 'static {
    let keep_alive = settings.keep_alive.map(|period| {
        let mut interval = tokio::time::interval_at(Instant::now() + period, period);
        interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
        interval
    });
    let body = SseBody {
        endpoint: Some(endpoint),
        outbox,
        ended: state.subscribe(),
        keep_alive,
        idle_timeout: settings.idle_timeout,
        guard: SessionGuard { registry, state },
    };
    futures_util::stream::unfold(body, |mut body| async move {
        let chunk = body.next_chunk().await?;
        Some((chunk, body))
    })
}

impl SseBody {
    async fn next_chunk(&mut self) -> Option<Bytes> {
        if let Some(endpoint) = self.endpoint.take() {
            return Some(endpoint);
        }
        loop {
            let idle_deadline = self
                .idle_timeout
                .map(|timeout| self.guard.state.last_activity() + timeout);
            tokio::select! {
                biased;
                () = wait_ended(&mut self.ended) => return None,
                event = self.outbox.recv() => return event,
                () = tick(self.keep_alive.as_mut()) => {
                    let mut comment = bytes::BytesMut::new();
                    encode_comment("keep-alive", &mut comment);
                    return Some(comment.freeze());
                }
                () = sleep_until(idle_deadline) => {
                    let state = &self.guard.state;
                    let idle = Instant::now().saturating_duration_since(state.last_activity());
                    if self.idle_timeout.is_some_and(|timeout| idle >= timeout) {
                        tracing::info!(session = %state.id, ?idle, "legacy session idle too long: ending it");
                        self.guard.registry.end(state);
                        return None;
                    }
                }
            }
        }
    }
}

async fn tick(interval: Option<&mut Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => core::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => core::future::pending().await,
    }
}
