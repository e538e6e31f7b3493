//! The headers of each request to the MCP server: the access token as
//! `Bearer` (AUTH-48, on every request: AUTH-49), or as `DPoP` with a proof,
//! refreshed first when about to expire.

use std::time::SystemTime;

use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderValue};

use super::dpop::DPOP;
use super::{OAuthClient, REFRESH_MARGIN};
use crate::client::error::Error;
use crate::client::jwt::dpop_proof;

impl OAuthClient {
    /// The headers to add to a request to the MCP server: `Authorization`
    /// with the current token, refreshed first when it is about to expire.
    /// Empty before any authorization.
    ///
    /// # Errors
    ///
    /// The token store failed.
    pub async fn authorization_headers(&self, method: &str, url: &str) -> Result<HeaderMap, Error> {
        let mut headers = HeaderMap::new();
        let Some(mut tokens) = self.tokens() else {
            return Ok(headers);
        };
        if tokens.expires_within(SystemTime::now(), REFRESH_MARGIN) {
            let mut state = self.flow.lock().await;
            match self.refresh(&mut state, &tokens).await {
                Ok(fresh) => tokens = fresh,
                Err(error) => {
                    tracing::debug!(%error, "OAuth: refresh before expiry failed");
                }
            }
        }
        let invalid = |error: http::header::InvalidHeaderValue| Error::Invalid {
            what: "the access token",
            reason: error.to_string(),
        };
        let bound = tokens.token_type.eq_ignore_ascii_case("dpop");
        match self.dpop.as_ref().filter(|_| bound) {
            Some(key) => {
                let nonce = self.nonces().resource.clone();
                let proof = dpop_proof(
                    key,
                    method,
                    url,
                    Some(&tokens.access_token),
                    nonce.as_deref(),
                )?;
                let value = HeaderValue::from_str(&format!("DPoP {}", tokens.access_token))
                    .map_err(invalid)?;
                headers.insert(AUTHORIZATION, value);
                headers.insert(DPOP, HeaderValue::from_str(&proof).map_err(invalid)?);
            }
            None => {
                let value = HeaderValue::from_str(&format!("Bearer {}", tokens.access_token))
                    .map_err(invalid)?;
                headers.insert(AUTHORIZATION, value);
            }
        }
        Ok(headers)
    }
}
