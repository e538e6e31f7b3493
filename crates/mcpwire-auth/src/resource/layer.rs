//! The bearer layer: a tower `Layer` and `Service` over `http::Request`
//! that validates access tokens, answers the refusals and serves protected
//! resource metadata (RFC 9728).

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::header::AUTHORIZATION;
use http::{Method, Request, Response};
use http_body_util::{Either, Full};
use tower::{Layer, Service};

use super::challenge::{Refusal, json_document, refusal_response};
use super::identity::AuthContext;
use super::verify::{BoxFuture, TokenVerifier, VerifyError};
use crate::metadata::{PROTECTED_RESOURCE_WELL_KNOWN, ProtectedResourceMetadata};

/// The response body of [`BearerAuth`]: the inner service's, or the
/// layer's own (refusals, metadata).
pub type BearerBody<B> = Either<B, Full<Bytes>>;

/// The resource identifier of the metadata is not an absolute URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the resource identifier {0:?} is not an absolute URL")]
pub struct ResourceUrlError(pub String);

/// What every clone of the layer and its services share.
#[derive(Clone)]
struct Settings {
    metadata: ProtectedResourceMetadata,
    metadata_url: String,
    metadata_paths: Vec<String>,
    required_scopes: Vec<String>,
    verifier: Arc<dyn TokenVerifier>,
}

/// Protects a service with bearer tokens (MCP authorization, RFC 6750).
///
/// For every request the layer:
///
/// 1. answers `GET` on the protected resource metadata paths itself with
///    `metadata` (the path derived from `metadata.resource` as RFC 9728 §3.1
///    says, e.g. `/.well-known/oauth-protected-resource/mcp` for
///    `https://host/mcp`, and the root `/.well-known/oauth-protected-resource`);
/// 2. without an `Authorization: Bearer` token, answers 401 with
///    `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`;
/// 3. asks the [`TokenVerifier`], then checks that the token is bound to
///    `metadata.resource` (its audience, RFC 8707) and not expired; a
///    failure is 401 with `error="invalid_token"`;
/// 4. checks the required scopes; a missing one is 403 with
///    `error="insufficient_scope"` and the scopes needed;
/// 5. **removes the `Authorization` header** (the client's token is meant
///    for this resource only and must never be passed on to an upstream
///    service: MCP authorization forbids token passthrough), inserts the
///    [`AuthContext`] into the request's extensions, and calls the inner
///    service.
///
/// Put it outside whatever routes the metadata paths (around the whole
/// router), or the metadata requests never reach it.
#[derive(Clone)]
pub struct BearerAuthLayer {
    settings: Arc<Settings>,
}

impl std::fmt::Debug for BearerAuthLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BearerAuthLayer")
            .field("resource", &self.settings.metadata.resource)
            .field("metadata_url", &self.settings.metadata_url)
            .field("required_scopes", &self.settings.required_scopes)
            .finish_non_exhaustive()
    }
}

/// The well-known path of the metadata of `resource` (RFC 9728 §3.1): the
/// well-known prefix, then the resource's own path without a trailing slash.
fn metadata_path(resource: &http::Uri) -> String {
    let path = resource.path().trim_end_matches('/');
    format!("{PROTECTED_RESOURCE_WELL_KNOWN}{path}")
}

impl BearerAuthLayer {
    /// A layer protecting the resource that `metadata` describes, checking
    /// tokens with `verifier`.
    ///
    /// # Errors
    ///
    /// When `metadata.resource` is not an absolute URL.
    pub fn new(
        metadata: ProtectedResourceMetadata,
        verifier: Arc<dyn TokenVerifier>,
    ) -> Result<Self, ResourceUrlError> {
        let not_absolute = || ResourceUrlError(metadata.resource.clone());
        let resource: http::Uri = metadata.resource.parse().map_err(|_| not_absolute())?;
        let (Some(scheme), Some(authority)) = (resource.scheme_str(), resource.authority()) else {
            return Err(not_absolute());
        };
        let path = metadata_path(&resource);
        let metadata_url = format!("{scheme}://{authority}{path}");
        let mut metadata_paths = vec![path];
        if metadata_paths[0] != PROTECTED_RESOURCE_WELL_KNOWN {
            metadata_paths.push(PROTECTED_RESOURCE_WELL_KNOWN.to_owned());
        }
        Ok(Self {
            settings: Arc::new(Settings {
                required_scopes: Vec::new(),
                metadata,
                metadata_url,
                metadata_paths,
                verifier,
            }),
        })
    }

    /// Every request needs all of `scopes` (also named in the 401 challenge).
    #[must_use]
    pub fn required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let settings = Arc::make_mut(&mut self.settings);
        settings.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The absolute URL of the metadata document (the `resource_metadata`
    /// of the challenges).
    pub fn metadata_url(&self) -> &str {
        &self.settings.metadata_url
    }
}

impl<S> Layer<S> for BearerAuthLayer {
    type Service = BearerAuth<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BearerAuth {
            inner,
            settings: Arc::clone(&self.settings),
        }
    }
}

