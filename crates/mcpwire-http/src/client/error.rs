//! The client's errors: failures of the transport, HTTP statuses, and the
//! error responses it makes up so that no request waits forever.

use std::fmt;
use std::time::Duration;

use http::StatusCode;
use mcpwire_jsonrpc::{ErrorCode, ErrorObject, ErrorResponse, RequestId};
use serde::{Deserialize, Serialize};

/// A boxed error from the HTTP stack (hyper, the TLS layer, the socket).
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The failure of a [`StreamableHttpClient`](super::StreamableHttpClient).
///
/// Most failures that concern one request never appear here: the request
/// gets an error *response* instead (see [`codes`]), so the caller waiting
/// for it is answered. These errors come out of `send` and `close`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The HTTP exchange failed before the server answered: the connection
    /// was refused or broke, the TLS handshake failed, ...
    #[error("the HTTP request failed")]
    Request(#[source] BoxError),
    /// The server did not answer within the configured request timeout.
    #[error("the server did not answer within {0:?}")]
    Timeout(Duration),
    /// The server refused a notification or response it was sent (or, with
    /// legacy detection on, the first request) with an HTTP error status.
    /// The transport stays usable: the error concerns this one POST.
    #[error("{0}")]
    Status(StatusError),
    /// The first POST was refused with 400, 404 or 405 and no recognised
    /// modern JSON-RPC error: the URL may be a legacy HTTP+SSE endpoint
    /// (2024-11-05; LEG-08, LEG-09). Only reported when legacy detection is
    /// on ([`ClientOptions::detect_legacy`](super::ClientOptions::detect_legacy)).
    /// The packet was not accepted; the transport stays usable.
    #[error("the server refused the first POST with {}: it may speak only the legacy HTTP+SSE transport", .0.status())]
    LegacyCandidate(StatusError),
    /// The server answered 404 to a request carrying the session id: the
    /// session is gone (HTTP-40). The session id has been dropped, and every
    /// request that was in flight on it has been answered with a
    /// [`codes::SESSION_EXPIRED`] error; the next `initialize` starts a new
    /// session.
    #[error("the server lost the session (404); start a new one with initialize")]
    SessionExpired,
    /// [`close`](mcpwire_jsonrpc::TransportSender::close) was called.
    #[error("the transport is closed")]
    Closed,
}

impl Error {
    /// The HTTP status details, for [`Error::Status`] and
    /// [`Error::LegacyCandidate`].
    pub fn status(&self) -> Option<&StatusError> {
        match self {
            Self::Status(status) | Self::LegacyCandidate(status) => Some(status),
            _ => None,
        }
    }
}

/// An HTTP error status the server answered with, with what an
/// authorization layer needs to react to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusError {
    status: StatusCode,
    www_authenticate: Option<String>,
    body: String,
}

impl StatusError {
    /// The longest body excerpt kept, in bytes.
    pub const MAX_BODY_EXCERPT: usize = 4096;

    pub(crate) fn new(status: StatusCode, www_authenticate: Option<String>, body: &[u8]) -> Self {
        let mut end = body.len().min(Self::MAX_BODY_EXCERPT);
        // Cut on a character boundary when the excerpt is valid UTF-8.
        while end > 0 && end < body.len() && (body[end] & 0xC0) == 0x80 {
            end -= 1;
        }
        Self {
            status,
            www_authenticate,
            body: String::from_utf8_lossy(&body[..end]).into_owned(),
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The `WWW-Authenticate` header, if the server sent one (it does with
    /// 401, and with 403 for insufficient scope).
    pub fn www_authenticate(&self) -> Option<&str> {
        self.www_authenticate.as_deref()
    }

    /// The start of the response body (at most [`Self::MAX_BODY_EXCERPT`]
    /// bytes, lossily decoded).
    pub fn body(&self) -> &str {
        &self.body
    }

    /// Whether the server wants (other) credentials: 401 Unauthorized.
    pub fn is_unauthorized(&self) -> bool {
        self.status == StatusCode::UNAUTHORIZED
    }

    /// Whether the server refused these credentials: 403 Forbidden (for
    /// example an insufficient scope, or a refused `Origin`).
    pub fn is_forbidden(&self) -> bool {
        self.status == StatusCode::FORBIDDEN
    }

    /// The HTTP details of an error response this transport made up for an
    /// HTTP error status ([`codes::HTTP_ERROR`]), so that a caller that
    /// only sees the error response can still tell a 401 from a 403.
    pub fn from_error_object(error: &ErrorObject) -> Option<Self> {
        if error.code != codes::HTTP_ERROR {
            return None;
        }
        let data: HttpErrorData = serde_json::from_str(error.data.as_ref()?.get()).ok()?;
        Some(Self {
            status: StatusCode::from_u16(data.http_status).ok()?,
            www_authenticate: data.www_authenticate,
            body: data.body.unwrap_or_default(),
        })
    }

    /// The `data` of the error response made up for this status.
    pub(crate) fn to_data(&self) -> HttpErrorData {
        HttpErrorData {
            http_status: self.status.as_u16(),
            www_authenticate: self.www_authenticate.clone(),
            body: (!self.body.is_empty()).then(|| self.body.clone()),
        }
    }
}

impl fmt::Display for StatusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the server answered HTTP {}", self.status)?;
        if let Some(challenge) = &self.www_authenticate {
            write!(f, " (WWW-Authenticate: {challenge})")?;
        }
        Ok(())
    }
}

impl std::error::Error for StatusError {}

/// The `data` member of a [`codes::HTTP_ERROR`] error response.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HttpErrorData {
    http_status: u16,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    www_authenticate: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    body: Option<String>,
}

