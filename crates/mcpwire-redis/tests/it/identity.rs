//! A request's `RequestIdentity` crosses instances: a POST that lands on
//! instance B for a session whose runtime runs on A reaches A's handler
//! with the identity B's authentication established (and nothing else of
//! B's request extensions), so tasks bound to their requestor (TASK-47)
//! follow the requestor across sessions and instances. Two instances on
//! one real Redis, each behind a layer that stands in for an
//! authentication layer (the subject is the `x-user` header).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use crate::support::RedisServer;
use http::Request;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcpwire_client::{Client, ClientConfig};
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::{Config, RequestIdentity, StreamableHttp};
use mcpwire_redis::{RedisConfig, RedisStores};
use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{Arguments, Context, HandlerError, Server};
use mcpwire_test::proxy::RoundRobinProxy as Proxy;
use mcpwire_types::{
    CallToolResult, ClientCapabilities, ContentBlock, Implementation, ProtocolVersion, TaskSupport,
    Tool, ToolExecution,
};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A marker of the receiving instance that must not cross the bus.
#[derive(Clone)]
struct ReceivedOn(&'static str);

/// Says who called, where the caller was authenticated, and whether the
/// receiving instance's other extensions came along.
async fn whoami(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let context = ctx.transport_context();
    let identity = RequestIdentity::of(context);
    let marker = context
        .and_then(|any| any.downcast_ref::<http::Extensions>())
        .and_then(|extensions| extensions.get::<ReceivedOn>())
        .map_or("none", |marker| marker.0);
    let text = match identity {
        Some(identity) => format!(
            "{} of {} via {} (marker {marker})",
            identity.subject,
            identity.client_id.as_deref().unwrap_or("?"),
            identity.claims["verified_on"].as_str().unwrap_or("?"),
        ),
        None => format!("anonymous (marker {marker})"),
    };
    Ok(CallToolResult::text(text))
}

async fn slow(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Ok(CallToolResult::text("done"))
}

/// An instance named `name`: every request gets the identity of the user
/// its `x-user` header names (`alice` without one) with the claim
/// `verified_on: name`, as an authentication layer would set it. Tasks are
/// bound to that subject and kept in Redis.
async fn start(redis: RedisConfig, name: &'static str) -> (SocketAddr, JoinHandle<()>) {
    let stores = RedisStores::connect(redis).await.unwrap();
    let mut slow_tool = Tool::without_arguments("slow");
    slow_tool.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    let tasks = TaskOptions::new()
        .store(stores.tasks.clone())
        .requestor(|context| RequestIdentity::of(context).map(|identity| identity.subject.clone()));
    let server = Server::builder("identity", "1.0.0")
        .tool(Tool::without_arguments("whoami"), whoami)
        .tool(slow_tool, slow)
        .tasks(tasks)
        .build()
        .unwrap();
    let service = StreamableHttp::new(stores.apply(Config::default()), move |transport| {
        let server = server.clone();
        tokio::spawn(async move {
            let _ = server.serve(transport).await;
        });
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accept = tokio::spawn(async move {
        let _stores = stores;
        while let Ok((stream, _)) = listener.accept().await {
            let service = service.clone();
            tokio::spawn(async move {
                let authenticate = service_fn(move |mut request: Request<Incoming>| {
                    let service = service.clone();
                    async move {
                        let user = request
                            .headers()
                            .get("x-user")
                            .and_then(|value| value.to_str().ok())
                            .unwrap_or("alice")
                            .to_owned();
                        let identity = RequestIdentity::new(user)
                            .client_id("app-1")
                            .scopes(["tools"])
                            .claim("verified_on", json!(name));
                        request.extensions_mut().insert(identity);
                        request.extensions_mut().insert(ReceivedOn(name));
                        Ok::<_, Infallible>(service.handle(request).await)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), authenticate)
                    .await;
            });
        }
    });
    (addr, accept)
}

fn text_of(result: &CallToolResult) -> String {
    match result.content.first() {
        Some(ContentBlock::Text(text)) => text.text.clone(),
        other => format!("{other:?}"),
    }
}

/// A 2025-11-25 session of `user` through the proxy; with the backend
/// that runs its runtime (the one its `initialize` reached).
async fn connect(proxy: &Proxy, user: &str) -> (Client, usize) {
    let transport = StreamableHttpClient::new(&proxy.url("/mcp")).unwrap();
    transport.set_header(
        http::HeaderName::from_static("x-user"),
        http::HeaderValue::from_str(user).unwrap(),
    );
    let config = ClientConfig::new(
        Implementation::new("identity-test", "1.0.0"),
        ClientCapabilities::default(),
    )
    .pinned(ProtocolVersion::V2025_11_25);
    let client = tokio::time::timeout(
        Duration::from_secs(10),
        Client::builder(config).connect(transport),
    )
    .await
    .unwrap()
    .unwrap();
    let runtime = proxy
        .log()
        .iter()
        .rev()
        .find(|routed| routed.rpc_method.as_deref() == Some("initialize"))
        .unwrap()
        .backend;
    (client, runtime)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_sees_the_identity_of_a_post_received_on_another_instance() {
    let redis = RedisServer::start();
    let (a, a_task) = start(redis.config(), "a").await;
    let (b, b_task) = start(redis.config(), "b").await;
    let proxy = Proxy::start(crate::support::PROXY_LISTEN, vec![a, b])
        .await
        .unwrap();
    let (client, runtime) = connect(&proxy, "alice").await;
    let names = ["a", "b"];
    let (home, away) = (names[runtime], names[1 - runtime]);
    // Received on the other instance: the identity alone crossed the bus.
    proxy.pin("tools/call", 1 - runtime);
    let result = client.call_tool("whoami", ()).await.unwrap();
    assert_eq!(
        text_of(&result),
        format!("alice of app-1 via {away} (marker none)")
    );
    // Received on the runtime's own instance: every extension is there.
    proxy.pin("tools/call", runtime);
    let result = client.call_tool("whoami", ()).await.unwrap();
    assert_eq!(
        text_of(&result),
        format!("alice of app-1 via {home} (marker {home})")
    );
    let calls: Vec<usize> = proxy
        .log()
        .iter()
        .filter(|routed| routed.rpc_method.as_deref() == Some("tools/call"))
        .map(|routed| routed.backend)
        .collect();
    assert_eq!(calls, [1 - runtime, runtime]);
    client.close().await;
    a_task.abort();
    b_task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_created_through_another_instance_is_bound_to_its_requestor_not_its_session() {
    let redis = RedisServer::start();
    let (a, a_task) = start(redis.config(), "a").await;
    let (b, b_task) = start(redis.config(), "b").await;
    let proxy = Proxy::start(crate::support::PROXY_LISTEN, vec![a, b])
        .await
        .unwrap();
    let (alice, runtime) = connect(&proxy, "alice").await;
    // The call lands on the instance that does not run the session.
    proxy.pin("tools/call", 1 - runtime);
    let task = alice
        .call_tool_as_task("slow", Default::default(), None)
        .await
        .unwrap();
    let routed = proxy.log();
    let call = routed
        .iter()
        .rev()
        .find(|routed| routed.rpc_method.as_deref() == Some("tools/call"))
        .unwrap();
    assert_eq!(call.backend, 1 - runtime);
    // Another session of alice's sees it (bound to alice, not to the
    // session that created it); bob's does not.
    let (alice_again, _) = connect(&proxy, "alice").await;
    let seen = alice_again.get_task(&task.task_id).await.unwrap();
    assert_eq!(seen.task_id, task.task_id);
    let listed = alice_again.list_tasks(None).await.unwrap();
    assert_eq!(listed.tasks.len(), 1);
    let (bob, _) = connect(&proxy, "bob").await;
    assert!(bob.get_task(&task.task_id).await.is_err());
    assert!(bob.list_tasks(None).await.unwrap().tasks.is_empty());
    let result = alice_again.task_tool_result(&task.task_id).await.unwrap();
    assert_eq!(text_of(&result), "done");
    for client in [alice, alice_again, bob] {
        client.close().await;
    }
    a_task.abort();
    b_task.abort();
}
