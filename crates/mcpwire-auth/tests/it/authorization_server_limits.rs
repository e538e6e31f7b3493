//! The embedded authorization server under abuse (issue 17 item 8): its
//! tables are bounded and expire, `/register` and `/authorize` are limited
//! in rate and size, client ID metadata documents are never fetched from
//! internal addresses and a failed fetch is not echoed (AUTH-71), and a bad
//! refresh request leaves the refresh token usable (AUTH-61).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use mcpwire_auth::authorization_server::{AuthorizationServer, Client};
use mcpwire_auth::resource::{BoxFuture, DocumentFetch, FetchError};

use crate::authorization_server_flow::{
    REDIRECT, Running, VERIFIER, authorize, code_for, default_server, exchange_code, param, start,
    token_request,
};
use crate::support::wire::{Answer, send};

/// A metadata-document fetcher that counts its calls and fails with a
/// message that names the inside of the network.
struct Failing(AtomicUsize);

const INSIDE: &str = "connect to 10.9.8.7:22 refused (SSH-2.0-OpenSSH_9.6)";

impl DocumentFetch for Failing {
    fn get<'a>(&'a self, _url: &'a str) -> BoxFuture<'a, Result<Bytes, FetchError>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Err(FetchError::new(INSIDE)) })
    }
}

async fn register(running: &Running) -> Answer {
    let body = serde_json::json!({
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
    });
    send(
        "POST",
        &format!("{}/register", running.issuer),
        &[("Content-Type", "application/json")],
        &body.to_string(),
    )
    .await
}

fn public_app(issuer: String) -> mcpwire_auth::authorization_server::AuthorizationServerBuilder {
    AuthorizationServer::builder(issuer)
        .scopes_supported(["read", "write"])
        .client(Client::public("public-app", vec![REDIRECT.to_owned()]))
}

// AUTH-04 (OAuth 2.1 with suitable security; issue 17 item 8).
#[tokio::test]
async fn pending_codes_are_bounded_and_expired_ones_make_room() {
    // Codes live 300 ms; the test waits 900 ms, three times that, so a
    // loaded machine still sees them expired.
    let running = start(|issuer| {
        public_app(issuer)
            .max_pending_codes(2)
            .code_lifetime(Duration::from_millis(300))
            .build()
            .unwrap()
    })
    .await;
    code_for(&running, "public-app").await;
    code_for(&running, "public-app").await;
    let full = authorize(&running, "public-app", "read").await;
    let location = full.header("location").unwrap();
    assert_eq!(
        param(location, "error").as_deref(),
        Some("temporarily_unavailable"),
        "{location}"
    );
    assert_eq!(param(location, "code"), None);
    tokio::time::sleep(Duration::from_millis(900)).await;
    code_for(&running, "public-app").await;
}

// AUTH-06, AUTH-04 (issue 17 item 8).
#[tokio::test]
async fn registrations_are_limited_per_minute() {
    let running = start(|issuer| {
        public_app(issuer)
            .registrations_per_minute(2)
            .build()
            .unwrap()
    })
    .await;
    assert_eq!(register(&running).await.status, 201);
    assert_eq!(register(&running).await.status, 201);
    let refused = register(&running).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    assert_eq!(refused.json()["error"], "temporarily_unavailable");
}

// AUTH-06, AUTH-04 (issue 17 item 8).
#[tokio::test]
async fn registered_clients_are_capped_and_idle_ones_forgotten() {
    // Idle registered clients are forgotten after 300 ms; the test waits
    // 900 ms for the same reason as above.
    let running = start(|issuer| {
        public_app(issuer)
            .max_clients(1)
            .registered_client_idle_lifetime(Duration::from_millis(300))
            .build()
            .unwrap()
    })
    .await;
    let first = register(&running).await;
    assert_eq!(first.status, 201, "{}", first.body);
    let first_id = first.json()["client_id"].as_str().unwrap().to_owned();
    let full = register(&running).await;
    assert_eq!(full.status, 503, "{}", full.body);
    assert_eq!(full.json()["error"], "temporarily_unavailable");
    // The configured client is not counted and still works.
    code_for(&running, "public-app").await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(register(&running).await.status, 201);
    let forgotten = authorize(&running, &first_id, "read").await;
    assert_eq!(forgotten.status, 400, "the idle client was forgotten");
}

// AUTH-06, AUTH-04 (issue 17 item 8).
#[tokio::test]
async fn oversized_registrations_and_authorization_requests_are_refused() {
    let running = default_server().await;
    let many: Vec<String> = (0..17).map(|n| format!("http://127.0.0.1/cb{n}")).collect();
    let body = serde_json::json!({"redirect_uris": many}).to_string();
    let answer = send(
        "POST",
        &format!("{}/register", running.issuer),
        &[("Content-Type", "application/json")],
        &body,
    )
    .await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert_eq!(answer.json()["error"], "invalid_redirect_uri");
    let huge = "x".repeat(32 * 1024);
    let answer = send(
        "POST",
        &format!("{}/register", running.issuer),
        &[("Content-Type", "application/json")],
        &format!("{{\"client_name\":\"{huge}\"}}"),
    )
    .await;
    assert_eq!(answer.status, 413);
    let answer = send(
        "GET",
        &format!(
            "{}/authorize?client_id=public-app&state={}",
            running.issuer,
            "s".repeat(9 * 1024)
        ),
        &[],
        "",
    )
    .await;
    assert_eq!(answer.status, 414);
}

