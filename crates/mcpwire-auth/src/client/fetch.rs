//! The OAuth client's own HTTP: a small pluggable [`HttpFetch`] trait, a
//! default implementation on hyper with rustls, and the guarded requests
//! discovery and token calls make through it.
//!
//! The guards: only HTTPS URLs, or plain HTTP to a loopback host; bodies
//! bounded in size; every exchange bounded in time; redirects followed only
//! within the same origin, a few times at most.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HOST, LOCATION};
use http::{HeaderValue, Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use url::Url;

use super::error::Error;

/// The crate's boxed future, re-exported where this module's traits use it.
pub use crate::BoxFuture;

/// The largest body the client reads from an authorization server or
/// metadata endpoint.
pub const DEFAULT_BODY_LIMIT: usize = 256 * 1024;
/// How long one exchange (connect, send, read the whole answer) may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many same-origin redirects a metadata fetch follows.
const MAX_REDIRECTS: usize = 3;

/// Performs one HTTP exchange with a whole body each way. Implement it to
/// route the OAuth client's requests through your own HTTP stack; the
/// client never follows redirects through it implicitly.
pub trait HttpFetch: Send + Sync + fmt::Debug {
    /// Sends `request` (absolute URI) and returns the whole answer.
    fn fetch(&self, request: Request<Bytes>) -> BoxFuture<'_, Result<Response<Bytes>, Error>>;
}

/// The default [`HttpFetch`]: one HTTP/1.1 connection per exchange over
/// tokio, HTTPS through rustls with the system's root certificates.
#[derive(Clone)]
pub struct HyperFetch {
    tls: Option<TlsConnector>,
    timeout: Duration,
    body_limit: usize,
}

impl fmt::Debug for HyperFetch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HyperFetch")
            .field("https", &self.tls.is_some())
            .field("timeout", &self.timeout)
            .field("body_limit", &self.body_limit)
            .finish()
    }
}

impl Default for HyperFetch {
    fn default() -> Self {
        Self::new()
    }
}

impl HyperFetch {
    /// A fetcher trusting the system's root certificates (HTTPS is
    /// unavailable when none can be read), with the default bounds.
    pub fn new() -> Self {
        Self::with_roots(true, &[])
    }

    /// A fetcher trusting the system's roots when `native_roots`, plus the
    /// DER-encoded `extra_roots`.
    pub fn with_roots(native_roots: bool, extra_roots: &[Vec<u8>]) -> Self {
        let mut roots = rustls::RootCertStore::empty();
        if native_roots {
            let native = rustls_native_certs::load_native_certs();
            let (added, ignored) = roots.add_parsable_certificates(native.certs);
            tracing::debug!(added, ignored, "OAuth client: loaded the system roots");
        }
        for der in extra_roots {
            if let Err(error) = roots.add(CertificateDer::from(der.clone())) {
                tracing::warn!(%error, "OAuth client: an extra root certificate is invalid");
            }
        }
        let tls = (!roots.is_empty())
            .then(|| {
                let provider = Arc::new(rustls::crypto::ring::default_provider());
                rustls::ClientConfig::builder_with_provider(provider)
                    .with_safe_default_protocol_versions()
                    .ok()
                    .map(|builder| {
                        let mut config =
                            builder.with_root_certificates(roots).with_no_client_auth();
                        config.alpn_protocols = vec![b"http/1.1".to_vec()];
                        TlsConnector::from(Arc::new(config))
                    })
            })
            .flatten();
        Self {
            tls,
            timeout: DEFAULT_TIMEOUT,
            body_limit: DEFAULT_BODY_LIMIT,
        }
    }

