//! The `requestState` keys shared through Redis (`RedisKeyRing`): a multi
//! round-trip request (2026-07-28) started on one instance finishes on
//! another, and after a rotation on one instance the others seal with the
//! new key and still open states sealed with the old one; a Redis that
//! restarts without them gets the keys back. Real Redis,
//! stateless HTTP requests sent straight to chosen instances.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::RedisServer;
use crate::support::cluster::Instance;
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::Config;
use mcpwire_jsonrpc::{Inbound, Packet};
use mcpwire_redis::{RedisKeyRing, RedisStores};
use mcpwire_server::{Arguments, Context, HandlerError, InputRequired, MAX_PREVIOUS_KEYS, Server};
use mcpwire_types::{CallToolResult, Tool};
use serde_json::{Value, json};

/// Three rounds: the state says which one the retry answers.
async fn counter(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    match ctx.request_state() {
        Some(b"3") => Ok(CallToolResult::text("done")),
        Some(b"2") => Err(InputRequired::new().state(*b"3").into()),
        Some(b"1") => Err(InputRequired::new().state(*b"2").into()),
        _ => Err(InputRequired::new().state(*b"1").into()),
    }
}

fn builder() -> mcpwire_server::ServerBuilder {
    Server::builder("rounds", "1.0.0").tool(Tool::without_arguments("counter"), counter)
}

/// An instance whose server seals with a ring shared through Redis; with
/// that ring, which follows Redis from the test's runtime (the instance
/// builds its server synchronously) for as long as the caller keeps it.
async fn start(redis: &RedisServer) -> (Instance, Arc<RedisKeyRing>) {
    let stores = RedisStores::connect(redis.config()).await.unwrap();
    let keys = stores.key_ring().await.unwrap();
    // The same stores answer the same ring.
    assert!(Arc::ptr_eq(
        &keys,
        &stores.clone().key_ring().await.unwrap()
    ));
    let server = builder().request_state_keys(keys.ring()).build().unwrap();
    let instance = Instance::start(Some(redis.config()), server, Config::default());
    (instance, keys)
}

/// One `tools/call` of the counter on the instance at `addr`, carrying
/// `state` if given: the JSON-RPC answer.
async fn call(addr: SocketAddr, state: Option<&str>) -> Value {
    let mut params = json!({
        "name": "counter",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "rounds-test", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let mut client = StreamableHttpClient::new(&format!("http://{addr}/mcp")).unwrap();
    client
        .send(Packet::from_slice(body.to_string().as_bytes()).unwrap())
        .await
        .unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(10), client.recv())
        .await
        .expect("answered within 10 s")
        .expect("an answer")
        .unwrap();
    let Inbound::Single(message) = answer else {
        panic!("not a single message: {answer:?}");
    };
    serde_json::to_value(&message).unwrap()
}

/// The sealed state of an `input_required` answer.
fn state_of(answer: &Value) -> String {
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    answer["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state: {answer}"))
        .to_owned()
}

fn is_invalid_state(answer: &Value) -> bool {
    answer["error"]["code"] == -32602
}

/// The keys stored in Redis, newest first.
async fn stored_keys(redis: &RedisServer) -> Vec<[u8; 32]> {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<Vec<u8>> = redis::cmd("LRANGE")
        .arg("mcpwire:statekeys")
        .arg(0)
        .arg(-1)
        .query_async(&mut connection)
        .await
        .unwrap();
    keys.into_iter()
        .map(|key| key.try_into().unwrap())
        .collect()
}

