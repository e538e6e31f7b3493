//! The HTTP/1.1 client stack: hyper-util's pooled client over TCP, with
//! HTTPS through rustls (ring) and the system's root certificates.

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, Uri};
use hyper::body::Incoming;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::legacy::{Client, ResponseFuture};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use super::body::OutgoingBody;
use super::error::{BoxError, BuildError};
use super::options::ClientOptions;

/// How long an idle pooled connection is kept.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// TCP keep-alive on every connection: after a minute without traffic the
/// kernel probes the peer every 15 s and resets the connection after 4
/// unanswered probes. A peer that vanished without a word (a crashed
/// host, a NAT that forgot the connection) is then noticed within about
/// two minutes on a stream that is quiet on purpose, such as a legacy SSE
/// stream from a server that sends no keep-alive comments, without the
/// client having to guess how long the server may stay silent.
const TCP_KEEPALIVE_IDLE: Duration = Duration::from_secs(60);
/// See [`TCP_KEEPALIVE_IDLE`].
const TCP_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(15);
/// See [`TCP_KEEPALIVE_IDLE`].
const TCP_KEEPALIVE_RETRIES: u32 = 4;

/// Reads an MCP endpoint URL: it must be absolute, `http` or `https`, and
/// name a host.
///
/// # Errors
///
/// [`BuildError::InvalidUrl`] or [`BuildError::UnsupportedScheme`].
pub fn parse_url(url: &str) -> Result<Uri, BuildError> {
    let invalid = |reason: String| BuildError::InvalidUrl {
        url: url.to_owned(),
        reason,
    };
    let uri: Uri = url
        .parse()
        .map_err(|error: http::uri::InvalidUri| invalid(error.to_string()))?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        Some(other) => return Err(BuildError::UnsupportedScheme(other.to_owned())),
        None => return Err(invalid("it is not absolute".to_owned())),
    }
    if uri.host().is_none() {
        return Err(invalid("it has no host".to_owned()));
    }
    Ok(uri)
}

/// The pooled HTTP/1.1 client every mcpwire HTTP client transport sends
/// through: TCP with `TCP_NODELAY` and the options' connect timeout, and
/// for `https` TLS through rustls, verified against the options' root
/// certificates (the system's, and any added). Idle connections are kept
/// for 90 s. Clones share the pool.
///
/// Public so that other crates reach HTTPS servers exactly as
/// [`StreamableHttpClient`](super::StreamableHttpClient) does: the legacy
/// HTTP+SSE client of `mcpwire-http-legacy`, and the OAuth client of
/// `mcpwire-auth` (its default `HyperFetch`), so the workspace has one
/// HTTPS client stack.
#[derive(Clone)]
pub struct HttpClient {
    inner: Client<Connector, OutgoingBody>,
    https: bool,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("https", &self.https)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client for `endpoint`'s origin with `options`' connect timeout and
    /// root certificates. TLS is set up only for an `https` endpoint, since
    /// reading the system's certificates takes a while; a client built for
    /// an `http` endpoint refuses `https` URLs, one built for an `https`
    /// endpoint reaches `http` URLs too (whatever their origin).
    ///
    /// # Errors
    ///
    /// For `https`: [`BuildError::InvalidCertificate`] for a bad added
    /// root, [`BuildError::NoRootCertificates`] when none is available,
    /// [`BuildError::Tls`] when the TLS configuration fails.
    pub fn for_endpoint(endpoint: &Uri, options: &ClientOptions) -> Result<Self, BuildError> {
        let https = endpoint.scheme_str() == Some("https");
        let connector = Connector::new(https, options)?;
        let inner = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .pool_timer(TokioTimer::new())
            .build(connector);
        Ok(Self { inner, https })
    }

    /// Sends `request` (its body whole, `Content-Length` set; an empty body
    /// sends none) and waits for the response's head; the body is read
    /// from the response as it arrives. Not bounded in time: wrap it in a
    /// timeout.
    ///
    /// # Errors
    ///
    /// When the connection fails (refused, TLS handshake, broken) or the
    /// answer is not HTTP.
    pub async fn request(
        &self,
        request: Request<Bytes>,
    ) -> Result<Response<Incoming>, Box<dyn std::error::Error + Send + Sync>> {
        let request = request.map(|bytes| {
            if bytes.is_empty() {
                OutgoingBody::empty()
            } else {
                OutgoingBody::new(bytes, None)
            }
        });
        Ok(self.exchange(request).await?)
    }

    /// Sends `request` with the transport's own body type.
    pub(crate) fn exchange(&self, request: Request<OutgoingBody>) -> ResponseFuture {
        self.inner.request(request)
    }
}

