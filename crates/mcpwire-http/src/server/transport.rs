//! `SessionTransport`: how a runtime sees one MCP session (or one
//! stateless request) of the server, and `SessionHandle`, the control a
//! program keeps over it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mcpwire_jsonrpc::{Inbound, Packet, RequestId, Transport, TransportReceiver, TransportSender};
use tokio::sync::Notify;

use super::request::{RequestInbox, RequestOutbox};
use super::service::Shared;
use super::session_routing::{SessionInbox, SessionOutbox};
use mcpwire_store::{SessionId, StoreError, StreamEvent, StreamKey};

/// The failure of a [`SessionTransport`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The session was terminated or expired, or the request's stream has
    /// ended (or its client left): nothing more can be sent.
    #[error("the session or the request's stream has ended")]
    Closed,
    /// The client of a stateless request did not read its response stream
    /// within the send timeout.
    #[error("the client does not read its response stream")]
    Stalled,
    /// A store or the message bus failed.
    #[error("the server's session state failed")]
    Store(#[source] StoreError),
}

/// One MCP session of a [`StreamableHttp`](super::StreamableHttp) server, as
/// a [`Transport`] for a runtime to serve.
///
/// The server hands one to its connect hook for each new handshake-era
/// session (at `initialize`) and for each stateless (2026-07-28) request.
///
/// * `recv` yields what the client POSTs to the session, in order; for a
///   stateless request, that one message. It returns `None` when the
///   session ends (DELETE, idle expiry, server shutdown) or the stateless
///   request has been answered, so the runtime stops.
/// * `send_related(packet, related)` sends a packet on the HTTP stream of
///   the client request `related`: the request's own POST stream (SSE, or
///   its JSON answer), falling back to the standalone GET stream for
///   messages that belong to no request (or to a request answered as plain
///   JSON). Answers whose request no stream awaits any more are dropped,
///   since a response may not travel on the standalone stream (HTTP-27).
///   Each message goes on exactly one stream (HTTP-29).
/// * `close` ends the session (later requests with its id get 404) or
///   the stateless request's stream.
pub struct SessionTransport {
    sender: SessionSender,
    receiver: SessionReceiver,
}

/// The sending half of a [`SessionTransport`].
pub struct SessionSender {
    inner: SenderInner,
}

/// The receiving half of a [`SessionTransport`].
pub struct SessionReceiver {
    inner: ReceiverInner,
}

enum SenderInner {
    Session(SessionOutbox),
    Request(RequestOutbox),
}

enum ReceiverInner {
    Session(SessionInbox),
    Request(RequestInbox),
}

impl std::fmt::Debug for SessionTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionTransport")
            .field("session", &self.session_id())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for SessionSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionSender").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for SessionReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionReceiver").finish_non_exhaustive()
    }
}

impl SessionTransport {
    pub(crate) fn session((outbox, inbox): (SessionOutbox, SessionInbox)) -> Self {
        Self {
            sender: SessionSender {
                inner: SenderInner::Session(outbox),
            },
            receiver: SessionReceiver {
                inner: ReceiverInner::Session(inbox),
            },
        }
    }

    pub(crate) fn request((outbox, inbox): (RequestOutbox, RequestInbox)) -> Self {
        Self {
            sender: SessionSender {
                inner: SenderInner::Request(outbox),
            },
            receiver: SessionReceiver {
                inner: ReceiverInner::Request(inbox),
            },
        }
    }

    /// The session's id; `None` for a stateless request.
    pub fn session_id(&self) -> Option<&SessionId> {
        match &self.receiver.inner {
            ReceiverInner::Session(inbox) => Some(inbox.id()),
            ReceiverInner::Request(_) => None,
        }
    }

    /// Whether this serves one stateless (2026-07-28) request.
    pub fn is_stateless(&self) -> bool {
        matches!(self.receiver.inner, ReceiverInner::Request(_))
    }

