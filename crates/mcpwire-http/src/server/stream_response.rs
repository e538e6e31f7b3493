//! The HTTP side of a stream: turns the events of a subscription into a
//! JSON response or an SSE body, with event ids, priming, keep-alive
//! comments, polling closes (SEP-1699) and the bookkeeping of open streams.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};

use bytes::{BufMut, Bytes, BytesMut};
use futures_util::{FutureExt, StreamExt};
use http::StatusCode;
use http::header::HeaderValue;
use mcpwire_jsonrpc::{ErrorCode, Message, Packet};
use mcpwire_types::{McpErrorCode, ProtocolVersion};
use tokio::sync::watch;
use tokio::time::Sleep;

use super::beat::{Beat, Watch};
use super::body::{HttpResponse, frames, json, sse, sse_whole};
use super::config::ResponseMode;
use super::names::SESSION_ID;
use super::service::Shared;
use super::transport::CancelSignal;
use mcpwire_store::{ResponseForm, SessionId, StreamEvent, StreamKey, Subscription};

/// Counts an open stream while it lives and does what its end requires:
/// frees its slot, records how far the standalone stream was delivered,
/// and cancels a stateless request whose stream closed before the answer.
pub(crate) struct StreamGuard {
    shared: Arc<Shared>,
    session: Option<SessionId>,
    standalone: Option<StreamKey>,
    delivered: u64,
    finished: bool,
    cancel: Option<Arc<CancelSignal>>,
}

impl StreamGuard {
    /// Opens a stream of `session` (or of a stateless request); `None` when
    /// the session already has as many open streams as allowed.
    pub(crate) fn open(shared: &Arc<Shared>, session: Option<&SessionId>) -> Option<Self> {
        if let Some(id) = session
            && !shared.claim_stream(id)
        {
            return None;
        }
        shared.counters.open_streams.fetch_add(1, Ordering::Relaxed);
        Some(Self {
            shared: shared.clone(),
            session: session.cloned(),
            standalone: None,
            delivered: 0,
            finished: false,
            cancel: None,
        })
    }

    pub(crate) fn standalone(mut self, key: StreamKey) -> Self {
        self.standalone = Some(key);
        self
    }

    pub(crate) fn cancelling(mut self, cancel: Arc<CancelSignal>) -> Self {
        self.cancel = Some(cancel);
        self
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.shared
            .counters
            .open_streams
            .fetch_sub(1, Ordering::Relaxed);
        if let Some(id) = &self.session {
            self.shared.release_stream(id);
        }
        if let Some(cancel) = &self.cancel
            && !self.finished
        {
            // 2026-07-28: closing the response stream cancels the request.
            cancel.fire();
        }
        if let Some(key) = self.standalone.take()
            && self.delivered > 0
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let events = self.shared.config.events.clone();
            let seq = self.delivered;
            runtime.spawn(async move {
                if let Err(error) = events.mark_delivered(&key, seq).await {
                    tracing::debug!(%error, "could not record standalone delivery");
                }
            });
        }
    }
}

/// Everything needed to answer one POST (or GET) from its stream.
pub(crate) struct Outgoing {
    pub(crate) subscription: Subscription,
    pub(crate) guard: StreamGuard,
    pub(crate) mode: ResponseMode,
    /// The POST body was a batch: a JSON answer is an array.
    pub(crate) batch: bool,
    /// The stream's key when its events carry ids (resumable streams).
    pub(crate) key: Option<StreamKey>,
    /// The negotiated revision, when known (priming and polling need
    /// 2025-11-25 or later).
    pub(crate) version: Option<ProtocolVersion>,
    /// Stateless: JSON-RPC errors choose the HTTP status, which the
    /// request's outbox records here as it sends the answer.
    pub(crate) stateless: Option<Arc<AnswerStatus>>,
    /// The POST carries `initialize`: its answer names the revision, and
    /// the session id is returned unless it failed.
    pub(crate) initialize: Option<SessionId>,
    /// `Auto` mode: the decision between JSON and SSE, shared with the
    /// runtime when it runs in this process (see [`ResponseForm`]).
    pub(crate) form: Option<Arc<ResponseForm>>,
}

/// Whether a revision has SSE polling (priming events, `retry:`, closing
/// connections without ending streams).
pub(crate) fn has_polling(version: Option<ProtocolVersion>) -> bool {
    version.is_some_and(ProtocolVersion::has_sse_polling)
}

