//! POST: checks of the request, the choice between a session and the
//! stateless era, session creation at `initialize`, and delivery of
//! session traffic to its runtime.

use core::future::Future;
use core::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Either};
use http::request::Parts;
use http::{HeaderMap, HeaderValue, StatusCode};
use mcpwire_jsonrpc::{ErrorObject, Inbound, Message};
use mcpwire_types::{ProtocolVersion, UnsupportedProtocolVersionData, meta_keys};

use super::body::{
    HttpResponse, ReadError, SendBody, empty, invalid_request, read_declared, rpc_error,
    unavailable,
};
use super::config::ResponseMode;
use super::names::PROTOCOL_VERSION;
use super::post_headers::PostHeaders;
use super::security::{accepts_json_and_sse_given, is_json_content_type};
use super::service::Shared;
use super::session_routing::session_halves;
use super::stateless;
use super::stream_response::{Outgoing, StreamGuard, respond};
use super::transport::SessionTransport;
use mcpwire_store::{
    Envelope, PostExtensions, RequestIdentity, SessionId, SessionRecord, SharedForm, StoreError,
    StoreFuture, StreamKey,
};

/// Answers a POST to the MCP endpoint.
///
/// The head is checked before anything is awaited. A POST to a session
/// (the usual one) is then answered by [`session_answer`], whose future
/// holds only what it needs: hyper keeps it in a box, and a box larger
/// than 1 KiB misses the allocator's per-thread cache (glibc's tcache
/// serves up to 1,032 bytes) on every request. Everything else (a new
/// session, the stateless era, a refusal) is boxed apart.
pub(crate) fn handle<B>(
    shared: Arc<Shared>,
    mut parts: Parts,
    body: B,
) -> Either<BoxFuture<'static, HttpResponse>, impl Future<Output = HttpResponse> + Send>
where
    B: SendBody,
{
    let headers = PostHeaders::scan(&parts.headers);
    let refused =
        |response| Either::Left(Box::pin(core::future::ready(response)) as BoxFuture<'_, _>);
    // HTTP-07: the client must accept both forms of answer.
    if !accepts_json_and_sse_given(&parts.headers, headers.accept, headers.more_accept) {
        return refused(invalid_request(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: the Accept header must list application/json and text/event-stream",
        ));
    }
    if !is_json_content_type(headers.content_type) {
        return refused(invalid_request(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: the body must be application/json",
        ));
    }
    let declared = headers.declared_length();
    let session = match headers.session_id {
        Some(raw) if !shared.config.stateless_only => raw,
        _ => return Either::Left(Box::pin(fresh_answer(shared, parts, declared, body))),
    };
    // A local session's id is shared, not made again (no allocation).
    let Some(id) = session
        .to_str()
        .ok()
        .and_then(|text| shared.local_id(text).or_else(|| SessionId::parse(text)))
    else {
        return refused(empty(StatusCode::NOT_FOUND));
    };
    if let Err(refusal) = check_version(&shared, headers.protocol_version) {
        return refused(*refusal);
    }
    // The extensions go to the runtime with the messages (moved, not
    // copied: nothing else reads them).
    let extensions = core::mem::take(&mut parts.extensions);
    Either::Right(session_answer(shared, id, declared, extensions, body))
}

/// Answers a POST to session `id`: its body read, delivered, and the
/// answer awaited here, not inside the delivery, so that its future is
/// not nested in (and copied along with) the delivery's.
#[expect(
    clippy::manual_async_fn,
    reason = "an async fn's state would hold each argument twice"
)]
fn session_answer<B>(
    shared: Arc<Shared>,
    id: SessionId,
    declared: Option<u64>,
    extensions: http::Extensions,
    body: B,
) -> impl Future<Output = HttpResponse> + Send
where
    B: SendBody,
{
    async move {
        let (payload, inbound) = match read_message(&shared, declared, body).await {
            Ok(read) => read,
            Err(refused) => return refused,
        };
        // Taken apart before the answer is awaited: a match on the call
        // itself would keep its whole result in the state while it is.
        let outgoing = match session_post(&shared, id, payload, inbound, None, extensions).await {
            Ok(Some(outgoing)) => outgoing,
            // HTTP-09: notifications and responses are accepted with 202.
            Ok(None) => return empty(StatusCode::ACCEPTED),
            Err(refused) => return refused,
        };
        respond(&shared, outgoing).await
    }
}

