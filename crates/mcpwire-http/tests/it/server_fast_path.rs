//! The POST fast path (`StreamableHttp::with_runtime`): a POST to an idle
//! session polls the session's runtime on the POST's own task; a POST to a
//! busy session leaves its message in the inbox for whoever polls the
//! runtime; a POST whose client leaves loses nothing.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpwire_http::server::{Config, ResponseMode, SessionTransport, StreamableHttp};
use mcpwire_jsonrpc::{Inbound, Message, Packet, Response};
use serde_json::json;
use tokio::net::TcpListener;

use super::server_support::*;

/// What the runtime saw: per request, its method and the task that
/// handled it.
type Log = Arc<Mutex<Vec<(String, Option<tokio::task::Id>)>>>;

/// A runtime written on the transport alone: `initialize`, `whoami` (at
/// once), `block` (after holding its poll for [`BLOCK`], as a runtime that
/// computes inline does) and `nap` (after awaiting 200 ms).
async fn runtime(mut transport: SessionTransport, log: Log) {
    while let Some(Ok(inbound)) = transport.recv().await {
        let Inbound::Single(Message::Request(request)) = inbound else {
            continue;
        };
        let task = tokio::task::try_id();
        log.lock().unwrap().push((request.method.clone(), task));
        let result = match request.method.as_str() {
            "initialize" => json!({"protocolVersion": V2025_06_18, "capabilities": {},
                "serverInfo": {"name": "fast", "version": "1.0.0"}}),
            "block" => {
                // In place: a worker thread asleep in a plain sleep keeps
                // the tasks queued behind it (tokio's LIFO slot cannot be
                // stolen), such as the accept of the next POST's connection.
                tokio::task::block_in_place(|| std::thread::sleep(BLOCK));
                json!({})
            }
            "nap" => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                json!({})
            }
            _ => json!({}),
        };
        let answer = Response::new(request.id.clone(), &result).unwrap();
        let _ = transport
            .send_related(Packet::from(answer), Some(&request.id))
            .await;
    }
}

/// How long `block` holds the runtime's poll: long enough for another POST
/// to reach the session meanwhile on a loaded 2-core machine running debug
/// builds.
const BLOCK: Duration = Duration::from_secs(1);

/// A server running `runtime` per session, through the fast path or
/// (`spawned`) on tasks the connect hook spawns.
async fn start(mode: ResponseMode, spawned: bool) -> (TestServer, Log) {
    let log = Log::default();
    let config = Config::new().response_mode(mode);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let service = if spawned {
        let log = log.clone();
        StreamableHttp::new(config, move |transport| {
            tokio::spawn(runtime(transport, log.clone()));
        })
    } else {
        let log = log.clone();
        StreamableHttp::with_runtime(config, move |transport| runtime(transport, log.clone()))
    };
    let server = TestServer::hosting(listener, service, Handles::default(), Arc::default());
    (server, log)
}

/// The tasks that handled the requests called `method`.
fn tasks_of(log: &Log, method: &str) -> Vec<Option<tokio::task::Id>> {
    let log = log.lock().unwrap();
    log.iter()
        .filter(|(seen, _)| seen == method)
        .map(|(_, task)| *task)
        .collect()
}