fn tls_config(options: &ClientOptions) -> Result<rustls::ClientConfig, BuildError> {
    let mut roots = rustls::RootCertStore::empty();
    if options.native_roots {
        let native = rustls_native_certs::load_native_certs();
        for error in &native.errors {
            tracing::debug!(%error, "could not read some system root certificates");
        }
        let (added, ignored) = roots.add_parsable_certificates(native.certs);
        tracing::debug!(added, ignored, "loaded the system root certificates");
    }
    for der in &options.extra_roots {
        roots
            .add(CertificateDer::from(der.clone()))
            .map_err(|error| BuildError::InvalidCertificate(error.to_string()))?;
    }
    if roots.is_empty() {
        return Err(BuildError::NoRootCertificates);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| BuildError::Tls(error.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// Opens TCP connections, and wraps them in TLS for `https` URLs.
#[derive(Clone)]
pub(crate) struct Connector {
    http: HttpConnector,
    tls: Option<TlsConnector>,
    /// The bound on the TLS handshake (`ClientOptions::connect_timeout`;
    /// the TCP connect has its own, set on `http`): a server that takes
    /// the connection and stalls the handshake would otherwise hold it,
    /// and a connect hyper's pool finished in the background, for ever.
    handshake_timeout: Duration,
}

impl Connector {
    /// The connector of [`HttpClient::for_endpoint`] (apart from it so that
    /// the tests read back what its connections are set to): TCP with
    /// `TCP_NODELAY`, keep-alive and the options' connect timeout, and TLS
    /// when `https`.
    fn new(https: bool, options: &ClientOptions) -> Result<Self, BuildError> {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(options.connect_timeout));
        http.set_keepalive(Some(TCP_KEEPALIVE_IDLE));
        http.set_keepalive_interval(Some(TCP_KEEPALIVE_INTERVAL));
        http.set_keepalive_retries(Some(TCP_KEEPALIVE_RETRIES));
        let tls = if https {
            Some(TlsConnector::from(Arc::new(tls_config(options)?)))
        } else {
            None
        };
        Ok(Self {
            http,
            tls,
            handshake_timeout: options.connect_timeout,
        })
    }
}

impl tower_service::Service<Uri> for Connector {
    type Response = Stream;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Stream, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        tower_service::Service::<Uri>::poll_ready(&mut self.http, cx).map_err(Into::into)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let mut http = self.http.clone();
        let tls = self.tls.clone();
        let handshake_timeout = self.handshake_timeout;
        Box::pin(async move {
            let https = uri.scheme_str() == Some("https");
            let host = uri.host().map(|host| {
                host.trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_owned()
            });
            let tcp = tower_service::Service::call(&mut http, uri).await?;
            if !https {
                return Ok(Stream::Plain(tcp));
            }
            let tls = tls.ok_or("an https URL needs the client to be built for https")?;
            let host = host.ok_or("the URL has no host")?;
            let server_name = ServerName::try_from(host)?;
            let handshake = tls.connect(server_name, tcp.into_inner());
            let stream = tokio::time::timeout(handshake_timeout, handshake)
                .await
                .map_err(|_| {
                    format!("the TLS handshake took longer than {handshake_timeout:?}")
                })??;
            Ok(Stream::Tls(Box::new(TokioIo::new(stream))))
        })
    }
}

/// A connection: plain TCP or TLS over TCP.
pub(crate) enum Stream {
    Plain(TokioIo<TcpStream>),
    Tls(Box<TokioIo<TlsStream<TcpStream>>>),
}

impl Connection for Stream {
    fn connected(&self) -> Connected {
        match self {
            Self::Plain(stream) => stream.connected(),
            Self::Tls(stream) => stream.inner().get_ref().0.connected(),
        }
    }
}

impl Read for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl Write for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_flush(cx),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }
}

// Linux only: the options are read back with `getsockopt`, whose TCP
// keep-alive names (`TCP_KEEPIDLE` and the rest) differ between systems.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use nix::sys::socket::{getsockopt, sockopt};
    use tokio::net::TcpListener;
    use tower_service::Service;

    use super::*;

    /// A bound on everything the test waits for on the loopback.
    const WAIT: Duration = Duration::from_secs(10);

    #[tokio::test]
    async fn client_connections_probe_dead_peers_with_tcp_keepalive() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let uri: Uri = format!("http://{}/mcp", listener.local_addr().unwrap())
            .parse()
            .unwrap();
        let mut connector = Connector::new(false, &ClientOptions::default()).unwrap();
        let connect = async {
            std::future::poll_fn(|cx| Service::<Uri>::poll_ready(&mut connector, cx))
                .await
                .unwrap();
            connector.call(uri).await.unwrap()
        };
        // The accepted end is held until the options are read, so that
        // the connection is still open then.
        let (stream, accepted) =
            tokio::time::timeout(WAIT, async { tokio::join!(connect, listener.accept()) })
                .await
                .expect("the connection was not made in time");
        let _server_end = accepted.unwrap();
        let Stream::Plain(tcp) = stream else {
            panic!("an http URL is reached over plain TCP");
        };
        let tcp: &TcpStream = tcp.inner();

        assert!(getsockopt(tcp, sockopt::KeepAlive).unwrap(), "SO_KEEPALIVE");
        let seconds = |duration: Duration| u32::try_from(duration.as_secs()).unwrap();
        assert_eq!(
            getsockopt(tcp, sockopt::TcpKeepIdle).unwrap(),
            seconds(TCP_KEEPALIVE_IDLE),
            "TCP_KEEPIDLE"
        );
        assert_eq!(
            getsockopt(tcp, sockopt::TcpKeepInterval).unwrap(),
            seconds(TCP_KEEPALIVE_INTERVAL),
            "TCP_KEEPINTVL"
        );
        assert_eq!(
            getsockopt(tcp, sockopt::TcpKeepCount).unwrap(),
            TCP_KEEPALIVE_RETRIES,
            "TCP_KEEPCNT"
        );
        // And the rest of what `Connector::new` asks of the socket.
        assert!(tcp.nodelay().unwrap(), "TCP_NODELAY");
    }
}
