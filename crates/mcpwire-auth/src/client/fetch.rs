//! The OAuth client's own HTTP: a small pluggable [`HttpFetch`] trait, a
//! default implementation on mcpwire-http's HTTPS client stack (the one
//! the MCP transports use), and the guarded requests discovery and token
//! calls make through it.
//!
//! The guards: only HTTPS URLs, or plain HTTP to a loopback host; bodies
//! bounded in size; every exchange bounded in time; redirects followed only
//! within the same origin, a few times at most.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use http::{HeaderValue, Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Limited};
use mcpwire_http::client::{ClientOptions, HttpClient};
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

/// The default [`HttpFetch`]: mcpwire-http's pooled HTTP/1.1 client
/// ([`HttpClient`]) over tokio, HTTPS through rustls with the system's root
/// certificates; the same stack as the MCP transports.
#[derive(Clone)]
pub struct HyperFetch {
    /// The client (for `http` and, when TLS could be set up, `https`).
    client: Option<HttpClient>,
    /// Why HTTPS is unavailable (no root certificates, a bad one).
    no_https: Option<String>,
    timeout: Duration,
    body_limit: usize,
}

impl fmt::Debug for HyperFetch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HyperFetch")
            .field("https", &self.no_https.is_none())
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
    /// DER-encoded `extra_roots`. When TLS cannot be set up (no roots, an
    /// invalid extra one), plain HTTP still works and every HTTPS request
    /// fails saying why.
    pub fn with_roots(native_roots: bool, extra_roots: &[Vec<u8>]) -> Self {
        let mut options = ClientOptions::new()
            .native_roots(native_roots)
            .connect_timeout(DEFAULT_TIMEOUT);
        for der in extra_roots {
            options = options.add_root_certificate(der.clone());
        }
        // A client built for an https origin reaches http ones too.
        let https = HttpClient::for_endpoint(&Uri::from_static("https://localhost/"), &options);
        let (client, no_https) = match https {
            Ok(client) => (Some(client), None),
            Err(error) => {
                tracing::warn!(%error, "OAuth client: HTTPS is unavailable");
                let plain =
                    HttpClient::for_endpoint(&Uri::from_static("http://localhost/"), &options);
                (plain.ok(), Some(error.to_string()))
            }
        };
        Self {
            client,
            no_https,
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
        match request.uri().scheme_str() {
            Some("https") => {
                if let Some(reason) = &self.no_https {
                    return Err(Error::url(&url, format!("HTTPS is unavailable: {reason}")));
                }
            }
            Some("http") => {}
            _ => return Err(Error::url(&url, "only http and https are supported")),
        }
        let client = self
            .client
            .as_ref()
            .ok_or_else(|| Error::url(&url, "no HTTP client could be set up"))?;
        let response = client
            .request(request)
            .await
            .map_err(|error| Error::http(&url, error))?;
        let (parts, body) = response.into_parts();
        let bytes = Limited::new(body, self.body_limit)
            .collect()
            .await
            .map_err(|error| Error::http(&url, error))?
            .to_bytes();
        Ok(Response::from_parts(parts, bytes))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Without root certificates an HTTPS fetch fails saying why, before
    /// any connection (the port is never contacted).
    // AUTH-62: the client talks HTTPS to authorization servers, or not at all.
    #[tokio::test]
    async fn without_roots_https_fails_saying_why() {
        let fetch = HyperFetch::with_roots(false, &[]);
        let request = Request::builder()
            .uri("https://127.0.0.1:9/x")
            .body(Bytes::new())
            .unwrap();
        let error = fetch.fetch(request).await.unwrap_err();
        assert!(
            error.to_string().contains("HTTPS is unavailable"),
            "{error}"
        );
    }
}
