//! Sessions bound to the identity that created them (issue 17 item 6): a
//! session id is not authentication (SEC-10), so a leaked id is useless to
//! another user. A layer standing in for an authentication layer turns the
//! `x-user` header into the request's `RequestIdentity`.

use std::future::IntoFuture;

use http::Request;
use hyper::body::Incoming;
use mcpwire_http::server::{Config, RequestIdentity, StreamableHttp, serve};
use serde_json::json;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::server_support::*;

/// Serves the test runtime behind the stand-in authentication layer.
async fn authenticated_server() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let runtime = test_runtime();
    let service = StreamableHttp::new(Config::default(), move |transport| {
        let runtime = runtime.clone();
        tokio::spawn(async move {
            let _ = runtime.serve(transport).await;
        });
    });
    let authenticated = service.map_request(|mut request: Request<Incoming>| {
        let user = request
            .headers()
            .get("x-user")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if let Some(user) = user {
            request
                .extensions_mut()
                .insert(RequestIdentity::new(user).client_id("test-client"));
        }
        request
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = serve(listener, authenticated).into_future().await;
    });
    (addr, task)
}

fn as_user(mut headers: Vec<(String, String)>, user: Option<&str>) -> Vec<(String, String)> {
    if let Some(user) = user {
        headers.push(("x-user".to_owned(), user.to_owned()));
    }
    headers
}

#[tokio::test]
async fn sec_10_a_session_serves_only_the_identity_that_created_it() {
    let (addr, task) = authenticated_server().await;
    let alice = Client::new(addr);
    let init = alice
        .raw(
            "POST",
            &as_user(alice.post_headers(), Some("alice")),
            &initialize(V2025_11_25),
        )
        .await;
    assert_eq!(init.status(), 200);
    let mut alice = alice;
    alice.session = Some(init.head.header("mcp-session-id").unwrap().to_owned());
    alice.version = Some(V2025_11_25.to_owned());
    let list = request(1, "tools/list", json!({}));
    // The leaked id in other hands: another user, or no user at all.
    for intruder in [Some("bob"), None] {
        let post = alice
            .raw("POST", &as_user(alice.post_headers(), intruder), &list)
            .await;
        assert_eq!(post.status(), 404, "{intruder:?} POST");
        let get = alice
            .raw("GET", &as_user(alice.get_headers(), intruder), "")
            .await;
        assert_eq!(get.status(), 404, "{intruder:?} GET");
        let delete = alice
            .raw("DELETE", &as_user(alice.get_headers(), intruder), "")
            .await;
        assert_eq!(delete.status(), 404, "{intruder:?} DELETE");
    }
    // The owner is served, and its session survived the attempts.
    let post = alice
        .raw("POST", &as_user(alice.post_headers(), Some("alice")), &list)
        .await;
    assert_eq!(post.status(), 200);
    assert!(post.messages()[0]["result"]["tools"].is_array());
    let delete = alice
        .raw("DELETE", &as_user(alice.get_headers(), Some("alice")), "")
        .await;
    assert_eq!(delete.status(), 200);
    task.abort();
}
