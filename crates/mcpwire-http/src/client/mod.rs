//! The Streamable HTTP client: a [`Transport`] that POSTs every packet to
//! the MCP endpoint and receives answers as JSON or SSE.
//!
//! [`StreamableHttpClient`] speaks every revision that has Streamable HTTP
//! (2025-03-26 to 2026-07-28) and adapts to the one in use, which it reads
//! from the packets passing through it, like the rest of the transport
//! layer it knows messages, not meaning:
//!
//! * the revision comes from the `initialize` result (handshake era), or
//!   from the `_meta` protocol version of each request (2026-07-28), and is
//!   sent as `MCP-Protocol-Version` (HTTP-42);
//! * the session id comes from the answer to `initialize` and is sent on
//!   every later request (HTTP-37); a 404 to a request carrying it ends the
//!   session (HTTP-40);
//! * 2026-07-28 requests carry `Mcp-Method`, `Mcp-Name` and the
//!   `Mcp-Param-*` headers of the tool's `x-mcp-header` parameters, which
//!   the client learns from the `tools/list` results it carries (and tools
//!   with invalid annotations are removed from those results, as the
//!   revision requires of Streamable HTTP clients).
//!
//! The client spawns tokio tasks (one per POST awaiting an answer, one for
//! the standalone GET stream), so `send` must run inside a tokio runtime.

mod authorizer;
mod body;
mod connector;
mod error;
pub(crate) mod metadata;
mod options;
mod post;
mod shared;
mod stream;
mod tool_header_table;
pub(crate) mod tool_headers;

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Method, StatusCode, Uri};
use mcpwire_jsonrpc::{Inbound, Packet, Transport, TransportReceiver, TransportSender};
use tokio::sync::mpsc;

pub use authorizer::{AuthFuture, Authorizer, MAX_AUTH_RETRIES, Retry};
pub use connector::{HttpClient, parse_url};
pub use error::{BuildError, Error, StatusError, codes};
pub use options::{ClientOptions, ReconnectPolicy};

use body::Dispatch;
use metadata::Outgoing;
use shared::Shared;

/// How the server answered the client's very first POST: what a transport
/// that falls back to the legacy HTTP+SSE transport decides on (LEG-08,
/// LEG-09).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FirstPostOutcome {
    /// A 2xx status: the server speaks Streamable HTTP.
    Accepted(StatusCode),
    /// 400, 404 or 405 without a recognised modern JSON-RPC error: the URL
    /// may be a legacy HTTP+SSE endpoint.
    LegacyCandidate(StatusCode),
    /// Another error status (401 and 403 among them), or a modern refusal.
    Refused(StatusCode),
    /// No answer: the exchange failed or timed out.
    Failed,
}

/// A [`Transport`] over Streamable HTTP, the client half.
///
/// * **`send`** POSTs the packet with `Accept: application/json,
///   text/event-stream` (HTTP-06, HTTP-07) and the headers described in the
///   [module documentation](self). For a request it returns once the body
///   is handed to the connection; the answer (JSON, or an SSE stream read
///   in the background) arrives through `recv`. For a notification or a
///   response it waits for the server's status, so that, for example,
///   `notifications/initialized` is accepted before the next request goes.
/// * **`recv`** yields what the server sent, in the order each stream
///   delivered it, from a bounded queue: when the caller stops reading,
///   the client stops reading the server. It is cancel safe. It never
///   yields `Err`: failures that concern a request become an error
///   response for it (see [`codes`]), so that no caller waits forever.
/// * **`close`** ends the session with a DELETE (HTTP-41; 405 is fine),
///   stops every stream, and makes `recv` return `None` once the queue is
///   drained.
///
/// # Example
///
/// ```no_run
/// use mcpwire_http::client::{ClientOptions, StreamableHttpClient};
/// use mcpwire_jsonrpc::{Packet, Request, Transport};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let options = ClientOptions::new().with_header(
///     http::header::AUTHORIZATION,
///     http::HeaderValue::from_static("Bearer token"),
/// );
/// let mut client = StreamableHttpClient::with_options("https://example.com/mcp", options)?;
/// client.send(Packet::from(Request::without_params(1, "ping"))).await?;
/// let answer = client.recv().await;
/// client.close().await?;
/// # Ok(())
/// # }
/// ```
pub struct StreamableHttpClient {
    sender: HttpSender,
    receiver: HttpReceiver,
}

/// The sending half of a [`StreamableHttpClient`]: POSTs, and the streams
/// they open, run in tasks of their own.
pub struct HttpSender {
    shared: Arc<Shared>,
}

/// The receiving half of a [`StreamableHttpClient`]: every message any of
/// its HTTP responses or streams carried, in arrival order.
pub struct HttpReceiver {
    inbound: mpsc::Receiver<Inbound>,
}

impl fmt::Debug for HttpSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSender")
            .field("endpoint", &self.shared.endpoint)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for HttpReceiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpReceiver").finish_non_exhaustive()
    }
}

impl fmt::Debug for StreamableHttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamableHttpClient")
            .field("endpoint", &self.sender.shared.endpoint)
            .field("protocol_version", &self.sender.shared.protocol_version())
            .field("has_session", &self.sender.shared.session_id().is_some())
            .field("closed", &self.sender.shared.is_closed())
            .finish()
    }
}

impl StreamableHttpClient {
    /// A client for the MCP endpoint at `url` (`http://` or `https://`)
    /// with the default options.
    pub fn new(url: &str) -> Result<Self, BuildError> {
        Self::with_options(url, ClientOptions::default())
    }