    /// A handle to control the session from elsewhere (close a stream for
    /// SSE polling, terminate the session).
    pub fn handle(&self) -> SessionHandle {
        match &self.receiver.inner {
            ReceiverInner::Session(inbox) => inbox.handle(),
            ReceiverInner::Request(_) => SessionHandle { target: None },
        }
    }

    /// Sends a packet with no related request (see `SessionSender`).
    ///
    /// # Errors
    ///
    /// As [`TransportSender::send`].
    pub async fn send(&mut self, packet: Packet) -> Result<(), TransportError> {
        self.sender.send(packet).await
    }

    /// Sends a packet on the stream of the client request `related`.
    ///
    /// # Errors
    ///
    /// As [`TransportSender::send_related`].
    pub async fn send_related(
        &mut self,
        packet: Packet,
        related: Option<&RequestId>,
    ) -> Result<(), TransportError> {
        self.sender.send_related(packet, related).await
    }

    /// The next message a client sent; `None` once the session ended.
    pub async fn recv(&mut self) -> Option<Result<Inbound, TransportError>> {
        self.receiver.recv().await
    }

    /// Ends the session (or the stateless request's stream).
    ///
    /// # Errors
    ///
    /// When the session store fails.
    pub async fn close(&mut self) -> Result<(), TransportError> {
        self.sender.close().await
    }
}

impl Transport for SessionTransport {
    type Error = TransportError;
    type Sender = SessionSender;
    type Receiver = SessionReceiver;

    fn split(self) -> (SessionSender, SessionReceiver) {
        (self.sender, self.receiver)
    }
}

impl TransportSender for SessionSender {
    type Error = TransportError;

    async fn send(&mut self, packet: Packet) -> Result<(), TransportError> {
        self.send_related(packet, None).await
    }

    async fn send_related(
        &mut self,
        packet: Packet,
        related: Option<&RequestId>,
    ) -> Result<(), TransportError> {
        match &mut self.inner {
            SenderInner::Session(outbox) => outbox.send(packet, related).await,
            SenderInner::Request(outbox) => outbox.send(packet).await,
        }
    }

    /// Routes an answer and hands it to its stream's connection without a
    /// future when nothing of it waits (see `SessionOutbox::feed_now`);
    /// what waits is finished by `poll_flush_fed`.
    fn feed_now(&mut self, packet: Packet, related: Option<&RequestId>) -> Option<Packet> {
        match &mut self.inner {
            SenderInner::Session(outbox) => outbox.feed_now(packet, related).err(),
            SenderInner::Request(_) => Some(packet),
        }
    }

    fn poll_flush_fed(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), TransportError>> {
        match &mut self.inner {
            SenderInner::Session(outbox) => outbox.poll_sent(cx),
            SenderInner::Request(_) => std::task::Poll::Ready(Ok(())),
        }
    }

    async fn close(&mut self) -> Result<(), TransportError> {
        match &mut self.inner {
            SenderInner::Session(outbox) => outbox.close().await,
            SenderInner::Request(outbox) => {
                outbox.close();
                Ok(())
            }
        }
    }
}

impl TransportReceiver for SessionReceiver {
    type Error = TransportError;

    async fn recv(&mut self) -> Option<Result<Inbound, TransportError>> {
        match &mut self.inner {
            ReceiverInner::Session(inbox) => inbox.recv().await.map(Ok),
            ReceiverInner::Request(inbox) => inbox.recv().await.map(Ok),
        }
    }

    /// The `http::Extensions` of the POST that carried request `id` (in a
    /// [`TransportContext`](mcpwire_jsonrpc::TransportContext); downcast it
    /// to `http::Extensions`), e.g. the identity an authentication layer
    /// put there.
    fn request_context(&mut self, id: &RequestId) -> Option<mcpwire_jsonrpc::TransportContext> {
        match &mut self.inner {
            ReceiverInner::Session(inbox) => inbox.take_context(id),
            ReceiverInner::Request(inbox) => inbox.take_context(id),
        }
    }

