//! Token verifiers: the trait the bearer layer asks, and its JWT
//! implementation over a JSON Web Key Set that is cached and refreshed.

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::fetch::{DEFAULT_FETCH_TIMEOUT, DocumentFetch, FetchError, get_within};
use super::identity::AuthContext;
use super::key_cache::KeyCache;

/// The crate's boxed future, re-exported where this module's traits use it.
pub use crate::BoxFuture;

/// Why a presented token was refused. Every variant is answered with 401
/// `invalid_token`; the message goes to `error_description`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The token is malformed, wrongly signed, from another issuer or revoked.
    #[error("{0}")]
    Invalid(String),
    /// The token has expired.
    #[error("the access token has expired")]
    Expired,
    /// The token is not bound to this resource (RFC 8707 audience).
    #[error("the access token was not issued for this resource")]
    WrongAudience,
    /// The verifier could not reach what it needs (the JWKS, the
    /// introspection endpoint); the token is refused rather than trusted.
    #[error("the access token cannot be checked now: {0}")]
    Unavailable(String),
}

/// Decides whether a bearer token is valid and whom it speaks for.
///
/// Implement it for RFC 7662 introspection or any custom check; the bearer
/// layer then checks the audience, the expiry and the scopes of the
/// returned [`AuthContext`] itself, whatever the verifier.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` (without the `Bearer ` prefix).
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthContext, VerifyError>>;
}

/// Where a [`JwtVerifier`] gets its keys.
///
/// Every verifier needing keys waits on the fetch in flight, so an
/// implementation that reaches a remote peer bounds its time (as
/// [`JwksUri`] does) and fails when it runs out.
pub trait KeySource: Send + Sync + 'static {
    /// The current key set.
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, FetchError>>;
}

/// A key set at a `jwks_uri`, fetched over HTTP.
pub struct JwksUri {
    url: String,
    fetch: Arc<dyn DocumentFetch>,
    timeout: Duration,
}

impl std::fmt::Debug for JwksUri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwksUri")
            .field("url", &self.url)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl JwksUri {
    /// The key set at `url`, fetched with `fetch`, each fetch given 10 s.
    pub fn new(url: impl Into<String>, fetch: Arc<dyn DocumentFetch>) -> Self {
        Self {
            url: url.into(),
            fetch,
            timeout: DEFAULT_FETCH_TIMEOUT,
        }
    }

    /// How long one fetch of the key set may take (default 10 s), whatever
    /// bound `fetch` has of its own. A slower fetch fails: the keys last
    /// fetched stay in use, and without any the token is refused as
    /// unverifiable, instead of every request waiting on the issuer.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl KeySource for JwksUri {
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, FetchError>> {
        Box::pin(async move {
            let body = get_within(self.fetch.as_ref(), &self.url, self.timeout).await?;
            serde_json::from_slice(&body)
                .map_err(|error| FetchError::new(format!("{} is not a JWKS: {error}", self.url)))
        })
    }
}

/// Which JWT `typ` headers a [`JwtVerifier`] accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TokenTypes {
    /// RFC 9068 access tokens (`at+jwt`, `application/at+jwt`) and plain
    /// JWTs (`JWT` or no `typ`), which many authorization servers still
    /// issue; any other `typ` (an ID token's, a DPoP proof's, a logout
    /// token's, ...) is refused. The default.
    #[default]
    AccessTokensAndPlainJwts,
    /// RFC 9068 §4 strictly: only `typ: at+jwt` (or `application/at+jwt`).
    AccessTokensOnly,
}

impl TokenTypes {
    /// Whether a token with header `typ` is accepted (compared without
    /// regard to case, as media types are; RFC 7515 §4.1.9).
    fn accepts(self, typ: Option<&str>) -> bool {
        let typ = typ.map(str::to_ascii_lowercase);
        let access_token = matches!(typ.as_deref(), Some("at+jwt" | "application/at+jwt"));
        let plain = matches!(typ.as_deref(), None | Some("jwt" | "application/jwt"));
        match self {
            Self::AccessTokensAndPlainJwts => access_token || plain,
            Self::AccessTokensOnly => access_token,
        }
    }
}