/// Answers a POST from the events of its stream, as JSON or SSE.
pub(crate) async fn respond(shared: &Arc<Shared>, mut out: Outgoing) -> HttpResponse {
    let config = &shared.config;
    if out.mode == ResponseMode::Json {
        // By reference: moving `out` would copy it into a second future.
        return collect_json(&mut out).await;
    }
    // Decide between JSON and SSE from the first event, unless SSE is
    // certain and the first event cannot change the response head: then
    // the head goes out at once, with the priming event of a resumable
    // stream (HTTP-13), and an answer already in goes with it.
    let wait_first =
        out.mode == ResponseMode::Auto || out.stateless.is_some() || out.initialize.is_some();
    let mut first = None;
    if wait_first {
        // `Auto` waits for the first event until a keep-alive is due (then
        // answers with SSE, to send it), on the server's keep-alive beat
        // rather than a timer of its own.
        let deadline = match out.mode {
            ResponseMode::Auto => shared.beat.as_ref().map(Beat::watch),
            _ => None,
        };
        match next_decisive(&mut out, deadline.as_ref()).await {
            First::Event(event) => first = Some(event),
            First::Closed => return gone(out.stateless.is_some()),
            First::TimedOut => {}
        }
    }
    // Whether an `Auto` response turns to SSE before any message (a
    // keep-alive came due, or the stream was paused). It does unless the
    // runtime already published its answer unlogged, for JSON: that answer
    // is then on its way, and goes out as JSON (a pause before it is moot).
    let mut early_sse = out.mode == ResponseMode::Auto
        && !matches!(first, Some(StreamEvent::Message { .. } | StreamEvent::End));
    if early_sse
        && let Some(form) = &out.form
        && !form.claim_sse()
    {
        early_sse = false;
        first = loop {
            match out.subscription.next().await {
                Some(StreamEvent::Pause) => {}
                Some(event) => break Some(event),
                None => return gone(false),
            }
        };
    }
    // A final answer as the first event is sent as plain JSON in `Auto`
    // mode, and so is a stateless error that chooses the HTTP status.
    let plain_json = match &first {
        Some(StreamEvent::Message { last: true, .. }) => {
            let status = out.stateless.as_ref().map_or(StatusCode::OK, |s| s.get());
            (out.mode == ResponseMode::Auto || status != StatusCode::OK).then_some(status)
        }
        _ => None,
    };
    if let Some(status) = plain_json
        && let Some(StreamEvent::Message { data, .. }) = first
    {
        out.guard.finished = true;
        // An answer the runtime sent unlogged (`ResponseForm`) left nothing
        // to forget.
        if !out.form.as_ref().is_some_and(|form| form.is_json()) {
            forget_stream(shared, &out.key);
        }
        let session = session_of_answer(out.initialize.as_ref(), &data).cloned();
        let mut response = json(status, data);
        add_session_header(&mut response, session.as_ref());
        return response;
    }
    let version = match (&first, out.initialize.is_some()) {
        (Some(StreamEvent::Message { data, .. }), true) => initialize_version(data),
        _ => out.version,
    };
    // An `Auto` POST's stream may not be reachable from other instances
    // yet (`MessageBus::subscribe_here_now`): it must be before an event
    // id goes out, since a client may resume it anywhere with that id.
    if out.mode == ResponseMode::Auto
        && let Some(key) = &out.key
        && let Err(error) = config.bus.announce(key).await
    {
        tracing::warn!(%error, "could not make a stream reachable from other instances");
    }
    let mut polling = out.key.is_some() && has_polling(version);
    if polling
        && early_sse
        && let Some(key) = &out.key
    {
        // In `Auto` mode the POST left the log to the stream's first
        // logged event (which opens it). A priming event before any names
        // the stream to a client that may resume from it, so the log must
        // be there first. Without it the stream is not resumable: no
        // priming event then, rather than an id that leads nowhere.
        if let Err(error) = config.events.open(key).await {
            tracing::warn!(%error, "could not open a stream's event log; sending it without a priming event");
            polling = false;
        }
    }
    let mut pending = Vec::new();
    if polling && let Some(key) = &out.key {
        frames::put_priming(&mut pending, key.stream, config.retry_millis());
    }
    let session = match &first {
        Some(StreamEvent::Message { data, .. }) => {
            session_of_answer(out.initialize.as_ref(), data).cloned()
        }
        _ => out.initialize.clone(),
    };
    let mut state = SseState::new(
        shared,
        out.subscription,
        out.guard,
        out.key,
        pending,
        polling,
        false,
    );
    if let Some(event) = first {
        state.accept(Some(event));
    }
    let mut response = match state.take_whole() {
        Some(whole) => sse_whole(whole),
        None => sse(state.into_stream()),
    };
    add_session_header(&mut response, session.as_ref());
    response
}

