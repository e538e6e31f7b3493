//! The embedded authorization server as a tower `Service`: routing by
//! method and path under the issuer's path, body reading bounded in size
//! and time, and the response shapes its endpoints share.

use std::convert::Infallible;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE, PRAGMA, RETRY_AFTER};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Full, Limited};
use serde_json::{Value, json};
use tower::Service;

use super::state::{AuthorizationServer, unix_now};
use super::{authorize, clients, token};
use crate::metadata::AUTHORIZATION_SERVER_WELL_KNOWN;
use crate::random::random_token;
use crate::resource::BoxFuture;

/// The largest request body read (forms and registrations are small).
const BODY_LIMIT: usize = 64 * 1024;
/// The largest registration request read.
const REGISTRATION_LIMIT: usize = 16 * 1024;
/// The longest `/authorize` query accepted.
const QUERY_LIMIT: usize = 8 * 1024;

/// Form or query parameters, each of which may appear once at most
/// (RFC 6749 §3.1, §3.2).
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    pub(crate) fn parse(text: &[u8]) -> Self {
        Self(url::form_urlencoded::parse(text).into_owned().collect())
    }

    /// The value of `name`, if given once; an error when repeated.
    pub(crate) fn single(&self, name: &str) -> Result<Option<&str>, String> {
        let mut values = self.0.iter().filter(|(key, _)| key == name);
        let first = values.next().map(|(_, value)| value.as_str());
        match values.next() {
            Some(_) => Err(format!("the parameter {name} is repeated")),
            None => Ok(first.filter(|value| !value.is_empty())),
        }
    }
}

/// A JSON response with `status`.
pub(crate) fn json_response(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON response that must not be cached (tokens, secrets; RFC 6749 §5.1).
pub(crate) fn no_store(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    let mut response = json_response(status, body);
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

/// An OAuth error response (RFC 6749 §5.2).
pub(crate) fn oauth_error(
    status: StatusCode,
    code: &str,
    description: &str,
) -> Response<Full<Bytes>> {
    no_store(
        status,
        &json!({"error": code, "error_description": description}),
    )
}

/// A plain-text answer (for errors a browser shows: no redirect is safe).
pub(crate) fn text(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(message.to_owned())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// The whole body, at most `limit` bytes, arrived within `timeout`: the
/// hosting server may have no body timeout of its own, and a client
/// trickling its body would otherwise hold the connection forever.
async fn read_body<B>(
    body: B,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, Response<Full<Bytes>>>
where
    B: Body + Send,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    match tokio::time::timeout(timeout, Limited::new(body, limit).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(_)) => Err(oauth_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request",
            "the request body is too large or unreadable",
        )),
        Err(_elapsed) => Err(oauth_error(
            StatusCode::REQUEST_TIMEOUT,
            "invalid_request",
            &format!("the request body did not arrive within {timeout:?}"),
        )),
    }
}

fn has_form_type(headers: &http::HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| {
            media
                .trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        })
}

impl AuthorizationServer {
    /// The path of the issuer (empty for an issuer at the origin's root).
    fn issuer_path(&self) -> String {
        url::Url::parse(self.issuer())
            .map(|url| url.path().trim_end_matches('/').to_owned())
            .unwrap_or_default()
    }

    fn body_read_timeout(&self) -> Duration {
        self.inner.settings.body_read_timeout
    }

    /// Answers one HTTP request.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<Full<Bytes>>
    where
        B: Body + Send,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let base = self.issuer_path();
        let path = request.uri().path().to_owned();
        let metadata_path = format!("{AUTHORIZATION_SERVER_WELL_KNOWN}{base}");
        let local = path.strip_prefix(base.as_str()).unwrap_or("");
        let method = request.method().clone();
        match (method, path.as_str(), local) {
            (Method::GET, whole, _) if whole == metadata_path => {
                let document = serde_json::to_value(self.metadata()).unwrap_or_default();
                let mut response = json_response(StatusCode::OK, &document);
                response.headers_mut().insert(
                    http::header::ACCESS_CONTROL_ALLOW_ORIGIN,
                    HeaderValue::from_static("*"),
                );
                response
            }
            (Method::GET, _, "/jwks") => {
                let keys = serde_json::to_value(self.jwks()).unwrap_or_default();
                json_response(StatusCode::OK, &keys)
            }
            (Method::GET, _, "/authorize") => {
                let query = request.uri().query().unwrap_or("").as_bytes();
                if query.len() > QUERY_LIMIT {
                    return text(
                        StatusCode::URI_TOO_LONG,
                        "the authorization request is too long",
                    );
                }
                authorize::authorize(self, &Params::parse(query)).await
            }
            (Method::POST, _, "/token") => {
                if !has_form_type(request.headers()) {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_request",
                        "the token request must be application/x-www-form-urlencoded",
                    );
                }
                let (parts, body) = request.into_parts();
                match read_body(body, BODY_LIMIT, self.body_read_timeout()).await {
                    Ok(body) => token::token(self, &parts.headers, &Params::parse(&body)).await,
                    Err(response) => response,
                }
            }
            (Method::POST, _, "/register") => {
                let timeout = self.body_read_timeout();
                match read_body(request.into_body(), REGISTRATION_LIMIT, timeout).await {
                    Ok(body) => self.register(&body),
                    Err(response) => response,
                }
            }
            _ => text(StatusCode::NOT_FOUND, "not found"),
        }
    }

    /// Dynamic client registration (RFC 7591 §3).
    fn register(&self, body: &[u8]) -> Response<Full<Bytes>> {
        let Ok(request) = serde_json::from_slice::<Value>(body) else {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                "the registration request is not JSON",
            );
        };
        if let Err(seconds) = self.tables().take_registration(Instant::now()) {
            let mut response = oauth_error(
                StatusCode::TOO_MANY_REQUESTS,
                "temporarily_unavailable",
                &format!("too many registrations; try again in {seconds} s"),
            );
            response
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(seconds));
            return response;
        }
        let ids = random_token().and_then(|id| Ok((id, random_token()?)));
        let Ok((client_id, secret)) = ids else {
            return oauth_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "no randomness available",
            );
        };
        match clients::register(&request, client_id, secret, unix_now()) {
            Ok((client, response)) => match self.add_registered_client(client) {
                Ok(()) => no_store(StatusCode::CREATED, &response),
                Err(full) => oauth_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "temporarily_unavailable",
                    &full.description(),
                ),
            },
            Err(error) => oauth_error(StatusCode::BAD_REQUEST, error.code, &error.description),
        }
    }
}

impl<B> Service<Request<B>> for AuthorizationServer
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let server = self.clone();
        Box::pin(async move { Ok(server.handle(request).await) })
    }
}