/// Verifies JWT access tokens (RFC 9068) against a cached JSON Web Key Set.
///
/// The key set is fetched on first use, refetched when older than
/// [`JwtVerifier::max_age`], and refetched at once when a token names a
/// key id (`kid`) the set lacks (the issuer rotated its keys). One fetch is
/// in flight at a time, shared by every request that waits for it, and
/// fetches start at least [`JwtVerifier::min_refetch_interval`] apart, so
/// that tokens with made-up key ids cannot make the server hammer the
/// issuer. When the issuer cannot be reached, or does not answer within the
/// [`JwksUri::timeout`], the keys last fetched stay in use (stale) until a
/// fetch succeeds.
///
/// The token's `typ` header must be one [`TokenTypes`] allows (by default
/// RFC 9068's `at+jwt` or a plain JWT).
pub struct JwtVerifier {
    keys: KeyCache,
    issuer: Option<String>,
    algorithms: Vec<Algorithm>,
    leeway: u64,
    token_types: TokenTypes,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// A verifier taking keys from `source`, accepting ES256 and RS256,
    /// `at+jwt` and plain JWTs, with no clock leeway, refetching keys every
    /// 5 minutes at most and at least 10 seconds apart.
    pub fn new(source: Arc<dyn KeySource>) -> Self {
        Self {
            keys: KeyCache::new(source),
            issuer: None,
            algorithms: vec![Algorithm::ES256, Algorithm::RS256],
            leeway: 0,
            token_types: TokenTypes::default(),
        }
    }

    /// Only tokens whose `iss` is `issuer` are accepted.
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The signature algorithms accepted (never `none`).
    #[must_use]
    pub fn algorithms(mut self, algorithms: Vec<Algorithm>) -> Self {
        self.algorithms = algorithms;
        self
    }

    /// Clock skew tolerated on `exp` and `nbf`, in seconds.
    #[must_use]
    pub fn leeway(mut self, seconds: u64) -> Self {
        self.leeway = seconds;
        self
    }

    /// How long a fetched key set is used before it is fetched again.
    #[must_use]
    pub fn max_age(mut self, max_age: Duration) -> Self {
        self.keys.max_age = max_age;
        self
    }

    /// The shortest time between the starts of two key set fetches (for
    /// unknown key ids, stale keys, or retries after a failure).
    #[must_use]
    pub fn min_refetch_interval(mut self, interval: Duration) -> Self {
        self.keys.min_refetch_interval = interval;
        self
    }

    /// Which `typ` headers are accepted (default
    /// [`TokenTypes::AccessTokensAndPlainJwts`]).
    #[must_use]
    pub fn token_types(mut self, types: TokenTypes) -> Self {
        self.token_types = types;
        self
    }

    async fn verify_jwt(&self, token: &str) -> Result<AuthContext, VerifyError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|error| VerifyError::Invalid(format!("not a JWT: {error}")))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(VerifyError::Invalid(format!(
                "the algorithm {:?} is not accepted",
                header.alg
            )));
        }
        if !self.token_types.accepts(header.typ.as_deref()) {
            return Err(VerifyError::Invalid(format!(
                "a token of type {:?} is not an access token accepted here",
                header.typ.as_deref().unwrap_or("")
            )));
        }
        let jwk = self.keys.key(header.kid.as_deref()).await?;
        let key = DecodingKey::from_jwk(&jwk)
            .map_err(|error| VerifyError::Invalid(format!("unusable signing key: {error}")))?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.leeway = self.leeway;
        // The layer checks the audience against its own resource identifier.
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp"]);
        // A token not valid yet (`nbf` ahead, beyond the leeway) is refused.
        validation.validate_nbf = true;
        if let Some(issuer) = &self.issuer {
            validation.set_issuer(&[issuer]);
        }
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation).map_err(
            |error| match error.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => VerifyError::Expired,
                jsonwebtoken::errors::ErrorKind::ImmatureSignature => {
                    VerifyError::Invalid("the token is not valid yet (nbf)".to_owned())
                }
                _ => VerifyError::Invalid(format!("the token does not verify: {error}")),
            },
        )?;
        Ok(AuthContext::from_claims(data.claims))
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthContext, VerifyError>> {
        Box::pin(self.verify_jwt(token))
    }
}

#[cfg(all(test, feature = "authorization-server"))]
mod tests {
    use std::time::{SystemTime, UNIX_EPOCH};

    use super::*;
    use crate::authorization_server::AuthorizationServer;

    const ISSUER: &str = "https://as.example";

    fn now() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs())
    }

    /// Issue 17 item 9: a token whose `nbf` lies ahead is refused, one whose
    /// `nbf` has passed is accepted.
    // AUTH-51, AUTH-53: OAuth 2.1 §5.2 validation includes `nbf`.
    #[tokio::test]
    async fn a_token_not_valid_yet_is_refused() {
        let server = AuthorizationServer::builder(ISSUER).build().unwrap();
        let verifier = JwtVerifier::new(Arc::new(server.clone())).issuer(ISSUER);
        let token = |nbf: u64| {
            let claims = serde_json::json!({
                "iss": ISSUER, "sub": "alice", "exp": now() + 600, "nbf": nbf,
            });
            server.keys().sign(&claims).unwrap()
        };
        let early = verifier.verify(&token(now() + 300)).await;
        assert!(
            matches!(&early, Err(VerifyError::Invalid(reason)) if reason.contains("nbf")),
            "{early:?}"
        );
        let ready = verifier.verify(&token(now() - 10)).await;
        assert!(ready.is_ok(), "{ready:?}");
    }
}
