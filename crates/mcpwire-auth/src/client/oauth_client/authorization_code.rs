//! The authorization code grant with PKCE S256 (OAuth 2.1 §4.1; AUTH-64,
//! AUTH-65, AUTH-66), `state` (AUTH-70), `resource` (AUTH-43) and `iss`
//! checks, through the user agent.

use super::OAuthClient;
use crate::client::authorize::check_callback;
use crate::client::discovery::Discovered;
use crate::client::error::Error;
use crate::client::fetch::checked_url;
use crate::client::store::StoredTokens;
use crate::pkce::{CodeVerifier, S256};
use crate::random::random_token;

impl OAuthClient {
    /// The authorization code grant with PKCE S256 (OAuth 2.1 §4.1).
    pub(super) async fn authorization_code(
        &self,
        discovered: &Discovered,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        let server = &discovered.server;
        if let Some(metadata) = &server.metadata
            && !metadata.supports_s256()
        {
            return Err(Error::NoS256(server.issuer.clone()));
        }
        let endpoint =
            server
                .authorization_endpoint
                .as_deref()
                .ok_or_else(|| Error::MissingEndpoint {
                    issuer: server.issuer.clone(),
                    endpoint: "authorization_endpoint",
                })?;
        let credentials = self.identity(server, scopes).await?;
        let verifier =
            CodeVerifier::generate().map_err(|error| Error::Signing(error.to_string()))?;
        let state_value = random_token()?;
        let mut url = checked_url(endpoint)?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &credentials.client_id)
                .append_pair("redirect_uri", &self.config.redirect_uri)
                .append_pair("state", &state_value)
                .append_pair("code_challenge", &verifier.s256_challenge())
                .append_pair("code_challenge_method", S256);
            if !scopes.is_empty() {
                query.append_pair("scope", &scopes.join(" "));
            }
            query.append_pair("resource", &discovered.resource);
        }
        let callback = self
            .user_agent
            .authorize(url.as_str(), &self.config.redirect_uri)
            .await?;
        let code = check_callback(&callback, &state_value, server)?;
        let mut grant = vec![
            ("grant_type".to_owned(), "authorization_code".to_owned()),
            ("code".to_owned(), code),
            ("redirect_uri".to_owned(), self.config.redirect_uri.clone()),
            ("code_verifier".to_owned(), verifier.as_str().to_owned()),
        ];
        grant.push(("resource".to_owned(), discovered.resource.clone()));
        self.token(server, Some(&credentials), grant, scopes).await
    }
}
