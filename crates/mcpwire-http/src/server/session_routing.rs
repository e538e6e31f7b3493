//! The runtime's side of a handshake-era session: takes what clients POST
//! from the session's inbox, and routes each packet the runtime sends to
//! the stream of the request it belongs to, logging it for resumption.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::{FutureExt, StreamExt};
use hashbrown::hash_map::EntryRef;
use mcpwire_jsonrpc::{
    BoxFuture, ClassifyError, Inbound, Message, Packet, RequestId, TransportContext,
};
use mcpwire_types::ProtocolVersion;

use super::service::Shared;
use super::transport::{LiveTransport, SessionHandle, TransportError};
use mcpwire_store::{
    Envelope, Inbox, ResponseForm, SessionId, StoredEvent, StreamEvent, StreamKey,
};

/// A keyed hash cheaper than SipHash, for tables looked up on every request.
type FastHash = ahash::RandomState;

/// The routing tables, shared with [`SessionHandle`]s.
pub(crate) type SharedRouting = Arc<Mutex<Routing>>;

fn lock(routing: &SharedRouting) -> MutexGuard<'_, Routing> {
    routing.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The stream carrying the answer to `request`, if one still awaits it.
pub(crate) fn stream_of(routing: &SharedRouting, request: &RequestId) -> Option<u64> {
    lock(routing).routes.get(request).copied()
}

/// Which stream awaits which request, and the position of every stream.
#[derive(Debug, Default)]
pub(crate) struct Routing {
    /// A hashbrown table: an answer finds and removes its route in one
    /// lookup by reference (`entry_ref`).
    routes: hashbrown::HashMap<RequestId, u64, FastHash>,
    streams: HashMap<u64, StreamState, FastHash>,
    initialize: Option<RequestId>,
    /// The session's `initialize` was seen: a later one is an ordinary
    /// (refused) request, not the handshake, and its error answer must not
    /// end the session.
    handshake_seen: bool,
}

#[derive(Debug)]
struct StreamState {
    next_seq: u64,
    /// Requests routed here and not answered yet.
    pending: usize,
    /// Malformed batch elements without an id, each answered by an error
    /// whose id is `null`.
    anonymous: usize,
    answers_only: bool,
    /// Opened by a batch, which the engine may refuse as a whole with one
    /// error whose id is `null`.
    batch: bool,
    /// The decision between JSON and SSE shared with the POST's response
    /// (`Auto` mode, response in this process).
    form: Option<Arc<ResponseForm>>,
}

impl StreamState {
    fn new(answers_only: bool) -> Self {
        Self {
            next_seq: 1,
            pending: 0,
            anonymous: 0,
            answers_only,
            batch: false,
            form: None,
        }
    }

    fn is_settled(&self) -> bool {
        self.pending == 0 && self.anonymous == 0
    }
}

/// Where and how one outgoing packet is sent.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    stream: u64,
    seq: u64,
    last: bool,
    answers_only: bool,
    /// The packet is the stream's first event and its final answer, and
    /// the response claimed to send it as JSON: it is not logged.
    unlogged: bool,
    /// The packet answers `initialize`.
    initialize: Option<Handshake>,
}

impl Routing {
    fn new() -> Self {
        let mut routing = Self::default();
        routing.streams.insert(0, StreamState::new(false));
        routing
    }

    /// Records the requests of a POSTed message as awaited on its stream;
    /// returns the streams a cancellation in it left with nothing to await.
    fn track(&mut self, inbound: &Inbound, envelope: &Envelope) -> Vec<u64> {
        let mut ended = Vec::new();
        if let Some(stream) = envelope.stream {
            let state = self.streams.entry(stream).or_insert_with(|| StreamState {
                form: envelope.form.0.clone(),
                ..StreamState::new(envelope.answers_only)
            });
            state.batch = matches!(inbound, Inbound::Batch(_));
        }
        for item in elements(inbound) {
            match item {
                Ok(Message::Request(request)) => {
                    if request.method == "initialize" && !self.handshake_seen {
                        self.handshake_seen = true;
                        self.initialize = Some(request.id.clone());
                    }
                    self.await_answer(envelope.stream, Some(&request.id));
                }
                Err(error) => self.await_answer(envelope.stream, error.id()),
                Ok(Message::Notification(notification))
                    if notification.method == "notifications/cancelled" =>
                {
                    let cancelled = notification
                        .params
                        .as_ref()
                        .and_then(|raw| serde_json::from_str::<Cancelled>(raw.get()).ok())
                        .and_then(|params| params.request_id);
                    if let Some(id) = cancelled
                        && let Some(stream) = self.settle(&id)
                        && self
                            .streams
                            .get(&stream)
                            .is_some_and(StreamState::is_settled)
                    {
                        // The engine drops a cancelled request's answer: end
                        // its stream here, or the client would wait forever.
                        self.streams.remove(&stream);
                        ended.push(stream);
                    }
                }
                Ok(_) => {}
            }
        }
        ended
    }

