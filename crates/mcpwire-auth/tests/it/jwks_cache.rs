//! The bearer layer's key handling (issue 17 item 9, AUTH-51, AUTH-53):
//! one JWKS fetch in flight shared by concurrent requests naming an
//! unknown key, at most one fetch per minimum interval, stale keys kept
//! in use while the JWKS host is down, and RFC 9068 `typ` checks.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpwire_auth::authorization_server::{AuthorizationServer, Grant};
use mcpwire_auth::metadata::ProtectedResourceMetadata;
use mcpwire_auth::resource::{
    BearerAuthLayer, BoxFuture, FetchError, JwkSet, JwksUri, JwtVerifier, KeySource, TokenTypes,
    TokenVerifier,
};
use tokio::net::TcpListener;
use tower::{Layer, Service};

use crate::support::wire::{PlainFetch, send, serve};

const ISSUER: &str = "http://issuer.test";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn token(issuer: &AuthorizationServer) -> String {
    let grant = Grant::new("alice", "client-1", vec![], None);
    issuer.mint_access_token(&grant, now() + 300).unwrap()
}

/// Serves the issuer's JWKS, each answer 150 ms late (so that concurrent
/// requests overlap one fetch), counting the GETs.
#[derive(Clone)]
struct SlowJwks {
    issuer: AuthorizationServer,
    gets: Arc<AtomicUsize>,
}

impl<B: Send + 'static> Service<Request<B>> for SlowJwks {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _request: Request<B>) -> Self::Future {
        self.gets.fetch_add(1, Ordering::SeqCst);
        let keys = serde_json::to_string(&self.issuer.jwks()).unwrap();
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(150)).await;
            Ok(Response::new(Full::new(Bytes::from(keys))))
        })
    }
}

/// Serves `service` on 127.0.0.1 until `down` is set (then the listener
/// closes and connections are refused); returns the JWKS URL.
async fn serve_until(service: SlowJwks, down: Arc<AtomicBool>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            if down.load(Ordering::SeqCst) {
                // Dropping the listener refuses every later connection.
                return;
            }
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
    format!("http://{address}/jwks")
}

/// Runs `n` verifications of `token` at once; returns how many passed.
async fn verify_many(verifier: &Arc<JwtVerifier>, token: &str, n: usize) -> usize {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let verifier = Arc::clone(verifier);
            let token = token.to_owned();
            tokio::spawn(async move { verifier.verify(&token).await.is_ok() })
        })
        .collect();
    let mut passed = 0;
    for task in tasks {
        passed += usize::from(task.await.unwrap());
    }
    passed
}

/// AUTH-51: 50 concurrent requests with a token signed by a key the cache
/// lacks (the issuer rotated) cause one JWKS fetch, shared by all.
#[tokio::test]
async fn auth_51_concurrent_unknown_kids_share_one_jwks_fetch() {
    let issuer = AuthorizationServer::builder(ISSUER).build().unwrap();
    let gets = Arc::new(AtomicUsize::new(0));
    let jwks = SlowJwks {
        issuer: issuer.clone(),
        gets: Arc::clone(&gets),
    };
    let url = serve_until(jwks, Arc::default()).await;
    let verifier = Arc::new(
        JwtVerifier::new(Arc::new(JwksUri::new(url, Arc::new(PlainFetch))))
            .issuer(ISSUER)
            .min_refetch_interval(Duration::ZERO),
    );
    assert_eq!(verify_many(&verifier, &token(&issuer), 50).await, 50);
    assert_eq!(gets.load(Ordering::SeqCst), 1, "the first fetch was shared");
    issuer.rotate_keys().unwrap();
    assert_eq!(verify_many(&verifier, &token(&issuer), 50).await, 50);
    assert_eq!(
        gets.load(Ordering::SeqCst),
        2,
        "the rotation's fetch was shared"
    );
}

/// AUTH-53: tokens naming made-up key ids are refused (401 by the layer)
/// without a JWKS fetch each: at most one per minimum interval.
#[tokio::test]
async fn auth_53_made_up_kids_refetch_at_most_once_per_interval() {
    let issuer = AuthorizationServer::builder(ISSUER).build().unwrap();
    let stranger = AuthorizationServer::builder(ISSUER).build().unwrap();
    let gets = Arc::new(AtomicUsize::new(0));
    let jwks = SlowJwks {
        issuer: issuer.clone(),
        gets: Arc::clone(&gets),
    };
    let url = serve_until(jwks, Arc::default()).await;
    let verifier = Arc::new(
        JwtVerifier::new(Arc::new(JwksUri::new(url, Arc::new(PlainFetch))))
            .issuer(ISSUER)
            .min_refetch_interval(Duration::from_secs(60)),
    );
    assert_eq!(verify_many(&verifier, &token(&issuer), 1).await, 1);
    for _ in 0..3 {
        assert_eq!(verify_many(&verifier, &token(&stranger), 20).await, 0);
    }
    assert_eq!(
        gets.load(Ordering::SeqCst),
        1,
        "no fetch within the interval"
    );
}

/// Counts fetch attempts of an inner source (successful or not).
struct Attempts {
    inner: JwksUri,
    attempts: Arc<AtomicUsize>,
}

impl KeySource for Attempts {
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, FetchError>> {
        self.attempts.fetch_add(1, Ordering::SeqCst);
        self.inner.fetch()
    }
}

