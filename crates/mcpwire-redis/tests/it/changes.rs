//! Catalog changes across instances through `RedisChangeFeed`: a tool
//! added or a resource updated on one instance reaches the
//! `subscriptions/listen` requests (2026-07-28) held open on the others,
//! and the handshake-era session whose runtime runs elsewhere
//! (`notifications/resources/updated` to a subscriber, `list_changed`).
//! Three instances on one real Redis.

use std::time::Duration;

use crate::support::RedisServer;
use crate::support::cluster::Instance;
use mcpwire_client::{Client, ClientConfig};
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::Config;
use mcpwire_jsonrpc::{Inbound, Packet};
use mcpwire_redis::RedisStores;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_test::proxy::RoundRobinProxy as Proxy;
use mcpwire_types::methods::ServerNotification;
use mcpwire_types::{
    CallToolResult, ClientCapabilities, Implementation, ProtocolVersion, ReadResourceResult,
    Resource, ResourceContents, Tool,
};
use serde_json::{Value, json};

const DOC: &str = "file:///doc.txt";

/// A server whose catalog changes travel through the instance's feed.
fn changing_server(stores: Option<&RedisStores>) -> Server {
    Server::builder("changing", "1.0.0")
        .tool(Tool::without_arguments("first"), |_ctx: Context, _| async {
            Ok::<_, HandlerError>(CallToolResult::text("first"))
        })
        .resource(Resource::new(DOC, "doc"), |_ctx: Context, uri| async move {
            let contents = ResourceContents::text(&uri, "text/plain", "v1");
            Ok::<_, HandlerError>(ReadResourceResult::new(vec![contents]))
        })
        .change_feed(stores.expect("a Redis deployment").changes.clone())
        .build()
        .unwrap()
}

/// `count` instances on `redis`, each with a handle on its server.
fn deploy(redis: &RedisServer, count: usize) -> Vec<(Instance, Server)> {
    (0..count)
        .map(|_| {
            let (handle_tx, handle_rx) = std::sync::mpsc::channel();
            let instance = Instance::start_with(
                Some(redis.config()),
                move |stores| {
                    let server = changing_server(stores);
                    handle_tx.send(server.clone()).unwrap();
                    server
                },
                Config::default().retry_interval(Duration::from_millis(100)),
            );
            let server = handle_rx.recv_timeout(Duration::from_secs(10)).unwrap();
            (instance, server)
        })
        .collect()
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "listener", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// The next message on `client` as JSON, within `wait`.
async fn next_message(client: &mut StreamableHttpClient, wait: Duration) -> Option<Value> {
    let inbound = tokio::time::timeout(wait, client.recv()).await.ok()??;
    let Inbound::Single(message) = inbound.unwrap() else {
        panic!("not a single message");
    };
    Some(serde_json::to_value(&message).unwrap())
}

/// A `subscriptions/listen` request held open on the instance at `addr`,
/// acknowledged.
async fn listen(addr: std::net::SocketAddr) -> StreamableHttpClient {
    let mut client = StreamableHttpClient::new(&format!("http://{addr}/mcp")).unwrap();
    let params = json!({
        "_meta": meta(),
        "notifications": {"toolsListChanged": true, "resourceSubscriptions": [DOC]}
    });
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params});
    client
        .send(Packet::from_slice(body.to_string().as_bytes()).unwrap())
        .await
        .unwrap();
    let ack = next_message(&mut client, Duration::from_secs(10))
        .await
        .expect("acknowledged within 10 s");
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    client
}

/// The next notification on a listen, which must be `method`, tagged with
/// the listen's id.
async fn expect_notification(client: &mut StreamableHttpClient, method: &str) -> Value {
    let message = next_message(client, Duration::from_secs(10))
        .await
        .unwrap_or_else(|| panic!("no {method} within 10 s"));
    assert_eq!(message["method"], method, "{message}");
    assert_eq!(
        message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 1,
        "{message}"
    );
    message
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_made_on_one_instance_reach_listeners_on_every_instance_once() {
    let redis = RedisServer::start();
    let deployment = deploy(&redis, 3);
    let mut listeners = Vec::new();
    for (instance, _) in &deployment {
        listeners.push(listen(instance.addr).await);
    }
    let changer = &deployment[1].1;
    changer
        .add_tool(
            Tool::without_arguments("second"),
            |_ctx: Context, _| async { Ok::<_, HandlerError>(CallToolResult::text("second")) },
        )
        .unwrap();
    for listener in &mut listeners {
        expect_notification(listener, "notifications/tools/list_changed").await;
    }
    changer.resource_updated(DOC);
    for listener in &mut listeners {
        let updated = expect_notification(listener, "notifications/resources/updated").await;
        assert_eq!(updated["params"]["uri"], DOC, "{updated}");
    }
    // An update of a resource nobody listens to is sent to nobody; then
    // nothing else arrives: in particular the changing instance does not
    // hear its own changes again from Redis.
    changer.resource_updated("file:///other.txt");
    for listener in &mut listeners {
        let extra = next_message(listener, Duration::from_millis(700)).await;
        assert_eq!(extra, None, "an unexpected message");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_session_hears_changes_made_on_instances_other_than_its_runtimes() {
    let redis = RedisServer::start();
    let deployment = deploy(&redis, 3);
    let proxy = Proxy::start(
        crate::support::PROXY_LISTEN,
        deployment.iter().map(|(i, _)| i.addr).collect(),
    )
    .await
    .unwrap();
    let transport = StreamableHttpClient::new(&proxy.url("/mcp")).unwrap();
    let config = ClientConfig::new(
        Implementation::new("subscriber", "1.0.0"),
        ClientCapabilities::default(),
    )
    .pinned(ProtocolVersion::V2025_11_25);
    let client = Client::builder(config).connect(transport).await.unwrap();
    let mut notifications = client.notifications();
    client.subscribe(DOC).await.unwrap();
    let runtime = proxy
        .log()
        .iter()
        .find(|routed| routed.rpc_method.as_deref() == Some("initialize"))
        .unwrap()
        .backend;
    let elsewhere = &deployment[(runtime + 1) % 3].1;
    elsewhere.resource_updated(DOC);
    elsewhere.remove_tool("first");
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while seen.len() < 2 {
        let notification = tokio::time::timeout_at(deadline, notifications.recv())
            .await
            .unwrap_or_else(|_| panic!("only {seen:?} within 10 s"))
            .unwrap();
        match notification {
            ServerNotification::ResourceUpdated(params) => seen.push(params.uri.clone()),
            ServerNotification::ToolListChanged(_) => seen.push("tools".to_owned()),
            _ => {}
        }
    }
    assert_eq!(seen, [DOC, "tools"]);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_is_told_every_list_changed_once_its_instance_resubscribes_after_a_redis_restart()
 {
    let mut redis = RedisServer::start();
    let deployment = deploy(&redis, 1);
    let mut listener = listen(deployment[0].0.addr).await;
    tokio::task::block_in_place(|| redis.restart());
    // Changes published while the feed was unsubscribed may be lost: once
    // it is back, the listener hears that the tools changed and the
    // resource it follows was updated, whatever happened meanwhile.
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let message = next_message(&mut listener, Duration::from_secs(15))
            .await
            .unwrap_or_else(|| panic!("only {seen:?} within 15 s"));
        seen.push(message["method"].as_str().unwrap().to_owned());
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "notifications/resources/updated",
            "notifications/tools/list_changed"
        ]
    );
}
