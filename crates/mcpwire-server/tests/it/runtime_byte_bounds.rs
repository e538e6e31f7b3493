//! Runtime tests of the bounds in bytes: a client that does not read its
//! answers stops being read once the answers waiting for it pass
//! `Limits::max_backlog_bytes` (and loses none of them), and the requests
//! all the sessions of a server hold are bounded together
//! (`Limits::max_server_inbound_bytes_in_flight`).

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcpwire_jsonrpc::{Packet, Transport, TransportReceiver, TransportSender};
use mcpwire_server::{Context, Server};
use mcpwire_session::Limits;
use mcpwire_types::{CallToolResult, Tool};
use serde_json::json;
use support::{WAIT, serve, serve_with_capacity, texts};
use tokio::sync::Notify;

/// The size of each answer's text.
const ANSWER: usize = 64 * 1024;

/// Requests the client sends without reading.
const REQUESTS: i64 = 100;

/// A server whose `blob` tool answers `ANSWER` bytes at once and counts
/// its calls, with answers waiting for the client bounded to 256 KiB.
fn server(calls: Arc<AtomicUsize>) -> Server {
    let mut limits = Limits::default();
    limits.max_backlog_bytes = 256 * 1024;
    Server::builder("backpressure", "1.0.0")
        .limits(limits)
        .tool(
            Tool::new("blob", json!({"type": "object"})),
            move |_ctx: Context, _args| {
                calls.fetch_add(1, Ordering::SeqCst);
                async move { Ok(CallToolResult::text("b".repeat(ANSWER))) }
            },
        )
        .build()
        .unwrap()
}

fn call(id: i64) -> Packet {
    let message = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "blob", "arguments": {}}
    });
    Packet::from_slice(&serde_json::to_vec(&message).unwrap()).unwrap()
}

#[tokio::test]
async fn a_client_that_does_not_read_large_answers_stops_being_read_and_loses_none() {
    let calls = Arc::new(AtomicUsize::new(0));
    // Two packets each way: the pair itself holds next to nothing.
    let (mut peer, _task) = serve_with_capacity(&server(Arc::clone(&calls)), 2);
    peer.initialize("2025-06-18", json!({})).await;
    let (mut sender, mut receiver) = peer.into_transport().split();
    let sending = tokio::spawn(async move {
        for id in 1..=REQUESTS {
            sender.send(call(id)).await.unwrap();
        }
        sender
    });

    // The runtime stops reading once its answers pass the bound: the
    // sender waits, and the calls stop. Watched until two looks 300 ms
    // apart agree (at most WAIT in all; the runtime settles in
    // microseconds, the gap only leaves room for a slow machine).
    let started = tokio::time::Instant::now();
    let mut seen = calls.load(Ordering::SeqCst);
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = calls.load(Ordering::SeqCst);
        if now == seen || started.elapsed() > WAIT {
            break;
        }
        seen = now;
    }
    let handled = calls.load(Ordering::SeqCst);
    // 256 KiB of waiting answers is 4 of 64 KiB; with the batch being
    // written (up to 256 KiB more), the pair's few slots and the one in
    // hand, about a dozen. Without the byte bound all 100 are handled
    // (the count bound is 256 answers).
    assert!(
        handled < 24,
        "{handled} of {REQUESTS} requests handled while the client read nothing"
    );
    assert!(!sending.is_finished(), "the client's sending should wait");

    // Reading resumes it: every answer arrives, whole, once.
    let mut answered = std::collections::HashSet::new();
    while answered.len() < REQUESTS as usize {
        let inbound = tokio::time::timeout(WAIT, receiver.recv())
            .await
            .expect("an answer within WAIT")
            .expect("the transport open")
            .unwrap();
        let answer = support::to_json(inbound);
        assert_eq!(
            texts(&answer["result"])[0].len(),
            ANSWER,
            "{}",
            answer["id"]
        );
        assert!(answered.insert(answer["id"].as_i64().unwrap()));
    }
    tokio::time::timeout(WAIT, sending).await.unwrap().unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), REQUESTS as usize);
}

