//! Token verifiers: the trait the bearer layer asks, and its JWT
//! implementation over a JSON Web Key Set that is cached and refreshed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::fetch::{DocumentFetch, FetchError};
use super::identity::AuthContext;

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
pub trait KeySource: Send + Sync + 'static {
    /// The current key set.
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, FetchError>>;
}

/// A key set at a `jwks_uri`, fetched over HTTP.
pub struct JwksUri {
    url: String,
    fetch: Arc<dyn DocumentFetch>,
}

impl std::fmt::Debug for JwksUri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwksUri")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl JwksUri {
    /// The key set at `url`, fetched with `fetch`.
    pub fn new(url: impl Into<String>, fetch: Arc<dyn DocumentFetch>) -> Self {
        Self {
            url: url.into(),
            fetch,
        }
    }
}

impl KeySource for JwksUri {
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, FetchError>> {
        Box::pin(async move {
            let body = self.fetch.get(&self.url).await?;
            serde_json::from_slice(&body)
                .map_err(|error| FetchError::new(format!("{} is not a JWKS: {error}", self.url)))
        })
    }
}

/// The keys held, and when they were fetched.
struct Cached {
    keys: Option<JwkSet>,
    fetched_at: Option<Instant>,
}

/// Verifies JWT access tokens (RFC 9068) against a cached JSON Web Key Set.
///
/// The key set is fetched on first use, refetched when older than
/// [`JwtVerifier::max_age`], and refetched at once when a token names a
/// key id (`kid`) the set lacks (the issuer rotated its keys), but not more
/// often than [`JwtVerifier::min_refetch_interval`], so that tokens with
/// made-up key ids cannot make the server hammer the issuer.
pub struct JwtVerifier {
    source: Arc<dyn KeySource>,
    issuer: Option<String>,
    algorithms: Vec<Algorithm>,
    leeway: u64,
    max_age: Duration,
    min_refetch_interval: Duration,
    cache: Mutex<Cached>,
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
    /// with no clock leeway, refetching keys every 5 minutes at most and
    /// at least 10 seconds apart.
    pub fn new(source: Arc<dyn KeySource>) -> Self {
        Self {
            source,
            issuer: None,
            algorithms: vec![Algorithm::ES256, Algorithm::RS256],
            leeway: 0,
            max_age: Duration::from_secs(300),
            min_refetch_interval: Duration::from_secs(10),
            cache: Mutex::new(Cached {
                keys: None,
                fetched_at: None,
            }),
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
        self.max_age = max_age;
        self
    }

    /// The shortest time between two fetches triggered by unknown key ids.
    #[must_use]
    pub fn min_refetch_interval(mut self, interval: Duration) -> Self {
        self.min_refetch_interval = interval;
        self
    }

    /// The cached key with id `kid` (or the only key, for a token without
    /// one), and whether the cache is due for a refetch.
    fn cached_key(&self, kid: Option<&str>) -> (Option<jsonwebtoken::jwk::Jwk>, bool, bool) {
        let Ok(cache) = self.cache.lock() else {
            return (None, true, true);
        };
        let age = cache.fetched_at.map(|at| at.elapsed());
        let stale = age.is_none_or(|age| age >= self.max_age);
        let may_refetch = age.is_none_or(|age| age >= self.min_refetch_interval);
        let key = cache.keys.as_ref().and_then(|set| match kid {
            Some(kid) => set.find(kid).cloned(),
            None if set.keys.len() == 1 => set.keys.first().cloned(),
            None => None,
        });
        (key, stale, may_refetch)
    }

    async fn refetch(&self) -> Result<(), VerifyError> {
        let keys = self
            .source
            .fetch()
            .await
            .map_err(|error| VerifyError::Unavailable(error.to_string()))?;
        if let Ok(mut cache) = self.cache.lock() {
            cache.keys = Some(keys);
            cache.fetched_at = Some(Instant::now());
        }
        Ok(())
    }

    async fn key_for(&self, kid: Option<&str>) -> Result<jsonwebtoken::jwk::Jwk, VerifyError> {
        let (key, stale, may_refetch) = self.cached_key(kid);
        if let Some(key) = key.as_ref().filter(|_| !stale) {
            return Ok(key.clone());
        }
        if stale || may_refetch {
            self.refetch().await?;
        }
        self.cached_key(kid)
            .0
            .ok_or_else(|| VerifyError::Invalid("the token's signing key is unknown".to_owned()))
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
        let jwk = self.key_for(header.kid.as_deref()).await?;
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
