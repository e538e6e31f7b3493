//! Runtime tests of a session's life: draining in-flight requests when the
//! client stops sending, the drain timeout, many concurrent requests, and
//! several sessions of one server in different eras at once.

use crate::support;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use mcpwire_client::{Client, ClientConfig};
use mcpwire_server::{Context, Server};
use mcpwire_types::{CallToolResult, ClientCapabilities, Implementation, ProtocolVersion, Tool};
use serde_json::{Map, json};
use support::{DropSignal, serve, texts, within};
use tokio::sync::{Barrier, mpsc};

const SLOW: Duration = Duration::from_secs(2);

/// A server whose `sleep` tool takes `sleep` and whose `version` tool
/// names the revision of its request; `stopped` gets a signal per `sleep`
/// call, fired when its future is dropped, and `cancelled` hears when a
/// `sleep` call's cancellation signal fires.
fn sleepy_server(
    sleep: Duration,
    drain: Duration,
    stopped: mpsc::UnboundedSender<tokio::sync::oneshot::Receiver<()>>,
    cancelled: mpsc::UnboundedSender<()>,
) -> Server {
    Server::builder("sleepy", "1.0.0")
        .drain_timeout(drain)
        .tool(Tool::without_arguments("sleep"), move |ctx: Context, _args| {
            let (signal, heard) = DropSignal::new();
            let _ = stopped.send(heard);
            let cancelled = cancelled.clone();
            let cancellation = ctx.cancellation().clone();
            tokio::spawn(async move {
                cancellation.cancelled().await;
                let _ = cancelled.send(());
            });
            async move {
                let _signal = signal;
                tokio::time::sleep(sleep).await;
                Ok(CallToolResult::text("rested"))
            }
        })
        .tool(
            Tool::without_arguments("version"),
            |ctx: Context, _args| async move { Ok(CallToolResult::text(ctx.version().to_string())) },
        )
        .build()
        .unwrap()
}

fn call(name: &str) -> serde_json::Value {
    json!({"name": name, "arguments": {}})
}

/// A request received before the client stopped sending is still answered
/// (within the drain timeout); then the server ends the session cleanly.
#[tokio::test(start_paused = true)]
async fn end_of_input_still_answers_requests_in_flight() {
    let (stopped, _stopped_rx) = mpsc::unbounded_channel();
    let (cancelled, _cancelled_rx) = mpsc::unbounded_channel();
    let server = sleepy_server(SLOW, Duration::from_secs(5), stopped, cancelled);
    let (mut peer, task) = serve(&server);
    peer.initialize("2025-06-18", json!({})).await;
    let started = tokio::time::Instant::now();
    peer.send_request(1, "tools/call", call("sleep")).await;
    peer.close().await;

    let response = peer.recv().await;
    assert_eq!(response["id"], 1, "{response}");
    assert_eq!(texts(&response["result"]), ["rested"]);
    assert!(started.elapsed() >= SLOW);
    assert_eq!(peer.next().await, None, "the server ends the session");
    within("serve to return", task).await.unwrap().unwrap();
}

/// A request still running when the drain time is up is cancelled: its
/// signal fires, its task stops, and it gets no answer.
#[tokio::test(start_paused = true)]
async fn the_drain_timeout_cancels_a_request_that_runs_too_long() {
    let drain = Duration::from_secs(1);
    let (stopped, mut stopped_rx) = mpsc::unbounded_channel();
    let (cancelled, mut cancelled_rx) = mpsc::unbounded_channel();
    let server = sleepy_server(Duration::from_secs(3600), drain, stopped, cancelled);
    let (mut peer, task) = serve(&server);
    peer.initialize("2025-11-25", json!({})).await;
    peer.send_request(1, "tools/call", call("sleep")).await;
    let handler_stopped = within("the handler to start", stopped_rx.recv())
        .await
        .unwrap();
    let closed_at = tokio::time::Instant::now();
    peer.close().await;

    assert_eq!(peer.next().await, None, "no answer, then the end");
    let waited = closed_at.elapsed();
    assert!(waited >= drain, "ended after {waited:?}");
    assert!(waited < Duration::from_secs(60), "ended after {waited:?}");
    within("the handler to stop", handler_stopped)
        .await
        .unwrap();
    within("the cancellation signal", cancelled_rx.recv())
        .await
        .unwrap();
    within("serve to return", task).await.unwrap().unwrap();
}

