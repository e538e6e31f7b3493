//! `AutoTransport`: a client transport that speaks Streamable HTTP, or
//! falls back to the legacy HTTP+SSE transport when the server is an old
//! one (the spec's "Backwards Compatibility", LEG-08 and LEG-09).
//!
//! The first packet (for a runtime, `initialize` or the `server/discover`
//! probe) is POSTed with Streamable HTTP to the user's URL, with
//! mcpwire-http's legacy detection on. If the server accepts it, the
//! transport is Streamable HTTP. If it refuses it with 400, 404 or 405
//! (and no error only a modern server gives), the transport GETs the same
//! URL: when an `endpoint` event arrives, it is the legacy transport from
//! then on, and the first packet is sent again over it; otherwise it stays
//! with Streamable HTTP and sends the first packet again there, so the
//! server's refusal answers it. Any other refusal (401 and 403 are
//! authorization errors) or failure is returned by that first `send`, and
//! the transport stays with Streamable HTTP.
//!
//! The decision is taken in the sending half, since the first `send`
//! is what reveals the server; the receiving half waits for it, then reads
//! from whichever transport won. [`Choice`] tells which.

use std::fmt;
use std::sync::{Arc, OnceLock};

use http::{HeaderName, HeaderValue};
use mcpwire_http::client::{
    BuildError, ClientOptions, Error as HttpError, HttpReceiver, HttpSender, StreamableHttpClient,
};
use mcpwire_jsonrpc::{Inbound, Packet, RequestId, Transport, TransportReceiver, TransportSender};
use tokio::sync::oneshot;

use crate::client::{
    Error as LegacyError, LegacyClientOptions, LegacyClientReceiver, LegacyClientSender,
    LegacySseClient,
};

/// The transport an [`AutoTransport`] settled on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportKind {
    /// Streamable HTTP (2025-03-26 and later).
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05).
    LegacySse,
}

/// Which transport an [`AutoTransport`] chose, readable from anywhere
/// once the first `send` has decided; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Choice(Arc<OnceLock<TransportKind>>);

impl Choice {
    /// The transport chosen, or `None` before the first `send` decided.
    pub fn get(&self) -> Option<TransportKind> {
        self.0.get().copied()
    }

    fn set(&self, kind: TransportKind) {
        let _ = self.0.set(kind);
    }
}

/// The options of an [`AutoTransport`]: those of each transport it may use.
#[derive(Clone, Debug, Default)]
pub struct AutoOptions {
    streamable: ClientOptions,
    legacy: LegacyClientOptions,
}

impl AutoOptions {
    /// The defaults of both transports.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a header sent with every HTTP request of either transport
    /// (for example `Authorization`).
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.streamable = self.streamable.with_header(name.clone(), value.clone());
        self.legacy = self.legacy.with_header(name, value);
        self
    }

    /// The options of the Streamable HTTP client (legacy detection is
    /// turned on regardless).
    #[must_use]
    pub fn streamable(mut self, options: ClientOptions) -> Self {
        self.streamable = options;
        self
    }

    /// The options of the legacy client (its HTTP side, root certificates
    /// included, is set apart from the Streamable HTTP client's: see
    /// [`LegacyClientOptions::http`]).
    #[must_use]
    pub fn legacy(mut self, options: LegacyClientOptions) -> Self {
        self.legacy = options;
        self
    }
}

/// The failure of an [`AutoTransport`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The Streamable HTTP client could not be built from the URL and
    /// options.
    #[error(transparent)]
    Build(BuildError),
    /// The Streamable HTTP transport failed (among others: the first POST
    /// was refused with 401 or 403, see
    /// [`mcpwire_http::client::Error::status`]).
    #[error(transparent)]
    Streamable(HttpError),
    /// The legacy transport failed.
    #[error(transparent)]
    Legacy(LegacyError),
    /// The transport was closed, or a first `send` was abandoned midway.
    #[error("the transport is closed")]
    Closed,
}

/// A client [`Transport`] that picks Streamable HTTP or the legacy
/// HTTP+SSE transport on its first `send`; see the
/// [module documentation](self). Made by [`connect_auto`].
///
/// # Example
///
/// ```no_run
/// use mcpwire_http_legacy::auto::{AutoOptions, TransportKind, connect_auto};
/// use mcpwire_jsonrpc::{Packet, Request};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let mut transport = connect_auto("http://127.0.0.1:3000/mcp", AutoOptions::new())?;
/// let choice = transport.choice();
/// transport.send(Packet::from(Request::without_params(1, "ping"))).await?;
/// let legacy = choice.get() == Some(TransportKind::LegacySse);
/// # let _ = legacy;
/// # Ok(())
/// # }
/// ```
pub struct AutoTransport {
    sender: AutoSender,
    receiver: AutoReceiver,
}

