//! The side-independent half of the engine: request ids, the in-flight
//! tables in both directions, batch assembly, progress bookkeeping,
//! deadlines and the outgoing queue.

use std::collections::{HashMap, VecDeque};

/// The tables keyed by what the peer chose (request ids, progress tokens):
/// a keyed hash that resists chosen collisions, cheaper than SipHash.
type PeerMap<K, V> = HashMap<K, V, ProcessKeyed>;

/// Queues `value`, taking room for one value when `queue` has none: a
/// queue that holds one value at a time (a session's events and packets
/// while it is idle or handles one request) then costs one slot rather
/// than std's first four; one that holds more grows as before.
pub(crate) fn push_back_lean<T>(queue: &mut VecDeque<T>, value: T) {
    if queue.capacity() == 0 {
        queue.reserve_exact(1);
    }
    queue.push_back(value);
}

/// How many bytes a request's params hold, for
/// [`Limits::max_inbound_bytes_in_flight`].
pub(crate) fn raw_len(params: Option<&RawJson>) -> usize {
    params.map_or(0, |raw| raw.get().len())
}

/// The hasher of tables keyed by what the peer chooses (request ids): ahash
/// with one key per process. A key the peer cannot know resists chosen
/// collisions as well as one per table, which would cost every table 32
/// bytes (several per session, held by every idle session). The engine's
/// in-flight tables use it, and so do a runtime's own tables of request
/// ids (`mcpwire-server`'s driver).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcessKeyed;

impl std::hash::BuildHasher for ProcessKeyed {
    type Hasher = ahash::AHasher;

    fn build_hasher(&self) -> ahash::AHasher {
        static KEY: std::sync::OnceLock<ahash::RandomState> = std::sync::OnceLock::new();
        KEY.get_or_init(ahash::RandomState::new).build_hasher()
    }
}
use std::time::{Duration, Instant};

use mcpwire_jsonrpc::{
    ErrorObject, ErrorResponse, Message, Notification, Packet, RawJson, Request, RequestId,
    Response,
};
use mcpwire_types::{
    CancelledNotificationParams, LoggingLevel, ProgressNotificationParams, ProgressToken,
    ProtocolVersion,
};

use crate::budget::SharedBytes;
use crate::{Limits, RequestOptions, SendError, Timeouts, Transmit};

/// A request we sent that awaits its answer.
#[derive(Debug)]
pub(crate) struct Pending {
    /// Its method, to decode the result by.
    pub(crate) method: &'static str,
    /// When it times out unless progress resets it.
    deadline: Instant,
    /// When it times out whatever happens (LIFE-18).
    hard_deadline: Instant,
    /// The timeout to restart on progress, when resetting.
    reset_to: Option<Duration>,
    /// The progress token we gave it.
    progress_token: Option<ProgressToken>,
    /// The last progress reported, to drop stale or repeated reports.
    last_progress: Option<f64>,
    /// Whether `notifications/cancelled` may name it (never `initialize`: CANCEL-02).
    cancellable: bool,
    /// The peer's request it was sent for, for routing on multi-stream transports.
    related: Option<RequestId>,
}

/// What the engine remembers of a request from the peer while it is handled.
#[derive(Debug, Clone)]
pub(crate) struct RequestInfo {
    /// The revision its answer and notifications must fit.
    pub(crate) version: ProtocolVersion,
    /// The token its progress must carry, if it asked for progress.
    pub(crate) progress_token: Option<ProgressToken>,
    /// The minimum level of log messages sent while it runs (`None`: none in
    /// 2026-07-28, all in the handshake era unless the session set a level).
    pub(crate) log_level: Option<LoggingLevel>,
}

/// A request from the peer that is being handled.
#[derive(Debug)]
pub(crate) struct Active {
    pub(crate) info: RequestInfo,
    /// The last progress we sent for it.
    last_progress: Option<f64>,
    /// Whether the peer cancelled it; its answer is then dropped (CANCEL-05).
    cancelled: bool,
    /// The batch whose response it belongs to.
    batch: Option<BatchId>,
    /// How many bytes of params it came with (counted in
    /// [`Peer::inbound_bytes`] until it is answered).
    bytes: usize,
}

/// Identifies an inbound batch whose responses are gathered into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct BatchId(u64);

/// Responses to a batch, gathered until every request in it is answered.
#[derive(Debug, Default)]
struct BatchGroup {
    /// Requests (and invalid elements) still to be answered.
    open: usize,
    /// Whether every element has been read (so `open == 0` means done).
    sealed: bool,
    responses: Vec<Message>,
}