// AUTH-61, AUTH-04 (issue 17 item 8).
#[tokio::test]
async fn live_refresh_tokens_are_bounded_but_rotation_at_the_bound_works() {
    let running = start(|issuer| public_app(issuer).max_refresh_tokens(1).build().unwrap()).await;
    let first = code_for(&running, "public-app").await;
    let second = code_for(&running, "public-app").await;
    let tokens = exchange_code(&running, "public-app", &first, VERIFIER).await;
    assert_eq!(tokens.status, 200, "{}", tokens.body);
    let full = exchange_code(&running, "public-app", &second, VERIFIER).await;
    assert_eq!(full.status, 503, "{}", full.body);
    assert_eq!(full.json()["error"], "temporarily_unavailable");
    let mut refresh = tokens.json()["refresh_token"].as_str().unwrap().to_owned();
    for _ in 0..3 {
        let form = format!("grant_type=refresh_token&refresh_token={refresh}&client_id=public-app");
        let answer = token_request(&running, &form, &[]).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        refresh = answer.json()["refresh_token"].as_str().unwrap().to_owned();
    }
}

/// AUTH-61: refresh tokens rotate; a refresh asking for a wider scope or
/// another resource is refused without consuming the token, so a bad
/// request does not revoke the family.
#[tokio::test]
async fn auth_61_a_bad_refresh_request_leaves_the_refresh_token_usable() {
    let running = default_server().await;
    let code = code_for(&running, "public-app").await;
    let tokens = exchange_code(&running, "public-app", &code, VERIFIER).await;
    let refresh = tokens.json()["refresh_token"].as_str().unwrap().to_owned();
    let form = |extra: &str| {
        format!("grant_type=refresh_token&refresh_token={refresh}&client_id=public-app{extra}")
    };
    let wider = token_request(&running, &form("&scope=read%20write"), &[]).await;
    assert_eq!(wider.status, 400);
    assert_eq!(wider.json()["error"], "invalid_scope");
    let elsewhere = token_request(&running, &form("&resource=http://127.0.0.1:9/other"), &[]).await;
    assert_eq!(elsewhere.status, 400);
    assert_eq!(elsewhere.json()["error"], "invalid_target");
    let good = token_request(&running, &form(""), &[]).await;
    assert_eq!(good.status, 200, "{}", good.body);
}

/// AUTH-71 (SSRF): a client ID metadata document at an internal address
/// (loopback, private, link-local IP literals, `localhost`) is never
/// fetched unless loopback is allowed for tests.
#[tokio::test]
async fn auth_71_metadata_documents_at_internal_addresses_are_never_fetched() {
    let fetch = Arc::new(Failing(AtomicUsize::new(0)));
    let running = start({
        let fetch = Arc::clone(&fetch);
        move |issuer| {
            AuthorizationServer::builder(issuer)
                .metadata_documents(fetch)
                .build()
                .unwrap()
        }
    })
    .await;
    for client_id in [
        "https://127.0.0.1:8443/client.json",
        "https://10.0.0.1/client.json",
        "https://192.168.1.10/client.json",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/client.json",
        "https://[fd00::1]/client.json",
        "https://localhost/client.json",
    ] {
        let answer = authorize(&running, client_id, "read").await;
        assert_eq!(answer.status, 400, "{client_id}: {}", answer.body);
    }
    assert_eq!(fetch.0.load(Ordering::SeqCst), 0, "nothing was fetched");
}

/// AUTH-71: why a metadata-document fetch failed (which says what answers
/// inside the server's network) is not sent back to the caller, neither by
/// `/authorize` nor by the token endpoint.
#[tokio::test]
async fn auth_71_a_failed_metadata_fetch_is_not_echoed() {
    let fetch = Arc::new(Failing(AtomicUsize::new(0)));
    let running = start({
        let fetch = Arc::clone(&fetch);
        move |issuer| {
            AuthorizationServer::builder(issuer)
                .metadata_documents(fetch)
                .allow_loopback_metadata_documents(true)
                .build()
                .unwrap()
        }
    })
    .await;
    let client_id = "http://127.0.0.1:9/client.json";
    let answer = authorize(&running, client_id, "read").await;
    assert_eq!(answer.status, 400);
    let form = format!(
        "grant_type=authorization_code&code=x&code_verifier={VERIFIER}&client_id={client_id}"
    );
    let token = token_request(&running, &form, &[]).await;
    assert_eq!(token.status, 401);
    assert_eq!(fetch.0.load(Ordering::SeqCst), 2, "both fetched");
    for body in [&answer.body, &token.body] {
        assert!(
            !body.contains("10.9.8.7") && !body.contains("OpenSSH"),
            "{body}"
        );
        assert!(body.contains("could not be fetched"), "{body}");
    }
}
