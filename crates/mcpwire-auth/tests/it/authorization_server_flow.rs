//! The embedded authorization server over real HTTP on 127.0.0.1: its
//! RFC 8414 metadata, dynamic registration (RFC 7591), the authorization
//! code grant with PKCE S256 and `iss` (RFC 9207), code single use, refresh
//! token rotation, client authentication, consent, client ID metadata
//! documents, and the JWKS verifying what it issues.

use std::sync::Arc;

use crate::support::wire::{Answer, PlainFetch, send, serve};
use mcpwire_auth::authorization_server::{
    AuthorizationServer, Client, Consent, ConsentDecision, ConsentRequest, TokenAuthMethod,
};
use mcpwire_auth::pkce;
use mcpwire_auth::resource::{JwksUri, JwtVerifier, TokenVerifier};
use serde_json::{Value, json};

pub(crate) const REDIRECT: &str = "http://127.0.0.1:9/callback";
pub(crate) const RESOURCE: &str = "http://127.0.0.1:9/mcp";
pub(crate) const VERIFIER: &str = "a-verifier-of-more-than-forty-three-characters-0123456789";

/// A running server and its issuer URL.
pub(crate) struct Running {
    pub(crate) issuer: String,
}

pub(crate) async fn start(configure: impl FnOnce(String) -> AuthorizationServer) -> Running {
    // The issuer must name the bound port: bind, then build for it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let issuer = format!("http://127.0.0.1:{port}");
    let server = configure(issuer.clone());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let server = server.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request| {
                    let mut server = server.clone();
                    async move { tower::Service::call(&mut server, request).await }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    Running { issuer }
}

pub(crate) async fn default_server() -> Running {
    start(|issuer| {
        AuthorizationServer::builder(issuer)
            .scopes_supported(["read", "write"])
            .client(Client::public("public-app", vec![REDIRECT.to_owned()]))
            .client(Client::confidential(
                "basic-app",
                "s3cret",
                TokenAuthMethod::ClientSecretBasic,
                vec![REDIRECT.to_owned()],
            ))
            .client(Client::confidential(
                "post-app",
                "s3cret",
                TokenAuthMethod::ClientSecretPost,
                vec![REDIRECT.to_owned()],
            ))
            .build()
            .unwrap()
    })
    .await
}

/// The value of query parameter `name` of a redirect, decoded.
pub(crate) fn param(location: &str, name: &str) -> Option<String> {
    let query = location.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| {
            value
                .replace("%3A", ":")
                .replace("%2F", "/")
                .replace('+', " ")
        })
    })
}

/// Authorizes `client_id` with PKCE for `scope` and returns the redirect.
pub(crate) async fn authorize(running: &Running, client_id: &str, scope: &str) -> Answer {
    let challenge = pkce::s256_challenge(VERIFIER);
    let url = format!(
        "{}/authorize?response_type=code&client_id={client_id}&redirect_uri={REDIRECT}&state=st&code_challenge={challenge}&code_challenge_method=S256&scope={scope}&resource={RESOURCE}",
        running.issuer
    );
    send("GET", &url, &[], "").await
}

pub(crate) async fn code_for(running: &Running, client_id: &str) -> String {
    let answer = authorize(running, client_id, "read").await;
    assert_eq!(answer.status, 302, "{}", answer.body);
    param(answer.header("location").unwrap(), "code").expect("a code")
}

pub(crate) async fn token_request(
    running: &Running,
    form: &str,
    headers: &[(&str, &str)],
) -> Answer {
    let mut all = vec![("Content-Type", "application/x-www-form-urlencoded")];
    all.extend_from_slice(headers);
    send("POST", &format!("{}/token", running.issuer), &all, form).await
}

pub(crate) async fn exchange_code(
    running: &Running,
    client_id: &str,
    code: &str,
    verifier: &str,
) -> Answer {
    let form = format!(
        "grant_type=authorization_code&code={code}&redirect_uri={REDIRECT}&code_verifier={verifier}&client_id={client_id}&resource={RESOURCE}"
    );
    token_request(running, &form, &[]).await
}

