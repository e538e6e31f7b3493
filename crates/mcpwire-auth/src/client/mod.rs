//! The OAuth client side of MCP authorization.
//!
//! [`OAuthClient`] obtains and keeps access tokens for one MCP server. A
//! transport asks it for the headers of each request
//! ([`OAuthClient::authorization_headers`]) and hands it every 401 or 403
//! answer ([`OAuthClient::handle_challenge`]), which says whether to retry,
//! and every accepted answer ([`OAuthClient::observe_response`]).
//! On a challenge it runs, as the MCP authorization spec orders:
//!
//! 1. `WWW-Authenticate` parsing ([`challenge`]);
//! 2. protected resource metadata discovery (RFC 9728), checking that its
//!    `resource` stands for the server, then authorization server metadata
//!    discovery (RFC 8414, OpenID Connect), checking `issuer` and PKCE
//!    `S256`; without resource metadata, the 2025-03-26 fallbacks
//!    ([`discovery`]);
//! 3. client identity: stored or pre-registered credentials, a Client ID
//!    Metadata Document URL, or dynamic registration (RFC 7591), kept per
//!    issuer ([`store`]);
//! 4. the authorization code grant with PKCE S256, `resource` (RFC 8707)
//!    and `iss` validation (RFC 9207) through a pluggable [`UserAgent`], or
//!    the client credentials or JWT bearer grants;
//! 5. refresh before expiry, step-up on `insufficient_scope` keeping the
//!    earlier scopes, and a limit on authorizations;
//! 6. optionally, DPoP-bound tokens (RFC 9449) with server nonces, where
//!    the authorization server offers ES256 proofs ([`jwt`]).
//!
//! The transport side of this contract lives in mcpwire-http
//! (`mcpwire_http::client::Authorizer`), which never depends on this
//! crate; with the `http-client` feature, `OAuthAuthorizer` adapts an
//! [`OAuthClient`] to it.
//!
//! Its HTTP goes through [`HttpFetch`] ([`HyperFetch`] by default): HTTPS
//! only (plain HTTP to loopback hosts aside), bounded bodies and times, and
//! metadata redirects only within one origin.

mod authorize;
pub mod challenge;
pub mod discovery;
mod error;
pub mod fetch;
#[cfg(feature = "http-client")]
mod http_authorizer;
pub mod jwt;
mod oauth_client;
pub mod store;
pub mod token;
pub mod user_agent;

pub use error::Error;
pub use fetch::{BoxFuture, HttpFetch, HyperFetch};
#[cfg(feature = "http-client")]
pub use http_authorizer::OAuthAuthorizer;
pub use jwt::{Es256AssertionSigner, Es256Key};
pub use oauth_client::OAuthClient;
pub use store::{
    ClientCredentials, FileStore, MemoryStore, StoredTokens, TokenAuthMethod, TokenStore,
};
pub use token::{ApplicationType, AssertionSigner};
pub use user_agent::{LoopbackRedirect, Opener, RedirectCapture, UserAgent};

/// How the client obtains its tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Grant {
    /// The authorization code grant with PKCE, through the [`UserAgent`]:
    /// a user authorizes the client.
    AuthorizationCode,
    /// The client credentials grant: the client acts on its own behalf
    /// (the `io.modelcontextprotocol/oauth-client-credentials` extension);
    /// needs pre-registered credentials.
    ClientCredentials,
    /// The JWT bearer grant (RFC 7523 §2.1) with an assertion from a
    /// workload identity provider (the `io.modelcontextprotocol/auth/wif`
    /// extension).
    JwtBearer {
        /// The signed JWT presented as `assertion`.
        assertion: String,
    },
    /// Enterprise-managed authorization (the
    /// `io.modelcontextprotocol/enterprise-managed-authorization`
    /// extension): the user's identity token is exchanged at the enterprise
    /// identity provider (RFC 8693) for an identity assertion JWT
    /// authorization grant (ID-JAG), which the authorization server takes
    /// in the JWT bearer grant; needs pre-registered credentials.
    IdentityAssertion {
        /// The identity provider's token endpoint.
        idp_token_endpoint: String,
        /// The user's ID token from the identity provider.
        id_token: String,
        /// The client id at the identity provider, if it needs one.
        idp_client_id: Option<String>,
    },
}

/// What the OAuth client says about itself and how it behaves.
#[derive(Clone, Debug)]
pub struct OAuthConfig {
    /// `client_name` in registrations.
    pub client_name: String,
    /// The redirect URI (loopback for native apps).
    pub redirect_uri: String,
    /// `application_type` in registrations; derived from the redirect URI
    /// when `None`.
    pub application_type: Option<ApplicationType>,
    /// The HTTPS URL of this client's metadata document, used as its
    /// `client_id` where the authorization server supports Client ID
    /// Metadata Documents.
    pub client_metadata_url: Option<String>,
    /// Credentials registered out of band, used with any authorization
    /// server that has no stored registration.
    pub preregistered: Option<ClientCredentials>,
    /// The grant.
    pub grant: Grant,
    /// Whether to ask for `offline_access` (a refresh token) when the
    /// authorization server lists it in `scopes_supported`.
    pub request_offline_access: bool,
    /// How many authorizations one [`OAuthClient`] may run in a row
    /// without a successful request in between.
    pub max_authorizations: u32,
}

impl OAuthConfig {
    /// An authorization code client named `client_name`, redirecting to
    /// `redirect_uri`, asking for refresh tokens, with at most 3
    /// consecutive authorizations.
    pub fn new(client_name: impl Into<String>, redirect_uri: impl Into<String>) -> Self {
        Self {
            client_name: client_name.into(),
            redirect_uri: redirect_uri.into(),
            application_type: None,
            client_metadata_url: None,
            preregistered: None,
            grant: Grant::AuthorizationCode,
            request_offline_access: true,
            max_authorizations: 3,
        }
    }

    /// Uses pre-registered credentials.
    #[must_use]
    pub fn preregistered(mut self, credentials: ClientCredentials) -> Self {
        self.preregistered = Some(credentials);
        self
    }

    /// Offers a Client ID Metadata Document URL as client id.
    #[must_use]
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Uses `grant` instead of the authorization code grant.
    #[must_use]
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grant = grant;
        self
    }
}