/// Waits (within a test step) until the runtime has begun a `method` call.
async fn wait_for(log: &Log, method: &str) {
    within(async {
        while tasks_of(log, method).is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
}

/// Four `whoami` calls, each on a connection of its own, answered in turn.
async fn four_calls(client: &Client) {
    for id in 1..=4 {
        let reply = within(client.post(&request(id, "whoami", json!({})))).await;
        assert_eq!(reply.status(), 200);
        assert_eq!(reply.messages()[0]["id"], id);
    }
}

#[tokio::test]
async fn posts_to_an_idle_session_are_answered_on_their_own_connections_tasks() {
    for mode in [ResponseMode::Json, ResponseMode::Sse] {
        let (server, log) = start(mode, false).await;
        let client = Client::connect(server.addr, V2025_06_18).await;
        four_calls(&client).await;
        let tasks = tasks_of(&log, "whoami");
        assert_eq!(tasks.len(), 4);
        // Each POST polled the runtime itself (an idle session, one POST
        // at a time): four connections, four tasks. The session's own task
        // would be one.
        let distinct: HashSet<_> = tasks.iter().collect();
        assert_eq!(distinct.len(), 4, "{mode:?}: {tasks:?}");
        assert!(tasks.iter().all(Option::is_some));
        server.stop().await;
    }
}

#[tokio::test]
async fn without_the_fast_path_every_post_crosses_to_the_session_task() {
    // The contrast that makes the test above mean something: the same
    // calls through a connect hook that spawns are all handled on one task.
    let (server, log) = start(ResponseMode::Json, true).await;
    let client = Client::connect(server.addr, V2025_06_18).await;
    four_calls(&client).await;
    let distinct: HashSet<_> = tasks_of(&log, "whoami").into_iter().collect();
    assert_eq!(distinct.len(), 1, "{distinct:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_post_to_a_busy_session_is_taken_by_its_poller_in_order() {
    let (server, log) = start(ResponseMode::Json, false).await;
    let client = Client::connect(server.addr, V2025_06_18).await;
    let started = Instant::now();
    let blocking = {
        let client = client.clone();
        tokio::spawn(async move { within(client.post(&request(1, "block", json!({})))).await })
    };
    // `whoami` is sent once `block` has begun (the runtime logs a request
    // before handling it), so it finds the session busy for most of BLOCK.
    wait_for(&log, "block").await;
    let reply = within(client.post(&request(2, "whoami", json!({})))).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.messages()[0]["id"], 2);
    assert!(started.elapsed() >= BLOCK);
    let blocked = within(blocking).await.unwrap();
    assert_eq!(blocked.status(), 200);
    assert_eq!(blocked.messages()[0]["id"], 1);
    let log = log.lock().unwrap().clone();
    let order: Vec<&str> = log.iter().map(|(method, _)| method.as_str()).collect();
    assert_eq!(order, ["initialize", "block", "whoami"]);
    // The POST of `block` held the runtime and polled it again for the
    // message that arrived meanwhile: `whoami` was handled on its task.
    assert_eq!(log[1].1, log[2].1);
    server.stop().await;
}

#[tokio::test]
async fn a_post_whose_client_leaves_mid_call_loses_nothing() {
    let (server, log) = start(ResponseMode::Sse, false).await;
    let client = Client::connect(server.addr, V2025_06_18).await;
    {
        // The runtime takes `nap` on this POST's task and awaits; the
        // client leaves before the answer.
        let mut conn = Conn::open(server.addr).await;
        let body = request(1, "nap", json!({}));
        conn.send("POST", &client.post_headers(), body.as_bytes())
            .await;
        // Within the nap: it has begun (the runtime logs a request before
        // handling it) and lasts 200 ms.
        wait_for(&log, "nap").await;
        drop(conn);
    }
    // The session goes on: the nap finishes on the session's task and the
    // next call is answered.
    tokio::time::sleep(Duration::from_millis(300)).await;
    four_calls(&client).await;
    let order: Vec<String> = log.lock().unwrap().iter().map(|(m, _)| m.clone()).collect();
    assert_eq!(
        order,
        ["initialize", "nap", "whoami", "whoami", "whoami", "whoami"]
    );
    // Nothing stays open for the POST that left.
    for _ in 0..100 {
        if server.service.stats().await.open_streams == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.service.stats().await.open_streams, 0);
    server.stop().await;
}

#[tokio::test]
async fn the_session_ends_with_its_runtime_and_its_id_gets_404() {
    let (server, _log) = start(ResponseMode::Json, false).await;
    let client = Client::connect(server.addr, V2025_06_18).await;
    let deleted = client.raw("DELETE", &client.post_headers(), "").await;
    assert_eq!(deleted.status(), 200);
    let reply = within(client.post(&request(1, "whoami", json!({})))).await;
    assert_eq!(reply.status(), 404);
    for _ in 0..100 {
        if server.service.stats().await.live_transports == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stats = server.service.stats().await;
    assert_eq!((stats.local_sessions, stats.live_transports), (0, 0));
    server.stop().await;
}