/// Answers a POST without a session id (or any POST of a stateless-only
/// server): the stateless era, or `initialize` starting a session.
async fn fresh_answer<B>(
    shared: Arc<Shared>,
    parts: Parts,
    declared: Option<u64>,
    body: B,
) -> HttpResponse
where
    B: SendBody,
{
    let (payload, inbound) = match read_message(&shared, declared, body).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    if shared.config.stateless_only || is_stateless_request(&parts.headers, &inbound) {
        return stateless::handle(&shared, parts, inbound).await;
    }
    if let Err(refused) = check_version_header(&shared, &parts.headers) {
        return *refused;
    }
    // HTTP-38: everything but initialize needs the session id.
    if !matches!(&inbound, Inbound::Single(Message::Request(request)) if request.method == "initialize")
    {
        return invalid_request(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required (send initialize first)",
        );
    }
    match create_session(&shared, payload, inbound, parts.extensions).await {
        Ok(Some(outgoing)) => respond(&shared, outgoing).await,
        Ok(None) => empty(StatusCode::ACCEPTED),
        Err(refused) => refused,
    }
}

/// Whether a POST without a session id speaks the stateless era: per
/// request, not per process, a `_meta` revision or a stateless
/// `MCP-Protocol-Version` header means the 2026-07-28 wire; anything else
/// is the handshake era.
fn is_stateless_request(headers: &HeaderMap, inbound: &Inbound) -> bool {
    let meta_version = matches!(inbound, Inbound::Single(message) if has_meta_version(message));
    let header_version = headers
        .get(&PROTOCOL_VERSION)
        .map(|value| ProtocolVersion::parse(value.to_str().unwrap_or_default().trim()));
    meta_version || matches!(header_version, Some(Ok(v)) if v.is_stateless())
}

/// The body read and classified; a body that is not JSON is answered
/// with a parse error (400).
async fn read_message<B>(
    shared: &Shared,
    declared: Option<u64>,
    body: B,
) -> Result<(Bytes, Inbound), HttpResponse>
where
    B: SendBody,
{
    let config = &shared.config;
    let payload = read_body(declared, body, config.max_body, config.body_read_timeout).await?;
    let inbound = Inbound::from_slice(&payload);
    if let Inbound::Invalid(error) = &inbound {
        let answer = error.to_error_response();
        return Err(rpc_error(StatusCode::BAD_REQUEST, answer.id, answer.error));
    }
    Ok((payload, inbound))
}

/// Whether a message names its revision in `params._meta` (2026-07-28).
fn has_meta_version(message: &Message) -> bool {
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<serde_json::Map<String, serde_json::Value>>,
    }
    message
        .params()
        .and_then(|raw| serde_json::from_str::<Params>(raw.get()).ok())
        .and_then(|params| params.meta)
        .is_some_and(|meta| meta.contains_key(meta_keys::PROTOCOL_VERSION))
}

/// HTTP-45: an `MCP-Protocol-Version` header must name a supported
/// revision. Any supported one is accepted on a session, whatever was
/// negotiated (some clients send another).
pub(crate) fn check_version_header(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<(), Box<HttpResponse>> {
    check_version(shared, headers.get(&PROTOCOL_VERSION))
}

/// [`check_version_header`] given the header's first value.
fn check_version(shared: &Shared, value: Option<&HeaderValue>) -> Result<(), Box<HttpResponse>> {
    let Some(value) = value else {
        return Ok(());
    };
    let text = value.to_str().unwrap_or_default().trim();
    match ProtocolVersion::parse(text) {
        Ok(version) if shared.config.supports(version) => Ok(()),
        _ => {
            let supported = {
                let mut versions = shared.config.versions.clone();
                versions.sort_unstable_by(|a, b| b.cmp(a));
                versions
            };
            let data = UnsupportedProtocolVersionData::new(text, supported);
            Err(Box::new(rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                data.to_error(ProtocolVersion::LATEST),
            )))
        }
    }
}

