//! One token request at the authorization server's token endpoint, with a
//! DPoP proof where both sides do DPoP and one retry on `use_dpop_nonce`.

use http::HeaderValue;

use super::OAuthClient;
use super::dpop::DPOP;
use crate::client::discovery::AuthorizationServer;
use crate::client::error::Error;
use crate::client::jwt::dpop_proof;
use crate::client::store::{ClientCredentials, StoredTokens};
use crate::client::token::{TokenRequest, request_token};

impl OAuthClient {
    pub(super) async fn token(
        &self,
        server: &AuthorizationServer,
        credentials: Option<&ClientCredentials>,
        grant: Vec<(String, String)>,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        let dpop = self.dpop_for(server);
        // At most one retry, after a `use_dpop_nonce` answer (RFC 9449 §8).
        let mut retried = false;
        loop {
            let mut headers = Vec::new();
            if let Some(key) = dpop {
                let nonce = self.nonces().authorization_server.clone();
                let proof =
                    dpop_proof(key, "POST", &server.token_endpoint, None, nonce.as_deref())?;
                let value = HeaderValue::from_str(&proof)
                    .map_err(|error| Error::Signing(error.to_string()))?;
                headers.push((DPOP, value));
            }
            let request = TokenRequest {
                server,
                credentials,
                grant: grant.clone(),
                headers,
                requested_scopes: scopes.to_vec(),
            };
            match request_token(&self.http, request, self.signer.as_deref()).await {
                Ok(tokens) => return Ok(tokens),
                Err((Error::OAuth { error, .. }, Some(nonce)))
                    if error == "use_dpop_nonce" && dpop.is_some() && !retried =>
                {
                    retried = true;
                    self.nonces().authorization_server = Some(nonce);
                }
                Err((error, _)) => return Err(error),
            }
        }
    }
}