    /// Bounds each exchange, end to end.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Bounds the size of answers.
    #[must_use]
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    async fn exchange(&self, request: Request<Bytes>) -> Result<Response<Bytes>, Error> {
        let url = request.uri().to_string();
        let uri = request.uri().clone();
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(Error::url(&url, "only http and https are supported")),
        };
        let host = uri
            .host()
            .ok_or_else(|| Error::url(&url, "no host"))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let tcp = TcpStream::connect((host.as_str(), port))
            .await
            .map_err(|error| Error::http(&url, error))?;
        let _ = tcp.set_nodelay(true);
        let (mut parts, body) = request.into_parts();
        let authority = uri
            .authority()
            .map(|authority| authority.as_str().to_owned())
            .unwrap_or_default();
        if let Ok(value) = HeaderValue::from_str(&authority) {
            parts.headers.insert(HOST, value);
        }
        let origin_form = uri
            .path_and_query()
            .map_or("/", |path| path.as_str())
            .parse::<Uri>()
            .map_err(|error| Error::url(&url, error.to_string()))?;
        parts.uri = origin_form;
        let request = Request::from_parts(parts, Full::new(body));
        if https {
            let tls = self
                .tls
                .clone()
                .ok_or_else(|| Error::url(&url, "no root certificates for HTTPS"))?;
            let name =
                ServerName::try_from(host).map_err(|error| Error::url(&url, error.to_string()))?;
            let stream = tls
                .connect(name, tcp)
                .await
                .map_err(|error| Error::http(&url, error))?;
            self.send_on(TokioIo::new(stream), request, &url).await
        } else {
            self.send_on(TokioIo::new(tcp), request, &url).await
        }
    }

    async fn send_on<T>(
        &self,
        io: T,
        request: Request<Full<Bytes>>,
        url: &str,
    ) -> Result<Response<Bytes>, Error>
    where
        T: hyper::rt::Read + hyper::rt::Write + Send + Unpin + 'static,
    {
        let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|error| Error::http(url, error))?;
        // The connection task ends when the exchange is over (the sender is
        // dropped) or the peer closes.
        let driver = tokio::spawn(async move {
            let _ = connection.await;
        });
        let outcome = async {
            let response = sender
                .send_request(request)
                .await
                .map_err(|error| Error::http(url, error))?;
            let (parts, body) = response.into_parts();
            let bytes = Limited::new(body, self.body_limit)
                .collect()
                .await
                .map_err(|error| Error::http(url, error))?
                .to_bytes();
            Ok(Response::from_parts(parts, bytes))
        }
        .await;
        driver.abort();
        outcome
    }
}

impl HttpFetch for HyperFetch {
    fn fetch(&self, request: Request<Bytes>) -> BoxFuture<'_, Result<Response<Bytes>, Error>> {
        Box::pin(async move {
            let url = request.uri().to_string();
            tokio::time::timeout(self.timeout, self.exchange(request))
                .await
                .map_err(|_| Error::http(&url, "timed out"))?
        })
    }
}

pub(crate) use crate::address::is_loopback;

/// Parses `url` and checks that the client may contact it: HTTPS, or HTTP
/// to a loopback host (OAuth 2.1 §1.5; MCP's communication security rules).
pub(crate) fn checked_url(url: &str) -> Result<Url, Error> {
    let parsed = Url::parse(url).map_err(|error| Error::url(url, error.to_string()))?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        "http" => Err(Error::url(
            url,
            "plain HTTP is only allowed to loopback hosts",
        )),
        other => Err(Error::url(url, format!("scheme {other} is not allowed"))),
    }
}

/// Whether two URLs share scheme, host and port.
pub(crate) fn same_origin(a: &Url, b: &Url) -> bool {
    a.origin() == b.origin()
}

/// GETs a JSON document, following same-origin redirects only. Returns
/// `Ok(None)` on a 4xx answer (the caller tries the next location).
pub(crate) async fn get_json(
    http: &Arc<dyn HttpFetch>,
    url: &str,
) -> Result<Option<(String, serde_json::Value)>, Error> {
    let first = checked_url(url)?;
    let mut current = first.clone();
    for _ in 0..=MAX_REDIRECTS {
        let request = Request::builder()
            .method(Method::GET)
            .uri(current.as_str())
            .header(ACCEPT, "application/json")
            .body(Bytes::new())
            .map_err(|error| Error::url(current.as_str(), error.to_string()))?;
        let response = http.fetch(request).await?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|value| value.to_str().ok())
                .ok_or_else(|| Error::Status {
                    url: current.to_string(),
                    status,
                })?;
            let next = current
                .join(location)
                .map_err(|error| Error::url(location, error.to_string()))?;
            if !same_origin(&first, &next) {
                return Err(Error::url(
                    next.as_str(),
                    "metadata redirected to another origin",
                ));
            }
            current = next;
            continue;
        }
        if status.is_client_error() {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(Error::Status {
                url: current.to_string(),
                status,
            });
        }
        let value = serde_json::from_slice(response.body()).map_err(|error| Error::Invalid {
            what: "a metadata document",
            reason: error.to_string(),
        })?;
        return Ok(Some((current.to_string(), value)));
    }
    Err(Error::url(url, "too many redirects"))
}

/// POSTs `body` with `content_type` and returns the status and JSON answer
/// (`Null` when the body is not JSON). Redirects are not followed.
pub(crate) async fn post(
    http: &Arc<dyn HttpFetch>,
    url: &str,
    content_type: &'static str,
    headers: Vec<(http::HeaderName, HeaderValue)>,
    body: Vec<u8>,
) -> Result<(StatusCode, http::HeaderMap, serde_json::Value), Error> {
    let checked = checked_url(url)?;
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(checked.as_str())
        .header(CONTENT_TYPE, content_type)
        .header(ACCEPT, "application/json");
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    let request = builder
        .body(Bytes::from(body))
        .map_err(|error| Error::url(url, error.to_string()))?;
    let response = http.fetch(request).await?;
    let status = response.status();
    let value = serde_json::from_slice(response.body()).unwrap_or(serde_json::Value::Null);
    Ok((status, response.headers().clone(), value))
}
