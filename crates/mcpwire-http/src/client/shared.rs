//! The state the client and its background tasks share: the session, the
//! negotiated revision, the requests in flight, the tools' header
//! parameters, and the inbound queue with the bookkeeping every received
//! packet goes through.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Mutex, MutexGuard};

use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Uri};
use mcpwire_jsonrpc::{ErrorCode, Inbound, Message, RequestId};
use mcpwire_types::ProtocolVersion;
use mcpwire_types::methods::{Discover, Request as _};
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::FirstPostOutcome;
use super::body::OutgoingBody;
use super::connector::HttpClient;
use super::error::{Error, local_error};
use super::metadata::{Outgoing, add_request_metadata};
use super::options::ClientOptions;
use super::tool_header_table::ToolHeaderTable;
use super::tool_headers::inspect_tools_list;
use crate::headers::{LAST_EVENT_ID, MCP_PROTOCOL_VERSION, MCP_SESSION_ID};

/// The media types a POST accepts (HTTP-07).
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// The media type of SSE streams.
pub(crate) const EVENT_STREAM: &str = "text/event-stream";

/// What the client and its tasks share.
pub(crate) struct Shared {
    pub(crate) endpoint: Uri,
    pub(crate) options: ClientOptions,
    pub(crate) http: HttpClient,
    state: Mutex<State>,
}

struct State {
    /// The session id the server gave in answer to `initialize`.
    session: Option<HeaderValue>,
    /// Bumped whenever the session changes, so that tasks serving an old
    /// session can tell.
    generation: u64,
    /// The revision in use: from the `initialize` result, or from the
    /// `_meta` of the last stateless request.
    version: Option<String>,
    in_flight: HashMap<RequestId, InFlight>,
    /// Each tool's `x-mcp-header` parameters, from `tools/list` results
    /// (bounded: a server may list new tools forever).
    tool_headers: ToolHeaderTable,
    first_post_sent: bool,
    first_post: Option<FirstPostOutcome>,
    /// Extra headers sent with every request.
    headers: HeaderMap,
    /// The sending end of the inbound queue; `None` once closed.
    inbound: Option<mpsc::Sender<Inbound>>,
    tasks: Vec<AbortHandle>,
    /// The session generation the standalone GET stream was opened for.
    get_stream_for: Option<u64>,
}

/// A request sent and not answered yet.
struct InFlight {
    method: String,
    /// Whether it was sent in the stateless era (2026-07-28).
    stateless: bool,
    /// The POST task carrying it, to stop when it is cancelled or answered
    /// on another stream.
    task: Option<AbortHandle>,
}

/// How one POST is to be made and followed up.
pub(crate) struct PostPlan {
    pub(crate) headers: HeaderMap,
    /// The requests in the POST.
    pub(crate) requests: Vec<RequestId>,
    /// The session generation, when the POST carries a session id.
    pub(crate) session: Option<u64>,
    /// Whether the POST speaks the stateless revision.
    pub(crate) stateless: bool,
    /// Whether the POST is `initialize`, whose answer carries the session id.
    pub(crate) initialize: bool,
    /// Whether this is the first POST the client makes.
    pub(crate) first: bool,
    /// Whether `send` waits for the status before returning.
    pub(crate) wait_for_status: bool,
    pub(crate) inbound: mpsc::Sender<Inbound>,
}

impl Shared {
    pub(crate) fn new(
        endpoint: Uri,
        options: ClientOptions,
        http: HttpClient,
        inbound: mpsc::Sender<Inbound>,
    ) -> Self {
        let headers = options.headers.clone();
        let tool_headers = ToolHeaderTable::new(
            options.max_remembered_tools,
            options.max_remembered_tool_bytes,
        );
        Self {
            endpoint,
            options,
            http,
            state: Mutex::new(State {
                session: None,
                generation: 0,
                version: None,
                in_flight: HashMap::new(),
                tool_headers,
                first_post_sent: false,
                first_post: None,
                headers,
                inbound: Some(inbound),
                tasks: Vec::new(),
                get_stream_for: None,
            }),
        }
    }