    /// The first request id of `inbound` that a request in flight in this
    /// session already uses, or that the same batch repeats: routed by id,
    /// its answer would go to the wrong stream and leave the first one
    /// waiting forever.
    fn reused_id<'a>(&self, inbound: &'a Inbound) -> Option<&'a RequestId> {
        // The first id needs no vector (most POSTs hold one request).
        let mut first: Option<&RequestId> = None;
        let mut seen: Vec<&RequestId> = Vec::new();
        for id in request_ids(inbound) {
            if self.routes.contains_key(id) || first == Some(id) || seen.contains(&id) {
                return Some(id);
            }
            // Batches are small (bounded by the body size): a linear scan
            // costs less than a set for the usual one or two requests.
            if first.is_none() {
                first = Some(id);
            } else {
                seen.push(id);
            }
        }
        None
    }

    fn await_answer(&mut self, stream: Option<u64>, id: Option<&RequestId>) {
        let Some(stream) = stream else { return };
        let Some(state) = self.streams.get_mut(&stream) else {
            return;
        };
        match id {
            Some(id) => {
                state.pending += 1;
                self.routes.insert(id.clone(), stream);
            }
            None => state.anonymous += 1,
        }
    }

    /// Marks `id` answered; returns the stream that awaited it.
    fn settle(&mut self, id: &RequestId) -> Option<u64> {
        let stream = self.routes.remove(id)?;
        if let Some(state) = self.streams.get_mut(&stream) {
            state.pending = state.pending.saturating_sub(1);
        }
        Some(stream)
    }

    /// Settles the oldest batch stream awaiting answers, which a single
    /// id-less error refused as a whole.
    fn refuse_batch(&mut self) -> Option<u64> {
        let stream = self
            .streams
            .iter()
            .filter(|(_, state)| state.batch && !state.is_settled())
            .map(|(number, _)| *number)
            .min()?;
        self.routes.retain(|_, routed| *routed != stream);
        if let Some(state) = self.streams.get_mut(&stream) {
            state.pending = 0;
            state.anonymous = 0;
        }
        Some(stream)
    }

    /// Chooses the stream for a packet and its position there; `None` for
    /// an answer no stream awaits (a late answer to a cancelled request).
    fn plan(&mut self, packet: &Packet, related: Option<&RequestId>) -> Option<Plan> {
        let messages = packet.messages();
        let answers = !messages.is_empty() && messages.iter().all(Message::is_answer);
        let routed = |id: &RequestId| self.routes.get(id).copied();
        let mut stream = related.and_then(routed);
        if stream.is_none() && answers {
            stream = messages.iter().find_map(|m| m.id().and_then(routed));
            if stream.is_none() && messages.iter().any(|m| m.id().is_none()) {
                stream = self
                    .streams
                    .iter()
                    .filter(|(_, state)| state.anonymous > 0)
                    .map(|(number, _)| *number)
                    .min();
            }
            if stream.is_none()
                && let [Message::Error(refusal)] = messages
                && refusal.id.is_none()
            {
                // One error without id for a whole batch: the engine refused
                // it (batches outside 2025-03-26); it answers the batch.
                stream = self.refuse_batch();
            }
        }
        let stream = match stream {
            Some(number)
                if !answers && self.streams.get(&number).is_some_and(|s| s.answers_only) =>
            {
                0
            }
            Some(number) => number,
            None if answers => return None,
            None => 0,
        };
        // The answers are settled first and their stream's state is then
        // found once, updated, and removed through the same entry when they
        // end it (one lookup where a lookup per answer and two more were).
        let mut initialize = None;
        let (mut settled, mut anonymous) = (0, 0);
        if answers && stream != 0 {
            for message in messages {
                match message.id() {
                    Some(id) => {
                        if let EntryRef::Occupied(route) = self.routes.entry_ref(id)
                            && *route.get() == stream
                        {
                            route.remove();
                            settled += 1;
                            if self.initialize.as_ref() == Some(id) {
                                self.initialize = None;
                                initialize = Some(negotiated(message));
                            }
                        }
                    }
                    None => anonymous += 1,
                }
            }
        }
        let mut entry = match self.streams.entry(stream) {
            Entry::Occupied(entry) => entry,
            Entry::Vacant(entry) => entry.insert_entry(StreamState::new(false)),
        };
        let state = entry.get_mut();
        state.pending = state.pending.saturating_sub(settled);
        state.anonymous = state.anonymous.saturating_sub(anonymous);
        let seq = state.next_seq;
        state.next_seq += 1;
        let last = stream != 0 && state.is_settled();
        let answers_only = state.answers_only;
        // A final answer that is the stream's first event goes out as JSON
        // in `Auto` mode, unless the response turned to SSE first.
        let unlogged =
            last && seq == 1 && state.form.as_ref().is_some_and(|form| form.claim_json());
        if last {
            entry.remove();
        }
        Some(Plan {
            stream,
            seq,
            last,
            answers_only,
            unlogged,
            initialize,
        })
    }
}

