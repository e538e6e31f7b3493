//! The bearer layer over real HTTP on 127.0.0.1: the challenges (401 with
//! `resource_metadata` and `scope`, `invalid_token`, 403
//! `insufficient_scope`), the RFC 9728 metadata paths, RFC 8707 audience
//! binding, expiry, token non-passthrough, and JWKS refresh on rotation.
//! Tokens come from the embedded authorization server.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::support::wire::{PlainFetch, send, serve};
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use mcpwire_auth::authorization_server::{AuthorizationServer, Grant};
use mcpwire_auth::metadata::ProtectedResourceMetadata;
use mcpwire_auth::resource::{
    AuthContext, BearerAuthLayer, BoxFuture, FetchError, JwkSet, JwksUri, JwtVerifier, KeySource,
};
use tower::{Layer, Service};

const ISSUER: &str = "http://issuer.test";
const SCOPE: &str = "mcp:tools";

/// The protected service: reports whether an `Authorization` header reached
/// it and whom the identity in its extensions names.
#[derive(Clone)]
struct Echo;

impl<B> Service<Request<B>> for Echo {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let identity = request.extensions().get::<AuthContext>();
        let body = serde_json::json!({
            "authorization_header": request.headers().contains_key(http::header::AUTHORIZATION),
            "subject": identity.and_then(|identity| identity.subject.clone()),
            "scopes": identity.map(|identity| identity.scopes.clone()),
        });
        std::future::ready(Ok(Response::new(Full::new(Bytes::from(body.to_string())))))
    }
}

/// A protected Echo on 127.0.0.1, its resource URL and the issuer.
async fn protected() -> (String, AuthorizationServer) {
    let issuer = AuthorizationServer::builder(ISSUER).build().unwrap();
    // The resource URL names the port only once it is bound, so the layer
    // is built for a fixed path on a listener chosen first.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let mut metadata = ProtectedResourceMetadata::new(resource.as_str(), ISSUER);
    metadata.scopes_supported = Some(vec![SCOPE.to_owned()]);
    let verifier = JwtVerifier::new(Arc::new(issuer.clone())).issuer(ISSUER);
    let layer = BearerAuthLayer::new(metadata, Arc::new(verifier))
        .unwrap()
        .required_scopes([SCOPE]);
    let service = layer.layer(Echo);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let service = service.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request| {
                    let mut service = service.clone();
                    async move { service.call(request).await }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    (resource, issuer)
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn token(issuer: &AuthorizationServer, scopes: &[&str], resource: &str, expires_at: u64) -> String {
    let grant = Grant::new(
        "alice",
        "client-1",
        scopes.iter().map(|scope| (*scope).to_owned()).collect(),
        Some(resource.to_owned()),
    );
    issuer.mint_access_token(&grant, expires_at).unwrap()
}

async fn call(resource: &str, bearer: Option<&str>) -> crate::support::wire::Answer {
    let authorization = bearer.map(|token| format!("Bearer {token}"));
    let headers: Vec<(&str, &str)> = authorization
        .iter()
        .map(|value| ("Authorization", value.as_str()))
        .collect();
    send("POST", resource, &headers, "{}").await
}

// AUTH-07, AUTH-09, AUTH-10.
#[tokio::test]
async fn protected_resource_metadata_is_served_at_the_path_derived_from_the_resource_and_the_root()
{
    let (resource, _) = protected().await;
    let origin = resource.trim_end_matches("/mcp");
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let answer = send("GET", &format!("{origin}{path}"), &[], "").await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
        let document = answer.json();
        assert_eq!(document["resource"], resource.as_str());
        assert_eq!(
            document["authorization_servers"],
            serde_json::json!([ISSUER])
        );
        assert_eq!(document["scopes_supported"], serde_json::json!([SCOPE]));
    }
}

// AUTH-10, AUTH-12, AUTH-53.
#[tokio::test]
async fn a_request_without_a_token_gets_401_naming_the_metadata_and_the_scopes() {
    let (resource, _) = protected().await;
    let answer = call(&resource, None).await;
    assert_eq!(answer.status, 401);
    let origin = resource.trim_end_matches("/mcp");
    assert_eq!(
        answer.header("www-authenticate").unwrap(),
        format!(
            "Bearer resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\", scope=\"{SCOPE}\""
        )
    );
}

#[tokio::test]
async fn auth_57_a_malformed_or_non_bearer_authorization_gets_400_invalid_request() {
    let (resource, _) = protected().await;
    for value in ["Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer a b", "token"] {
        let answer = send("POST", &resource, &[("Authorization", value)], "{}").await;
        assert_eq!(answer.status, 400, "{value}");
        assert_eq!(answer.json()["error"], "invalid_request", "{value}");
        let challenge = answer.header("www-authenticate").unwrap();
        assert!(
            challenge.contains("error=\"invalid_request\""),
            "{challenge}"
        );
        assert!(challenge.contains("resource_metadata="), "{challenge}");
    }
}

// AUTH-51, AUTH-53.
#[tokio::test]
async fn an_expired_token_gets_401_invalid_token() {
    let (resource, issuer) = protected().await;
    let expired = token(&issuer, &[SCOPE], &resource, now() - 10);
    let answer = call(&resource, Some(&expired)).await;
    assert_eq!(answer.status, 401);
    let challenge = answer.header("www-authenticate").unwrap();
    assert!(
        challenge.starts_with("Bearer error=\"invalid_token\""),
        "{challenge}"
    );
    assert!(challenge.contains("resource_metadata=\""), "{challenge}");
    assert!(challenge.contains("expired"), "{challenge}");
}

// AUTH-52, AUTH-55.
#[tokio::test]
async fn a_token_bound_to_another_resource_gets_401_rfc_8707() {
    let (resource, issuer) = protected().await;
    let elsewhere = token(&issuer, &[SCOPE], "http://127.0.0.1:1/other", now() + 300);
    let answer = call(&resource, Some(&elsewhere)).await;
    assert_eq!(answer.status, 401);
    let challenge = answer.header("www-authenticate").unwrap();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(
        challenge.contains("not issued for this resource"),
        "{challenge}"
    );
}

// AUTH-51, AUTH-55.
#[tokio::test]
async fn a_token_from_another_issuers_keys_gets_401() {
    let (resource, _) = protected().await;
    let impostor = AuthorizationServer::builder(ISSUER).build().unwrap();
    let forged = token(&impostor, &[SCOPE], &resource, now() + 300);
    let answer = call(&resource, Some(&forged)).await;
    assert_eq!(answer.status, 401);
    assert!(
        answer
            .header("www-authenticate")
            .unwrap()
            .contains("invalid_token")
    );
}

// AUTH-38, AUTH-57.
#[tokio::test]
async fn a_token_lacking_a_required_scope_gets_403_insufficient_scope_with_the_scope() {
    let (resource, issuer) = protected().await;
    let narrow = token(&issuer, &["other"], &resource, now() + 300);
    let answer = call(&resource, Some(&narrow)).await;
    assert_eq!(answer.status, 403);
    let challenge = answer.header("www-authenticate").unwrap();
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains(&format!("scope=\"{SCOPE}\"")),
        "{challenge}"
    );
}

