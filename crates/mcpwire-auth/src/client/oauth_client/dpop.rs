//! DPoP (RFC 9449) in the OAuth client: the key, whether the authorization
//! server takes ES256 proofs, and the nonces both servers hand out.

use http::HeaderMap;

use super::OAuthClient;
use crate::client::discovery::AuthorizationServer;
use crate::client::jwt::Es256Key;

impl OAuthClient {
    /// Binds tokens to `key` with DPoP (RFC 9449) at every authorization
    /// server that advertises ES256 for DPoP proofs.
    #[must_use]
    pub fn with_dpop(mut self, key: Es256Key) -> Self {
        self.dpop = Some(key);
        self
    }

    /// The DPoP key to use with `server`, if both sides do DPoP.
    pub(super) fn dpop_for(&self, server: &AuthorizationServer) -> Option<&Es256Key> {
        let advertised = server
            .metadata
            .as_ref()
            .and_then(|metadata| metadata.dpop_signing_alg_values_supported.as_ref())
            .is_some_and(|algs| algs.iter().any(|alg| alg == "ES256"));
        self.dpop.as_ref().filter(|_| advertised)
    }

    pub(super) fn nonces(&self) -> std::sync::MutexGuard<'_, Nonces> {
        self.nonces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The `DPoP` request header.
pub(super) const DPOP: http::HeaderName = http::HeaderName::from_static("dpop");

/// The last DPoP nonces received.
#[derive(Debug, Default)]
pub(super) struct Nonces {
    pub(super) authorization_server: Option<String>,
    pub(super) resource: Option<String>,
}

/// The `DPoP-Nonce` header of an answer.
pub(super) fn dpop_nonce(headers: &HeaderMap) -> Option<String> {
    headers
        .get("dpop-nonce")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}