/// A failure to build a client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The URL could not be parsed.
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The URL's scheme is neither `http` nor `https`.
    #[error("unsupported URL scheme {0:?}: use http or https")]
    UnsupportedScheme(String),
    /// An extra root certificate is not a valid DER certificate.
    #[error("invalid root certificate: {0}")]
    InvalidCertificate(String),
    /// No root certificate is available to verify HTTPS servers with.
    #[error("no root certificates: the system store is empty or unreadable and none were added")]
    NoRootCertificates,
    /// The TLS configuration could not be built.
    #[error("TLS configuration failed: {0}")]
    Tls(String),
}

/// The codes of the error responses the client makes up itself, for
/// requests the server cannot answer any more.
///
/// They lie outside the range JSON-RPC reserves (-32768 to -32000, which
/// MCP partly allocates), so they can never be confused with an answer from
/// a server. They never go on the wire: they only reach the caller.
pub mod codes {
    use mcpwire_jsonrpc::ErrorCode;

    /// The server answered 404 to a request carrying the session id: the
    /// session is gone, and the request with it (HTTP-40). Re-initialize.
    pub const SESSION_EXPIRED: ErrorCode = ErrorCode(-31000);
    /// The response stream broke before the answer came and could not be
    /// resumed (2026-07-28 streams cannot be; older ones were retried up to
    /// the reconnection bound). The request may or may not have run.
    pub const STREAM_LOST: ErrorCode = ErrorCode(-31001);
    /// The server answered the POST with an HTTP error status and no
    /// JSON-RPC error. `data` holds `httpStatus`, and `wwwAuthenticate` and
    /// `body` when present; [`StatusError::from_error_object`](super::StatusError::from_error_object)
    /// reads them back.
    pub const HTTP_ERROR: ErrorCode = ErrorCode(-31002);
    /// The HTTP exchange failed (connection, timeout) after the request was
    /// handed over, or the server's answer was unusable.
    pub const REQUEST_FAILED: ErrorCode = ErrorCode(-31003);
}

/// An error and its chain of causes, as one line: `a: b: c`.
pub(crate) fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// An error response for request `id`, made up by the client.
pub(crate) fn local_error(id: RequestId, code: ErrorCode, message: String) -> ErrorResponse {
    ErrorResponse::new(Some(id), ErrorObject::new(code, message))
}

/// The error response for an HTTP error status without a JSON-RPC body.
pub(crate) fn http_error(id: RequestId, status: &StatusError) -> ErrorResponse {
    let object = ErrorObject::new(codes::HTTP_ERROR, status.to_string());
    let object = match object.clone().with_data(&status.to_data()) {
        Ok(with_data) => with_data,
        Err(_) => object,
    };
    ErrorResponse::new(Some(id), object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_details_survive_the_trip_through_an_error_response() {
        let status = StatusError::new(
            StatusCode::UNAUTHORIZED,
            Some("Bearer resource_metadata=\"https://x/.well-known\"".to_owned()),
            b"nope",
        );
        let response = http_error(RequestId::from(3), &status);
        assert_eq!(response.error.code, codes::HTTP_ERROR);
        let back = StatusError::from_error_object(&response.error).unwrap();
        assert_eq!(back, status);
        assert!(back.is_unauthorized() && !back.is_forbidden());
    }

    #[test]
    fn body_excerpts_are_bounded_and_cut_between_characters() {
        let mut body = vec![b'a'; StatusError::MAX_BODY_EXCERPT - 1];
        body.extend_from_slice("é and more".as_bytes());
        let status = StatusError::new(StatusCode::BAD_REQUEST, None, &body);
        assert_eq!(status.body().len(), StatusError::MAX_BODY_EXCERPT - 1);
        assert!(!status.body().contains('\u{fffd}'));
    }

    #[test]
    fn descriptions_name_every_cause() {
        let inner = std::io::Error::other("connection refused");
        let outer = Error::Request(Box::new(inner));
        assert_eq!(
            describe(&outer),
            "the HTTP request failed: connection refused"
        );
    }

    #[test]
    fn local_codes_are_outside_the_reserved_range() {
        for code in [
            codes::SESSION_EXPIRED,
            codes::STREAM_LOST,
            codes::HTTP_ERROR,
            codes::REQUEST_FAILED,
        ] {
            assert!(!code.is_reserved(), "{code}");
        }
    }
}