/// The sending half of an [`AutoTransport`]; its first `send` decides.
pub struct AutoSender {
    state: SenderState,
    url: String,
    legacy_options: LegacyClientOptions,
    choice: Choice,
}

/// The receiving half of an [`AutoTransport`]: waits for the decision,
/// then reads from the chosen transport.
pub struct AutoReceiver {
    state: ReceiverState,
    choice: Choice,
}

enum SenderState {
    Undecided {
        sender: HttpSender,
        receiver: HttpReceiver,
        decided: oneshot::Sender<ChosenReceiver>,
    },
    Streamable(HttpSender),
    /// Boxed: the legacy client is much larger than the other states.
    Legacy(Box<LegacyClientSender>),
    Closed,
}

enum ChosenReceiver {
    Streamable(HttpReceiver),
    Legacy(LegacyClientReceiver),
}

enum ReceiverState {
    Waiting(oneshot::Receiver<ChosenReceiver>),
    Ready(ChosenReceiver),
    Done,
}

/// A transport to the MCP server at `url` that uses Streamable HTTP or,
/// for an old server, the legacy HTTP+SSE transport. Nothing is sent yet:
/// the first `send` decides. It must run inside a tokio runtime.
///
/// # Errors
///
/// When the URL or the options are unusable ([`Error::Build`]).
pub fn connect_auto(url: &str, options: AutoOptions) -> Result<AutoTransport, Error> {
    let streamable = options.streamable.detect_legacy(true);
    let client = StreamableHttpClient::with_options(url, streamable).map_err(Error::Build)?;
    let (sender, receiver) = client.split();
    let (decided, waiting) = oneshot::channel();
    let choice = Choice::default();
    Ok(AutoTransport {
        sender: AutoSender {
            state: SenderState::Undecided {
                sender,
                receiver,
                decided,
            },
            url: url.to_owned(),
            legacy_options: options.legacy,
            choice: choice.clone(),
        },
        receiver: AutoReceiver {
            state: ReceiverState::Waiting(waiting),
            choice,
        },
    })
}

impl fmt::Debug for AutoTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AutoTransport")
            .field("url", &self.sender.url)
            .field("chosen", &self.chosen())
            .finish()
    }
}

impl fmt::Debug for AutoSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AutoSender")
            .field("url", &self.url)
            .field("chosen", &self.choice.get())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for AutoReceiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AutoReceiver")
            .field("chosen", &self.choice.get())
            .finish_non_exhaustive()
    }
}

impl AutoTransport {
    /// The shared record of the transport chosen, to keep after `split`.
    pub fn choice(&self) -> Choice {
        self.sender.choice.clone()
    }

    /// The transport chosen, or `None` before the first `send` decided.
    pub fn chosen(&self) -> Option<TransportKind> {
        self.sender.choice.get()
    }

    /// Sends a packet; the first one decides (see [`AutoSender`]).
    ///
    /// # Errors
    ///
    /// As [`TransportSender::send`].
    pub async fn send(&mut self, packet: Packet) -> Result<(), Error> {
        self.sender.send(packet).await
    }

    /// The next message from the server; `None` once closed.
    pub async fn recv(&mut self) -> Option<Result<Inbound, Error>> {
        self.receiver.recv().await
    }

    /// Closes the chosen transport.
    ///
    /// # Errors
    ///
    /// As the chosen transport's `close`.
    pub async fn close(&mut self) -> Result<(), Error> {
        self.sender.close().await
    }
}

impl AutoSender {
    /// The transport chosen, or `None` before the first `send` decided.
    pub fn chosen(&self) -> Option<TransportKind> {
        self.choice.get()
    }