/// Reads the body, refusing more than `limit` bytes with 413 and a body
/// that takes longer than `deadline` with 408.
async fn read_body<B>(
    declared: Option<u64>,
    body: B,
    limit: usize,
    deadline: Duration,
) -> Result<Bytes, HttpResponse>
where
    B: SendBody,
{
    let mut read = core::pin::pin!(read_declared(declared, body, limit));
    // A body that is all there at the first poll (the usual small POST)
    // needs no timer.
    let read = match read.as_mut().now_or_never() {
        Some(read) => Ok(read),
        None => tokio::time::timeout(deadline, read).await,
    };
    let Ok(read) = read else {
        let mut response = invalid_request(
            StatusCode::REQUEST_TIMEOUT,
            "Request Timeout: the body did not arrive in time",
        );
        // The rest of the body may still be on its way: the connection
        // cannot carry another request.
        response
            .headers_mut()
            .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
        return Err(response);
    };
    read.map_err(|error| match error {
        ReadError::TooLarge { .. } => invalid_request(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Payload Too Large: the body exceeds the server's limit",
        ),
        _ => invalid_request(
            StatusCode::BAD_REQUEST,
            "Bad Request: the body could not be read",
        ),
    })
}

/// The identity a request carries, as sessions are bound to it.
pub(crate) fn caller_of(extensions: &http::Extensions) -> Option<String> {
    extensions
        .get::<RequestIdentity>()
        .map(RequestIdentity::owner_key)
}

/// Refreshes session `id` for `caller`: its record, or 404 when the
/// session is unknown, expired or bound to another identity (nothing tells
/// another identity that it exists), or 500 when the store failed.
pub(crate) async fn touch_admitted(
    shared: &Shared,
    id: &SessionId,
    caller: Option<&str>,
) -> Result<SessionRecord, HttpResponse> {
    let config = &shared.config;
    config
        .sessions
        .touch(id, config.idle_timeout)
        .await
        .map_err(|e| store_failed(&e))?
        .filter(|record| record.admits(caller))
        .ok_or_else(|| empty(StatusCode::NOT_FOUND))
}

/// A store or bus failure.
pub(crate) fn store_failed(error: &StoreError) -> HttpResponse {
    tracing::warn!(%error, "session state failed");
    rpc_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        None,
        ErrorObject::internal_error("the server's session state failed"),
    )
}

/// Starts a session for an `initialize` POST and hands its transport to
/// the connect hook.
async fn create_session(
    shared: &Arc<Shared>,
    payload: Bytes,
    inbound: Inbound,
    extensions: http::Extensions,
) -> Result<Option<Outgoing>, HttpResponse> {
    let config = &shared.config;
    if shared.is_shutting_down() {
        return Err(unavailable(
            "Service Unavailable: the server is shutting down",
        ));
    }
    let live = config
        .sessions
        .count()
        .await
        .map_err(|e| store_failed(&e))?;
    if live >= config.max_sessions {
        return Err(unavailable(
            "Service Unavailable: the server has too many sessions",
        ));
    }
    let Some(id) = SessionId::generate() else {
        tracing::error!("the operating system's random generator failed");
        return Err(store_failed(&StoreError::new(
            "no randomness for a session id",
        )));
    };
    config
        .sessions
        .create(&id, config.idle_timeout)
        .await
        .map_err(|e| store_failed(&e))?;
    if let Some(owner) = caller_of(&extensions) {
        config
            .sessions
            .set_owner(&id, &owner)
            .await
            .map_err(|e| store_failed(&e))?;
    }
    config
        .events
        .create_session(&id)
        .await
        .map_err(|e| store_failed(&e))?;
    let inbox = config
        .bus
        .register(&id, config.inbox_capacity)
        .await
        .map_err(|e| store_failed(&e))?;
    shared.add_local_session(&id);
    let transport = SessionTransport::session(session_halves(shared, id.clone(), inbox));
    if let Some(runtime) = shared.connect(transport) {
        shared.set_local_runtime(&id, runtime);
    }
    session_post(shared, id.clone(), payload, inbound, Some(id), extensions).await
}

