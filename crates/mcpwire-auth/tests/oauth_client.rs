//! The OAuth client against a hand-written authorization and resource
//! server on 127.0.0.1: the whole flow, then every way the servers can
//! misbehave that the client must refuse.

#![cfg(feature = "client")]
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions: a panic is a failed assertion"
)]

mod support;

#[path = "oauth_client/fuzz_corpus.rs"]
mod fuzz_corpus;

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use mcpwire_auth::client::{
    Error, HttpFetch, HyperFetch, MemoryStore, OAuthClient, OAuthConfig, RedirectCapture,
};
use support::{Misbehaviour, Mock, start};

const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

fn client_for(mock: &Mock) -> (OAuthClient, Arc<dyn HttpFetch>) {
    let http: Arc<dyn HttpFetch> = Arc::new(HyperFetch::new());
    let client = OAuthClient::new(
        &mock.mcp_url(),
        OAuthConfig::new("test-client", REDIRECT_URI),
        Arc::clone(&http),
        Arc::new(RedirectCapture::new(Arc::clone(&http))),
        Arc::new(MemoryStore::new()),
    )
    .unwrap();
    (client, http)
}

/// POSTs to the MCP endpoint with `headers`; returns the status and headers.
async fn post_mcp(
    http: &Arc<dyn HttpFetch>,
    mock: &Mock,
    headers: HeaderMap,
) -> (StatusCode, HeaderMap) {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(mock.mcp_url())
        .header("content-type", "application/json")
        .body(Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        ))
        .unwrap();
    request.headers_mut().extend(headers);
    let response = http.fetch(request).await.unwrap();
    (response.status(), response.headers().clone())
}

/// Sends an unauthenticated request and hands its challenge to the client.
async fn challenge(
    client: &OAuthClient,
    http: &Arc<dyn HttpFetch>,
    mock: &Mock,
) -> Result<bool, Error> {
    let (status, headers) = post_mcp(http, mock, HeaderMap::new()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    client.handle_challenge(status, &headers).await
}

async fn headers_for(client: &OAuthClient, mock: &Mock) -> HeaderMap {
    client
        .authorization_headers("POST", &mock.mcp_url())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_401_leads_to_a_pkce_token_the_resource_accepts_with_the_published_resource() {
    let mock = start(Misbehaviour::default()).await;
    let (client, http) = client_for(&mock);
    assert!(
        headers_for(&client, &mock).await.is_empty(),
        "no token before a challenge"
    );
    assert!(challenge(&client, &http, &mock).await.unwrap());
    let headers = headers_for(&client, &mock).await;
    assert_eq!(headers["authorization"], "Bearer token-1");
    let (status, _) = post_mcp(&http, &mock, headers).await;
    assert_eq!(status, StatusCode::OK);
    for step in ["POST /register", "GET /authorize", "POST /token"] {
        assert!(mock.hit(step), "{step}");
    }
    // RFC 8707: the resource exactly as published, in both requests.
    let resources = mock.log.lock().unwrap().resources.clone();
    assert_eq!(resources, vec![mock.mcp_url(), mock.mcp_url()]);
    assert!(
        !mock.hit("GET /.well-known/oauth-protected-resource"),
        "the named PRM URL only"
    );
}

#[tokio::test]
async fn metadata_claiming_another_issuer_is_refused_before_authorization() {
    let mock = start(Misbehaviour {
        wrong_issuer: true,
        ..Misbehaviour::default()
    })
    .await;
    let (client, http) = client_for(&mock);
    let error = challenge(&client, &http, &mock).await.unwrap_err();
    assert!(matches!(error, Error::IssuerMismatch { .. }), "{error}");
    assert!(!mock.hit("GET /authorize") && !mock.hit("POST /register"));
}

#[tokio::test]
async fn an_authorization_server_without_s256_is_refused() {
    let mock = start(Misbehaviour {
        no_s256: true,
        ..Misbehaviour::default()
    })
    .await;
    let (client, http) = client_for(&mock);
    let error = challenge(&client, &http, &mock).await.unwrap_err();
    assert!(matches!(error, Error::NoS256(_)), "{error}");
    assert!(!mock.hit("GET /authorize"));
}

#[tokio::test]
async fn a_metadata_redirect_to_another_origin_is_not_followed() {
    let mock = start(Misbehaviour {
        redirect_metadata_elsewhere: true,
        ..Misbehaviour::default()
    })
    .await;
    let (client, http) = client_for(&mock);
    let error = challenge(&client, &http, &mock).await.unwrap_err();
    assert!(matches!(error, Error::Url { .. }), "{error}");
    assert!(!mock.hit("GET /authorize"));
}

#[tokio::test]
async fn a_tampered_iss_stops_the_flow_before_the_token_request_rfc_9207() {
    let mock = start(Misbehaviour {
        tampered_iss: true,
        ..Misbehaviour::default()
    })
    .await;
    let (client, http) = client_for(&mock);
    let error = challenge(&client, &http, &mock).await.unwrap_err();
    assert!(matches!(error, Error::AuthorizationResponse(_)), "{error}");
    assert!(mock.hit("GET /authorize"));
    assert!(!mock.hit("POST /token"));
}

#[tokio::test]
async fn resource_metadata_for_another_resource_stops_before_authorization() {
    let mock = start(Misbehaviour {
        wrong_resource: true,
        ..Misbehaviour::default()
    })
    .await;
    let (client, http) = client_for(&mock);
    let error = challenge(&client, &http, &mock).await.unwrap_err();
    assert!(matches!(error, Error::ResourceMismatch { .. }), "{error}");
    assert!(!mock.hit("GET /.well-known/oauth-authorization-server"));
    assert!(!mock.hit("GET /authorize"));
}

#[tokio::test]
async fn an_expired_token_is_refreshed_before_it_is_sent() {
    let mock = start(Misbehaviour {
        expired_tokens: true,
        ..Misbehaviour::default()
    })
    .await;
    let (client, http) = client_for(&mock);
    assert!(challenge(&client, &http, &mock).await.unwrap());
    let headers = headers_for(&client, &mock).await;
    assert_eq!(
        headers["authorization"], "Bearer token-2",
        "refreshed, not the expired token-1"
    );
    assert_eq!(post_mcp(&http, &mock, headers).await.0, StatusCode::OK);
    assert_eq!(
        client.tokens().unwrap().refresh_token.as_deref(),
        Some("the-refresh-token")
    );
}

#[tokio::test]
async fn a_403_without_insufficient_scope_is_not_retried() {
    let mock = start(Misbehaviour::default()).await;
    let (client, _) = client_for(&mock);
    let mut headers = HeaderMap::new();
    headers.insert(
        "www-authenticate",
        r#"Bearer error="invalid_request""#.parse().unwrap(),
    );
    assert!(
        !client
            .handle_challenge(StatusCode::FORBIDDEN, &headers)
            .await
            .unwrap()
    );
    assert!(
        mock.log.lock().unwrap().hits.is_empty(),
        "nothing was fetched"
    );
}

#[tokio::test]
async fn plain_http_to_a_remote_host_is_refused() {
    let http: Arc<dyn HttpFetch> = Arc::new(HyperFetch::new());
    let error = OAuthClient::new(
        "http://mcp.example.com/mcp",
        OAuthConfig::new("test-client", REDIRECT_URI),
        Arc::clone(&http),
        Arc::new(RedirectCapture::new(Arc::clone(&http))),
        Arc::new(MemoryStore::new()),
    )
    .unwrap_err();
    assert!(matches!(error, Error::Url { .. }), "{error}");
}