/// The outcome of waiting for the first event of a stream.
enum First {
    Event(StreamEvent),
    Closed,
    TimedOut,
}

/// Waits for the first event that decides the response (a `Pause` counts
/// only where polling exists).
async fn next_decisive(out: &mut Outgoing, deadline: Option<&Watch>) -> First {
    let polling = out.key.is_some() && has_polling(out.version);
    let wait = async {
        loop {
            match out.subscription.next().await {
                Some(StreamEvent::Pause) if !polling => {}
                Some(event) => return First::Event(event),
                None => return First::Closed,
            }
        }
    };
    match deadline {
        Some(watch) => {
            tokio::select! {
                biased;
                first = wait => first,
                () = watch.quiet() => First::TimedOut,
            }
        }
        None => wait.await,
    }
}

/// JSON mode: gathers the answers until the stream ends.
async fn collect_json(out: &mut Outgoing) -> HttpResponse {
    // Most POSTs hold one request: its answer needs no vector.
    let mut first = None;
    let mut more = Vec::new();
    loop {
        match out.subscription.next().await {
            Some(StreamEvent::Message { data, last, .. }) => {
                if first.is_none() {
                    first = Some(data);
                } else {
                    more.push(data);
                }
                if last {
                    break;
                }
            }
            Some(StreamEvent::End) => break,
            Some(_) => {}
            None if first.is_none() => return gone(out.stateless.is_some()),
            None => break,
        }
    }
    out.guard.finished = true;
    let Some(first) = first else {
        // Every request was cancelled: there is nothing to answer, and the
        // reply must still be JSON or SSE (HTTP-11): an empty event stream.
        return sse(futures_util::stream::empty());
    };
    let body = merge(first, more, out.batch);
    let status = out.stateless.as_ref().map_or(StatusCode::OK, |s| s.get());
    let session = session_of_answer(out.initialize.as_ref(), &body).cloned();
    let mut response = json(status, body);
    add_session_header(&mut response, session.as_ref());
    response
}

/// One JSON body from the answers (`first`, then `more`): the last answer
/// itself, or one array of all answers to a batch.
fn merge(first: Bytes, mut more: Vec<Bytes>, batch: bool) -> Bytes {
    if !batch || more.is_empty() {
        return more.pop().unwrap_or(first);
    }
    let mut out = BytesMut::new();
    out.put_u8(b'[');
    for (index, answer) in core::iter::once(&first).chain(&more).enumerate() {
        if index > 0 {
            out.put_u8(b',');
        }
        let inner = answer
            .strip_prefix(b"[")
            .and_then(|rest| rest.strip_suffix(b"]"))
            .unwrap_or(answer);
        out.put_slice(inner);
    }
    out.put_u8(b']');
    out.freeze()
}

/// The HTTP status of a stateless answer (2026-07-28), recorded by the
/// request's outbox, which holds the answer as a message: the HTTP side
/// then never parses an answer again to find out.
#[derive(Debug, Default)]
pub(crate) struct AnswerStatus(AtomicU16);

impl AnswerStatus {
    /// Records the status `answer` chooses (a packet of one error; any
    /// other answer is 200).
    pub(crate) fn record(&self, answer: &Packet) {
        if let Packet::Single(Message::Error(error)) = answer {
            self.0.store(
                status_of_error(error.error.code).as_u16(),
                Ordering::Release,
            );
        }
    }

    /// The recorded status; 200 when none was.
    fn get(&self) -> StatusCode {
        StatusCode::from_u16(self.0.load(Ordering::Acquire)).unwrap_or(StatusCode::OK)
    }
}

