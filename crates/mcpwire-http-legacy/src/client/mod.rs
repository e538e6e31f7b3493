//! The legacy HTTP+SSE client: a [`Transport`] that keeps a GET stream
//! open for the server's messages and POSTs its own to the URI the
//! stream's `endpoint` event named.
//!
//! [`LegacySseClient::connect`] GETs the SSE URL, waits (bounded) for the
//! `endpoint` event, resolves its URI against the SSE URL and refuses one
//! on another origin: a server, or anyone who can inject an event, must
//! not be able to send the session's messages elsewhere. Then:
//!
//! * **`send`** POSTs the packet there as `application/json` (LEG-05) and
//!   waits for the status (202, or any 2xx), so packets reach the server
//!   in order; an error status fails `send` with [`Error::Status`].
//! * **`recv`** yields the stream's `message` events (LEG-06) from a
//!   bounded queue, filled by a task reading the stream: when the caller
//!   stops receiving, the client stops reading and the server feels it. It
//!   is cancel safe. It returns `None` once the stream ended, after an
//!   `Err` if it broke or stayed silent past the idle timeout
//!   ([`Error::StreamIdle`]: a half-open connection must not leave the
//!   client waiting for answers forever).
//! * **`close`** ends the GET stream, which ends the session on the server.
//!
//! It speaks `http` and `https` through mcpwire-http's pooled client
//! ([`HttpClient`]), with the same TLS set-up as the Streamable HTTP client
//! (the system's root certificates, and any added to the options).

mod endpoint;
mod error;
mod options;
mod reader;

use std::fmt;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Limited};
use mcpwire_http::client::{HttpClient, parse_url};
use mcpwire_jsonrpc::{Inbound, Packet, Transport, TransportReceiver, TransportSender};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

pub use error::Error;
pub use options::LegacyClientOptions;

/// How much of a POST's answer body is read (and dropped), so that the
/// connection can be reused.
const ANSWER_BODY_LIMIT: usize = 64 * 1024;

/// A [`Transport`] to a legacy HTTP+SSE server (revision 2024-11-05); see
/// the [module documentation](self).
///
/// # Example
///
/// ```no_run
/// use mcpwire_http_legacy::client::{LegacyClientOptions, LegacySseClient};
/// use mcpwire_jsonrpc::{Packet, Request};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let mut client =
///     LegacySseClient::connect("http://127.0.0.1:3000/sse", LegacyClientOptions::new()).await?;
/// client.send(Packet::from(Request::without_params(1, "ping"))).await?;
/// let answer = client.recv().await;
/// client.close().await?;
/// # Ok(())
/// # }
/// ```
pub struct LegacySseClient {
    sender: LegacyClientSender,
    receiver: LegacyClientReceiver,
}

/// The sending half of a [`LegacySseClient`]: POSTs to the endpoint.
pub struct LegacyClientSender {
    /// Pooled: one connection holds the GET stream, the POSTs use others.
    http: HttpClient,
    sse_url: Uri,
    endpoint: Uri,
    options: LegacyClientOptions,
    /// Stops the task reading the stream, which closes the GET.
    reader: AbortHandle,
    closed: bool,
}

/// The receiving half of a [`LegacySseClient`]: the stream's messages.
pub struct LegacyClientReceiver {
    inbound: mpsc::Receiver<reader::Item>,
}

impl fmt::Debug for LegacySseClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacySseClient")
            .field("sse_url", &self.sender.sse_url)
            .field("endpoint", &self.sender.endpoint)
            .field("closed", &self.sender.closed)
            .finish()
    }
}

impl fmt::Debug for LegacyClientSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacyClientSender")
            .field("endpoint", &self.endpoint)
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for LegacyClientReceiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacyClientReceiver")
            .finish_non_exhaustive()
    }
}