// AUTH-18, AUTH-67 (`code_challenge_methods_supported`), AUTH-05 (CIMD support advertised).
#[tokio::test]
async fn the_metadata_document_has_the_shape_mcp_clients_need() {
    let running = default_server().await;
    let answer = send(
        "GET",
        &format!("{}/.well-known/oauth-authorization-server", running.issuer),
        &[],
        "",
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let metadata = answer.json();
    let issuer = running.issuer.as_str();
    assert_eq!(metadata["issuer"], issuer);
    assert_eq!(
        metadata["authorization_endpoint"],
        format!("{issuer}/authorize")
    );
    assert_eq!(metadata["token_endpoint"], format!("{issuer}/token"));
    assert_eq!(
        metadata["registration_endpoint"],
        format!("{issuer}/register")
    );
    assert_eq!(metadata["jwks_uri"], format!("{issuer}/jwks"));
    assert_eq!(metadata["response_types_supported"], json!(["code"]));
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(
        metadata["authorization_response_iss_parameter_supported"],
        true
    );
    assert_eq!(metadata["client_id_metadata_document_supported"], false);
    assert_eq!(metadata["scopes_supported"], json!(["read", "write"]));
}

// AUTH-04, AUTH-64, AUTH-52 (the `resource` becomes the audience).
#[tokio::test]
async fn a_code_with_pkce_becomes_a_token_the_jwks_verifies_bound_to_the_resource() {
    let running = default_server().await;
    let answer = authorize(&running, "public-app", "read").await;
    assert_eq!(answer.status, 302);
    let location = answer.header("location").unwrap();
    assert!(location.starts_with(REDIRECT), "{location}");
    assert_eq!(param(location, "state").as_deref(), Some("st"));
    // RFC 9207: the response names the issuer.
    assert_eq!(
        param(location, "iss").as_deref(),
        Some(running.issuer.as_str())
    );
    let code = param(location, "code").unwrap();
    let answer = exchange_code(&running, "public-app", &code, VERIFIER).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.header("cache-control"), Some("no-store"));
    let tokens = answer.json();
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["scope"], "read");
    assert!(tokens["refresh_token"].is_string());

    let keys = JwksUri::new(format!("{}/jwks", running.issuer), Arc::new(PlainFetch));
    let verifier = JwtVerifier::new(Arc::new(keys)).issuer(running.issuer.clone());
    let identity = verifier
        .verify(tokens["access_token"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(identity.subject.as_deref(), Some("test-user"));
    assert_eq!(identity.client_id.as_deref(), Some("public-app"));
    assert_eq!(identity.scopes, ["read"]);
    assert!(identity.is_bound_to(RESOURCE));
}

// AUTH-64.
#[tokio::test]
async fn a_verifier_that_does_not_match_the_challenge_is_refused() {
    let running = default_server().await;
    let code = code_for(&running, "public-app").await;
    let other = "another-verifier-of-more-than-forty-three-characters-98765";
    let answer = exchange_code(&running, "public-app", &code, other).await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["error"], "invalid_grant");
}

// AUTH-64, AUTH-65.
#[tokio::test]
async fn authorization_without_s256_pkce_is_refused_at_the_redirect() {
    let running = default_server().await;
    let url = format!(
        "{}/authorize?response_type=code&client_id=public-app&redirect_uri={REDIRECT}&state=st&code_challenge=abc&code_challenge_method=plain",
        running.issuer
    );
    let answer = send("GET", &url, &[], "").await;
    assert_eq!(answer.status, 302);
    let location = answer.header("location").unwrap();
    assert_eq!(param(location, "error").as_deref(), Some("invalid_request"));
    assert_eq!(
        param(location, "iss").as_deref(),
        Some(running.issuer.as_str())
    );
    assert_eq!(param(location, "code"), None);
}

// AUTH-69.
#[tokio::test]
async fn an_unregistered_redirect_uri_is_never_redirected_to() {
    let running = default_server().await;
    let challenge = pkce::s256_challenge(VERIFIER);
    let url = format!(
        "{}/authorize?response_type=code&client_id=public-app&redirect_uri=https://evil.example/cb&code_challenge={challenge}&code_challenge_method=S256",
        running.issuer
    );
    let answer = send("GET", &url, &[], "").await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.header("location"), None);
}