/// The HTTP status of a stateless error answer: 404 for an unknown method,
/// 400 for a malformed request, bad headers, a missing client capability
/// or an unsupported revision, 200 otherwise.
fn status_of_error(code: ErrorCode) -> StatusCode {
    let bad_request = [
        ErrorCode::PARSE_ERROR,
        ErrorCode::INVALID_REQUEST,
        ErrorCode::INVALID_PARAMS,
        McpErrorCode::HeaderMismatch.error_code(),
        McpErrorCode::MissingRequiredClientCapability.error_code(),
        McpErrorCode::UnsupportedProtocolVersion.error_code(),
    ];
    if code == ErrorCode::METHOD_NOT_FOUND {
        StatusCode::NOT_FOUND
    } else if bad_request.contains(&code) {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

/// The session id to return with the answer `data`: the new session's,
/// unless its `initialize` failed. Only an `initialize` answer is looked
/// at, so no other answer is searched (answers may be megabytes).
fn session_of_answer<'a>(initialize: Option<&'a SessionId>, data: &[u8]) -> Option<&'a SessionId> {
    initialize.filter(|_| !is_error(data))
}

fn is_error(data: &[u8]) -> bool {
    // Cheap test first: only error responses hold an `"error"` member
    // (a vectorised search: answers may be megabytes).
    memchr::memmem::find(data, b"\"error\"").is_some()
        && matches!(Message::from_slice(data), Ok(Message::Error(_)))
}