impl LegacySseClient {
    /// Opens the SSE stream at `url` (`http://` or `https://`) and waits
    /// for its `endpoint` event. Must run inside a tokio runtime: the stream is
    /// read by a task of its own.
    ///
    /// # Errors
    ///
    /// When the URL is unusable or HTTPS cannot be set up
    /// ([`Error::Build`]), the GET fails or is refused, the answer is not
    /// an SSE stream, the first event is not `endpoint` (or none comes
    /// within the endpoint timeout), or the endpoint is invalid or on
    /// another origin ([`Error::CrossOriginEndpoint`]).
    pub async fn connect(url: &str, options: LegacyClientOptions) -> Result<Self, Error> {
        let sse_url = parse_url(url)?;
        let http = HttpClient::for_endpoint(&sse_url, &options.http)?;
        let opened = reader::open(
            &http,
            &sse_url,
            options.http.headers(),
            options.http.message_size_limit(),
            options.endpoint_timeout,
        )
        .await?;
        let endpoint = endpoint::resolve(&sse_url, &opened.endpoint)?;
        tracing::debug!(%endpoint, "legacy SSE stream open");
        let (inbound_sender, inbound) = mpsc::channel(options.http.inbound_queue_capacity());
        let idle = options.stream_idle_timeout;
        let reader = tokio::spawn(reader::run(opened, inbound_sender, idle)).abort_handle();
        Ok(Self {
            sender: LegacyClientSender {
                http,
                sse_url,
                endpoint,
                options,
                reader,
                closed: false,
            },
            receiver: LegacyClientReceiver { inbound },
        })
    }

    /// The SSE URL the stream was opened on.
    pub fn sse_url(&self) -> &Uri {
        &self.sender.sse_url
    }

    /// The URI packets are POSTed to, from the `endpoint` event.
    pub fn endpoint(&self) -> &Uri {
        &self.sender.endpoint
    }

    /// Sends a packet (see the [module documentation](self)).
    ///
    /// # Errors
    ///
    /// As [`TransportSender::send`].
    pub async fn send(&mut self, packet: Packet) -> Result<(), Error> {
        self.sender.send(packet).await
    }

    /// The next message from the server; `None` once the stream ended.
    pub async fn recv(&mut self) -> Option<Result<Inbound, Error>> {
        self.receiver.recv().await
    }

    /// Ends the stream, and with it the session.
    ///
    /// # Errors
    ///
    /// Never; the signature matches the trait's.
    pub async fn close(&mut self) -> Result<(), Error> {
        self.sender.close().await
    }
}

impl LegacyClientSender {
    /// The URI packets are POSTed to.
    pub fn endpoint(&self) -> &Uri {
        &self.endpoint
    }
}

impl Transport for LegacySseClient {
    type Error = Error;
    type Sender = LegacyClientSender;
    type Receiver = LegacyClientReceiver;

    fn split(self) -> (LegacyClientSender, LegacyClientReceiver) {
        (self.sender, self.receiver)
    }
}

impl TransportSender for LegacyClientSender {
    type Error = Error;

    async fn send(&mut self, packet: Packet) -> Result<(), Error> {
        if self.closed {
            return Err(Error::Closed);
        }
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(self.endpoint.clone());
        if let Some(headers) = request.headers_mut() {
            headers.clone_from(self.options.http.headers());
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        let request = request
            .body(Bytes::from(packet.to_vec()))
            .map_err(|error| Error::Request(error.into()))?;
        let timeout = self.options.request_timeout;
        let response = tokio::time::timeout(timeout, self.http.request(request))
            .await
            .map_err(|_| Error::Timeout(timeout))?
            .map_err(Error::Request)?;
        let status = response.status();
        let www_authenticate = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        // Read what little the answer holds so the connection is reused.
        let drain = Limited::new(response.into_body(), ANSWER_BODY_LIMIT).collect();
        let _ = tokio::time::timeout(timeout, drain).await;
        if status.is_success() {
            Ok(())
        } else {
            Err(Error::Status {
                status,
                www_authenticate,
            })
        }
    }

    async fn close(&mut self) -> Result<(), Error> {
        self.closed = true;
        self.reader.abort();
        Ok(())
    }
}

impl Drop for LegacyClientSender {
    fn drop(&mut self) {
        // Without a sender the session is of no use: end it on the server.
        self.reader.abort();
    }
}

impl TransportReceiver for LegacyClientReceiver {
    type Error = Error;

    async fn recv(&mut self) -> Option<Result<Inbound, Error>> {
        // `mpsc::Receiver::recv` is cancel safe.
        self.inbound.recv().await
    }
}