#[tokio::test]
async fn end_of_input_with_nothing_in_flight_ends_the_session_at_once() {
    let (stopped, _stopped_rx) = mpsc::unbounded_channel();
    let (cancelled, _cancelled_rx) = mpsc::unbounded_channel();
    let server = sleepy_server(SLOW, Duration::from_secs(3600), stopped, cancelled);
    let (mut peer, task) = serve(&server);
    peer.initialize("2025-06-18", json!({})).await;
    peer.close().await;
    assert_eq!(peer.next().await, None);
    within("serve to return", task).await.unwrap().unwrap();
}

/// Requests run concurrently: every one of 1,000 waits at a barrier that
/// opens only when all 1,000 are running at once, and each is answered.
#[tokio::test]
async fn a_thousand_concurrent_requests_in_one_session_are_all_answered() {
    const COUNT: usize = 1_000;
    let barrier = Arc::new(Barrier::new(COUNT));
    let server = Server::builder("busy", "1.0.0")
        .tool(
            Tool::without_arguments("meet"),
            move |_ctx: Context, _args| {
                let barrier = barrier.clone();
                async move {
                    barrier.wait().await;
                    Ok(CallToolResult::text("met"))
                }
            },
        )
        .build()
        .unwrap();
    let (mut peer, _task) = serve(&server);
    peer.initialize("2025-06-18", json!({})).await;
    for id in 1..=COUNT {
        let id = i64::try_from(id).unwrap();
        peer.send_request(id, "tools/call", call("meet")).await;
    }
    let mut answered = BTreeSet::new();
    for _ in 0..COUNT {
        let response = peer.recv().await;
        assert_eq!(texts(&response["result"]), ["met"], "{response}");
        assert!(answered.insert(response["id"].as_i64().unwrap()));
    }
    let expected: BTreeSet<i64> = (1..=1_000).collect();
    assert_eq!(answered, expected);
    peer.expect_silence().await;
}

async fn connect(server: &Server, version: ProtocolVersion) -> Client {
    let (client_end, server_end) = mcpwire_jsonrpc::memory::pair(64);
    let server = server.clone();
    tokio::spawn(async move { server.serve(server_end).await });
    let config = ClientConfig::new(
        Implementation::new("client", "1.0.0"),
        ClientCapabilities::default(),
    )
    .pinned(version);
    within("connect", Client::connect(client_end, config))
        .await
        .unwrap()
}

/// One server, two sessions in two eras at once (2025-06-18 with a
/// handshake, 2026-07-28 stateless): each speaks its own revision, and a
/// slow call in one does not hold up the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sessions_of_one_server_in_different_eras_work_at_once() {
    let (stopped, _stopped_rx) = mpsc::unbounded_channel();
    let (cancelled, _cancelled_rx) = mpsc::unbounded_channel();
    let server = sleepy_server(
        Duration::from_millis(300),
        Duration::from_secs(5),
        stopped,
        cancelled,
    );
    let handshake = connect(&server, ProtocolVersion::V2025_06_18).await;
    let stateless = connect(&server, ProtocolVersion::V2026_07_28).await;
    assert_eq!(handshake.server().version, ProtocolVersion::V2025_06_18);
    assert_eq!(stateless.server().version, ProtocolVersion::V2026_07_28);

    let slow = handshake.call_tool("sleep", Map::new());
    let quick = async {
        let started = tokio::time::Instant::now();
        let result = stateless.call_tool("version", Map::new()).await;
        (result, started.elapsed())
    };
    let (slow, (quick, quick_took)) =
        within("both calls", async { tokio::join!(slow, quick) }).await;
    assert_eq!(slow.unwrap().content[0].as_text(), Some("rested"));
    assert_eq!(quick.unwrap().content[0].as_text(), Some("2026-07-28"));
    assert!(quick_took < Duration::from_millis(300), "{quick_took:?}");

    let result = within("the version", handshake.call_tool("version", Map::new()))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("2025-06-18"));
    handshake.close().await;
    stateless.close().await;
}