// AUTH-56.
#[tokio::test]
async fn the_token_is_not_passed_on_but_the_identity_is() {
    let (resource, issuer) = protected().await;
    let good = token(&issuer, &[SCOPE], &resource, now() + 300);
    let answer = call(&resource, Some(&good)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let echoed = answer.json();
    assert_eq!(echoed["authorization_header"], false);
    assert_eq!(echoed["subject"], "alice");
    assert_eq!(echoed["scopes"], serde_json::json!([SCOPE]));
}

/// A key source that counts its fetches.
struct Counting {
    inner: JwksUri,
    fetches: Arc<AtomicUsize>,
}

impl KeySource for Counting {
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, FetchError>> {
        self.fetches.fetch_add(1, Ordering::SeqCst);
        self.inner.fetch()
    }
}

// AUTH-51.
#[tokio::test]
async fn the_jwks_is_fetched_over_http_cached_and_refetched_for_an_unknown_kid() {
    let issuer = AuthorizationServer::builder(ISSUER).build().unwrap();
    let address = serve(issuer.clone()).await;
    let fetches = Arc::new(AtomicUsize::new(0));
    let source = Counting {
        inner: JwksUri::new(format!("http://{address}/jwks"), Arc::new(PlainFetch)),
        fetches: fetches.clone(),
    };
    let verifier = JwtVerifier::new(Arc::new(source))
        .issuer(ISSUER)
        .min_refetch_interval(Duration::ZERO);
    let resource = "http://127.0.0.1:1/mcp";
    let verify = |token: String| {
        let verifier = &verifier;
        async move { mcpwire_auth::resource::TokenVerifier::verify(verifier, &token).await }
    };
    let first = verify(token(&issuer, &[SCOPE], resource, now() + 300))
        .await
        .unwrap();
    assert_eq!(first.subject.as_deref(), Some("alice"));
    assert!(first.is_bound_to(resource));
    verify(token(&issuer, &[SCOPE], resource, now() + 300))
        .await
        .unwrap();
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        1,
        "the second token used the cache"
    );
    issuer.rotate_keys().unwrap();
    verify(token(&issuer, &[SCOPE], resource, now() + 300))
        .await
        .unwrap();
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        2,
        "the new kid caused one refetch"
    );
}