/// Delivers a POST to its session's runtime: what answers it from the
/// request's stream, or `None` when it holds no request (202).
///
/// An async block rather than an async function: the function's state
/// would hold each argument twice (as passed, and moved into its body).
#[expect(
    clippy::manual_async_fn,
    reason = "an async fn's state would hold each argument twice"
)]
fn session_post(
    shared: &Arc<Shared>,
    id: SessionId,
    payload: Bytes,
    inbound: Inbound,
    created: Option<SessionId>,
    extensions: http::Extensions,
) -> impl Future<Output = Result<Option<Outgoing>, HttpResponse>> + Send + '_ {
    async move {
        let caller = caller_of(&extensions);
        let extensions = PostExtensions(Some(Arc::new(extensions)));
        let config = &shared.config;
        let expects_answer = match &inbound {
            Inbound::Single(message) => matches!(message, Message::Request(_)),
            Inbound::Batch(items) => items
                .iter()
                .any(|item| matches!(item, Ok(Message::Request(_)) | Err(_))),
            Inbound::Invalid(_) => true,
        };
        // A POST holding a request touches its session and numbers its stream
        // in one store call (one Redis round trip). Another identity gets what
        // an unknown id gets: nothing tells it the session exists.
        let (record, stream) = if expects_answer {
            let sessions = &config.sessions;
            let idle = config.idle_timeout;
            // At once when the store can: no future to box.
            let opened = match sessions.touch_and_open_stream_now(&id, idle, caller.as_deref()) {
                Some(opened) => opened,
                None => {
                    sessions
                        .touch_and_open_stream(&id, idle, caller.as_deref())
                        .await
                }
            };
            let (record, stream) = opened
                .map_err(|e| store_failed(&e))?
                .ok_or_else(|| empty(StatusCode::NOT_FOUND))?;
            (record, Some(stream))
        } else {
            (touch_admitted(shared, &id, caller.as_deref()).await?, None)
        };
        let batch = matches!(inbound, Inbound::Batch(_));
        // BASE-19: batches exist in 2025-03-26 only; elsewhere the array is
        // refused whole with 400, before anything of it reaches the runtime
        // (a batch of notifications must not get 202 either). A stream number
        // taken meanwhile is skipped: numbers need only be unique.
        if batch && record.version.is_some_and(|v| !v.allows_batches()) {
            return Err(invalid_request(
                StatusCode::BAD_REQUEST,
                "Bad Request: JSON-RPC batches are allowed only in 2025-03-26 sessions; send one message per POST",
            ));
        }
        let Some(stream) = stream else {
            // HTTP-09: notifications and responses are accepted with 202.
            let mut envelope = Envelope::classified(payload, inbound, None, false);
            envelope.extensions = extensions;
            return if delivered(deliver(shared, &id, envelope), config.send_timeout).await? {
                Ok(None)
            } else {
                Err(empty(StatusCode::NOT_FOUND))
            };
        };
        let guard = StreamGuard::open(shared, Some(&id)).ok_or_else(|| {
            invalid_request(
                StatusCode::TOO_MANY_REQUESTS,
                "Too Many Requests: this session has too many open streams",
            )
        })?;
        let key = StreamKey::new(id.clone(), stream);
        let answers_only = config.response_mode == ResponseMode::Json;
        // An `Sse` response sends its priming event at once, and a client
        // may resume from it before anything is logged: the log must be
        // there first. In `Auto` mode the stream's first logged event opens
        // it (an answer that goes out as JSON then costs no `open`, one
        // round trip fewer with a store across the network), or the
        // response does before a priming event (`stream_response::respond`).
        let mode = config.response_mode;
        let mut open = (mode == ResponseMode::Sse).then(|| config.events.open(&key));
        // Subscribe before delivering, so that nothing the runtime sends is
        // missed (at once when the bus can: no future to box). A stream
        // that sends no event id yet (`Json` and `Auto` modes) need not be
        // reachable from other instances while its runtime runs here: the
        // response announces it before an event id goes out.
        let attached = if mode == ResponseMode::Sse {
            config.bus.subscribe_now(&key, config.stream_buffer)
        } else {
            config.bus.subscribe_here_now(&key, config.stream_buffer)
        };
        let subscription = match attached {
            Some(subscription) => subscription,
            None => {
                let subscribing = config.bus.subscribe(&key, config.stream_buffer);
                match open.take() {
                    // A bus across the network: the log is opened while the
                    // stream is attached, two round trips at once (boxed, so
                    // that the common path's future does not carry this
                    // one's state).
                    Some(opening) => {
                        let both: Pin<Box<dyn Future<Output = _> + Send + '_>> =
                            Box::pin(futures_util::future::join(opening, subscribing));
                        let (opened, subscribed) = both.await;
                        opened.map_err(|e| store_failed(&e))?;
                        subscribed.map_err(|e| store_failed(&e))?
                    }
                    None => subscribing.await.map_err(|e| store_failed(&e))?,
                }
            }
        };
        if let Some(open) = open {
            open.await.map_err(|e| store_failed(&e))?;
        }
        let mut envelope = Envelope::classified(payload, inbound, Some(stream), answers_only);
        envelope.extensions = extensions;
        // `Auto` mode: the runtime and the response race for the form of
        // the answer, so that one sent as JSON is never logged.
        let form = (config.response_mode == ResponseMode::Auto).then(Arc::default);
        envelope.form = SharedForm(form.clone());
        if !delivered(deliver(shared, &id, envelope), config.send_timeout).await? {
            return Err(empty(StatusCode::NOT_FOUND));
        }
        let outgoing = Outgoing {
            subscription,
            guard,
            mode: config.response_mode,
            batch,
            key: (!answers_only).then_some(key),
            version: record.version,
            stateless: None,
            initialize: created,
            form,
        };
        Ok(Some(outgoing))
    }
}

