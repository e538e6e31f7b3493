//! The legacy client's errors.

use std::time::Duration;

use http::StatusCode;
use mcpwire_http::client::BuildError;

/// A boxed error from the HTTP stack (hyper, the socket).
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The failure of a [`LegacySseClient`](super::LegacySseClient).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The URL is unusable (not absolute, not `http` or `https`, no
    /// host), or HTTPS cannot be set up (an added root certificate is
    /// invalid, no root certificate is available, the TLS configuration
    /// failed): the same checks as the Streamable HTTP client's.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The HTTP exchange failed: the connection was refused or broke.
    #[error("the HTTP request failed")]
    Request(#[source] BoxError),
    /// The server did not answer (or send the `endpoint` event) in time.
    #[error("the server did not answer within {0:?}")]
    Timeout(Duration),
    /// The server answered with an HTTP error status.
    #[error("the server answered HTTP {status}")]
    Status {
        /// The status.
        status: StatusCode,
        /// The `WWW-Authenticate` header, if any (401, 403).
        www_authenticate: Option<String>,
    },
    /// The GET was answered, but not with an SSE stream.
    #[error("the server answered the GET with {0:?}, not text/event-stream")]
    NotEventStream(String),
    /// The SSE stream did not start with an `endpoint` event (LEG-04).
    #[error("no endpoint event: {0}")]
    NoEndpoint(String),
    /// The `endpoint` event names a URI on another origin than the SSE
    /// URL's. Following it would send the session's messages to a third
    /// party, so the client refuses.
    #[error("the endpoint {0:?} is on another origin than the SSE stream")]
    CrossOriginEndpoint(String),
    /// The `endpoint` event's data is not a usable URI.
    #[error("the endpoint {uri:?} is not a usable URI: {reason}")]
    InvalidEndpoint {
        /// The event's data.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The SSE stream, which carries every answer, stayed without a byte
    /// (not even a keep-alive comment) for the idle timeout
    /// ([`LegacyClientOptions::stream_idle_timeout`](super::LegacyClientOptions::stream_idle_timeout)):
    /// the connection is taken as lost and dropped, and the session ends,
    /// as when the stream breaks. The legacy protocol has no resumption, so
    /// going on needs a new session.
    #[error("the SSE stream was silent for {0:?}: the connection is taken as lost")]
    StreamIdle(Duration),
    /// The transport was closed.
    #[error("the transport is closed")]
    Closed,
}