    /// Sends the first packet and settles on a transport.
    async fn decide(&mut self, packet: Packet) -> Result<(), Error> {
        let SenderState::Undecided {
            mut sender,
            receiver,
            decided,
        } = core::mem::replace(&mut self.state, SenderState::Closed)
        else {
            return Err(Error::Closed);
        };
        let refusal = match sender.send(packet.clone()).await {
            Err(HttpError::LegacyCandidate(refusal)) => refusal,
            outcome => {
                self.settle(
                    TransportKind::StreamableHttp,
                    decided,
                    ChosenReceiver::Streamable(receiver),
                );
                self.state = SenderState::Streamable(sender);
                return outcome.map_err(Error::Streamable);
            }
        };
        tracing::debug!(
            status = %refusal.status(),
            "the first Streamable HTTP POST was refused: trying the legacy HTTP+SSE transport"
        );
        match LegacySseClient::connect(&self.url, self.legacy_options.clone()).await {
            Ok(legacy) => {
                // No session exists on the Streamable HTTP side: dropping
                // its client stops it without a word to the server.
                drop((sender, receiver));
                let (mut legacy_sender, legacy_receiver) = legacy.split();
                self.settle(
                    TransportKind::LegacySse,
                    decided,
                    ChosenReceiver::Legacy(legacy_receiver),
                );
                let sent = legacy_sender.send(packet).await.map_err(Error::Legacy);
                self.state = SenderState::Legacy(Box::new(legacy_sender));
                sent
            }
            Err(error) => {
                tracing::debug!(%error, "no legacy endpoint either: staying with Streamable HTTP");
                self.settle(
                    TransportKind::StreamableHttp,
                    decided,
                    ChosenReceiver::Streamable(receiver),
                );
                // Sent again, the packet is refused again, and this time
                // the refusal answers it (as an error response via `recv`)
                // instead of leaving it unanswered.
                let sent = sender.send(packet).await.map_err(Error::Streamable);
                self.state = SenderState::Streamable(sender);
                sent
            }
        }
    }

    fn settle(
        &self,
        kind: TransportKind,
        decided: oneshot::Sender<ChosenReceiver>,
        receiver: ChosenReceiver,
    ) {
        tracing::debug!(?kind, url = %self.url, "MCP transport chosen");
        self.choice.set(kind);
        // A receiving half that is gone no longer needs it.
        let _ = decided.send(receiver);
    }
}

impl AutoReceiver {
    /// The transport chosen, or `None` before the first `send` decided.
    pub fn chosen(&self) -> Option<TransportKind> {
        self.choice.get()
    }
}

impl Transport for AutoTransport {
    type Error = Error;
    type Sender = AutoSender;
    type Receiver = AutoReceiver;

    fn split(self) -> (AutoSender, AutoReceiver) {
        (self.sender, self.receiver)
    }
}

impl TransportSender for AutoSender {
    type Error = Error;

    async fn send(&mut self, packet: Packet) -> Result<(), Error> {
        self.send_related(packet, None).await
    }

    async fn send_related(
        &mut self,
        packet: Packet,
        related: Option<&RequestId>,
    ) -> Result<(), Error> {
        match &mut self.state {
            SenderState::Streamable(sender) => sender
                .send_related(packet, related)
                .await
                .map_err(Error::Streamable),
            SenderState::Legacy(sender) => sender.send(packet).await.map_err(Error::Legacy),
            SenderState::Undecided { .. } => self.decide(packet).await,
            SenderState::Closed => Err(Error::Closed),
        }
    }

    async fn close(&mut self) -> Result<(), Error> {
        match &mut self.state {
            SenderState::Streamable(sender) => sender.close().await.map_err(Error::Streamable),
            SenderState::Legacy(sender) => sender.close().await.map_err(Error::Legacy),
            SenderState::Undecided { .. } | SenderState::Closed => {
                // Nothing was sent: dropping the clients ends everything,
                // and the receiving half sees no decision and ends too.
                self.state = SenderState::Closed;
                Ok(())
            }
        }
    }
}

impl TransportReceiver for AutoReceiver {
    type Error = Error;

    async fn recv(&mut self) -> Option<Result<Inbound, Error>> {
        loop {
            match &mut self.state {
                // Awaiting the oneshot by reference is cancel safe: the
                // decision stays in the channel until this poll takes it.
                ReceiverState::Waiting(waiting) => match waiting.await {
                    Ok(chosen) => self.state = ReceiverState::Ready(chosen),
                    Err(_) => self.state = ReceiverState::Done,
                },
                ReceiverState::Ready(ChosenReceiver::Streamable(receiver)) => {
                    return receiver
                        .recv()
                        .await
                        .map(|item| item.map_err(Error::Streamable));
                }
                ReceiverState::Ready(ChosenReceiver::Legacy(receiver)) => {
                    return receiver
                        .recv()
                        .await
                        .map(|item| item.map_err(Error::Legacy));
                }
                ReceiverState::Done => return None,
            }
        }
    }
}