    /// The state. A panic elsewhere while holding the lock cannot leave it
    /// half-updated in a way that matters more than stopping would, so a
    /// poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn session_id(&self) -> Option<String> {
        let state = self.lock();
        let session = state.session.as_ref()?;
        session.to_str().ok().map(str::to_owned)
    }

    pub(crate) fn protocol_version(&self) -> Option<String> {
        self.lock().version.clone()
    }

    pub(crate) fn first_post_outcome(&self) -> Option<FirstPostOutcome> {
        self.lock().first_post
    }

    pub(crate) fn set_header(&self, name: HeaderName, value: Option<HeaderValue>) {
        let mut state = self.lock();
        match value {
            Some(value) => {
                state.headers.insert(name, value);
            }
            None => {
                state.headers.remove(name);
            }
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.lock().inbound.is_none()
    }

    /// The sending end of the inbound queue; `None` once closed.
    pub(crate) fn inbound_sender(&self) -> Option<mpsc::Sender<Inbound>> {
        self.lock().inbound.clone()
    }

    /// The current session generation.
    pub(crate) fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Prepares a POST: its headers, and the registration of its requests
    /// as in flight.
    pub(crate) fn plan_post(&self, outgoing: &Outgoing) -> Result<PostPlan, Error> {
        let mut state = self.lock();
        let inbound = state.inbound.clone().ok_or(Error::Closed)?;
        if let Some(version) = &outgoing.meta_version {
            state.version = Some(version.clone());
        }
        // `initialize` opens a session: it carries neither the old session
        // nor a version (HTTP-40, HTTP-42 "after initialization").
        let initialize = outgoing.is_initialize();
        let version = if initialize {
            None
        } else {
            outgoing
                .meta_version
                .clone()
                .or_else(|| state.version.clone())
        };
        let stateless = is_stateless(version.as_deref());

        let mut headers = state.headers.clone();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_BOTH));
        if let Some(value) = version
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            headers.insert(HeaderName::from_static(MCP_PROTOCOL_VERSION), value);
        }
        let mut session = None;
        if !stateless
            && !initialize
            && let Some(id) = &state.session
        {
            headers.insert(HeaderName::from_static(MCP_SESSION_ID), id.clone());
            session = Some(state.generation);
        }
        if stateless {
            let tool_params = outgoing
                .tool_call
                .as_ref()
                .and_then(|(tool, _)| state.tool_headers.get(tool));
            add_request_metadata(&mut headers, outgoing, tool_params);
        }

        let requests: Vec<RequestId> = outgoing.requests.iter().map(|(id, _)| id.clone()).collect();
        for (id, method) in &outgoing.requests {
            state.in_flight.insert(
                id.clone(),
                InFlight {
                    method: method.clone(),
                    stateless,
                    task: None,
                },
            );
        }
        // A cancelled request (by its caller, or by the engine when it
        // timed out) will not be waited for any more: forget it, so that a
        // late answer is dropped, and close the stream that carried it, or
        // a server that keeps that stream open without a word would hold
        // its connection and task forever.
        if let Some(cancelled) = &outgoing.cancelled
            && let Some(entry) = state.in_flight.remove(cancelled)
        {
            state.stop_if_idle(entry.task.as_ref());
        }
        // `initialize` while a `server/discover` probe is in flight means
        // the engine gave up on the probe (no answer in time: a server of
        // an older revision, which must not be sent a cancellation before
        // `initialize`, LIFE-05). Its answer will never be awaited: forget
        // it and close its stream, as for a cancelled request.
        if initialize {
            let probes: Vec<RequestId> = state
                .in_flight
                .iter()
                .filter(|(_, entry)| entry.method == Discover::METHOD)
                .map(|(id, _)| id.clone())
                .collect();
            for probe in probes {
                if let Some(entry) = state.in_flight.remove(&probe) {
                    state.stop_if_idle(entry.task.as_ref());
                }
            }
        }
        let first = !state.first_post_sent;
        state.first_post_sent = true;
        let wait_for_status = requests.is_empty() || (first && self.options.detect_legacy);
        Ok(PostPlan {
            headers,
            requests,
            session,
            stateless,
            initialize,
            first,
            wait_for_status,
            inbound,
        })
    }

    /// Cancels a stateless request by closing its stream, which is how
    /// 2026-07-28 Streamable HTTP cancels: no `notifications/cancelled` is
    /// sent there. Returns whether `outgoing` was such a cancellation (also
    /// when the request is no longer in flight, since there is then nothing
    /// left to close).
    pub(crate) fn cancel_by_closing(&self, outgoing: &Outgoing) -> bool {
        let Some(cancelled) = &outgoing.cancelled else {
            return false;
        };
        let mut state = self.lock();
        let Some(entry) = state.in_flight.get(cancelled) else {
            let version = outgoing
                .meta_version
                .as_deref()
                .or(state.version.as_deref());
            return is_stateless(version);
        };
        if !entry.stateless {
            return false;
        }
        if let Some(entry) = state.in_flight.remove(cancelled)
            && let Some(task) = entry.task
        {
            task.abort();
        }
        true
    }

    /// Spawns a background task, registered so that `close` can stop it,
    /// and remembered as the carrier of `requests` for cancellation.
    pub(crate) fn spawn(
        &self,
        requests: &[RequestId],
        task: impl Future<Output = ()> + Send + 'static,
    ) {
        let mut state = self.lock();
        if state.inbound.is_none() {
            return;
        }
        let handle = tokio::spawn(task).abort_handle();
        for id in requests {
            if let Some(entry) = state.in_flight.get_mut(id) {
                entry.task = Some(handle.clone());
            }
        }
        state.tasks.retain(|task| !task.is_finished());
        state.tasks.push(handle);
    }

    /// Records the outcome of the first POST.
    pub(crate) fn record_first(&self, plan: &PostPlan, outcome: FirstPostOutcome) {
        if plan.first {
            self.lock().first_post = Some(outcome);
        }
    }

    /// Adopts the session id the server gave in answer to `initialize`.
    pub(crate) fn adopt_session(&self, value: Option<&HeaderValue>) {
        let mut state = self.lock();
        // Only visible ASCII is a valid session id (HTTP-35).
        let valid = value.filter(|value| {
            !value.is_empty() && value.as_bytes().iter().all(|b| (0x21..=0x7e).contains(b))
        });
        if value.is_some() && valid.is_none() {
            tracing::warn!("ignoring a session id that is not visible ASCII");
        }
        if state.session.as_ref() != valid {
            state.session = valid.cloned();
            state.generation += 1;
        }
    }

    /// Ends the session `generation` after a 404 (HTTP-40): forgets the
    /// session id, stops the streams of the requests that were in flight
    /// (except `current`'s, whose task is the caller), and returns those
    /// requests, which will never be answered now. Empty when the session
    /// already changed.
    pub(crate) fn expire_session(&self, generation: u64, current: &[RequestId]) -> Vec<RequestId> {
        let mut state = self.lock();
        if state.generation != generation || state.session.is_none() {
            return Vec::new();
        }
        tracing::info!("the server lost the session (404); a new initialize will start another");
        state.session = None;
        state.generation += 1;
        let lost: Vec<RequestId> = state
            .in_flight
            .iter()
            .filter(|(_, entry)| !entry.stateless)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &lost {
            if let Some(entry) = state.in_flight.remove(id)
                && let Some(task) = entry.task
                && !current.contains(id)
            {
                task.abort();
            }
        }
        lost
    }

    /// Forgets `requests` (the server refused their POST); `send` reports
    /// the refusal.
    pub(crate) fn forget(&self, requests: &[RequestId]) {
        let mut state = self.lock();
        for id in requests {
            state.in_flight.remove(id);
        }
    }

    /// Keeps only the requests of `requests` still waiting for an answer.
    pub(crate) fn retain_in_flight(&self, requests: &mut Vec<RequestId>) {
        let state = self.lock();
        requests.retain(|id| state.in_flight.contains_key(id));
    }

    /// Hands `inbound` to the receiver, after the bookkeeping (answered
    /// requests, learned revision and tool headers, dropped duplicates).
    /// Waits while the queue is full. Returns `false` once the client is
    /// closed.
    pub(crate) async fn deliver(&self, inbound: &mpsc::Sender<Inbound>, packet: Inbound) -> bool {
        match self.observe(packet) {
            Some(packet) => inbound.send(packet).await.is_ok(),
            None => !inbound.is_closed(),
        }
    }

    /// Answers those of `requests` still in flight with a made-up error
    /// response, so that nobody waits for them forever.
    pub(crate) async fn fail(
        &self,
        inbound: &mpsc::Sender<Inbound>,
        requests: &[RequestId],
        code: ErrorCode,
        message: &str,
    ) {
        let unanswered: Vec<RequestId> = {
            let mut state = self.lock();
            requests
                .iter()
                .filter(|id| state.in_flight.remove(*id).is_some())
                .cloned()
                .collect()
        };
        for id in unanswered {
            tracing::debug!(%id, message, "answering a request the server cannot answer any more");
            let error = local_error(id, code, message.to_owned());
            if inbound
                .send(Inbound::from(Message::from(error)))
                .await
                .is_err()
            {
                return;
            }
        }
    }

    /// Delivers made-up error responses, already removed from the table.
    pub(crate) async fn deliver_errors(
        &self,
        inbound: &mpsc::Sender<Inbound>,
        errors: Vec<mcpwire_jsonrpc::ErrorResponse>,
    ) {
        for error in errors {
            if inbound
                .send(Inbound::from(Message::from(error)))
                .await
                .is_err()
            {
                return;
            }
        }
    }

    fn observe(&self, packet: Inbound) -> Option<Inbound> {
        let mut state = self.lock();
        match packet {
            Inbound::Single(message) => state.observe_message(message).map(Inbound::Single),
            Inbound::Batch(items) => {
                let kept: Vec<_> = items
                    .into_iter()
                    .filter_map(|item| match item {
                        Ok(message) => state.observe_message(message).map(Ok),
                        Err(error) => Some(Err(error)),
                    })
                    .collect();
                (!kept.is_empty()).then_some(Inbound::Batch(kept))
            }
            Inbound::Invalid(error) => Some(Inbound::Invalid(error)),
        }
    }

    /// A GET opening (or resuming, after `last_event_id`) an SSE stream, or
    /// a DELETE ending the session; `None` once closed.
    pub(crate) fn fetch(
        &self,
        method: &Method,
        last_event_id: Option<&str>,
    ) -> Option<Request<OutgoingBody>> {
        let state = self.lock();
        state.inbound.as_ref()?;
        let mut builder = Request::builder()
            .method(method.clone())
            .uri(self.endpoint.clone());
        for (name, value) in &state.headers {
            builder = builder.header(name, value);
        }
        if method == Method::GET {
            builder = builder.header(ACCEPT, EVENT_STREAM);
        }
        if let Some(version) = state
            .version
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            builder = builder.header(MCP_PROTOCOL_VERSION, version);
        }
        if let Some(session) = &state.session {
            builder = builder.header(MCP_SESSION_ID, session.clone());
        }
        if let Some(id) = last_event_id.and_then(|id| HeaderValue::from_str(id).ok()) {
            builder = builder.header(LAST_EVENT_ID, id);
        }
        builder.body(OutgoingBody::empty()).ok()
    }

    /// Whether the standalone GET stream should be opened now (once per
    /// handshake-era session); marks it opened.
    pub(crate) fn claim_get_stream(&self) -> Option<u64> {
        let mut state = self.lock();
        if !self.options.open_get_stream
            || state.inbound.is_none()
            || is_stateless(state.version.as_deref())
            || state.get_stream_for == Some(state.generation)
        {
            return None;
        }
        state.get_stream_for = Some(state.generation);
        Some(state.generation)
    }

    /// Closes the client: no more sends, every task stopped, the inbound
    /// queue ended. Returns the session to delete, if there was one, or
    /// `None` also when already closed.
    pub(crate) fn shut_down(&self) -> Option<Request<OutgoingBody>> {
        let delete = self
            .fetch(&Method::DELETE, None)
            .filter(|_| self.lock().session.is_some());
        let mut state = self.lock();
        state.inbound = None;
        for task in state.tasks.drain(..) {
            task.abort();
        }
        state.in_flight.clear();
        delete
    }
}