/// An instance with in-memory stores whose server holds `key` alone: a
/// state opens there only if `key` sealed it.
fn single_key_instance(key: [u8; 32]) -> Instance {
    let server = builder().request_state_key(key).build().unwrap();
    Instance::start(None, server, Config::default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_started_on_one_instance_finishes_on_another() {
    let redis = RedisServer::start();
    // No key is stored until some instance asks for the ring.
    let _stores = RedisStores::connect(redis.config()).await.unwrap();
    assert!(stored_keys(&redis).await.is_empty());
    let (a, _a_keys) = start(&redis).await;
    let (b, _b_keys) = start(&redis).await;
    // Both instances agreed on the one key the first of them created.
    assert_eq!(stored_keys(&redis).await.len(), 1);
    let first = state_of(&call(a.addr, None).await);
    let second = state_of(&call(b.addr, Some(&first)).await);
    let third = state_of(&call(a.addr, Some(&second)).await);
    let done = call(b.addr, Some(&third)).await;
    assert_eq!(done["result"]["content"][0]["text"], "done", "{done}");
    // An instance with a key of its own does not open them.
    let stranger = single_key_instance([7; 32]);
    assert!(is_invalid_state(&call(stranger.addr, Some(&first)).await));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_rotation_on_one_instance_the_other_seals_with_the_new_key_and_opens_the_old() {
    let redis = RedisServer::start();
    let (a, a_keys) = start(&redis).await;
    let (b, _b_keys) = start(&redis).await;
    let sealed_before = state_of(&call(b.addr, None).await);
    let old_key = stored_keys(&redis).await[0];
    a_keys.rotate().await.unwrap();
    let keys = stored_keys(&redis).await;
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[1], old_key);
    let new_only = single_key_instance(keys[0]);
    // B follows within a bounded time (the announcement, usually at once).
    let started = Instant::now();
    loop {
        let sealed_after = state_of(&call(b.addr, None).await);
        let opened = call(new_only.addr, Some(&sealed_after)).await;
        if !is_invalid_state(&opened) {
            state_of(&opened);
            break;
        }
        assert!(
            started.elapsed() < RedisKeyRing::REFRESH,
            "B still seals with the old key"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The round started before the rotation goes on, on either instance.
    assert!(is_invalid_state(
        &call(new_only.addr, Some(&sealed_before)).await
    ));
    let second = state_of(&call(a.addr, Some(&sealed_before)).await);
    let third = state_of(&call(b.addr, Some(&second)).await);
    let done = call(a.addr, Some(&third)).await;
    assert_eq!(done["result"]["content"][0]["text"], "done", "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotations_keep_the_current_key_and_at_most_four_previous_everywhere() {
    let redis = RedisServer::start();
    let (a, a_keys) = start(&redis).await;
    let (b, b_keys) = start(&redis).await;
    let oldest = state_of(&call(a.addr, None).await);
    a_keys.rotate().await.unwrap();
    let kept = state_of(&call(a.addr, None).await);
    for _ in 0..MAX_PREVIOUS_KEYS - 1 {
        b_keys.rotate().await.unwrap();
    }
    assert_eq!(stored_keys(&redis).await.len(), MAX_PREVIOUS_KEYS + 1);
    // One rotation more pushes out the key that sealed `oldest`.
    b_keys.rotate().await.unwrap();
    assert_eq!(stored_keys(&redis).await.len(), MAX_PREVIOUS_KEYS + 1);
    a_keys.refresh().await.unwrap();
    for addr in [a.addr, b.addr] {
        assert!(is_invalid_state(&call(addr, Some(&oldest)).await));
        state_of(&call(addr, Some(&kept)).await);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keys_are_written_back_after_redis_restarts_without_them() {
    let mut redis = RedisServer::start();
    let (a, _a_keys) = start(&redis).await;
    let (b, _b_keys) = start(&redis).await;
    let first = state_of(&call(a.addr, None).await);
    let before = stored_keys(&redis).await;
    tokio::task::block_in_place(|| redis.restart());
    // Resubscribed, the rings re-read the keys and find none: they write
    // back the ones they hold (well within the periodic re-read).
    let started = Instant::now();
    while stored_keys(&redis).await != before {
        assert!(
            started.elapsed() < RedisKeyRing::REFRESH,
            "the keys were not written back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The round started before the restart goes on.
    let second = state_of(&call(b.addr, Some(&first)).await);
    state_of(&call(a.addr, Some(&second)).await);
}