/// AUTH-51: when the JWKS host goes down, keys past their age stay in use:
/// concurrent requests make one failed attempt (not one each), the tokens
/// still verify, and no further attempt is made within the interval.
#[tokio::test]
async fn auth_51_stale_keys_are_used_while_the_jwks_host_is_down() {
    let issuer = AuthorizationServer::builder(ISSUER).build().unwrap();
    let down = Arc::new(AtomicBool::new(false));
    let jwks = SlowJwks {
        issuer: issuer.clone(),
        gets: Arc::default(),
    };
    let url = serve_until(jwks, Arc::clone(&down)).await;
    let attempts = Arc::new(AtomicUsize::new(0));
    let source = Attempts {
        inner: JwksUri::new(url.clone(), Arc::new(PlainFetch)),
        attempts: Arc::clone(&attempts),
    };
    // Keys are stale after 100 ms; fetches start 3 s apart at least, far
    // more than the 20 ES256 checks below take in a debug build on a
    // loaded machine (~20 ms each unloaded).
    let verifier = Arc::new(
        JwtVerifier::new(Arc::new(source))
            .issuer(ISSUER)
            .max_age(Duration::from_millis(100))
            .min_refetch_interval(Duration::from_secs(3)),
    );
    let token = token(&issuer);
    assert_eq!(verify_many(&verifier, &token, 1).await, 1);
    // Take the host down: the next connection is accepted once and closed
    // with the listener, then refused.
    down.store(true, Ordering::SeqCst);
    let _ = crate::support::wire::try_send("GET", &url, &[], "").await;
    // Wait past the interval since the first fetch.
    tokio::time::sleep(Duration::from_millis(3_300)).await;
    assert_eq!(
        verify_many(&verifier, &token, 10).await,
        10,
        "stale keys used"
    );
    assert_eq!(
        attempts.load(Ordering::SeqCst),
        2,
        "one shared failed attempt"
    );
    assert_eq!(verify_many(&verifier, &token, 10).await, 10);
    assert_eq!(
        attempts.load(Ordering::SeqCst),
        2,
        "none within the interval"
    );
}

/// The resource the typ tests' layer protects (the audience of their tokens).
const RESOURCE: &str = "http://127.0.0.1:1/mcp";

/// Signs claims with a P-256 key of our own under header `typ`; returns
/// the token and the key set that verifies it.
fn signed_with_type(typ: Option<&str>) -> (String, JwkSet) {
    use p256::elliptic_curve::sec1::ToEncodedPoint;
    use p256::pkcs8::EncodePrivateKey;
    let secret = p256::SecretKey::from_slice(&[7u8; 32]).unwrap();
    let point = secret.public_key().to_encoded_point(false);
    let b64 = |bytes: &[u8]| {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    };
    let jwks: JwkSet = serde_json::from_value(serde_json::json!({"keys": [{
        "kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig",
        "x": b64(point.x().unwrap()), "y": b64(point.y().unwrap()),
    }]}))
    .unwrap();
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("k1".to_owned());
    header.typ = typ.map(str::to_owned);
    let der = secret.to_pkcs8_der().unwrap();
    let claims = serde_json::json!({
        "iss": ISSUER, "sub": "alice", "aud": RESOURCE, "exp": now() + 300,
    });
    let token =
        jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ec_der(der.as_bytes())).unwrap();
    (token, jwks)
}

struct Fixed(JwkSet);

impl KeySource for Fixed {
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, FetchError>> {
        let keys = self.0.clone();
        Box::pin(async move { Ok(keys) })
    }
}

/// The protected service: 200 for whatever gets through.
#[derive(Clone)]
struct Accept;

impl<B> Service<Request<B>> for Accept {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _request: Request<B>) -> Self::Future {
        std::future::ready(Ok(Response::new(Full::new(Bytes::new()))))
    }
}

/// `verifier` behind the bearer layer on 127.0.0.1; returns the MCP URL.
async fn protected_by(verifier: JwtVerifier) -> String {
    let metadata = ProtectedResourceMetadata::new(RESOURCE, ISSUER);
    let layer = BearerAuthLayer::new(metadata, Arc::new(verifier)).unwrap();
    let address = serve(layer.layer(Accept)).await;
    format!("http://{address}/mcp")
}

/// AUTH-51, AUTH-53 with RFC 9068 §4, through the layer on 127.0.0.1: by
/// default `at+jwt`, `application/at+jwt` and plain JWTs pass and other
/// types get 401; the strict option lets only the access token types pass.
#[tokio::test]
async fn auth_51_token_types_follow_rfc_9068_as_configured() {
    let cases = [
        (Some("at+jwt"), true, true),
        (Some("application/at+jwt"), true, true),
        (Some("AT+JWT"), true, true),
        (Some("JWT"), true, false),
        (None, true, false),
        (Some("dpop+jwt"), false, false),
        (Some("logout+jwt"), false, false),
    ];
    let (_, jwks) = signed_with_type(None);
    let lenient =
        protected_by(JwtVerifier::new(Arc::new(Fixed(jwks.clone()))).issuer(ISSUER)).await;
    let strict = protected_by(
        JwtVerifier::new(Arc::new(Fixed(jwks)))
            .issuer(ISSUER)
            .token_types(TokenTypes::AccessTokensOnly),
    )
    .await;
    for (typ, lenient_accepts, strict_accepts) in cases {
        let (token, _) = signed_with_type(typ);
        let bearer = format!("Bearer {token}");
        for (url, accepts) in [(&lenient, lenient_accepts), (&strict, strict_accepts)] {
            let answer = send("POST", url, &[("Authorization", bearer.as_str())], "{}").await;
            let expected = if accepts { 200 } else { 401 };
            assert_eq!(answer.status, expected, "{typ:?} at {url}: {}", answer.body);
            if !accepts {
                let challenge = answer.header("www-authenticate").unwrap();
                assert!(challenge.contains("invalid_token"), "{challenge}");
            }
        }
    }
}