/// A server whose `hold` tool waits for `gate`, with 1,000 bytes of
/// requests in flight allowed over all its sessions.
fn holding_server(gate: Arc<Notify>) -> Server {
    let mut limits = Limits::default();
    limits.max_server_inbound_bytes_in_flight = 1_000;
    Server::builder("bounded", "1.0.0")
        .limits(limits)
        .tool(
            Tool::new("hold", json!({"type": "object"})),
            move |_ctx: Context, _args| {
                let gate = Arc::clone(&gate);
                async move {
                    gate.notified().await;
                    Ok(CallToolResult::text("held"))
                }
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_sessions_of_a_server_share_one_bound_on_request_bytes_in_flight() {
    let gate = Arc::new(Notify::new());
    let server = holding_server(Arc::clone(&gate));
    let (mut first, _first_task) = serve(&server);
    let (mut second, _second_task) = serve(&server);
    first.initialize("2025-06-18", json!({})).await;
    second.initialize("2025-06-18", json!({})).await;
    let params = json!({"name": "hold", "arguments": {"pad": "x".repeat(600)}});

    first.send_request(1, "tools/call", params.clone()).await;
    first.sync().await;
    let refused = second.error(1, "tools/call", params.clone()).await;
    assert_eq!(refused["code"], -32603, "{refused}");

    // The first call's answer frees its bytes for the second session.
    gate.notify_one();
    let answer = first.recv().await;
    assert_eq!(texts(&answer["result"]), ["held"]);
    second.send_request(2, "tools/call", params).await;
    second.sync().await;
    gate.notify_one();
    let answer = second.recv().await;
    assert_eq!(answer["id"], 2);
    assert_eq!(texts(&answer["result"]), ["held"]);
}

/// A client that stops reading while a handler keeps reporting progress:
/// reading stops, but the handler's messages still queue, so once the
/// client has taken nothing for `Limits::max_backlog_wait` the session
/// ends instead of growing with them.
#[tokio::test]
async fn a_client_that_takes_nothing_while_a_handler_reports_loses_the_session_after_the_backlog_wait()
 {
    let mut limits = Limits::default();
    limits.max_backlog_wait = Duration::from_millis(300);
    let reports = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&reports);
    let server = Server::builder("chatty", "1.0.0")
        .limits(limits)
        .tool(
            Tool::new("chatty", json!({"type": "object"})),
            move |ctx: Context, _args| {
                let counted = Arc::clone(&counted);
                async move {
                    // Reports until the session is gone; bounded by the
                    // test's own timeout, not by a count.
                    while !ctx.is_cancelled() {
                        // Progress must grow (PROG-03) to be sent.
                        let report = counted.fetch_add(1, Ordering::SeqCst) + 1;
                        ctx.progress(report as f64, None, Some("still going")).await;
                        tokio::task::yield_now().await;
                    }
                    Ok(CallToolResult::text("done"))
                }
            },
        )
        .build()
        .unwrap();
    let (mut peer, task) = serve_with_capacity(&server, 2);
    peer.initialize("2025-06-18", json!({})).await;
    peer.send(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "chatty", "arguments": {}, "_meta": {"progressToken": "p"}}
    }))
    .await;
    // The client never reads again. The session must end well within the
    // bound (the wait is 300 ms; WAIT leaves room for a slow machine).
    let ended = tokio::time::timeout(WAIT, task).await;
    let outcome = ended
        .expect("the session outlived the backlog wait")
        .unwrap();
    let error = outcome
        .expect_err("the session ends with an error")
        .to_string();
    assert!(error.contains("took none"), "{error}");
    assert!(
        reports.load(Ordering::SeqCst) > 256,
        "the handler did not get to fill the outbox"
    );
    drop(peer);
}