/// The service [`BearerAuthLayer`] wraps around an inner service.
#[derive(Clone)]
pub struct BearerAuth<S> {
    inner: S,
    settings: Arc<Settings>,
}

impl<S> std::fmt::Debug for BearerAuth<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BearerAuth")
            .field("resource", &self.settings.metadata.resource)
            .finish_non_exhaustive()
    }
}

/// The bearer token of an `Authorization` header, if it has one (the scheme
/// is case-insensitive, RFC 9110 §11.1).
/// The bearer token of `request`: [`Refusal::Missing`] without an
/// `Authorization` header, [`Refusal::Malformed`] when it is not a
/// well-formed bearer credential (AUTH-57: 400, not the 401 of a missing one).
fn bearer_token(request: &http::HeaderMap) -> Result<&str, Refusal> {
    let value = request.get(AUTHORIZATION).ok_or(Refusal::Missing)?;
    let value = value.to_str().map_err(|_| Refusal::Malformed)?;
    let (scheme, token) = value.trim().split_once(' ').ok_or(Refusal::Malformed)?;
    let token = token.trim();
    // RFC 6750 §2.1: one b64token, no spaces inside.
    let well_formed = scheme.eq_ignore_ascii_case("bearer")
        && !token.is_empty()
        && !token.contains(char::is_whitespace);
    well_formed.then_some(token).ok_or(Refusal::Malformed)
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

impl Settings {
    /// Checks the token of `headers`: the identity, or why it is refused.
    async fn admit(&self, headers: &http::HeaderMap) -> Result<AuthContext, Refusal> {
        let token = bearer_token(headers)?;
        let identity = self
            .verifier
            .verify(token)
            .await
            .and_then(|identity| {
                if identity.expires_at.is_some_and(|at| at <= now_seconds()) {
                    Err(VerifyError::Expired)
                } else if !identity.is_bound_to(&self.metadata.resource) {
                    Err(VerifyError::WrongAudience)
                } else {
                    Ok(identity)
                }
            })
            .map_err(|error| {
                tracing::debug!(%error, "bearer token refused");
                Refusal::InvalidToken(error.to_string())
            })?;
        if self
            .required_scopes
            .iter()
            .all(|scope| identity.has_scope(scope))
        {
            Ok(identity)
        } else {
            Err(Refusal::InsufficientScope)
        }
    }
}

impl<S, B, ResBody> Service<Request<B>> for BearerAuth<S>
where
    S: Service<Request<B>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: Send + 'static,
    ResBody: Send + 'static,
{
    type Response = Response<BearerBody<ResBody>>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let settings = Arc::clone(&self.settings);
        // The clone that was driven to readiness serves this request.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            if request.method() == Method::GET
                && settings
                    .metadata_paths
                    .iter()
                    .any(|path| path == request.uri().path())
            {
                let document = serde_json::to_value(&settings.metadata).unwrap_or_default();
                return Ok(json_document(&document).map(Either::Right));
            }
            match settings.admit(request.headers()).await {
                Ok(identity) => {
                    request.headers_mut().remove(AUTHORIZATION);
                    request.extensions_mut().insert(identity);
                    let response = inner.call(request).await?;
                    Ok(response.map(Either::Left))
                }
                Err(refusal) => {
                    let scopes = &settings.required_scopes;
                    Ok(refusal_response(&refusal, &settings.metadata_url, scopes)
                        .map(Either::Right))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-07, AUTH-10: the path-suffixed well-known URL (RFC 9728 §3.1).
    #[test]
    fn the_metadata_path_inserts_the_well_known_prefix_before_the_resource_path() {
        let path = |url: &str| metadata_path(&url.parse().unwrap());
        assert_eq!(
            path("https://h/mcp"),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            path("https://h/mcp/"),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(path("https://h"), "/.well-known/oauth-protected-resource");
    }

    // AUTH-48, AUTH-57: only `Bearer <token>` is a token; anything else is malformed.
    #[test]
    fn only_a_bearer_scheme_with_a_token_counts() {
        let headers = |value: &str| {
            let mut map = http::HeaderMap::new();
            map.insert(AUTHORIZATION, value.parse().unwrap());
            map
        };
        assert_eq!(bearer_token(&headers("Bearer abc")), Ok("abc"));
        assert_eq!(bearer_token(&headers("bearer abc")), Ok("abc"));
        // AUTH-57: a present but malformed credential is told from a missing one.
        assert_eq!(bearer_token(&headers("Basic abc")), Err(Refusal::Malformed));
        assert_eq!(bearer_token(&headers("Bearer ")), Err(Refusal::Malformed));
        assert_eq!(
            bearer_token(&headers("Bearer a b")),
            Err(Refusal::Malformed)
        );
        assert_eq!(bearer_token(&http::HeaderMap::new()), Err(Refusal::Missing));
    }
}
