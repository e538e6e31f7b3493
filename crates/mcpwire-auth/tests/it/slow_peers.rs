//! Remote peers that never answer cannot make the crate wait forever: a
//! JWKS fetch and a client ID metadata document fetch are bounded by the
//! library's own timeout whatever the host's `DocumentFetch` does, and the
//! authorization server bounds the time a request body takes to arrive.
//! The fetch tests run in paused time (the bounds are tokio timers), so
//! the 10 s default costs nothing and the elapsed time is exact.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use mcpwire_auth::authorization_server::{AuthorizationServer, Grant};
use mcpwire_auth::pkce;
use mcpwire_auth::resource::{
    BoxFuture, DocumentFetch, FetchError, JwksUri, JwtVerifier, TokenVerifier, VerifyError,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::authorization_server_flow::{REDIRECT, VERIFIER, start};

const ISSUER: &str = "http://127.0.0.1:9";
/// Far beyond every bound under test: reaching it means the code under
/// test waited on the peer for good.
const FOREVER: Duration = Duration::from_secs(600);

/// A host fetcher without a timeout of its own: it answers `first` (if
/// any) to its first GET, and never answers any later one.
struct HangsAfter {
    first: Option<Bytes>,
    gets: AtomicUsize,
}

impl HangsAfter {
    fn new(first: Option<Bytes>) -> Arc<Self> {
        Arc::new(Self {
            first,
            gets: AtomicUsize::new(0),
        })
    }
}

impl DocumentFetch for HangsAfter {
    fn get<'a>(&'a self, _url: &'a str) -> BoxFuture<'a, Result<Bytes, FetchError>> {
        let answer = match self.gets.fetch_add(1, Ordering::SeqCst) {
            0 => self.first.clone(),
            _ => None,
        };
        Box::pin(async move {
            match answer {
                Some(body) => Ok(body),
                None => std::future::pending().await,
            }
        })
    }
}

fn access_token(issuer: &AuthorizationServer) -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let grant = Grant::new("alice", "client-1", vec![], None);
    issuer
        .mint_access_token(&grant, now.as_secs() + 300)
        .unwrap()
}

/// AUTH-51 (tokens are validated against the issuer's keys; issue 17
/// item 9): once the keys are due for a refetch, an issuer whose JWKS
/// never answers does not hold the request: after the default 10 s the
/// fetch counts as failed and the stale keys verify the token.
#[tokio::test(start_paused = true)]
async fn a_hung_jwks_refetch_falls_back_to_the_stale_keys_after_the_timeout() {
    let issuer = AuthorizationServer::builder(ISSUER).build().unwrap();
    let jwks = Bytes::from(serde_json::to_vec(&issuer.jwks()).unwrap());
    let fetch = HangsAfter::new(Some(jwks));
    let keys = JwksUri::new(format!("{ISSUER}/jwks"), fetch.clone());
    // Every verification wants fresh keys, and may fetch them at once.
    let verifier = JwtVerifier::new(Arc::new(keys))
        .issuer(ISSUER)
        .max_age(Duration::ZERO)
        .min_refetch_interval(Duration::ZERO);
    let token = access_token(&issuer);
    let first = verifier.verify(&token).await;
    assert!(first.is_ok(), "{first:?}");

    let started = Instant::now();
    let stale = tokio::time::timeout(FOREVER, verifier.verify(&token))
        .await
        .expect("the verifier gave up on the hung issuer");
    assert!(stale.is_ok(), "the stale keys verify: {stale:?}");
    assert_eq!(started.elapsed(), Duration::from_secs(10));
    assert_eq!(
        fetch.gets.load(Ordering::SeqCst),
        2,
        "the refetch was tried"
    );
}

/// AUTH-51: without any keys yet, a JWKS fetch that never answers refuses
/// the token as unverifiable once the configured timeout has passed.
#[tokio::test(start_paused = true)]
async fn a_hung_first_jwks_fetch_refuses_the_token_after_the_configured_timeout() {
    let issuer = AuthorizationServer::builder(ISSUER).build().unwrap();
    let keys = JwksUri::new(format!("{ISSUER}/jwks"), HangsAfter::new(None))
        .timeout(Duration::from_secs(3));
    let verifier = JwtVerifier::new(Arc::new(keys)).issuer(ISSUER);

    let started = Instant::now();
    let refused = tokio::time::timeout(FOREVER, verifier.verify(&access_token(&issuer)))
        .await
        .expect("the verifier gave up on the hung issuer");
    assert!(
        matches!(&refused, Err(VerifyError::Unavailable(why)) if why.contains("did not answer")),
        "{refused:?}"
    );
    assert_eq!(started.elapsed(), Duration::from_secs(3));
}

/// AUTH-71: a client ID metadata document URL whose host never answers
/// (the caller of `/authorize` chooses it) fails after the default 10 s
/// exactly as a failed fetch does, instead of holding the request.
#[tokio::test(start_paused = true)]
async fn auth_71_a_hung_metadata_document_fetch_fails_like_a_failed_one_after_the_timeout() {
    let fetch = HangsAfter::new(None);
    let server = AuthorizationServer::builder(ISSUER)
        .metadata_documents(fetch.clone())
        .allow_loopback_metadata_documents(true)
        .build()
        .unwrap();
    let challenge = pkce::s256_challenge(VERIFIER);
    let uri = format!(
        "/authorize?response_type=code&client_id=http://127.0.0.1:9/client.json&redirect_uri={REDIRECT}&state=st&code_challenge={challenge}&code_challenge_method=S256&scope=read"
    );
    let request = Request::get(uri).body(Full::new(Bytes::new())).unwrap();

    let started = Instant::now();
    let answer = tokio::time::timeout(FOREVER, server.handle(request))
        .await
        .expect("the authorization server gave up on the hung host");
    assert_eq!(started.elapsed(), Duration::from_secs(10));
    assert_eq!(fetch.gets.load(Ordering::SeqCst), 1);
    assert_eq!(answer.status(), 400);
    let body = answer.into_body().collect().await.unwrap().to_bytes();
    let body = String::from_utf8_lossy(&body);
    assert!(body.contains("could not be fetched"), "{body}");
}

/// AUTH-04 (OAuth 2.1 with suitable security; issue 17 item 8): a client
/// that sends a request head and then only part of the body announced is
/// answered 408 `invalid_request` once the configured body read timeout
/// has passed, on `/token` and `/register` alike, and does not hold the
/// connection forever.
#[tokio::test]
async fn a_trickled_request_body_is_answered_408_after_the_body_read_timeout() {
    let running = start(|issuer| {
        AuthorizationServer::builder(issuer)
            .body_read_timeout(Duration::from_millis(200))
            .build()
            .unwrap()
    })
    .await;
    let authority = running.issuer.strip_prefix("http://").unwrap();
    for (path, content_type) in [
        ("/token", "application/x-www-form-urlencoded"),
        ("/register", "application/json"),
    ] {
        let mut stream = TcpStream::connect(authority).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: 100\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        // A tenth of the body announced, and then nothing more.
        stream.write_all(b"grant_type").await.unwrap();
        let mut raw = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
            .await
            .expect("the server answered the trickled body in time")
            .unwrap();
        let raw = String::from_utf8_lossy(&raw);
        assert!(raw.starts_with("HTTP/1.1 408 "), "{path}: {raw}");
        let (_, body) = raw.split_once("\r\n\r\n").unwrap();
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["error"], "invalid_request", "{path}");
    }
}