/// The revision an `initialize` answer names.
fn initialize_version(data: &[u8]) -> Option<ProtocolVersion> {
    let Ok(Message::Response(response)) = Message::from_slice(data) else {
        return None;
    };
    #[derive(serde::Deserialize)]
    struct Negotiated {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    let negotiated: Negotiated = serde_json::from_str(response.result.get()).ok()?;
    ProtocolVersion::parse(&negotiated.protocol_version).ok()
}

fn add_session_header(response: &mut HttpResponse, session: Option<&SessionId>) {
    if let Some(id) = session
        && let Ok(value) = HeaderValue::from_str(id.as_str())
    {
        response.headers_mut().insert(SESSION_ID, value);
    }
}

/// The stream ended with nothing sent: in a session, the session ended
/// while the request was pending (404, HTTP-39); for a stateless request,
/// its runtime dropped it unanswered (500).
fn gone(stateless: bool) -> HttpResponse {
    if stateless {
        let error = mcpwire_jsonrpc::ErrorObject::internal_error("the request was not answered");
        super::body::rpc_error(StatusCode::INTERNAL_SERVER_ERROR, None, error)
    } else {
        super::body::empty(StatusCode::NOT_FOUND)
    }
}

/// A stream answered as plain JSON will never be resumed: drop its log.
fn forget_stream(shared: &Arc<Shared>, key: &Option<StreamKey>) {
    if let Some(key) = key.clone() {
        let events = shared.config.events.clone();
        run_soon(async move {
            let _ = events.forget(&key).await;
        });
    }
}

/// Runs `work`, a store call whose outcome nobody awaits: at once when it
/// finishes at once (an in-memory store's does), otherwise in a task of its
/// own. The usual case then costs no task per stream.
fn run_soon(work: impl Future<Output = ()> + Send + 'static) {
    let mut work = Box::pin(work);
    if (&mut work).now_or_never().is_none() {
        tokio::spawn(work);
    }
}

/// The SSE event id of event `seq` of stream `stream`: it names the stream
/// so that `Last-Event-ID` maps back to it (HTTP-32). `frames` writes it in
/// place; this is its reference form for tests.
#[cfg(test)]
pub(crate) fn event_id(stream: u64, seq: u64) -> String {
    format!("{stream}-{seq}")
}

/// Reads an event id made by [`event_id`].
pub(crate) fn parse_event_id(text: &str) -> Option<(u64, u64)> {
    let (stream, seq) = text.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// How many bytes of frames a response gathers before it starts, hoping
/// for the stream's end (see [`SseState::take_whole`]); past it, the body
/// streams. One event of any size is taken after fewer bytes than this.
const WHOLE_BODY_GATHER: usize = 256 * 1024;

/// What an SSE body woke up for.
enum Wake {
    Shutdown,
    Event(Option<StreamEvent>),
    PollDeadline,
    KeepAlive,
}

/// The state of an SSE body.
pub(crate) struct SseState {
    /// The frames of the next write: everything taken in since the last
    /// one goes out as one chunk.
    pending: Vec<u8>,
    subscription: Subscription,
    guard: StreamGuard,
    key: Option<StreamKey>,
    last_seq: u64,
    /// The stream's view of the server's keep-alive beat (no timer of its
    /// own: see `beat`).
    keep_alive: Option<Watch>,
    poll: Option<Pin<Box<Sleep>>>,
    shutdown: Option<watch::Receiver<bool>>,
    retry_millis: u64,
    polling: bool,
    done: bool,
    /// The stream's last event was taken in (not merely this connection's
    /// end): once it is written, resumption needs nothing of the stream.
    complete: bool,
}

impl SseState {
    /// A body over `subscription`, starting with the frames in `pending`. `polling` allows
    /// closing the connection without ending the stream (after an event
    /// with an id); `standalone` streams end when the server shuts down.
    pub(crate) fn new(
        shared: &Arc<Shared>,
        subscription: Subscription,
        guard: StreamGuard,
        key: Option<StreamKey>,
        pending: Vec<u8>,
        polling: bool,
        standalone: bool,
    ) -> Self {
        let config = &shared.config;
        let keep_alive = shared.beat.as_ref().map(Beat::watch);
        let poll = config
            .poll_after
            .filter(|_| polling)
            .map(|after| Box::pin(tokio::time::sleep(after)));
        Self {
            pending,
            subscription,
            guard,
            key,
            last_seq: 0,
            keep_alive,
            poll,
            shutdown: standalone.then(|| shared.shutdown.subscribe()),
            retry_millis: config.retry_millis(),
            polling,
            done: false,
            complete: false,
        }
    }

    /// Skips events up to `seq` (the client has them).
    pub(crate) fn resume_after(&mut self, seq: u64) {
        self.last_seq = seq;
    }

    /// Takes in one event of the stream (or its end).
    pub(crate) fn accept(&mut self, event: Option<StreamEvent>) {
        match event {
            Some(StreamEvent::Message { seq, data, last }) => {
                if self.key.is_some() && seq <= self.last_seq {
                    return;
                }
                self.last_seq = seq;
                self.guard.delivered = seq;
                let id = self.key.as_ref().map(|key| (key.stream, seq));
                frames::put_event(&mut self.pending, id, &data);
                if last {
                    self.complete = true;
                    self.finish();
                }
            }
            Some(StreamEvent::End) => {
                self.complete = true;
                self.finish();
            }
            None => self.finish(),
            // A pause, or an event kind a newer store crate may add: close
            // the connection and keep the stream (the client resumes).
            Some(_) => self.pause(),
        }
    }

    /// Ends the stream after what is queued.
    pub(crate) fn finish(&mut self) {
        self.done = true;
        self.guard.finished = true;
    }

    /// Closes the connection but not the stream, when polling is allowed.
    fn pause(&mut self) {
        if self.polling {
            frames::put_retry(&mut self.pending, self.retry_millis);
            self.done = true;
        }
    }

    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            if !self.pending.is_empty() {
                self.wrote();
                // Sized exactly when it holds one frame: no extra
                // allocation to become `Bytes`.
                return Some(Bytes::from(core::mem::take(&mut self.pending)));
            }
            if self.done {
                self.release_log();
                return None;
            }
            match self.wait().await {
                Wake::Shutdown => return None,
                Wake::Event(event) => self.accept(event),
                Wake::KeepAlive => {
                    self.wrote();
                    return Some(Bytes::from_static(frames::KEEP_ALIVE));
                }
                Wake::PollDeadline => {
                    self.poll = None;
                    self.pause();
                }
            }
        }
    }

    /// Takes in the events already waiting, without waiting for more; when
    /// the stream ended among them (a handler that answered at once, the
    /// usual case), returns the whole body. It then goes out with its
    /// length, in the write of the response head, with no chunked framing
    /// and no state kept for a stream that has nothing left to send.
    pub(crate) fn take_whole(&mut self) -> Option<Bytes> {
        while !self.done {
            if self.pending.len() >= WHOLE_BODY_GATHER {
                // A handler still sending, from another worker, as fast
                // as this takes it in: stream what is gathered instead.
                return None;
            }
            // A subscription polled again later registers the body's own
            // waker then: nothing is lost by polling it once here.
            let event = self.subscription.next().now_or_never()?;
            self.accept(event);
        }
        self.release_log();
        Some(Bytes::from(core::mem::take(&mut self.pending)))
    }

    /// The stream's events all went to the connection: its log would only
    /// hold memory until evicted (a session answering 64 KiB calls over SSE
    /// held ~100 MiB).
    fn release_log(&self) {
        if self.complete
            && let Some(key) = self.key.clone().filter(|key| key.stream != 0)
        {
            let events = self.guard.shared.config.events.clone();
            run_soon(async move {
                let _ = events.completed(&key).await;
            });
        }
    }

    /// Something goes out: the silence before the next keep-alive starts.
    fn wrote(&mut self) {
        if let Some(watch) = &mut self.keep_alive {
            watch.wrote();
        }
    }

    /// Waits for the next thing that needs writing or ending.
    async fn wait(&mut self) -> Wake {
        let Self {
            subscription,
            keep_alive,
            poll,
            shutdown,
            ..
        } = self;
        let keep_alive = async move {
            match keep_alive.as_ref() {
                Some(watch) => watch.quiet().await,
                None => std::future::pending().await,
            }
        };
        let poll = async move {
            match poll.as_mut() {
                Some(sleep) => sleep.await,
                None => std::future::pending().await,
            }
        };
        let shutdown = async move {
            match shutdown.as_mut() {
                Some(flag) => {
                    let _ = flag.wait_for(|stopping| *stopping).await;
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = shutdown => Wake::Shutdown,
            event = subscription.next() => Wake::Event(event),
            () = poll => Wake::PollDeadline,
            () = keep_alive => Wake::KeepAlive,
        }
    }

    /// The body stream.
    pub(crate) fn into_stream(self) -> impl futures_util::Stream<Item = Bytes> + Send + 'static {
        futures_util::stream::unfold(self, |mut state| async move {
            let chunk = state.next_chunk().await?;
            Some((chunk, state))
        })
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_jsonrpc::{ErrorObject, ErrorResponse, RequestId, Response};

    use super::*;

    #[test]
    fn event_ids_name_their_stream_and_parse_back() {
        assert_eq!(event_id(3, 17), "3-17");
        assert_eq!(parse_event_id("3-17"), Some((3, 17)));
        assert_eq!(parse_event_id(" 0-0 "), Some((0, 0)));
        assert_eq!(parse_event_id("x-1"), None);
        assert_eq!(parse_event_id("17"), None);
    }

    #[test]
    fn batch_answers_merge_into_one_array() {
        let merged = merge(
            Bytes::from_static(b"{\"a\":1}"),
            vec![Bytes::from_static(b"[{\"b\":2}]")],
            true,
        );
        assert_eq!(&merged[..], b"[{\"a\":1},{\"b\":2}]");
        assert_eq!(
            &merge(Bytes::from_static(b"{}"), Vec::new(), false)[..],
            b"{}"
        );
        let single_batch = merge(Bytes::from_static(b"[{}]"), Vec::new(), true);
        assert_eq!(&single_batch[..], b"[{}]");
    }

    #[test]
    fn stateless_errors_choose_the_http_status() {
        let status = |packet: Packet| {
            let recorded = AnswerStatus::default();
            recorded.record(&packet);
            recorded.get()
        };
        let error = |code: i64| {
            let error = ErrorObject::new(ErrorCode(code), "m");
            Packet::from(ErrorResponse::new(Some(RequestId::from(1)), error))
        };
        assert_eq!(status(error(-32601)), StatusCode::NOT_FOUND);
        for code in [-32600, -32602, -32020, -32021, -32022] {
            assert_eq!(status(error(code)), StatusCode::BAD_REQUEST, "{code}");
        }
        assert_eq!(status(error(-32603)), StatusCode::OK);
        let result = Response::new(1, &serde_json::json!({})).unwrap();
        assert_eq!(status(Packet::from(result)), StatusCode::OK);
        // An error inside a batch does not choose the status of the batch.
        let batch = Packet::Batch(vec![Message::from(ErrorResponse::new(
            None,
            ErrorObject::invalid_request("m"),
        ))]);
        assert_eq!(status(batch), StatusCode::OK);
    }

    #[test]
    fn initialize_answers_name_the_negotiated_revision() {
        let data = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}"#;
        assert_eq!(initialize_version(data), Some(ProtocolVersion::V2025_11_25));
        assert!(!is_error(data));
        assert!(is_error(
            br#"{"jsonrpc":"2.0","id":0,"error":{"code":1,"message":"m"}}"#
        ));
    }
}
