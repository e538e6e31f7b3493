//! What a call costs Redis, counted by Redis itself (`INFO commandstats`):
//! on the instance that runs its session's runtime, a call answered as
//! plain JSON in the default `Auto` mode makes one command (the session's
//! touch, which also numbers its stream); nothing is logged, routed or
//! published. An instance that serves a session whose runtime runs on
//! another one looks that runtime up once, not twice per call.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::support::RedisServer;
use crate::support::cluster::Instance;
use bytes::Bytes;
use futures_util::StreamExt;
use mcpwire_client::{Client, ClientConfig};
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::{Config, Envelope, MessageBus, ResponseMode, SessionId, StreamKey};
use mcpwire_redis::RedisStores;
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

/// The Redis commands ten calls of a trivial tool make on one instance
/// serving `http`, after one call to warm up. Route refreshes come every
/// 200 s: none during the count; what a call spawns after its answer gets
/// 200 ms to settle before each reading.
async fn commands_of_ten_calls(http: Config) -> BTreeMap<String, u64> {
    let redis = RedisServer::start();
    let stores = redis.config().route_ttl(Duration::from_secs(600));
    let server = Server::builder("counted", "1.0.0")
        .tool(Tool::without_arguments("quick"), |_ctx: Context, _| async {
            Ok::<_, HandlerError>(CallToolResult::text("quick"))
        })
        .build()
        .unwrap();
    let instance = Instance::start(Some(stores), server, http);
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
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = command_calls(redis.port);
    for _ in 0..10 {
        client.call_tool("quick", ()).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    made(&before, &command_calls(redis.port))
}

/// In `Sse` mode every answer is resumable: each call opens its stream's
/// log, logs the answer (`RPUSH`, inside a script) and routes its stream
/// (`SET`) before the priming event goes out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sse_answer_is_logged_and_its_stream_routed() {
    let made = commands_of_ten_calls(Config::default().response_mode(ResponseMode::Sse)).await;
    assert_eq!(
        made.get("rpush"),
        Some(&30),
        "per call: the answer, its place in the session's order of events, and its stream among those delivered whole: {made:?}"
    );
    assert_eq!(made.get("set"), Some(&10), "one route per call: {made:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_answer_costs_one_redis_command_on_the_runtimes_instance() {
    let made = commands_of_ten_calls(Config::default()).await;
    // Redis counts the commands a script runs too: the scripts are told
    // apart by their count, and the commands a server sends on its own
    // (a route's `SET`, a `PUBLISH`) or that only logging runs (`RPUSH`)
    // must not appear at all.
    assert_eq!(
        made.get("evalsha"),
        Some(&10),
        "ten calls, one script each (the session's touch): {made:?}"
    );
    for name in ["set", "publish", "eval", "rpush", "lrem"] {
        assert!(!made.contains_key(name), "{name}: {made:?}");
    }
}

/// After its first lookup, an instance remembers which other instance runs
/// a session's runtime: attaching a stream of that session and delivering
/// to it then read nothing from Redis (only the stream's route is written
/// and the message published). Once the session is closed (on any
/// instance), it forgets, and a delivery finds no runtime.
#[tokio::test]
async fn an_instance_looks_up_a_remote_runtime_once() {
    let redis = RedisServer::start();
    let runtime_side = RedisStores::connect(redis.config()).await.unwrap().bus;
    let http_side = RedisStores::connect(redis.config()).await.unwrap().bus;
    let s = SessionId::parse("remembered").unwrap();
    let mut inbox = runtime_side.register(&s, 8).await.unwrap();
    let envelope = |stream| Envelope::new(Bytes::from_static(b"[1]"), Some(stream), false);
    let _first = http_side
        .subscribe(&StreamKey::new(s.clone(), 1), 4)
        .await
        .unwrap();
    assert!(http_side.deliver(&s, envelope(1)).await.unwrap());
    let before = command_calls(redis.port);
    let _second = http_side
        .subscribe(&StreamKey::new(s.clone(), 2), 4)
        .await
        .unwrap();
    assert!(http_side.deliver(&s, envelope(2)).await.unwrap());
    let made = made(&before, &command_calls(redis.port));
    assert_eq!(
        made,
        BTreeMap::from([("publish".to_owned(), 1), ("set".to_owned(), 1)]),
        "the stream's route and the delivery, no lookup"
    );
    for stream in [1, 2] {
        let delivered = tokio::time::timeout(Duration::from_secs(5), inbox.next()).await;
        assert_eq!(delivered.unwrap(), Some(envelope(stream)));
    }
    runtime_side.close(&s).await.unwrap();
    // The close reaches the other instance on the bus: within 5 s.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while http_side.deliver(&s, envelope(3)).await.unwrap() {
        assert!(
            std::time::Instant::now() < deadline,
            "still delivered after the close"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