// AUTH-58 (OAuth 2.1 §4.1.3 code reuse).
#[tokio::test]
async fn a_code_used_twice_is_refused_and_its_refresh_token_revoked() {
    let running = default_server().await;
    let code = code_for(&running, "public-app").await;
    let first = exchange_code(&running, "public-app", &code, VERIFIER).await;
    assert_eq!(first.status, 200);
    let refresh = first.json()["refresh_token"].as_str().unwrap().to_owned();
    let second = exchange_code(&running, "public-app", &code, VERIFIER).await;
    assert_eq!(second.status, 400);
    assert_eq!(second.json()["error"], "invalid_grant");
    let form = format!("grant_type=refresh_token&refresh_token={refresh}&client_id=public-app");
    let answer = token_request(&running, &form, &[]).await;
    assert_eq!(
        answer.status, 400,
        "the first exchange's refresh token was revoked"
    );
}

// AUTH-61.
#[tokio::test]
async fn refresh_tokens_rotate_and_a_replayed_one_revokes_its_family() {
    let running = default_server().await;
    let code = code_for(&running, "public-app").await;
    let tokens = exchange_code(&running, "public-app", &code, VERIFIER)
        .await
        .json();
    let first = tokens["refresh_token"].as_str().unwrap().to_owned();
    let refresh = |token: String| {
        let running = &running;
        async move {
            let form =
                format!("grant_type=refresh_token&refresh_token={token}&client_id=public-app");
            token_request(running, &form, &[]).await
        }
    };
    let answer = refresh(first.clone()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let rotated: Value = answer.json();
    let second = rotated["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(first, second);
    assert!(rotated["access_token"].is_string());
    // Replaying the rotated-out token fails, and takes its successor down.
    assert_eq!(refresh(first).await.status, 400);
    assert_eq!(refresh(second).await.status, 400);
}

// AUTH-04 (confidential clients).
#[tokio::test]
async fn confidential_clients_authenticate_by_their_registered_method_only() {
    let running = default_server().await;
    let form_for = |code: &str| {
        format!(
            "grant_type=authorization_code&code={code}&redirect_uri={REDIRECT}&code_verifier={VERIFIER}"
        )
    };
    // client_secret_basic: base64("basic-app:s3cret").
    let basic = [("Authorization", "Basic YmFzaWMtYXBwOnMzY3JldA==")];
    let code = code_for(&running, "basic-app").await;
    assert_eq!(
        token_request(&running, &form_for(&code), &basic)
            .await
            .status,
        200
    );
    let wrong = [("Authorization", "Basic YmFzaWMtYXBwOndyb25n")];
    let code = code_for(&running, "basic-app").await;
    let answer = token_request(&running, &form_for(&code), &wrong).await;
    assert_eq!(answer.status, 401);
    assert_eq!(answer.json()["error"], "invalid_client");
    // client_secret_post.
    let code = code_for(&running, "post-app").await;
    let form = format!(
        "{}&client_id=post-app&client_secret=s3cret",
        form_for(&code)
    );
    assert_eq!(token_request(&running, &form, &[]).await.status, 200);
    // The basic client may not switch to the post method.
    let code = code_for(&running, "basic-app").await;
    let form = format!(
        "{}&client_id=basic-app&client_secret=s3cret",
        form_for(&code)
    );
    assert_eq!(token_request(&running, &form, &[]).await.status, 401);
}

// AUTH-06.
#[tokio::test]
async fn dynamic_registration_issues_clients_that_can_complete_the_flow() {
    let running = default_server().await;
    let register = |body: Value| {
        let url = format!("{}/register", running.issuer);
        async move {
            send(
                "POST",
                &url,
                &[("Content-Type", "application/json")],
                &body.to_string(),
            )
            .await
        }
    };
    let answer = register(json!({
        "client_name": "dcr test", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"
    }))
    .await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    let registered = answer.json();
    let client_id = registered["client_id"].as_str().unwrap().to_owned();
    assert_eq!(registered["token_endpoint_auth_method"], "none");
    assert!(registered.get("client_secret").is_none());
    let code = code_for(&running, &client_id).await;
    assert_eq!(
        exchange_code(&running, &client_id, &code, VERIFIER)
            .await
            .status,
        200
    );

    let confidential = register(json!({"redirect_uris": [REDIRECT]})).await.json();
    assert_eq!(
        confidential["token_endpoint_auth_method"],
        "client_secret_basic"
    );
    assert!(confidential["client_secret"].is_string());

    let refused = register(json!({"redirect_uris": ["http://evil.example/cb"]})).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json()["error"], "invalid_redirect_uri");
}

/// Denies everything, noting the redirect URI it was shown.
struct DenyAll(std::sync::Mutex<Vec<String>>);

impl Consent for DenyAll {
    fn decide(&self, request: &ConsentRequest<'_>) -> ConsentDecision {
        self.0.lock().unwrap().push(request.redirect_uri.to_owned());
        ConsentDecision::Deny
    }
}

// AUTH-04 (the consent decides; OAuth 2.1 §4.1.2.1); AUTH-71 (the consent
// is shown the redirect URI, whose host a consent page must display).
#[tokio::test]
async fn a_denied_request_redirects_with_access_denied() {
    let deny = Arc::new(DenyAll(std::sync::Mutex::default()));
    let running = start(|issuer| {
        AuthorizationServer::builder(issuer)
            .client(Client::public("public-app", vec![REDIRECT.to_owned()]))
            .consent(Arc::clone(&deny) as Arc<dyn Consent>)
            .build()
            .unwrap()
    })
    .await;
    let answer = authorize(&running, "public-app", "read").await;
    assert_eq!(answer.status, 302);
    let location = answer.header("location").unwrap();
    assert_eq!(param(location, "error").as_deref(), Some("access_denied"));
    assert_eq!(*deny.0.lock().unwrap(), vec![REDIRECT.to_owned()]);
    assert_eq!(param(location, "code"), None);
}

// AUTH-04, AUTH-15 (scopes the server knows).
#[tokio::test]
async fn an_unknown_scope_is_refused_with_invalid_scope() {
    let running = default_server().await;
    let answer = authorize(&running, "public-app", "admin").await;
    let location = answer.header("location").unwrap();
    assert_eq!(param(location, "error").as_deref(), Some("invalid_scope"));
}

/// Serves one client ID metadata document at `/client.json` and returns its URL.
async fn metadata_document() -> String {
    #[derive(Clone)]
    struct Document(Arc<std::sync::OnceLock<String>>);
    impl<B> tower::Service<http::Request<B>> for Document {
        type Response = http::Response<http_body_util::Full<bytes::Bytes>>;
        type Error = std::convert::Infallible;
        type Future = std::future::Ready<Result<Self::Response, Self::Error>>;
        fn poll_ready(
            &mut self,
            _cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), Self::Error>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn call(&mut self, _request: http::Request<B>) -> Self::Future {
            let body = self.0.get().cloned().unwrap_or_default();
            std::future::ready(Ok(http::Response::new(http_body_util::Full::new(
                body.into(),
            ))))
        }
    }
    let document = Document(Arc::default());
    let address = serve(document.clone()).await;
    let url = format!("http://{address}/client.json");
    let body = json!({"client_id": url, "client_name": "cimd", "redirect_uris": [REDIRECT]});
    document.0.set(body.to_string()).unwrap();
    url
}

// AUTH-23, AUTH-28, AUTH-29, AUTH-31, AUTH-71.
#[tokio::test]
async fn a_client_id_metadata_document_is_fetched_only_from_loopback_in_test_mode() {
    let url = metadata_document().await;
    let test_mode = start(|issuer| {
        AuthorizationServer::builder(issuer)
            .metadata_documents(Arc::new(PlainFetch))
            .allow_loopback_metadata_documents(true)
            .build()
            .unwrap()
    })
    .await;
    let code = code_for(&test_mode, &url).await;
    assert_eq!(
        exchange_code(&test_mode, &url, &code, VERIFIER)
            .await
            .status,
        200
    );

    let strict = start(|issuer| {
        AuthorizationServer::builder(issuer)
            .metadata_documents(Arc::new(PlainFetch))
            .build()
            .unwrap()
    })
    .await;
    let answer = authorize(&strict, &url, "read").await;
    assert_eq!(
        answer.status, 400,
        "an http client id is not fetched outside test mode"
    );
}
