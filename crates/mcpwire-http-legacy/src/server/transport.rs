//! `LegacyTransport`: how a runtime sees one session of the legacy server.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mcpwire_http::sse::{Event, MESSAGE};
use mcpwire_jsonrpc::{Inbound, Packet, Transport, TransportReceiver, TransportSender};
use tokio::sync::{mpsc, watch};

use super::session::{Registry, SessionState, wait_ended};

/// The failure of a [`LegacyTransport`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The session has ended (its client closed the SSE stream, it was
    /// idle too long, the server closed it) or the transport was closed.
    #[error("the legacy session has ended")]
    Closed,
    /// The client did not read its SSE stream within the send timeout, so
    /// the session was dropped.
    #[error("the legacy client does not read its SSE stream: the session was dropped")]
    Stalled,
}

/// One session of a [`LegacySse`](super::LegacySse) server, as a
/// [`Transport`] for a runtime to serve.
///
/// The server hands one to its connect hook for each GET of the SSE
/// endpoint.
///
/// * `recv` yields what the client POSTs to the session, in order,
///   classified: text that is not JSON-RPC comes as
///   [`Inbound::Invalid`] for the runtime to answer (the POST itself got
///   202). It returns `None` once the session has ended: the client closed
///   the SSE stream, the session was idle too long, or the server ended it.
/// * `send` queues the packet as a `message` event on the SSE stream
///   (LEG-06). `send_related` ignores the request it names: there is one
///   stream. When the client does not read, `send` waits for room up to
///   the configured send timeout, then drops the session and fails with
///   [`TransportError::Stalled`].
/// * `close` ends the SSE stream once what was sent has been written,
///   which ends the session.
#[derive(Debug)]
pub struct LegacyTransport {
    sender: LegacySender,
    receiver: LegacyReceiver,
}

/// The sending half of a [`LegacyTransport`].
#[derive(Debug)]
pub struct LegacySender {
    /// `None` once closed; dropping it lets the stream end after what it
    /// holds.
    outbox: Option<mpsc::Sender<Bytes>>,
    ended: watch::Receiver<bool>,
    state: Arc<SessionState>,
    registry: Arc<Registry>,
    send_timeout: Duration,
}

/// The receiving half of a [`LegacyTransport`].
#[derive(Debug)]
pub struct LegacyReceiver {
    inbox: mpsc::Receiver<Inbound>,
    ended: watch::Receiver<bool>,
    state: Arc<SessionState>,
}

impl LegacyTransport {
    pub(crate) fn new(
        state: &Arc<SessionState>,
        registry: Arc<Registry>,
        outbox: mpsc::Sender<Bytes>,
        inbox: mpsc::Receiver<Inbound>,
        send_timeout: Duration,
    ) -> Self {
        Self {
            sender: LegacySender {
                outbox: Some(outbox),
                ended: state.subscribe(),
                state: Arc::clone(state),
                registry,
                send_timeout,
            },
            receiver: LegacyReceiver {
                inbox,
                ended: state.subscribe(),
                state: Arc::clone(state),
            },
        }
    }

    /// The session's id, as the client sends it in the `sessionId` query
    /// parameter of its POSTs.
    pub fn session_id(&self) -> &str {
        &self.sender.state.id
    }

    /// Whether the session has ended.
    pub fn is_ended(&self) -> bool {
        self.sender.state.is_ended()
    }

    /// Sends one packet (see [`LegacySender`]).
    ///
    /// # Errors
    ///
    /// As [`TransportSender::send`].
    pub async fn send(&mut self, packet: Packet) -> Result<(), TransportError> {
        self.sender.send(packet).await
    }

    /// The next packet the client POSTed; `None` once the session ended.
    pub async fn recv(&mut self) -> Option<Result<Inbound, TransportError>> {
        self.receiver.recv().await
    }

    /// Ends the stream after what was sent, and with it the session.
    ///
    /// # Errors
    ///
    /// Never; the signature matches the trait's.
    pub async fn close(&mut self) -> Result<(), TransportError> {
        self.sender.close().await
    }
}

impl LegacySender {
    /// The session's id.
    pub fn session_id(&self) -> &str {
        &self.state.id
    }
}

impl LegacyReceiver {
    /// The session's id.
    pub fn session_id(&self) -> &str {
        &self.state.id
    }
}

impl Transport for LegacyTransport {
    type Error = TransportError;
    type Sender = LegacySender;
    type Receiver = LegacyReceiver;

    fn split(self) -> (LegacySender, LegacyReceiver) {
        (self.sender, self.receiver)
    }
}

impl TransportSender for LegacySender {
    type Error = TransportError;

    async fn send(&mut self, packet: Packet) -> Result<(), TransportError> {
        let Self {
            outbox,
            ended,
            state,
            registry,
            send_timeout,
        } = self;
        let outbox = outbox.as_ref().ok_or(TransportError::Closed)?;
        if state.is_ended() {
            return Err(TransportError::Closed);
        }
        let event = message_event(&packet);
        state.touch();
        tokio::select! {
            biased;
            () = wait_ended(ended) => Err(TransportError::Closed),
            queued = tokio::time::timeout(*send_timeout, outbox.send(event)) => match queued {
                Ok(Ok(())) => Ok(()),
                // The stream is gone: its client disconnected.
                Ok(Err(_)) => Err(TransportError::Closed),
                Err(_) => {
                    tracing::warn!(
                        session = %state.id,
                        timeout = ?send_timeout,
                        "the legacy SSE client has not read its stream within the send timeout: dropping its session"
                    );
                    registry.end(state);
                    Err(TransportError::Stalled)
                }
            },
        }
    }

    async fn close(&mut self) -> Result<(), TransportError> {
        // The stream writes what it holds, then ends, which ends the session.
        self.outbox = None;
        Ok(())
    }
}

impl TransportReceiver for LegacyReceiver {
    type Error = TransportError;

    async fn recv(&mut self) -> Option<Result<Inbound, TransportError>> {
        if !self.state.is_ended() {
            tokio::select! {
                biased;
                inbound = self.inbox.recv() => return inbound.map(Ok),
                () = wait_ended(&mut self.ended) => {}
            }
        }
        // Ended: no POST can add more, and what was already accepted
        // (202) is still handed over before `None`.
        self.inbox.close();
        self.inbox.recv().await.map(Ok)
    }
}

/// A packet as a `message` event (LEG-06). The event type is written out,
/// as 2024-11-05 servers did, though it is also the default.
fn message_event(packet: &Packet) -> Bytes {
    let data = String::from_utf8_lossy(&packet.to_vec()).into_owned();
    let mut out = bytes::BytesMut::with_capacity(data.len() + 32);
    // Only an id or event type with a line break fails to encode, and
    // neither is the case here.
    let _ = Event::new(data).with_event(MESSAGE).encode(&mut out);
    out.freeze()
}
