//! [`OAuthAuthorizer`]: an [`OAuthClient`] as the Streamable HTTP client's
//! [`Authorizer`], so an application plugs OAuth into `mcpwire-http`
//! without writing the adapter itself (feature `http-client`).

use http::{HeaderMap, Method, StatusCode, Uri};
use mcpwire_http::client::{AuthFuture, Authorizer, Retry};

use super::OAuthClient;

/// An [`OAuthClient`] as the transport's [`Authorizer`]: it supplies the
/// `Authorization` (and DPoP) headers of every request, runs the OAuth
/// flow on a 401 or 403 and asks for a retry when new tokens are in place,
/// and passes accepted answers on (for DPoP nonces and retry counters).
///
/// # Example
///
/// ```no_run
/// use std::sync::Arc;
///
/// use mcpwire_auth::client::{
///     HttpFetch, HyperFetch, LoopbackRedirect, MemoryStore, OAuthAuthorizer, OAuthClient,
///     OAuthConfig, Opener,
/// };
/// use mcpwire_http::client::ClientOptions;
///
/// # async fn example() -> Result<(), mcpwire_auth::client::Error> {
/// // Show the authorization URL; a real app would open the browser.
/// let opener: Opener = Arc::new(|url: &str| {
///     eprintln!("Open {url} to authorize");
///     Ok(())
/// });
/// let user_agent = LoopbackRedirect::bind(0, "/callback", opener).await?;
/// let config = OAuthConfig::new("my-app", user_agent.redirect_uri());
/// let http: Arc<dyn HttpFetch> = Arc::new(HyperFetch::new());
/// let client = OAuthClient::new(
///     "https://mcp.example.com/mcp",
///     config,
///     http,
///     Arc::new(user_agent),
///     Arc::new(MemoryStore::new()),
/// )?;
/// let options = ClientOptions::default().authorizer(Arc::new(OAuthAuthorizer::new(client)));
/// # let _ = options;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct OAuthAuthorizer(OAuthClient);

impl OAuthAuthorizer {
    /// Wraps `client`.
    #[must_use]
    pub fn new(client: OAuthClient) -> Self {
        Self(client)
    }

    /// The OAuth client inside.
    #[must_use]
    pub fn client(&self) -> &OAuthClient {
        &self.0
    }

    /// Unwraps the OAuth client.
    #[must_use]
    pub fn into_inner(self) -> OAuthClient {
        self.0
    }
}

impl From<OAuthClient> for OAuthAuthorizer {
    fn from(client: OAuthClient) -> Self {
        Self(client)
    }
}

impl Authorizer for OAuthAuthorizer {
    fn headers<'a>(
        &'a self,
        method: &'a Method,
        uri: &'a Uri,
    ) -> AuthFuture<'a, Result<HeaderMap, String>> {
        Box::pin(async move {
            self.0
                .authorization_headers(method.as_str(), &uri.to_string())
                .await
                .map_err(|error| error.to_string())
        })
    }

    fn challenged<'a>(
        &'a self,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> AuthFuture<'a, Result<Retry, String>> {
        Box::pin(async move {
            match self.0.handle_challenge(status, headers).await {
                Ok(true) => Ok(Retry::Retry),
                Ok(false) => Ok(Retry::GiveUp),
                Err(error) => {
                    tracing::warn!(%error, "OAuth flow failed");
                    Err(error.to_string())
                }
            }
        })
    }

    fn accepted(&self, headers: &HeaderMap) {
        self.0.observe_response(headers);
    }
}
