//! Why an OAuth flow failed, by cause.

use http::StatusCode;

/// Why the OAuth client could not obtain or use a token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An HTTP exchange failed (connection, TLS, timeout, oversize body).
    #[error("HTTP request to {url} failed: {reason}")]
    Http {
        /// The URL requested.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// A URL is unusable: not absolute, not HTTPS (and not loopback), or
    /// otherwise refused before any request was made.
    #[error("refused URL {url}: {reason}")]
    Url {
        /// The URL.
        url: String,
        /// Why it is refused.
        reason: String,
    },
    /// A server answered with an unexpected status.
    #[error("{url} answered {status}")]
    Status {
        /// The URL requested.
        url: String,
        /// The status.
        status: StatusCode,
    },
    /// A document could not be parsed.
    #[error("{what} is not valid: {reason}")]
    Invalid {
        /// Which document.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// No protected resource metadata and no authorization server could be
    /// found for the resource.
    #[error("no authorization server found for {0}")]
    NoAuthorizationServer(String),
    /// The protected resource metadata names a different resource than the
    /// server being accessed (RFC 9728 §3.3).
    #[error("the protected resource metadata names {published}, not {server}")]
    ResourceMismatch {
        /// The resource the metadata names.
        published: String,
        /// The server the client is talking to.
        server: String,
    },
    /// The authorization server metadata names another issuer than the one
    /// it was fetched for (RFC 8414 §3.3).
    #[error("authorization server metadata claims issuer {claimed}, expected {expected}")]
    IssuerMismatch {
        /// The issuer the client looked up.
        expected: String,
        /// The issuer the document claims.
        claimed: String,
    },
    /// The authorization server does not advertise PKCE with S256, which
    /// MCP clients must refuse.
    #[error("authorization server {0} does not advertise PKCE S256")]
    NoS256(String),
    /// The authorization server lacks an endpoint the flow needs.
    #[error("authorization server {issuer} has no {endpoint}")]
    MissingEndpoint {
        /// The issuer.
        issuer: String,
        /// Which endpoint.
        endpoint: &'static str,
    },
    /// No way to identify the client to this authorization server: no
    /// pre-registered credentials, no Client ID Metadata Document support
    /// and no registration endpoint.
    #[error("no client identity for authorization server {0}")]
    NoClientIdentity(String),
    /// The authorization response is unusable: an error, a wrong `state`,
    /// or an `iss` that is missing or different (RFC 9207).
    #[error("authorization response refused: {0}")]
    AuthorizationResponse(String),
    /// The authorization server refused a request with an OAuth error.
    #[error("{endpoint} refused: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    OAuth {
        /// Which endpoint.
        endpoint: &'static str,
        /// The OAuth `error` code.
        error: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// The user agent hook could not complete the authorization.
    #[error("the user agent failed: {0}")]
    UserAgent(String),
    /// Too many authorizations were attempted for this client.
    #[error("gave up after {0} authorizations")]
    TooManyAuthorizations(u32),
    /// Signing a JWT (client assertion or DPoP proof) failed.
    #[error("signing failed: {0}")]
    Signing(String),
    /// The token store failed.
    #[error("token store: {0}")]
    Store(String),
}

impl Error {
    pub(crate) fn http(url: &str, reason: impl std::fmt::Display) -> Self {
        Self::Http {
            url: url.to_owned(),
            reason: reason.to_string(),
        }
    }

    pub(crate) fn url(url: &str, reason: impl Into<String>) -> Self {
        Self::Url {
            url: url.to_owned(),
            reason: reason.into(),
        }
    }
}

impl From<crate::random::NoRandomness> for Error {
    fn from(error: crate::random::NoRandomness) -> Self {
        // As before the one random source: a failed draw is reported with
        // the signing failures (state values and `jti`s are what it makes).
        Self::Signing(format!("no randomness available: {}", error.0))
    }
}
