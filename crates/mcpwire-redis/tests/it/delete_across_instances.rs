//! Ending a session (HTTP-41) on whichever instance the DELETE lands:
//! three instances on one Redis behind the round-robin proxy; the session's
//! runtime runs on one, its standalone GET stream (HTTP-25) is held by
//! another, and the DELETE reaches a third. Afterwards no instance keeps
//! the runtime, a stream connection or the record, and the id is refused
//! everywhere (HTTP-39).

use std::time::{Duration, Instant};

use crate::support::RedisServer;
use crate::support::cluster::Instance;
use http::Method;
use mcpwire_client::{Client, ClientConfig};
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::{Config, SessionStore};
use mcpwire_redis::RedisStores;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_test::proxy::RoundRobinProxy as Proxy;
use mcpwire_types::{CallToolResult, ClientCapabilities, Implementation, ProtocolVersion, Tool};

fn quick_server() -> Server {
    Server::builder("deleted", "1.0.0")
        .tool(Tool::without_arguments("quick"), |_ctx: Context, _| async {
            Ok::<_, HandlerError>(CallToolResult::text("quick"))
        })
        .build()
        .unwrap()
}

/// What every instance holds: (runtimes, stream connections).
fn held(stores: &[RedisStores]) -> Vec<(usize, usize)> {
    stores
        .iter()
        .map(|stores| (stores.bus.runtime_count(), stores.bus.connection_count()))
        .collect()
}

/// Waits up to 5 s for `check` to hold of what the instances hold.
async fn eventually(stores: &[RedisStores], check: impl Fn(&[(usize, usize)]) -> bool) {
    let started = Instant::now();
    loop {
        let now = held(stores);
        if check(&now) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "still held after 5 s: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_on_any_instance_ends_the_runtime_and_streams_held_by_the_others() {
    let redis = RedisServer::start();
    let mut instances = Vec::new();
    let mut stores = Vec::new();
    for _ in 0..3 {
        let (stores_tx, stores_rx) = std::sync::mpsc::channel();
        instances.push(Instance::start_with(
            Some(redis.config()),
            move |own: Option<&RedisStores>| {
                stores_tx.send(own.unwrap().clone()).unwrap();
                quick_server()
            },
            Config::default(),
        ));
        stores.push(stores_rx.recv_timeout(Duration::from_secs(10)).unwrap());
    }
    let proxy = Proxy::start(
        crate::support::PROXY_LISTEN,
        instances.iter().map(|instance| instance.addr).collect(),
    )
    .await
    .unwrap();
    let transport = StreamableHttpClient::new(&proxy.url("/mcp")).unwrap();
    let config = ClientConfig::new(
        Implementation::new("delete-test", "1.0.0"),
        ClientCapabilities::default(),
    )
    .pinned(ProtocolVersion::V2025_11_25);
    let client = Client::builder(config).connect(transport).await.unwrap();
    for _ in 0..3 {
        client.call_tool("quick", ()).await.unwrap();
    }
    // One runtime in all, and the standalone GET stream held somewhere.
    eventually(&stores, |now| {
        now.iter().map(|(runtimes, _)| runtimes).sum::<usize>() == 1
            && now
                .iter()
                .map(|(_, connections)| connections)
                .sum::<usize>()
                >= 1
    })
    .await;
    let log = proxy.log();
    let runtime = log
        .iter()
        .find(|routed| routed.rpc_method.as_deref() == Some("initialize"))
        .unwrap()
        .backend;
    let stream = log
        .iter()
        .find(|routed| routed.method == Method::GET)
        .expect("the client opened its standalone stream")
        .backend;
    // The proxy sends the next request to backend `log.len() % 3`: make
    // calls until that is neither the runtime's nor the stream's instance.
    for _ in 0..3 {
        let next = proxy.log().len() % 3;
        if next != runtime && next != stream {
            break;
        }
        client.call_tool("quick", ()).await.unwrap();
    }
    client.close().await;
    let deleted = proxy
        .log()
        .iter()
        .find(|routed| routed.method == Method::DELETE)
        .expect("the client sent DELETE")
        .clone();
    assert_eq!(deleted.status, http::StatusCode::OK, "{deleted:?}");
    assert!(
        deleted.backend != runtime && deleted.backend != stream,
        "runtime on {runtime}, GET stream on {stream}, DELETE on {}",
        deleted.backend
    );
    // Nothing of the session is left on any instance, nor in Redis.
    eventually(&stores, |now| now.iter().all(|held| *held == (0, 0))).await;
    for own in &stores {
        assert_eq!(own.sessions.count().await.unwrap(), 0);
    }
}