#[derive(serde::Deserialize)]
struct Cancelled {
    #[serde(rename = "requestId")]
    request_id: Option<RequestId>,
}

/// How `initialize` was answered.
#[derive(Debug, PartialEq, Eq)]
enum Handshake {
    /// With a result naming this revision (`None` if unknown here).
    Negotiated(Option<ProtocolVersion>),
    /// With an error: the session is unusable.
    Failed,
}

fn negotiated(message: &Message) -> Handshake {
    #[derive(serde::Deserialize)]
    struct Negotiated {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    let Message::Response(response) = message else {
        return Handshake::Failed;
    };
    let version = serde_json::from_str::<Negotiated>(response.result.get())
        .ok()
        .and_then(|n| ProtocolVersion::parse(&n.protocol_version).ok());
    Handshake::Negotiated(version)
}

/// The runtime's end of a handshake-era session, as two halves: the
/// outbox sends on the session's streams, the inbox yields what clients
/// POSTed. They share the routing table (which request is on which stream).
pub(crate) fn session_halves(
    shared: &Arc<Shared>,
    id: SessionId,
    inbox: Inbox,
) -> (SessionOutbox, SessionInbox) {
    let routing: SharedRouting = Arc::new(Mutex::new(Routing::new()));
    let outbox = SessionOutbox {
        id: id.clone(),
        routing: routing.clone(),
        live: LiveTransport::new(shared),
        closed: false,
        pending: None,
    };
    let inbox = SessionInbox {
        id,
        inbox,
        routing,
        shared: shared.clone(),
        closed: false,
        packet: None,
    };
    (outbox, inbox)
}

/// The receiving half of a session's transport.
pub(crate) struct SessionInbox {
    id: SessionId,
    inbox: Inbox,
    routing: SharedRouting,
    shared: Arc<Shared>,
    closed: bool,
    /// The POST's extensions of the packet `recv` yielded last: what
    /// `TransportReceiver::request_context` answers with for its requests
    /// (all of a packet's requests came in the same POST), until each of
    /// them has taken them.
    packet: Option<PacketContext>,
}

/// The transport context of the packet a session's runtime received last.
struct PacketContext {
    /// The packet's stream: its requests are the ones routed there.
    stream: u64,
    context: TransportContext,
    /// The packet's requests that have not taken it yet: when none is
    /// left, the extensions (an identity, say) are let go instead of being
    /// kept by an idle session until its next POST.
    untaken: usize,
}

/// The sending half of a session's transport; dropping it ends the session.
pub(crate) struct SessionOutbox {
    id: SessionId,
    routing: SharedRouting,
    live: LiveTransport,
    closed: bool,
    /// What a send fed without waiting left to do.
    pending: Option<Pending>,
}

/// What [`SessionOutbox::feed_now`] could not finish at once.
enum Pending {
    /// The part of the send that waits.
    Rest(BoxFuture<'static, Result<(), TransportError>>),
    /// The send failed; told at the next flush.
    Failed(TransportError),
}

impl Pending {
    async fn finish(self) -> Result<(), TransportError> {
        match self {
            Self::Rest(rest) => rest.await,
            Self::Failed(error) => Err(error),
        }
    }
}

/// The part of a send that waits: the session's negotiated version stored,
/// the event logged, then offered to the stream's connection (within the
/// send timeout), and the session ended when its initialize failed.
struct Rest {
    id: SessionId,
    shared: Arc<Shared>,
    key: StreamKey,
    version: Option<ProtocolVersion>,
    logged: Option<StoredEvent>,
    last: bool,
    event: StreamEvent,
    failed: bool,
}

impl Rest {
    async fn send(self) -> Result<(), TransportError> {
        let config = &self.shared.config;
        let key = &self.key;
        if let Some(version) = self.version {
            config
                .sessions
                .set_version(&self.id, version)
                .await
                .map_err(TransportError::Store)?;
        }
        if let Some(event) = self.logged {
            // The answer that ends a stream is logged and the log finished
            // in one store call (one round trip for a store across the
            // network).
            let logged = if self.last {
                config.events.append_last(key, event)
            } else {
                config.events.append(key, event)
            };
            logged.await.map_err(TransportError::Store)?;
        }
        let mut publish = config.bus.publish(key, self.event);
        // An event usually finds room at once: the send timeout's timer is
        // set only for one that has to wait.
        let published = match (&mut publish).now_or_never() {
            Some(published) => Ok(published),
            None => tokio::time::timeout(config.send_timeout, publish).await,
        };
        match published {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => return Err(TransportError::Store(error)),
            Err(_) => {
                // Back-pressure policy: a connection that does not read
                // within the send timeout is closed; the event stays logged
                // and the client may resume from its last event id.
                tracing::debug!(
                    stream = key.stream,
                    "closing a stream connection that does not read"
                );
                config
                    .bus
                    .detach(key)
                    .await
                    .map_err(TransportError::Store)?;
            }
        }
        if self.failed {
            self.shared.end_session(&self.id).await;
        }
        Ok(())
    }
}

/// The elements of a POSTed message, one for a single message (or an
/// invalid one), in order for a batch; collected into nothing, since this
/// runs for every POST.
fn elements(inbound: &Inbound) -> impl Iterator<Item = Result<&Message, &ClassifyError>> {
    let (single, batch): (_, &[Result<Message, ClassifyError>]) = match inbound {
        Inbound::Single(message) => (Some(Ok(message)), &[]),
        Inbound::Batch(items) => (None, items),
        Inbound::Invalid(error) => (Some(Err(error)), &[]),
    };
    single.into_iter().chain(batch.iter().map(Result::as_ref))
}

/// The ids of the requests in `inbound`.
fn request_ids(inbound: &Inbound) -> impl Iterator<Item = &RequestId> {
    elements(inbound).filter_map(|item| match item {
        Ok(Message::Request(request)) => Some(&request.id),
        _ => None,
    })
}

impl SessionInbox {
    /// The extensions of the POST that carried request `id`, a request of
    /// the packet `recv` yielded last (its requests are the ones routed to
    /// its stream: a reused id never reaches the runtime).
    pub(crate) fn take_context(&mut self, id: &RequestId) -> Option<TransportContext> {
        let packet = self.packet.as_mut()?;
        if lock(&self.routing).routes.get(id) != Some(&packet.stream) {
            return None;
        }
        packet.untaken = packet.untaken.saturating_sub(1);
        if packet.untaken == 0 {
            return self.packet.take().map(|packet| packet.context);
        }
        Some(packet.context.clone())
    }

    pub(crate) fn id(&self) -> &SessionId {
        &self.id
    }

    fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    pub(crate) fn handle(&self) -> SessionHandle {
        SessionHandle {
            target: Some((self.id.clone(), self.shared().clone(), self.routing.clone())),
        }
    }

    /// The next message POSTed to the session; `None` once it ended.
    pub(crate) async fn recv(&mut self) -> Option<Inbound> {
        if self.closed {
            return None;
        }
        // Only synchronous work follows taking an envelope, so dropping this
        // future early loses nothing (the Transport contract).
        let (mut envelope, inbound) = loop {
            let Some(mut envelope) = self.inbox.next().await else {
                self.closed = true;
                return None;
            };
            let inbound = envelope.take_inbound();
            let reused = lock(&self.routing).reused_id(&inbound).cloned();
            match (reused, envelope.stream) {
                (Some(id), Some(stream)) => self.refuse_reused_id(stream, &id, &envelope),
                _ => break (envelope, inbound),
            }
        };
        let untaken = request_ids(&inbound).count();
        self.packet = match (envelope.stream, envelope.extensions.0.take()) {
            (Some(stream), Some(extensions)) if untaken > 0 => Some(PacketContext {
                stream,
                context: extensions,
                untaken,
            }),
            _ => None,
        };
        let ended = lock(&self.routing).track(&inbound, &envelope);
        for stream in ended {
            let shared = self.shared().clone();
            let key = StreamKey::new(self.id.clone(), stream);
            tokio::spawn(async move {
                let config = &shared.config;
                let _ = config.events.finish(&key).await;
                let _ = config.bus.publish(&key, StreamEvent::End).await;
            });
        }
        Some(inbound)
    }
}

impl SessionInbox {
    /// Answers a POST that reuses the id of a request in flight with one
    /// Invalid Request error on its own stream, which ends it; nothing of
    /// it reaches the runtime, and the request in flight keeps its stream.
    fn refuse_reused_id(&self, stream: u64, id: &RequestId, envelope: &Envelope) {
        let error = mcpwire_jsonrpc::ErrorObject::invalid_request(format!(
            "the request id {id} is already used by a request in flight in this session"
        ));
        let answer = Message::from(mcpwire_jsonrpc::ErrorResponse::new(None, error));
        let data = Bytes::from(answer.to_vec());
        let logged = !envelope.answers_only;
        let shared = self.shared().clone();
        let key = StreamKey::new(self.id.clone(), stream);
        // Spawned: `recv` must not await once it took an envelope.
        tokio::spawn(async move {
            let config = &shared.config;
            if logged {
                let event = StoredEvent {
                    seq: 1,
                    data: data.clone(),
                };
                let _ = config.events.append_last(&key, event).await;
            }
            let event = StreamEvent::Message {
                seq: 1,
                data,
                last: true,
            };
            let _ = config.bus.publish(&key, event).await;
        });
    }
}

impl SessionOutbox {
    fn shared(&self) -> &Arc<Shared> {
        self.live.shared()
    }

    /// Sends a packet on the stream of the request it belongs to.
    pub(crate) async fn send(
        &mut self,
        packet: Packet,
        related: Option<&RequestId>,
    ) -> Result<(), TransportError> {
        if let Some(sent) = self.pending.take() {
            sent.finish().await?;
        }
        match self.begin_send(&packet, related)? {
            Some(rest) => rest.await,
            None => Ok(()),
        }
    }

    /// Sends a packet as [`send`](Self::send) does, keeping what has to
    /// wait (a store call, a full connection) for
    /// [`poll_sent`](Self::poll_sent): `Err` with the packet back while
    /// the session is closed or an earlier send still waits.
    pub(crate) fn feed_now(
        &mut self,
        packet: Packet,
        related: Option<&RequestId>,
    ) -> Result<(), Packet> {
        if self.closed || self.pending.is_some() {
            return Err(packet);
        }
        self.pending = match self.begin_send(&packet, related) {
            Ok(None) => None,
            Ok(Some(rest)) => Some(Pending::Rest(rest)),
            Err(error) => Some(Pending::Failed(error)),
        };
        Ok(())
    }

    /// Finishes what [`feed_now`](Self::feed_now) left waiting.
    pub(crate) fn poll_sent(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), TransportError>> {
        let outcome = match &mut self.pending {
            None => return Poll::Ready(Ok(())),
            Some(Pending::Rest(rest)) => std::task::ready!(rest.as_mut().poll(cx)),
            Some(Pending::Failed(_)) => Ok(()),
        };
        match self.pending.take() {
            Some(Pending::Failed(error)) => Poll::Ready(Err(error)),
            _ => Poll::Ready(outcome),
        }
    }

    /// Routes a packet and hands it on as far as that goes without
    /// waiting: `None` when it was handed on whole (an answer sent as
    /// JSON, or on an unlogged stream, whose connection has room), or the
    /// rest to await (the session's version stored, the event logged, a
    /// full connection, the end of a session whose initialize failed).
    fn begin_send(
        &mut self,
        packet: &Packet,
        related: Option<&RequestId>,
    ) -> Result<Option<BoxFuture<'static, Result<(), TransportError>>>, TransportError> {
        if self.closed {
            return Err(TransportError::Closed);
        }
        let Some(plan) = lock(&self.routing).plan(packet, related) else {
            tracing::debug!("dropping an answer that no stream awaits");
            return Ok(None);
        };
        let key = StreamKey::new(self.id.clone(), plan.stream);
        let data = Bytes::from(packet.to_vec());
        let version = match plan.initialize {
            Some(Handshake::Negotiated(Some(version))) => Some(version),
            _ => None,
        };
        // A failed initialize leaves a session nobody can use: it ends
        // once its answer is out.
        let failed = plan.initialize == Some(Handshake::Failed);
        if failed {
            self.closed = true;
        }
        let mut logged = (!plan.answers_only && !plan.unlogged).then(|| StoredEvent {
            seq: plan.seq,
            data: data.clone(),
        });
        let mut event = StreamEvent::Message {
            seq: plan.seq,
            data,
            last: plan.last,
        };
        if version.is_none() {
            let config = &self.shared().config;
            if let Some(event) = logged.take() {
                // Logged at once when the store can (the in-memory one).
                match config.events.append_now(&key, event, plan.last) {
                    Ok(Ok(())) => {}
                    Ok(Err(error)) => return Err(TransportError::Store(error)),
                    Err(unlogged) => logged = Some(unlogged),
                }
            }
            if logged.is_none() {
                match config.bus.publish_now(&key, event) {
                    Ok(Ok(_)) if !failed => return Ok(None),
                    Ok(Ok(_)) => {
                        let (shared, id) = (self.shared().clone(), self.id.clone());
                        return Ok(Some(Box::pin(async move {
                            shared.end_session(&id).await;
                            Ok(())
                        })));
                    }
                    Ok(Err(error)) => return Err(TransportError::Store(error)),
                    Err(unsent) => event = unsent,
                }
            }
        }
        let rest = Rest {
            id: self.id.clone(),
            shared: self.shared().clone(),
            key,
            version,
            logged,
            last: plan.last,
            event,
            failed,
        };
        Ok(Some(Box::pin(rest.send())))
    }

    /// Ends the session.
    pub(crate) async fn close(&mut self) -> Result<(), TransportError> {
        self.closed = true;
        // What was fed goes out first.
        let sent = match self.pending.take() {
            Some(pending) => pending.finish().await,
            None => Ok(()),
        };
        let shared = self.shared().clone();
        shared.end_session(&self.id).await;
        sent
    }
}

impl Drop for SessionOutbox {
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        // Dropped without close: end the session all the same, so that its
        // id gets 404 rather than a request nobody answers.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let shared = self.shared().clone();
            let id = self.id.clone();
            runtime.spawn(async move { shared.end_session(&id).await });
        }
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_jsonrpc::{ErrorObject, ErrorResponse, Notification, Request, Response};
    use serde_json::json;

    use super::*;

    fn envelope(payload: &str, stream: Option<u64>, answers_only: bool) -> (Inbound, Envelope) {
        let envelope = Envelope::new(Bytes::from(payload.to_owned()), stream, answers_only);
        (Inbound::from_slice(&envelope.payload), envelope)
    }

    fn answer(id: i64) -> Packet {
        Packet::from(Response::new(id, &json!({})).unwrap())
    }

    fn progress() -> Packet {
        Packet::from(Notification::new("notifications/progress", &json!({})).unwrap())
    }

    #[test]
    fn messages_about_a_request_go_on_its_stream_and_its_answer_ends_it() {
        let mut routing = Routing::new();
        let (inbound, env) = envelope(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
            Some(3),
            false,
        );
        assert!(routing.track(&inbound, &env).is_empty());
        let id = RequestId::from(7);
        let plan = routing.plan(&progress(), Some(&id)).unwrap();
        assert_eq!((plan.stream, plan.seq, plan.last), (3, 1, false));
        let server_request = Packet::from(Request::without_params(0, "ping"));
        assert_eq!(routing.plan(&server_request, Some(&id)).unwrap().stream, 3);
        let plan = routing.plan(&answer(7), Some(&id)).unwrap();
        assert_eq!((plan.stream, plan.seq, plan.last), (3, 3, true));
        // Unrelated messages use the standalone stream; late answers are dropped.
        assert_eq!(routing.plan(&progress(), Some(&id)).unwrap().stream, 0);
        assert_eq!(routing.plan(&answer(7), Some(&id)), None);
    }

    /// Routing that tracks request `id` of an `Auto` POST on stream `id`,
    /// and the decision it shares with the POST's response.
    fn auto_post(id: u64) -> (Routing, Arc<ResponseForm>) {
        let mut routing = Routing::new();
        let payload = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"x"}}"#);
        let (inbound, mut env) = envelope(&payload, Some(id), false);
        let form = Arc::new(ResponseForm::new());
        env.form = mcpwire_store::SharedForm(Some(form.clone()));
        routing.track(&inbound, &env);
        (routing, form)
    }

    /// `Auto` mode: a final answer that is its stream's first event goes
    /// unlogged when the runtime claims JSON first, and is logged when the
    /// response turned to SSE first; an answer after other events is
    /// logged and claims nothing.
    #[test]
    fn a_first_and_final_answer_goes_unlogged_only_when_its_json_claim_wins() {
        for sse_first in [false, true] {
            let (mut routing, form) = auto_post(1);
            if sse_first {
                assert!(form.claim_sse());
            }
            let plan = routing.plan(&answer(1), Some(&RequestId::from(1))).unwrap();
            assert!(plan.last && plan.seq == 1);
            assert_eq!(plan.unlogged, !sse_first);
            assert_eq!(form.is_json(), !sse_first);
        }
        let (mut routing, form) = auto_post(2);
        let id = RequestId::from(2);
        assert!(!routing.plan(&progress(), Some(&id)).unwrap().unlogged);
        let plan = routing.plan(&answer(2), Some(&id)).unwrap();
        assert!(plan.last && !plan.unlogged);
        assert!(!form.is_json(), "nothing claimed");
    }

    #[test]
    fn json_streams_take_only_answers() {
        let mut routing = Routing::new();
        let (inbound, env) = envelope(r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#, Some(1), true);
        routing.track(&inbound, &env);
        let id = RequestId::from(1);
        assert_eq!(routing.plan(&progress(), Some(&id)).unwrap().stream, 0);
        let plan = routing.plan(&answer(1), Some(&id)).unwrap();
        assert!(plan.last && plan.answers_only && plan.stream == 1);
    }

    #[test]
    fn a_batch_stream_ends_when_every_element_is_answered() {
        let mut routing = Routing::new();
        let payload = r#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"},{"jsonrpc":"2.0","method":"n"},5]"#;
        let (inbound, env) = envelope(payload, Some(2), false);
        routing.track(&inbound, &env);
        let batch = Packet::Batch(vec![
            Message::from(Response::new(1, &json!({})).unwrap()),
            Message::from(ErrorResponse::new(
                None,
                ErrorObject::invalid_request("bad"),
            )),
        ]);
        assert!(
            !routing
                .plan(&batch, Some(&RequestId::from(1)))
                .unwrap()
                .last
        );
        assert!(routing.plan(&answer(2), None).unwrap().last);
    }

    #[test]
    fn a_batch_refused_as_a_whole_is_answered_on_its_stream() {
        let mut routing = Routing::new();
        let payload =
            r#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]"#;
        let (inbound, env) = envelope(payload, Some(6), false);
        routing.track(&inbound, &env);
        let refusal = Packet::from(ErrorResponse::new(
            None,
            ErrorObject::invalid_request("no batches"),
        ));
        let plan = routing.plan(&refusal, None).unwrap();
        assert_eq!((plan.stream, plan.last), (6, true));
        assert_eq!(routing.plan(&answer(1), None), None);
    }

    #[test]
    fn cancelling_the_only_request_ends_its_stream() {
        let mut routing = Routing::new();
        let (inbound, env) = envelope(r#"{"jsonrpc":"2.0","id":"a","method":"x"}"#, Some(4), false);
        routing.track(&inbound, &env);
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#;
        let (inbound, env) = envelope(cancel, None, false);
        assert_eq!(routing.track(&inbound, &env), vec![4]);
        assert_eq!(routing.plan(&answer(1), None), None);
    }

    #[test]
    fn the_initialize_answer_reports_the_negotiated_revision() {
        let mut routing = Routing::new();
        let (inbound, env) = envelope(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#,
            Some(1),
            false,
        );
        routing.track(&inbound, &env);
        let result =
            Packet::from(Response::new(0, &json!({"protocolVersion": "2025-06-18"})).unwrap());
        let plan = routing.plan(&result, Some(&RequestId::from(0))).unwrap();
        assert_eq!(
            plan.initialize,
            Some(Handshake::Negotiated(Some(ProtocolVersion::V2025_06_18)))
        );
    }
}