impl State {
    /// Stops `task`, the carrier of a request just forgotten, unless it
    /// still carries another request in flight (a batch, whose stream may
    /// yet bring that answer or be resumed for it) or is the caller itself
    /// (which ends on its own once nothing it carries is pending, and must
    /// not lose what it is delivering).
    fn stop_if_idle(&self, task: Option<&AbortHandle>) {
        let Some(task) = task else {
            return;
        };
        let id = task.id();
        if tokio::task::try_id() == Some(id) {
            return;
        }
        let still_carries = self
            .in_flight
            .values()
            .any(|entry| entry.task.as_ref().is_some_and(|other| other.id() == id));
        if !still_carries {
            task.abort();
        }
    }

    /// The bookkeeping for one received message. Answers are matched to
    /// their requests: `initialize` teaches the revision, a stateless
    /// `tools/list` the tools' header parameters (and loses its invalid
    /// tools). An answer to nothing in flight is a duplicate (a replayed
    /// event, or a request already answered with a made-up error) and is
    /// dropped.
    fn observe_message(&mut self, mut message: Message) -> Option<Message> {
        let id = match &message {
            Message::Response(response) => &response.id,
            Message::Error(error) => match &error.id {
                Some(id) => id,
                None => return Some(message),
            },
            Message::Request(_) | Message::Notification(_) => return Some(message),
        };
        let Some(entry) = self.in_flight.remove(id) else {
            tracing::debug!(%id, "dropping an answer to no request in flight");
            return None;
        };
        // An answer that came on another stream leaves the request's own
        // stream with nothing to wait for, and a server may keep that one
        // open in silence: stop it (a no-op for the carrier delivering it).
        self.stop_if_idle(entry.task.as_ref());
        if let Message::Response(response) = &mut message {
            match entry.method.as_str() {
                "initialize" => {
                    #[derive(Deserialize)]
                    struct Negotiated {
                        #[serde(rename = "protocolVersion")]
                        protocol_version: String,
                    }
                    if let Ok(negotiated) =
                        serde_json::from_str::<Negotiated>(response.result.get())
                    {
                        self.version = Some(negotiated.protocol_version);
                    }
                }
                "tools/list" if entry.stateless => {
                    if let Some(outcome) = inspect_tools_list(&response.result) {
                        for (tool, params) in outcome.tools {
                            self.tool_headers.learn(tool, params);
                        }
                        if let Some(rewritten) = outcome.rewritten {
                            response.result = rewritten;
                        }
                    }
                }
                _ => {}
            }
        }
        Some(message)
    }
}

/// Whether `version` names the stateless revision (or a later one that
/// keeps its request metadata headers).
fn is_stateless(version: Option<&str>) -> bool {
    version
        .and_then(|version| ProtocolVersion::parse(version).ok())
        .is_some_and(ProtocolVersion::requires_method_headers)
}