/// The shared core of a client or server session.
#[derive(Debug)]
pub(crate) struct Peer {
    next_id: i64,
    next_batch: u64,
    pub(crate) limits: Limits,
    pub(crate) timeouts: Timeouts,
    outbound: PeerMap<RequestId, Pending>,
    /// Progress token to the outbound request that carries it.
    progress_tokens: PeerMap<ProgressToken, RequestId>,
    inbound: PeerMap<RequestId, Active>,
    /// The params' bytes of the requests in `inbound`
    /// ([`Limits::max_inbound_bytes_in_flight`]).
    inbound_bytes: usize,
    /// The same bytes counted with every other session of the server
    /// ([`Limits::max_server_inbound_bytes_in_flight`]); `None` for a
    /// client.
    server_inbound_bytes: Option<SharedBytes>,
    batches: PeerMap<BatchId, BatchGroup>,
    transmits: VecDeque<Transmit>,
}

/// What became of an answer the peer sent to one of our requests.
pub(crate) enum Answer {
    /// It answers `id`, sent as `method`.
    Matched {
        id: RequestId,
        method: &'static str,
        outcome: Result<RawJson, ErrorObject>,
    },
    /// It answers nothing we wait for: late after a cancellation or a
    /// timeout, or bogus. Dropped (CANCEL-06).
    Unmatched,
}

impl Peer {
    pub(crate) fn new(limits: Limits, timeouts: Timeouts) -> Self {
        Self {
            // Ids start at 0 and only grow, so none is reused in a session (BASE-05).
            next_id: 0,
            next_batch: 0,
            limits,
            timeouts,
            outbound: PeerMap::default(),
            progress_tokens: PeerMap::default(),
            inbound: PeerMap::default(),
            inbound_bytes: 0,
            server_inbound_bytes: None,
            batches: PeerMap::default(),
            transmits: VecDeque::new(),
        }
    }

    /// Counts the bytes of the requests it admits in `shared` too, the
    /// count of every session of its server.
    pub(crate) fn with_server_inbound_bytes(mut self, shared: SharedBytes) -> Self {
        self.server_inbound_bytes = Some(shared);
        self
    }

    // ----- outgoing queue -------------------------------------------------

    pub(crate) fn queue(&mut self, message: impl Into<Message>, related: Option<RequestId>) {
        let transmit = Transmit {
            packet: Packet::Single(message.into()),
            related,
        };
        push_back_lean(&mut self.transmits, transmit);
    }

