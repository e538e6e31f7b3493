//! Sessions and `requestState` bound to the identity that created them
//! (issue 17 item 6): a session id is not authentication (SEC-10), so a
//! leaked id is useless to another user, and a sealed state names its
//! principal (ELIC-34; 2026-07-28 MRTR server requirements). A layer standing in for an authentication layer turns the
//! `x-user` header into the request's `RequestIdentity` (and `x-tag` into a
//! [`Tag`], to tell POSTs apart, and `x-probe` into a counted [`Probe`]); a
//! handler sees its own POST's, and nothing keeps them once it has.

use std::future::IntoFuture;

use http::Request;
use hyper::body::Incoming;
use mcpwire_http::server::{Config, RequestIdentity, StreamableHttp, serve};
use mcpwire_server::{Context, HandlerError, InputRequired, Server};
use mcpwire_types::{CallToolResult, Tool};
use serde_json::json;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::server_support::*;

/// Serves the test runtime behind the stand-in authentication layer.
async fn authenticated_server() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    authenticated_server_with(test_runtime()).await
}

/// Serves `runtime` behind the stand-in authentication layer.
async fn authenticated_server_with(
    runtime: Server,
) -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
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
        let tag = request
            .headers()
            .get("x-tag")
            .and_then(|value| value.to_str().ok())
            .map(|tag| Tag(tag.to_owned()));
        if let Some(tag) = tag {
            request.extensions_mut().insert(tag);
        }
        if request.headers().contains_key("x-probe") {
            request.extensions_mut().insert(Probe::new());
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

/// A runtime whose `counter` tool asks for a second round with a sealed
/// state, and finishes on the retry that brings it back.
fn stateful_runtime() -> Server {
    Server::builder("identity-state", "1.0.0")
        .tool(
            Tool::without_arguments("counter"),
            |ctx: Context, _args| async move {
                match ctx.request_state() {
                    Some(b"1") => Ok::<_, HandlerError>(CallToolResult::text("done")),
                    _ => Err(InputRequired::new().state(*b"1").into()),
                }
            },
        )
        .build()
        .unwrap()
}

/// The params of a `counter` call, with the state of a previous round.
fn counter_call(state: Option<&str>) -> serde_json::Value {
    let mut params = json!({"name": "counter", "arguments": {}});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    params
}

#[tokio::test]
async fn elic_34_a_request_state_minted_for_one_identity_is_refused_for_another() {
    let (addr, task) = authenticated_server_with(stateful_runtime()).await;
    let client = Client::new(addr);
    let first = client
        .post_2026(1, "tools/call", counter_call(None), &[("x-user", "alice")])
        .await;
    assert_eq!(first.status(), 200);
    let messages = first.messages();
    assert_eq!(messages[0]["result"]["resultType"], "input_required");
    let state = messages[0]["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    // Alice's state in other hands: another user, or no user at all. The
    // retry fails verification (-32602, HTTP 400 in 2026-07-28) before the
    // handler runs.
    for intruder in [Some("bob"), None] {
        let extra: Vec<(&str, &str)> = intruder.map(|user| ("x-user", user)).into_iter().collect();
        let retry = client
            .post_2026(2, "tools/call", counter_call(Some(&state)), &extra)
            .await;
        assert_eq!(retry.status(), 400, "{intruder:?}");
        let messages = retry.messages();
        assert_eq!(
            messages[0]["error"]["code"], -32602,
            "{intruder:?}: {messages:?}"
        );
    }
    // Its owner's retry goes through.
    let retry = client
        .post_2026(
            3,
            "tools/call",
            counter_call(Some(&state)),
            &[("x-user", "alice")],
        )
        .await;
    assert_eq!(retry.status(), 200);
    let messages = retry.messages();
    assert_eq!(
        messages[0]["result"]["content"][0]["text"], "done",
        "{messages:?}"
    );
    task.abort();
}

#[tokio::test]
async fn a_request_state_minted_without_an_identity_is_refused_for_an_identified_caller() {
    let (addr, task) = authenticated_server_with(stateful_runtime()).await;
    let client = Client::new(addr);
    let first = client
        .post_2026(1, "tools/call", counter_call(None), &[])
        .await;
    let state = first.messages()[0]["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let retry = client
        .post_2026(
            2,
            "tools/call",
            counter_call(Some(&state)),
            &[("x-user", "mallory")],
        )
        .await;
    assert_eq!(retry.messages()[0]["error"]["code"], -32602);
    let retry = client
        .post_2026(3, "tools/call", counter_call(Some(&state)), &[])
        .await;
    assert_eq!(retry.messages()[0]["result"]["content"][0]["text"], "done");
    task.abort();
}

/// What the stand-in layer puts into a request's extensions from `x-tag`.
#[derive(Clone)]
struct Tag(String);

/// A runtime whose `tag` tool answers with the [`Tag`] in its request's
/// transport context (the POST's extensions), or `none`.
fn tagging_runtime() -> Server {
    Server::builder("identity-tag", "1.0.0")
        .tool(
            Tool::without_arguments("tag"),
            |ctx: Context, _args| async move {
                let tag = ctx
                    .transport_context()
                    .and_then(|context| context.downcast_ref::<http::Extensions>())
                    .and_then(|extensions| extensions.get::<Tag>())
                    .map_or("none".to_owned(), |tag| tag.0.clone());
                Ok::<_, HandlerError>(CallToolResult::text(tag))
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn each_request_of_a_session_sees_the_extensions_of_its_own_post() {
    let (addr, task) = authenticated_server_with(tagging_runtime()).await;
    // 2025-03-26: batches too, whose requests share their POST's.
    let client = Client::connect(addr, V2025_03_26).await;
    let call = |id| request(id, "tools/call", json!({"name": "tag", "arguments": {}}));
    let text = |answer: &serde_json::Value| answer["result"]["content"][0]["text"].clone();
    for (id, tag) in [(1, "first"), (2, "second")] {
        let reply = within(client.post_with(&call(id), &[("x-tag", tag)])).await;
        assert_eq!(text(&reply.messages()[0]), tag);
    }
    let batch = format!("[{},{}]", call(3), call(4));
    let reply = within(client.post_with(&batch, &[("x-tag", "batch")])).await;
    let answers = reply.json();
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(
        answers.iter().all(|answer| text(answer) == "batch"),
        "{answers:?}"
    );
    let reply = within(client.post(&call(5))).await;
    assert_eq!(text(&reply.messages()[0]), "none");
    task.abort();
}

/// How many [`Probe`]s are alive (only the test below sends `x-probe`).
static LIVE_PROBES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// An extension whose copies are counted in [`LIVE_PROBES`].
struct Probe;

impl Probe {
    fn new() -> Self {
        LIVE_PROBES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Probe
    }
}

impl Clone for Probe {
    fn clone(&self) -> Self {
        Probe::new()
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        LIVE_PROBES.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test]
async fn a_session_lets_go_of_a_posts_extensions_once_its_request_took_them() {
    let (addr, task) = authenticated_server_with(tagging_runtime()).await;
    let client = Client::connect(addr, V2025_11_25).await;
    let call = request(1, "tools/call", json!({"name": "tag", "arguments": {}}));
    let reply = within(client.post_with(&call, &[("x-probe", "1")])).await;
    assert_eq!(reply.messages()[0]["result"]["content"][0]["text"], "none");
    // The session stays open and idle: its runtime must not keep the
    // POST's extensions (an identity, a token) until its next POST. The
    // handler's copy goes when it ends, just after the answer: 10 s is far
    // beyond that on a loaded machine.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while LIVE_PROBES.load(std::sync::atomic::Ordering::SeqCst) != 0
        && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(LIVE_PROBES.load(std::sync::atomic::Ordering::SeqCst), 0);
    task.abort();
}