    /// Closes the connection carrying request `id`'s stream without
    /// ending it, as [`SessionHandle::close_stream`] does; a stateless
    /// request's stream is not resumable and is not closed.
    fn close_stream(&mut self, id: &RequestId) -> mcpwire_jsonrpc::BoxFuture<'static, bool> {
        let handle = match &self.inner {
            ReceiverInner::Session(inbox) => inbox.handle(),
            ReceiverInner::Request(_) => return Box::pin(std::future::ready(false)),
        };
        let id = id.clone();
        Box::pin(async move { handle.close_stream(&id).await })
    }
}

/// Controls one session from outside its runtime; cheap to clone.
///
/// A handle of a stateless request controls nothing: its methods do
/// nothing and report `false`.
#[derive(Clone)]
pub struct SessionHandle {
    pub(crate) target: Option<(
        SessionId,
        Arc<Shared>,
        super::session_routing::SharedRouting,
    )>,
}

impl std::fmt::Debug for SessionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionHandle")
            .field("session", &self.session_id())
            .finish_non_exhaustive()
    }
}

impl SessionHandle {
    /// The session's id; `None` for a stateless request.
    pub fn session_id(&self) -> Option<&SessionId> {
        self.target.as_ref().map(|(id, _, _)| id)
    }

    /// Closes the connection carrying the stream of the client's request
    /// `request` without ending the stream (SSE polling, SEP-1699): the
    /// client gets a `retry:` field and resumes with `Last-Event-ID`, and
    /// what is sent meanwhile is logged for it. Only clients at 2025-11-25
    /// or later are closed on; returns whether a connection was told.
    pub async fn close_stream(&self, request: &RequestId) -> bool {
        let Some((id, shared, routing)) = &self.target else {
            return false;
        };
        let Some(stream) = super::session_routing::stream_of(routing, request) else {
            return false;
        };
        pause(shared, StreamKey::new(id.clone(), stream)).await
    }

    /// Like [`close_stream`](Self::close_stream), for the standalone GET stream.
    pub async fn close_standalone_stream(&self) -> bool {
        let Some((id, shared, _)) = &self.target else {
            return false;
        };
        pause(shared, StreamKey::new(id.clone(), StreamKey::STANDALONE)).await
    }

    /// Ends the session: its runtime's `recv` returns `None`, its streams
    /// end, and its id gets 404 from now on.
    pub async fn terminate(&self) {
        if let Some((id, shared, _)) = &self.target {
            shared.end_session(id).await;
        }
    }
}

async fn pause(shared: &Shared, key: StreamKey) -> bool {
    shared
        .config
        .bus
        .publish(&key, StreamEvent::Pause)
        .await
        .unwrap_or(false)
}

/// Tells a stateless request that its client closed the response stream.
#[derive(Debug, Default)]
pub(crate) struct CancelSignal {
    fired: AtomicBool,
    notify: Notify,
}

impl CancelSignal {
    pub(crate) fn fire(&self) {
        self.fired.store(true, Ordering::SeqCst);
        self.notify.notify_one();
    }

    /// Waits until fired (cancel safe: a notification is kept until taken).
    pub(crate) async fn fired(&self) {
        while !self.fired.load(Ordering::SeqCst) {
            self.notify.notified().await;
        }
    }
}

/// Counts a live transport, for [`Stats`](super::Stats).
pub(crate) struct LiveTransport(Arc<Shared>);

impl LiveTransport {
    pub(crate) fn new(shared: &Arc<Shared>) -> Self {
        shared.counters.transports.fetch_add(1, Ordering::Relaxed);
        Self(shared.clone())
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.0
    }
}

impl Drop for LiveTransport {
    fn drop(&mut self) {
        self.0.counters.transports.fetch_sub(1, Ordering::Relaxed);
    }
}
