//! `OAuthClient`: the state of one client's authorization with one MCP
//! server, and the dispatch to the grant that renews it. Each concern has
//! its file: the request headers (`request_headers`), 401/403 handling
//! (`challenges`), each grant (`authorization_code`, `client_credentials`,
//! `jwt_bearer`, `refresh`), the client's identity at the authorization
//! server (`identity`), the token endpoint request (`token_endpoint`) and
//! DPoP (`dpop`).

mod authorization_code;
mod challenges;
mod client_credentials;
mod dpop;
mod identity;
mod jwt_bearer;
mod refresh;
mod request_headers;
mod token_endpoint;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use http::HeaderMap;
use url::Url;

use super::discovery::Discovered;
use super::error::Error;
use super::fetch::{HttpFetch, checked_url};
use super::jwt::Es256Key;
use super::store::{StoredTokens, TokenStore};
use super::token::AssertionSigner;
use super::user_agent::UserAgent;
use super::{Grant, OAuthConfig};
use dpop::{Nonces, dpop_nonce};
use jwt_bearer::IdJagExchange;

/// How long before expiry a token is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// Obtains and keeps access tokens for one MCP server.
#[derive(Debug)]
pub struct OAuthClient {
    server: Url,
    config: OAuthConfig,
    http: Arc<dyn HttpFetch>,
    user_agent: Arc<dyn UserAgent>,
    store: Arc<dyn TokenStore>,
    signer: Option<Arc<dyn AssertionSigner>>,
    /// The DPoP key, when the client binds its tokens (RFC 9449).
    dpop: Option<Es256Key>,
    /// The last `DPoP-Nonce` of the authorization server and of the MCP
    /// server (RFC 9449 §8, §9).
    nonces: std::sync::Mutex<Nonces>,
    /// Authorizations since the MCP server last accepted a request.
    consecutive: AtomicU32,
    /// Held for the length of a flow, so that concurrent challenges run
    /// one authorization, not several.
    flow: tokio::sync::Mutex<FlowState>,
}

#[derive(Debug, Default)]
struct FlowState {
    discovered: Option<Discovered>,
    /// The scopes of the last authorization request.
    requested: Vec<String>,
}

impl OAuthClient {
    /// A client for the MCP server at `server_url`.
    ///
    /// # Errors
    ///
    /// The URL is not HTTPS (or HTTP to a loopback host).
    pub fn new(
        server_url: &str,
        config: OAuthConfig,
        http: Arc<dyn HttpFetch>,
        user_agent: Arc<dyn UserAgent>,
        store: Arc<dyn TokenStore>,
    ) -> Result<Self, Error> {
        Ok(Self {
            server: checked_url(server_url)?,
            config,
            http,
            user_agent,
            store,
            signer: Some(Arc::new(super::jwt::Es256AssertionSigner)),
            dpop: None,
            nonces: std::sync::Mutex::new(Nonces::default()),
            consecutive: AtomicU32::new(0),
            flow: tokio::sync::Mutex::new(FlowState::default()),
        })
    }

    /// Signs `private_key_jwt` client assertions with `signer`.
    #[must_use]
    pub fn with_assertion_signer(mut self, signer: Arc<dyn AssertionSigner>) -> Self {
        self.signer = Some(signer);
        self
    }

    /// Notes a successful answer of the MCP server: it resets the count of
    /// consecutive authorizations, and keeps the server's `DPoP-Nonce`,
    /// which it may rotate at any time (RFC 9449 §8.2).
    pub fn observe_response(&self, headers: &HeaderMap) {
        self.consecutive.store(0, Ordering::Relaxed);
        if let Some(nonce) = dpop_nonce(headers) {
            self.nonces().resource = Some(nonce);
        }
    }

    /// The key tokens are stored under: the MCP server URL as given.
    fn key(&self) -> &str {
        self.server.as_str()
    }

    /// The tokens currently held.
    pub fn tokens(&self) -> Option<StoredTokens> {
        self.store.tokens(self.key())
    }

    /// Runs the configured grant and stores its tokens.
    async fn obtain(
        &self,
        state: &mut FlowState,
        discovered: &Discovered,
        scopes: Vec<String>,
    ) -> Result<(), Error> {
        let consecutive = self.consecutive.load(Ordering::Relaxed);
        if consecutive >= self.config.max_authorizations {
            return Err(Error::TooManyAuthorizations(consecutive));
        }
        self.consecutive.fetch_add(1, Ordering::Relaxed);
        state.requested.clone_from(&scopes);
        let tokens = match &self.config.grant {
            Grant::AuthorizationCode => self.authorization_code(discovered, &scopes).await?,
            Grant::ClientCredentials => self.client_credentials(discovered, &scopes).await?,
            Grant::JwtBearer { assertion } => {
                self.jwt_bearer(discovered, assertion.clone(), &scopes)
                    .await?
            }
            Grant::IdentityAssertion {
                idp_token_endpoint,
                id_token,
                idp_client_id,
            } => {
                let exchange = IdJagExchange {
                    endpoint: idp_token_endpoint,
                    id_token,
                    client_id: idp_client_id.as_deref(),
                };
                self.identity_assertion(discovered, &exchange, &scopes)
                    .await?
            }
        };
        self.store.set_tokens(self.key(), Some(&tokens))
    }
}

/// Adds `scope` (when any) and `resource` to a grant's fields.
fn push_common(grant: &mut Vec<(String, String)>, scopes: &[String], resource: &str) {
    if !scopes.is_empty() {
        grant.push(("scope".to_owned(), scopes.join(" ")));
    }
    grant.push(("resource".to_owned(), resource.to_owned()));
}
