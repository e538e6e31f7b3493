//! Session lifetimes: thousands of abandoned sessions expire and leave
//! nothing behind, many sessions run at once, sessions outlive TCP
//! connections, busy sessions do not expire, and a graceful shutdown lets
//! requests in flight finish.

use crate::server_support;

use std::future::Future;
use std::time::{Duration, Instant};

use mcpwire_http::server::{Config, ResponseMode};
use serde_json::json;
use server_support::*;

async fn wait_until<F, Fut>(limit: Duration, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let start = Instant::now();
    while !done().await {
        assert!(
            start.elapsed() < limit,
            "condition not reached in {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_abandoned_sessions_expire_and_free_everything() {
    const SESSIONS: usize = 10_000;
    const CONNECTIONS: usize = 8;
    // Sessions idle for a second expire; the sweep is triggered by hand so
    // that all 10,000 are seen held before any is freed.
    let config = Config::default()
        .idle_timeout(Duration::from_secs(1))
        .sweep_interval(Duration::from_secs(3600))
        .max_sessions(SESSIONS * 2);
    let server = TestServer::start(config, test_runtime()).await;
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..CONNECTIONS {
        let client = server.client();
        workers.push(tokio::spawn(async move {
            let mut conn = Conn::open(client.addr).await;
            let mut last = None;
            for _ in 0..SESSIONS / CONNECTIONS {
                conn.send(
                    "POST",
                    &client.post_headers(),
                    initialize(V2025_11_25).as_bytes(),
                )
                .await;
                let reply = conn.reply().await;
                assert_eq!(reply.status(), 200);
                last = reply.head.header("mcp-session-id").map(str::to_owned);
            }
            last
        }));
    }
    let mut abandoned = Vec::new();
    for worker in workers {
        abandoned.push(
            tokio::time::timeout(Duration::from_secs(120), worker)
                .await
                .unwrap()
                .unwrap(),
        );
    }
    let created = started.elapsed();
    let stats = server.service.stats().await;
    assert_eq!(stats.sessions, SESSIONS, "{stats:?} after {created:?}");
    assert_eq!(stats.local_sessions, SESSIONS);
    assert_eq!(stats.live_transports, SESSIONS);
    // Nothing touches the sessions now: once idle long enough, they expire.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    server.service.sweep().await;
    wait_until(Duration::from_secs(30), || async {
        let stats = server.service.stats().await;
        stats.sessions == 0 && stats.local_sessions == 0 && stats.live_transports == 0
    })
    .await;
    let stats = server.service.stats().await;
    assert_eq!(stats.buffered_events, 0, "{stats:?}");
    assert_eq!(stats.open_streams, 0, "{stats:?}");
    let mut client = server.client();
    client.session = abandoned[0].clone();
    assert_eq!(
        client
            .post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_sessions_are_served_concurrently() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let mut tasks = Vec::new();
    for n in 0..200 {
        let addr = server.addr;
        tasks.push(tokio::spawn(async move {
            let client = Client::connect(addr, V2025_11_25).await;
            let call = request(
                1,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": format!("s{n}")}}),
            );
            let reply = client.post(&call).await;
            let answer = reply.messages().pop().unwrap();
            assert_eq!(answer["result"]["content"][0]["text"], format!("s{n}"));
            client.session.unwrap()
        }));
    }
    let mut ids = std::collections::HashSet::new();
    for task in tasks {
        ids.insert(within(task).await.unwrap());
    }
    assert_eq!(ids.len(), 200);
    assert_eq!(server.service.stats().await.sessions, 200);
}

#[tokio::test]
async fn a_session_outlives_the_connection_that_created_it() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let client = server.client();
    let mut conn = Conn::open(server.addr).await;
    conn.send(
        "POST",
        &client.post_headers(),
        initialize(V2025_11_25).as_bytes(),
    )
    .await;
    let reply = conn.reply().await;
    drop(conn);
    let mut client = client;
    client.session = reply.head.header("mcp-session-id").map(str::to_owned);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        client
            .post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn idle_sessions_expire_while_sessions_with_open_streams_stay() {
    let config = Config::default()
        .idle_timeout(Duration::from_millis(600))
        .sweep_interval(Duration::from_millis(50))
        .keep_alive(Some(Duration::from_millis(100)));
    let server = TestServer::start(config, test_runtime()).await;
    let idle = Client::connect(server.addr, V2025_11_25).await;
    let busy = Client::connect(server.addr, V2025_11_25).await;
    let (head, mut standalone) = busy.get_stream(None).await;
    assert_eq!(head.status, 200);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        idle.post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        404
    );
    assert_eq!(
        busy.post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        200
    );
    // The standalone stream stayed open, kept alive by comments.
    let quiet = tokio::time::timeout(Duration::from_millis(300), standalone.next_event()).await;
    assert!(quiet.is_err(), "no event and no end: {quiet:?}");
    assert!(standalone.comments() > 0);
}

#[tokio::test]
async fn graceful_shutdown_finishes_requests_in_flight_and_ends_standalone_streams() {
    let config = Config::default().response_mode(ResponseMode::Sse);
    let mut server = TestServer::start(config, test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (_, mut standalone) = client.get_stream(None).await;
    let call = request(
        1,
        "tools/call",
        json!({"name": "wait", "arguments": {"pause_ms": 400}}),
    );
    let (_, mut in_flight) = client.post_stream(&call).await;
    within(in_flight.next_event()).await.unwrap();
    let stopping = server.begin_stop();
    // The standalone stream ends at once; the POST still gets its answer.
    assert_eq!(within(standalone.rest()).await, Vec::new());
    let rest = within(in_flight.rest()).await;
    assert_eq!(
        rest.last().unwrap().json()["result"]["content"][0]["text"],
        "waited"
    );
    within(stopping).await.unwrap().unwrap();
    assert_eq!(server.service.stats().await.local_sessions, 0);
    assert!(tokio::net::TcpStream::connect(server.addr).await.is_err());
}