    /// A client for the MCP endpoint at `url` with `options`. Nothing is
    /// sent yet; for `https`, the root certificates are loaded now.
    pub fn with_options(url: &str, options: ClientOptions) -> Result<Self, BuildError> {
        let endpoint = parse_url(url)?;
        let http = HttpClient::for_endpoint(&endpoint, &options)?;
        let (sender, inbound) = mpsc::channel(options.inbound_capacity);
        Ok(Self {
            sender: HttpSender {
                shared: Arc::new(Shared::new(endpoint, options, http, sender)),
            },
            receiver: HttpReceiver { inbound },
        })
    }

    /// The MCP endpoint.
    pub fn endpoint(&self) -> &Uri {
        &self.sender.shared.endpoint
    }

    /// The session id the server assigned, if any.
    pub fn session_id(&self) -> Option<String> {
        self.sender.shared.session_id()
    }

    /// The protocol revision the client is speaking, as last learned (from
    /// the `initialize` result or a request's `_meta`).
    pub fn protocol_version(&self) -> Option<String> {
        self.sender.shared.protocol_version()
    }

    /// How the server answered the first POST, once it has.
    pub fn first_post_outcome(&self) -> Option<FirstPostOutcome> {
        self.sender.shared.first_post_outcome()
    }

    /// Sets a header sent with every later HTTP request (for example a
    /// refreshed `Authorization`), replacing any value it had.
    pub fn set_header(&self, name: HeaderName, value: HeaderValue) {
        self.sender.shared.set_header(name, Some(value));
    }

    /// Stops sending a header set with [`set_header`](Self::set_header) or
    /// the options.
    pub fn remove_header(&self, name: HeaderName) {
        self.sender.shared.set_header(name, None);
    }

    /// Sends a packet (see [`HttpSender`]).
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

    /// Ends the session (DELETE) and the transport.
    ///
    /// # Errors
    ///
    /// Never in practice: a failed DELETE is only logged.
    pub async fn close(&mut self) -> Result<(), Error> {
        self.sender.close().await
    }
}

/// The longest the client waits, after `notifications/initialized`, for
/// the server to answer the GET of its standalone stream.
const GET_STREAM_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

impl HttpSender {
    /// Opens the standalone GET stream if it is wanted and not open yet,
    /// and waits (at most [`GET_STREAM_WAIT`]) until the server answered the
    /// GET. A server may send requests and notifications that belong to no
    /// request on that stream as soon as the session is initialized, and
    /// may drop them while no stream is open; waiting here, before the next
    /// request goes out, keeps a server's question asked during our next
    /// call from being lost when the GET would otherwise lose the race.
    async fn open_get_stream(&self) {
        if let Some(generation) = self.shared.claim_get_stream() {
            let shared = Arc::clone(&self.shared);
            let (answered, opened) = tokio::sync::oneshot::channel();
            self.shared
                .spawn(&[], stream::run_standalone(shared, generation, answered));
            let wait = GET_STREAM_WAIT.min(self.shared.options.connect_timeout);
            if tokio::time::timeout(wait, opened).await.is_err() {
                tracing::debug!("the standalone SSE stream is slow to open; going on without it");
            }
        }
    }
}

impl Transport for StreamableHttpClient {
    type Error = Error;
    type Sender = HttpSender;
    type Receiver = HttpReceiver;

    fn split(self) -> (HttpSender, HttpReceiver) {
        (self.sender, self.receiver)
    }
}

impl TransportSender for HttpSender {
    type Error = Error;

    async fn send(&mut self, packet: Packet) -> Result<(), Error> {
        let outgoing = Outgoing::inspect(&packet);
        if self.shared.cancel_by_closing(&outgoing) {
            return Ok(());
        }
        let plan = self.shared.plan_post(&outgoing)?;
        let requests = plan.requests.clone();
        let (dispatch, dispatched) = Dispatch::new();
        let body = Bytes::from(packet.to_vec());
        let task = post::run(Arc::clone(&self.shared), plan, body, dispatch);
        self.shared.spawn(&requests, task);
        let result = match dispatched.await {
            Ok(result) => result,
            // The task ended without a word: it was stopped by `close`.
            Err(_) if self.shared.is_closed() => Err(Error::Closed),
            Err(_) => Ok(()),
        };
        if result.is_ok() && outgoing.is_initialized_notification() {
            self.open_get_stream().await;
        }
        result
    }

    async fn close(&mut self) -> Result<(), Error> {
        if self.shared.is_closed() {
            return Ok(());
        }
        let delete = self.shared.shut_down();
        if let Some(mut request) = delete {
            post::authorize(&self.shared, &Method::DELETE, request.headers_mut()).await;
            let timeout = Some(self.shared.options.close_timeout);
            match post::within(timeout, self.shared.http.exchange(request)).await {
                Ok(response) if response.status() == StatusCode::METHOD_NOT_ALLOWED => {
                    tracing::debug!("the server does not let clients end sessions (405)");
                }
                Ok(response) if !response.status().is_success() => {
                    tracing::debug!(status = %response.status(), "the session DELETE was refused");
                }
                Ok(_) => {}
                Err(error) => {
                    let error = error::describe(&error);
                    tracing::debug!(error, "the session DELETE failed");
                }
            }
        }
        Ok(())
    }
}

impl TransportReceiver for HttpReceiver {
    type Error = Error;

    async fn recv(&mut self) -> Option<Result<Inbound, Error>> {
        // `mpsc::Receiver::recv` is cancel safe.
        self.inbound.recv().await.map(Ok)
    }
}

impl Drop for HttpSender {
    fn drop(&mut self) {
        // Stop the background tasks; the session is left for the server to
        // expire, since a DELETE needs an await.
        let _ = self.shared.shut_down();
    }
}