/// Delivers a POSTed envelope to session `id`: whether a runtime serves
/// it when the bus took the envelope at once, or the future to await for
/// that (the caller awaits it, with [`delivered`]: an async function would
/// hold the envelope in its state, copied in and out).
///
/// The fast path: when this server runs the session's runtime and nobody
/// polls it, the POST takes the right to poll it before delivering (so the
/// delivery wakes nobody) and, once the message is in the inbox, polls the
/// runtime right here; an answer the runtime gives within that poll is on
/// the POST's stream when it returns. A busy runtime, a bus that cannot
/// take the message at once (a full inbox, a remote bus) or a runtime
/// started by the connect hook get the message as any other POST does.
fn deliver<'a>(shared: &'a Shared, id: &SessionId, envelope: Envelope) -> Delivery<'a> {
    let runtime = shared.local_runtime(id);
    let held = runtime
        .as_ref()
        .and_then(|runtime| runtime.try_hold(false).ok());
    let mut delivery = shared.config.bus.deliver(id, envelope);
    match (&mut delivery).now_or_never() {
        Some(delivered) => {
            if let Some(held) = held {
                held.run();
            }
            Delivery::Done(delivered)
        }
        None => {
            // Not in the inbox yet: let go of the runtime before waiting.
            drop(held);
            Delivery::Waiting(delivery)
        }
    }
}

/// What [`deliver`] hands back: whether a runtime serves the session, or
/// the bus's future that will tell.
enum Delivery<'a> {
    Done(Result<bool, StoreError>),
    Waiting(StoreFuture<'a, bool>),
}

/// Whether the session's runtime took the envelope [`deliver`] handed
/// over, once known.
async fn delivered(delivery: Delivery<'_>, wait: Duration) -> Result<bool, HttpResponse> {
    let outcome = match delivery {
        Delivery::Done(outcome) => outcome,
        // The session's inbox is full: its runtime takes messages more
        // slowly than they come, and the POST waits for room, but not for
        // ever (a runtime that stopped reading would hold the connection).
        Delivery::Waiting(waiting) => match tokio::time::timeout(wait, waiting).await {
            Ok(outcome) => outcome,
            Err(_) => {
                tracing::debug!(?wait, "a session took no message in time");
                return Err(rpc_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    None,
                    ErrorObject::internal_error("the session is not taking messages"),
                ));
            }
        },
    };
    outcome.map_err(|e| store_failed(&e))
}
