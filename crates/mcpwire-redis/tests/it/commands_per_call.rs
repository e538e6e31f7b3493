//! What a call costs Redis, counted by Redis itself (`INFO commandstats`):
//! on the instance that runs its session's runtime, a call answered as
//! plain JSON in the default `Auto` mode makes one command (the session's
//! touch, which also numbers its stream); nothing is logged, routed or
//! published.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::support::RedisServer;
use crate::support::cluster::Instance;
use mcpwire_client::{Client, ClientConfig};
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::Config;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::{CallToolResult, ClientCapabilities, Implementation, ProtocolVersion, Tool};

/// Calls per command name, from `INFO commandstats`.
fn command_calls(port: u16) -> BTreeMap<String, u64> {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}/")).unwrap();
    let mut connection = client.get_connection().unwrap();
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(&mut connection)
        .unwrap();
    info.lines()
        .filter_map(|line| {
            let (name, rest) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = rest
                .strip_prefix("calls=")?
                .split(',')
                .next()?
                .parse()
                .ok()?;
            Some((name.to_owned(), calls))
        })
        .collect()
}

/// What changed between two readings, without the `INFO` reads themselves.
fn made(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    after
        .iter()
        .filter(|(name, _)| name.as_str() != "info")
        .filter_map(|(name, calls)| {
            let more = calls - before.get(name).copied().unwrap_or(0);
            (more > 0).then(|| (name.clone(), more))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_answer_costs_one_redis_command_on_the_runtimes_instance() {
    let redis = RedisServer::start();
    // Route refreshes every 200 s: none during the test.
    let stores = redis.config().route_ttl(Duration::from_secs(600));
    let server = Server::builder("counted", "1.0.0")
        .tool(Tool::without_arguments("quick"), |_ctx: Context, _| async {
            Ok::<_, HandlerError>(CallToolResult::text("quick"))
        })
        .build()
        .unwrap();
    let instance = Instance::start(Some(stores), server, Config::default());
    let config = ClientConfig::new(
        Implementation::new("counter", "1.0.0"),
        ClientCapabilities::default(),
    )
    .pinned(ProtocolVersion::V2025_11_25);
    let url = format!("http://{}/mcp", instance.addr);
    let client = Client::connect(StreamableHttpClient::new(&url).unwrap(), config)
        .await
        .unwrap();
    client.call_tool("quick", ()).await.unwrap();
    // What the first call spawned after its answer settles first.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = command_calls(redis.port);
    for _ in 0..10 {
        client.call_tool("quick", ()).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = command_calls(redis.port);
    // Redis counts the commands a script runs too: the scripts are told
    // apart by their count, and the commands a server sends on its own
    // (a route's `SET`, a `PUBLISH`) or that only logging runs (`RPUSH`)
    // must not appear at all.
    let made = made(&before, &after);
    assert_eq!(
        made.get("evalsha"),
        Some(&10),
        "ten calls, one script each (the session's touch): {made:?}"
    );
    for name in ["set", "publish", "eval", "rpush", "lrem"] {
        assert!(!made.contains_key(name), "{name}: {made:?}");
    }
}
