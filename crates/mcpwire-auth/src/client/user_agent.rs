//! How the user is sent to the authorization endpoint and how the answer
//! comes back: the pluggable [`UserAgent`] hook, a loopback redirect
//! listener for native apps ([`LoopbackRedirect`], RFC 8252 §7.3), and
//! [`RedirectCapture`] for authorization servers that answer without user
//! interaction (tests, the conformance runner's mock).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::LOCATION;
use http::{Method, Request};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use super::error::Error;
use super::fetch::{BoxFuture, HttpFetch, checked_url};

/// Sends the user to an authorization URL and returns the URL the
/// authorization server redirected the user agent to (the redirect URI with
/// `code`, `state` and `iss`, or an `error`).
pub trait UserAgent: Send + Sync + fmt::Debug {
    /// Visits `authorization_url`; `redirect_uri` is where the answer lands.
    fn authorize<'a>(
        &'a self,
        authorization_url: &'a str,
        redirect_uri: &'a str,
    ) -> BoxFuture<'a, Result<String, Error>>;
}

/// A [`UserAgent`] that GETs the authorization URL itself, does not follow
/// the redirect, and reads the answer from `Location`. Only an
/// authorization server that grants without asking anyone behaves that
/// way: test and development servers.
#[derive(Debug, Clone)]
pub struct RedirectCapture {
    http: Arc<dyn HttpFetch>,
}

impl RedirectCapture {
    /// Visits through `http`.
    pub fn new(http: Arc<dyn HttpFetch>) -> Self {
        Self { http }
    }
}

impl UserAgent for RedirectCapture {
    fn authorize<'a>(
        &'a self,
        authorization_url: &'a str,
        _redirect_uri: &'a str,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            let url = checked_url(authorization_url)?;
            let request = Request::builder()
                .method(Method::GET)
                .uri(url.as_str())
                .body(Bytes::new())
                .map_err(|error| Error::url(authorization_url, error.to_string()))?;
            let response = self.http.fetch(request).await?;
            if !response.status().is_redirection() {
                return Err(Error::UserAgent(format!(
                    "the authorization endpoint answered {} instead of redirecting",
                    response.status()
                )));
            }
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|value| value.to_str().ok())
                .ok_or_else(|| Error::UserAgent("the redirect has no Location".to_owned()))?;
            url.join(location)
                .map(String::from)
                .map_err(|error| Error::UserAgent(format!("bad Location: {error}")))
        })
    }
}

/// Opens a URL for the user (typically in their browser).
pub type Opener = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// A [`UserAgent`] for native apps: a listener on a loopback port receives
/// the redirect (RFC 8252 §7.3), and an [`Opener`] shows the authorization
/// URL to the user.
pub struct LoopbackRedirect {
    listener: TcpListener,
    redirect_uri: String,
    path: String,
    opener: Opener,
    timeout: Duration,
}

impl fmt::Debug for LoopbackRedirect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackRedirect")
            .field("redirect_uri", &self.redirect_uri)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// The most connections the listener reads before giving up (browsers
/// also ask for favicons).
const MAX_CONNECTIONS: usize = 32;
/// The largest request head read from the browser.
const MAX_HEAD: usize = 16 * 1024;

impl LoopbackRedirect {
    /// Listens on `127.0.0.1:port` (0 picks a free port) for the redirect
    /// to `path` (e.g. `/callback`); `opener` shows the URL to the user.
    /// The answer is awaited for 5 minutes by default.
    ///
    /// # Errors
    ///
    /// The port cannot be bound.
    pub async fn bind(port: u16, path: &str, opener: Opener) -> Result<Self, Error> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|error| Error::UserAgent(format!("cannot listen on loopback: {error}")))?;
        let local = listener
            .local_addr()
            .map_err(|error| Error::UserAgent(error.to_string()))?;
        let path = if path.starts_with('/') {
            path.to_owned()
        } else {
            format!("/{path}")
        };
        Ok(Self {
            redirect_uri: format!("http://127.0.0.1:{}{path}", local.port()),
            listener,
            path,
            opener,
            timeout: Duration::from_secs(300),
        })
    }

    /// Changes how long the user has to answer.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The redirect URI to register and send.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    async fn receive(&self) -> Result<String, Error> {
        for _ in 0..MAX_CONNECTIONS {
            let (mut stream, _) = self
                .listener
                .accept()
                .await
                .map_err(|error| Error::UserAgent(error.to_string()))?;
            let mut head = Vec::new();
            let mut buffer = [0u8; 2048];
            while head.len() < MAX_HEAD && !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => head.extend_from_slice(&buffer[..read]),
                }
            }
            let text = String::from_utf8_lossy(&head);
            let target = text
                .lines()
                .next()
                .and_then(|line| line.strip_prefix("GET "))
                .and_then(|rest| rest.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            let on_path = target.split('?').next() == Some(self.path.as_str());
            let (status, body) = if on_path {
                (
                    "200 OK",
                    "Authorization received; you may close this window.",
                )
            } else {
                ("404 Not Found", "Not found.")
            };
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            let _ = stream.shutdown().await;
            if on_path {
                let origin = self
                    .redirect_uri
                    .strip_suffix(self.path.as_str())
                    .unwrap_or(&self.redirect_uri);
                return Ok(format!("{origin}{target}"));
            }
        }
        Err(Error::UserAgent(
            "no redirect arrived at the loopback listener".to_owned(),
        ))
    }
}

impl UserAgent for LoopbackRedirect {
    fn authorize<'a>(
        &'a self,
        authorization_url: &'a str,
        _redirect_uri: &'a str,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            (self.opener)(authorization_url).map_err(Error::UserAgent)?;
            tokio::time::timeout(self.timeout, self.receive())
                .await
                .map_err(|_| Error::UserAgent("the user did not answer in time".to_owned()))?
        })
    }
}