    pub(crate) fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// Gives back what the in-flight tables and the outgoing queue hold
    /// beyond their contents (all of it when they are empty, as they are
    /// in a quiet session).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.outbound.shrink_to_fit();
        self.progress_tokens.shrink_to_fit();
        self.inbound.shrink_to_fit();
        self.batches.shrink_to_fit();
        self.transmits.shrink_to_fit();
    }

    /// Sends a notification whose params are already serialized.
    pub(crate) fn notify_raw(
        &mut self,
        method: &str,
        params: Option<RawJson>,
        related: Option<RequestId>,
    ) {
        let notification = Notification {
            method: method.to_owned(),
            params,
        };
        self.queue(notification, related);
    }

    // ----- requests we send -----------------------------------------------

    /// Whether another outbound request fits under the limit.
    pub(crate) fn check_outbound_room(&self) -> Result<(), SendError> {
        if self.outbound.len() >= self.limits.max_outbound_in_flight {
            return Err(SendError::TooManyInFlight(self.outbound.len()));
        }
        Ok(())
    }

    /// The id the next request will carry, and the progress token it gets
    /// when it asks for progress (the id itself, unique among active requests: PROG-02).
    pub(crate) fn next_request_id(&self) -> (RequestId, ProgressToken) {
        (
            RequestId::Number(self.next_id),
            ProgressToken::Number(self.next_id),
        )
    }

    /// Queues a request whose params already carry whatever `_meta` it needs
    /// (including the token from [`Peer::next_request_id`] when progress was asked).
    pub(crate) fn start_request(
        &mut self,
        method: &'static str,
        params: Option<RawJson>,
        options: RequestOptions,
        related: Option<RequestId>,
        now: Instant,
    ) -> RequestId {
        let (id, token) = self.next_request_id();
        self.next_id += 1;
        let maximum = options.maximum.unwrap_or(self.timeouts.maximum);
        let timeout = options
            .timeout
            .unwrap_or(self.timeouts.request)
            .min(maximum);
        let reset = options
            .reset_on_progress
            .unwrap_or(self.timeouts.reset_on_progress);
        let progress_token = options.progress.then_some(token);
        if let Some(token) = &progress_token {
            self.progress_tokens.insert(token.clone(), id.clone());
        }
        self.outbound.insert(
            id.clone(),
            Pending {
                method,
                deadline: deadline_after(now, timeout),
                hard_deadline: deadline_after(now, maximum),
                reset_to: reset.then_some(timeout),
                progress_token,
                last_progress: None,
                cancellable: method != "initialize",
                related: related.clone(),
            },
        );
        let request = Request {
            id: id.clone(),
            method: method.to_owned(),
            params,
        };
        self.queue(request, related);
        id
    }

    /// Makes a pending request one that `notifications/cancelled` never
    /// names, not even when it times out (like `initialize`).
    pub(crate) fn never_cancel(&mut self, id: &RequestId) {
        if let Some(pending) = self.outbound.get_mut(id) {
            pending.cancellable = false;
        }
    }

    fn forget_outbound(&mut self, id: &RequestId) -> Option<Pending> {
        let pending = self.outbound.remove(id)?;
        if let Some(token) = &pending.progress_token {
            self.progress_tokens.remove(token);
        }
        Some(pending)
    }

    /// Matches an answer from the peer to the request it answers.
    pub(crate) fn take_answer(&mut self, message: Message) -> Answer {
        let (id, outcome) = match message {
            Message::Response(Response { id, result }) => (id, Ok(result)),
            Message::Error(ErrorResponse {
                id: Some(id),
                error,
            }) => (id, Err(error)),
            _ => return Answer::Unmatched,
        };
        match self.forget_outbound(&id) {
            Some(pending) => Answer::Matched {
                id,
                method: pending.method,
                outcome,
            },
            None => Answer::Unmatched,
        }
    }

    /// Stops waiting for `id` and tells the peer. Returns whether it was
    /// pending and could be cancelled: `initialize` never is (CANCEL-02), so
    /// it stays pending and its answer still completes the handshake.
    pub(crate) fn cancel_outbound(&mut self, id: &RequestId, reason: Option<String>) -> bool {
        // Forgetting `initialize` here would leave the handshake waiting for
        // an answer that is then dropped as unmatched: refuse instead.
        if self
            .outbound
            .get(id)
            .is_none_or(|pending| !pending.cancellable)
        {
            return false;
        }
        self.give_up(id, reason)
    }

    /// Stops waiting for `id`, telling the peer when the request may be
    /// cancelled (never `initialize`: CANCEL-02). Returns whether it was pending.
    fn give_up(&mut self, id: &RequestId, reason: Option<String>) -> bool {
        let Some(pending) = self.forget_outbound(id) else {
            return false;
        };
        if pending.cancellable {
            let params = CancelledNotificationParams {
                request_id: Some(id.clone()),
                reason,
                meta: None,
                extra: Default::default(),
            };
            let params = RawJson::from_serialize(&params).ok();
            self.notify_raw("notifications/cancelled", params, pending.related);
        }
        true
    }

    /// Records progress the peer reported; returns the request it concerns
    /// when it is new and growing (stale or repeated reports are dropped).
    pub(crate) fn record_progress(
        &mut self,
        progress: &ProgressNotificationParams,
        now: Instant,
    ) -> Option<RequestId> {
        let id = self.progress_tokens.get(&progress.progress_token)?.clone();
        let pending = self.outbound.get_mut(&id)?;
        if pending
            .last_progress
            .is_some_and(|last| progress.progress <= last)
        {
            return None;
        }
        pending.last_progress = Some(progress.progress);
        if let Some(timeout) = pending.reset_to {
            pending.deadline = deadline_after(now, timeout).min(pending.hard_deadline);
        }
        Some(id)
    }

    /// The earliest moment a pending request times out.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.outbound
            .values()
            .map(|p| p.deadline.min(p.hard_deadline))
            .min()
    }

    /// Fails every request whose time is up, sending `notifications/cancelled`
    /// for each (LIFE-16); returns their ids.
    pub(crate) fn expire(&mut self, now: Instant) -> Vec<RequestId> {
        let mut expired: Vec<RequestId> = self
            .outbound
            .iter()
            .filter(|(_, p)| p.deadline.min(p.hard_deadline) <= now)
            .map(|(id, _)| id.clone())
            .collect();
        expired.sort_by_key(RequestId::as_number);
        for id in &expired {
            self.give_up(id, Some("request timed out".to_owned()));
        }
        expired
    }

    /// Every pending request, forgotten (the session is closing).
    pub(crate) fn drain_outbound(&mut self) -> Vec<RequestId> {
        self.progress_tokens.clear();
        let mut ids: Vec<RequestId> = self.outbound.drain().map(|(id, _)| id).collect();
        ids.sort_by_key(RequestId::as_number);
        ids
    }

    pub(crate) fn outbound_len(&self) -> usize {
        self.outbound.len()
    }

    // ----- requests we receive ----------------------------------------------

    /// Starts tracking a request from the peer that came with `bytes` of
    /// params, or says why it cannot be (a duplicate id of one in flight,
    /// or too many requests or bytes in flight).
    pub(crate) fn admit(
        &mut self,
        id: &RequestId,
        info: RequestInfo,
        batch: Option<BatchId>,
        bytes: usize,
    ) -> Result<(), ErrorObject> {
        let full = self.inbound.len() >= self.limits.max_inbound_in_flight;
        // A request alone is always taken: the transport's message size
        // limit bounds it.
        let too_large = !self.inbound.is_empty()
            && self.inbound_bytes.saturating_add(bytes) > self.limits.max_inbound_bytes_in_flight;
        // One hash of the id for the check and the insertion.
        let std::collections::hash_map::Entry::Vacant(slot) = self.inbound.entry(id.clone()) else {
            return Err(ErrorObject::invalid_request(format!(
                "request id {id} is already in use by a request in flight"
            )));
        };
        if full {
            return Err(ErrorObject::internal_error(format!(
                "too many requests in flight (the limit is {})",
                self.limits.max_inbound_in_flight
            )));
        }
        if too_large {
            return Err(ErrorObject::internal_error(format!(
                "too many bytes of requests in flight (the limit is {})",
                self.limits.max_inbound_bytes_in_flight
            )));
        }
        if bytes > 0
            && let Some(shared) = &self.server_inbound_bytes
            && !shared.take(bytes, self.limits.max_server_inbound_bytes_in_flight)
        {
            return Err(ErrorObject::internal_error(format!(
                "the server has too many bytes of requests in flight (the limit is {})",
                self.limits.max_server_inbound_bytes_in_flight
            )));
        }
        self.inbound_bytes += bytes;
        slot.insert(Active {
            info,
            last_progress: None,
            cancelled: false,
            batch,
            bytes,
        });
        Ok(())
    }

    pub(crate) fn inbound_len(&self) -> usize {
        self.inbound.len()
    }

    /// What is known of a live (admitted, not cancelled) request from the peer.
    pub(crate) fn active(&self, id: &RequestId) -> Option<&RequestInfo> {
        self.inbound
            .get(id)
            .filter(|active| !active.cancelled)
            .map(|active| &active.info)
    }

    /// Marks a request from the peer cancelled; returns whether it was live.
    pub(crate) fn cancel_inbound(&mut self, id: &RequestId) -> bool {
        match self.inbound.get_mut(id) {
            Some(active) if !active.cancelled => {
                active.cancelled = true;
                true
            }
            _ => false,
        }
    }

    /// Sends the answer to a request from the peer that went through
    /// [`Peer::admit`]. A cancelled request's answer is dropped (CANCEL-05);
    /// an unknown id is refused.
    pub(crate) fn answer(
        &mut self,
        id: &RequestId,
        outcome: Result<RawJson, ErrorObject>,
    ) -> Result<(), SendError> {
        self.answer_with(id, |_| outcome)
    }

    /// Like [`Peer::answer`], with the answer made by `encode` for the
    /// request's revision: one lookup of `id` in all, and no encoding at
    /// all when the answer is to be dropped.
    pub(crate) fn answer_with(
        &mut self,
        id: &RequestId,
        encode: impl FnOnce(ProtocolVersion) -> Result<RawJson, ErrorObject>,
    ) -> Result<(), SendError> {
        let active = self.inbound.remove(id).ok_or(SendError::UnknownRequest)?;
        self.inbound_bytes = self.inbound_bytes.saturating_sub(active.bytes);
        if let Some(shared) = &self.server_inbound_bytes {
            shared.give(active.bytes);
        }
        let message =
            (!active.cancelled).then(|| answer_message(id.clone(), encode(active.info.version)));
        self.deliver_answer(id, message, active.batch);
        Ok(())
    }

    /// Answers a request that was never admitted (refused before handling):
    /// right away, or inside its batch.
    pub(crate) fn answer_unadmitted(
        &mut self,
        id: Option<RequestId>,
        error: ErrorObject,
        batch: Option<BatchId>,
    ) {
        let related = id.clone();
        let message = Message::Error(ErrorResponse::new(id, error));
        match batch {
            Some(batch) => self.add_to_batch(batch, Some(message), true),
            None => self.queue(message, related),
        }
    }

    /// Answers an admitted request with a result computed by the engine itself.
    pub(crate) fn answer_now(&mut self, id: &RequestId, result: RawJson) {
        // The id was admitted a moment ago, so it cannot be unknown.
        let _ = self.answer(id, Ok(result));
    }

    fn deliver_answer(&mut self, id: &RequestId, message: Option<Message>, batch: Option<BatchId>) {
        match batch {
            Some(batch) => self.add_to_batch(batch, message, true),
            None => {
                if let Some(message) = message {
                    self.queue(message, Some(id.clone()));
                }
            }
        }
    }

    /// Records progress we report on a request from the peer and queues the
    /// notification (PROG-03, PROG-05).
    pub(crate) fn progress(
        &mut self,
        id: &RequestId,
        mut params: ProgressNotificationParams,
    ) -> Result<(), SendError> {
        let active = self.inbound.get_mut(id).filter(|a| !a.cancelled);
        let active = active.ok_or(SendError::UnknownRequest)?;
        let token = active
            .info
            .progress_token
            .clone()
            .ok_or(SendError::NoProgressToken)?;
        if let Some(previous) = active.last_progress
            && params.progress <= previous
        {
            return Err(SendError::ProgressNotIncreasing {
                previous,
                new: params.progress,
            });
        }
        active.last_progress = Some(params.progress);
        params.progress_token = token;
        let params =
            RawJson::from_serialize(&params).map_err(|e| SendError::Serialize(e.to_string()))?;
        self.notify_raw("notifications/progress", Some(params), Some(id.clone()));
        Ok(())
    }

    // ----- batches ----------------------------------------------------------

    pub(crate) fn open_batch(&mut self) -> BatchId {
        let id = BatchId(self.next_batch);
        self.next_batch += 1;
        self.batches.insert(id, BatchGroup::default());
        id
    }

    /// Counts one more element of `batch` that will be answered.
    pub(crate) fn expect_in_batch(&mut self, batch: BatchId) {
        if let Some(group) = self.batches.get_mut(&batch) {
            group.open += 1;
        }
    }

    /// Marks every element of `batch` read; sends it if all are answered.
    pub(crate) fn seal_batch(&mut self, batch: BatchId) {
        if let Some(group) = self.batches.get_mut(&batch) {
            group.sealed = true;
        }
        self.add_to_batch(batch, None, false);
    }

    fn add_to_batch(&mut self, batch: BatchId, message: Option<Message>, closes_one: bool) {
        let Some(group) = self.batches.get_mut(&batch) else {
            return;
        };
        if closes_one {
            group.open = group.open.saturating_sub(1);
        }
        group.responses.extend(message);
        if group.sealed
            && group.open == 0
            && let Some(group) = self.batches.remove(&batch)
            // A batch of only notifications and answers gets no response.
            && !group.responses.is_empty()
        {
            // The batch answers the peer's requests, so it names one of them:
            // a transport with several streams (Streamable HTTP) must send it
            // on the stream of the POST that carried the batch, not as a
            // message standing alone.
            let related = group.responses.iter().find_map(|m| m.id().cloned());
            let packet = Packet::Batch(group.responses);
            self.transmits.push_back(Transmit { packet, related });
        }
    }
}

/// `now + wait`, saturating: `Instant + Duration` panics on overflow, and a
/// caller asking for an unbounded wait (`Duration::MAX`) gets a century
/// instead (on a platform where even that overflows, no wait at all).
fn deadline_after(now: Instant, wait: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);
    now.checked_add(wait.min(CENTURY)).unwrap_or(now)
}

fn answer_message(id: RequestId, outcome: Result<RawJson, ErrorObject>) -> Message {
    match outcome {
        Ok(result) => Message::Response(Response { id, result }),
        Err(error) => Message::Error(ErrorResponse::new(Some(id), error)),
    }
}

/// A session that ends with requests in flight gives their bytes back to
/// its server's count.
impl Drop for Peer {
    fn drop(&mut self) {
        if let Some(shared) = &self.server_inbound_bytes {
            shared.give(self.inbound_bytes);
        }
    }
}
