//! Streams, event ids and resumption: a client that loses a stream
//! resumes it with `Last-Event-ID` and gets every message exactly once
//! (HTTP-13..16, HTTP-29..33, SEP-1699 polling).

use crate::server_support;

use std::collections::BTreeSet;
use std::time::Duration;

use mcpwire_http::server::{Config, ResponseMode};
use mcpwire_jsonrpc::RequestId;
use serde_json::{Value, json};
use server_support::*;

fn counting_call(id: i64, count: u64, pause_ms: u64, token: i64) -> String {
    request(
        id,
        "tools/call",
        json!({"name": "count", "arguments": {"count": count, "pause_ms": pause_ms},
            "_meta": {"progressToken": token}}),
    )
}

/// The progress values and final answers among `events`.
fn tally(events: &[Event]) -> (Vec<u64>, Vec<Value>) {
    let mut progress = Vec::new();
    let mut answers = Vec::new();
    for event in events.iter().filter(|e| !e.data.is_empty()) {
        let message = event.json();
        if message["method"] == "notifications/progress" {
            let value = message["params"]["progress"].as_f64().unwrap_or(-1.0);
            progress.push(value as u64);
        } else if message.get("result").is_some() {
            answers.push(message);
        }
    }
    (progress, answers)
}

#[tokio::test]
async fn http_30_a_dropped_post_stream_resumes_without_loss_or_duplication() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (head, mut stream) = client.post_stream(&counting_call(1, 10, 30, 7)).await;
    assert!(head.is_sse());
    let mut seen = Vec::new();
    // HTTP-13: the priming event comes first, with an id and empty data.
    let priming = within(stream.next_event()).await.unwrap();
    assert!(priming.id.is_some() && priming.data.is_empty());
    assert!(priming.retry.is_some());
    for _ in 0..3 {
        seen.push(within(stream.next_event()).await.unwrap());
    }
    drop(stream);
    let last_id = seen.last().unwrap().id.clone().unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    let (head, mut resumed) = client.get_stream(Some(&last_id)).await;
    assert_eq!(head.status, 200);
    seen.extend(within(resumed.rest()).await);
    let (progress, answers) = tally(&seen);
    assert_eq!(progress, (1..=10).collect::<Vec<_>>());
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["id"], 1);
    let ids: BTreeSet<_> = seen.iter().map(|e| e.id.clone().unwrap()).collect();
    assert_eq!(ids.len(), seen.len(), "event ids are unique");
}

#[tokio::test]
async fn http_33_resumption_replays_only_the_named_stream() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (_, mut first) = client.post_stream(&counting_call(1, 4, 20, 100)).await;
    let (_, mut second) = client.post_stream(&counting_call(2, 4, 20, 200)).await;
    let first_priming = within(first.next_event()).await.unwrap();
    let second_priming = within(second.next_event()).await.unwrap();
    assert_ne!(
        first_priming.id, second_priming.id,
        "HTTP-31: ids are unique per session"
    );
    drop(first);
    // Let both calls finish while the first stream is disconnected.
    let rest = within(second.rest()).await;
    assert_eq!(tally(&rest).1.len(), 1);
    tokio::time::sleep(Duration::from_millis(150)).await;
    let (head, mut resumed) = client.get_stream(first_priming.id.as_deref()).await;
    assert_eq!(head.status, 200);
    let replayed = within(resumed.rest()).await;
    let (progress, answers) = tally(&replayed);
    assert_eq!(progress, vec![1, 2, 3, 4]);
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["id"], 1);
    for event in &replayed {
        let message = event.json();
        if message["method"] == "notifications/progress" {
            assert_eq!(message["params"]["progressToken"], 100);
        }
    }
}

#[tokio::test]
async fn http_13_priming_depends_on_the_negotiated_revision_not_the_header() {
    let config = Config::default().response_mode(ResponseMode::Sse);
    let server = TestServer::start(config, test_runtime()).await;
    let old = Client::connect(server.addr, V2025_06_18).await;
    let (_, mut stream) = old.post_stream(&counting_call(1, 1, 0, 1)).await;
    let first = within(stream.next_event()).await.unwrap();
    assert!(!first.data.is_empty(), "no priming event before 2025-11-25");
    assert!(first.id.is_some(), "events of sessions are resumable");
    let mut new = Client::connect(server.addr, V2025_11_25).await;
    new.version = Some(V2025_03_26.to_owned());
    let (_, mut stream) = new.post_stream(&counting_call(1, 1, 0, 1)).await;
    let first = within(stream.next_event()).await.unwrap();
    assert!(first.data.is_empty() && first.retry == Some(1000));
}

#[tokio::test]
async fn sep_1699_poll_after_closes_the_connection_and_the_client_resumes() {
    let config = Config::default()
        .response_mode(ResponseMode::Sse)
        .poll_after(Some(Duration::from_millis(100)))
        .retry_interval(Duration::from_millis(50));
    let server = TestServer::start(config, test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let call = request(
        3,
        "tools/call",
        json!({"name": "wait", "arguments": {"pause_ms": 400}}),
    );
    let (_, mut stream) = client.post_stream(&call).await;
    let events = within(stream.rest()).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events[0].id.is_some() && events[0].data.is_empty());
    assert_eq!(events[1].retry, Some(50), "HTTP-16: retry before closing");
    let mut last_id = events[0].id.clone().unwrap();
    let mut answers = Vec::new();
    // Each resumed connection may be closed again before the answer: poll.
    for _ in 0..20 {
        let (_, mut resumed) = client.get_stream(Some(&last_id)).await;
        let events = within(resumed.rest()).await;
        if let Some(id) = events.iter().rev().find_map(|e| e.id.clone()) {
            last_id = id;
        }
        answers.extend(tally(&events).1);
        if !answers.is_empty() {
            break;
        }
    }
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["result"]["content"][0]["text"], "waited");
}

/// A tool closes its own request's stream (`Context::close_sse_stream`):
/// the client gets the priming event and a `retry:`, the connection ends
/// without the answer, and a GET with `Last-Event-ID` finds it. Before
/// 2025-11-25 nothing is closed and the answer comes on the POST itself.
#[tokio::test]
async fn sep_1699_a_tool_closes_its_own_stream_and_the_client_resumes_it() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let call = |id: i64| {
        request(
            id,
            "tools/call",
            json!({"name": "close_then_answer", "arguments": {"pause_ms": 200}}),
        )
    };
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (head, mut stream) = client.post_stream(&call(6)).await;
    assert!(head.is_sse());
    let events = within(stream.rest()).await;
    assert!(
        events[0].id.is_some() && events[0].data.is_empty(),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| e.retry.is_some()),
        "HTTP-16: {events:?}"
    );
    assert!(
        tally(&events).1.is_empty(),
        "closed before the answer: {events:?}"
    );
    let (_, mut resumed) = client.get_stream(events[0].id.as_deref()).await;
    let (_, answers) = tally(&within(resumed.rest()).await);
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["id"], 6);
    assert_eq!(answers[0]["result"]["content"][0]["text"], "closed: true");

    let old = Client::connect(server.addr, V2025_06_18).await;
    let answer = old.post(&call(7)).await.json();
    assert_eq!(answer["result"]["content"][0]["text"], "closed: false");
}

#[tokio::test]
async fn sep_1699_the_handle_closes_a_request_stream_before_its_answer() {
    let server = TestServer::start(
        Config::default().response_mode(ResponseMode::Sse),
        test_runtime(),
    )
    .await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let call = request(
        5,
        "tools/call",
        json!({"name": "wait", "arguments": {"pause_ms": 1000}}),
    );
    let (_, mut stream) = client.post_stream(&call).await;
    let priming = within(stream.next_event()).await.unwrap();
    let handle = server.handles.lock().await.last().cloned().unwrap();
    assert!(handle.close_stream(&RequestId::from(5)).await);
    let rest = within(stream.rest()).await;
    assert!(tally(&rest).1.is_empty(), "closed before the answer");
    let (_, mut resumed) = client.get_stream(priming.id.as_deref()).await;
    let (_, answers) = tally(&within(resumed.rest()).await);
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["id"], 5);
}

#[tokio::test]
async fn http_29_unrelated_messages_go_on_the_standalone_stream_even_if_opened_later() {
    let runtime = test_runtime();
    let server = TestServer::start(Config::default(), runtime.clone()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    runtime
        .add_tool(
            mcpwire_types::Tool::new("late", schema),
            |_ctx, _args| async {
                Ok::<_, mcpwire_server::HandlerError>(mcpwire_types::CallToolResult::text("late"))
            },
        )
        .unwrap();
    // A request's stream carries only what belongs to it.
    let reply = client.post(&request(1, "tools/list", json!({}))).await;
    assert!(reply.messages().iter().all(|m| m.get("method").is_none()));
    // The list change, sent while no GET was open, waits for the next one.
    let (head, mut standalone) = client.get_stream(None).await;
    assert_eq!(head.status, 200);
    let event = within(standalone.next_event()).await.unwrap();
    assert_eq!(event.json()["method"], "notifications/tools/list_changed");
    assert!(event.id.as_deref().unwrap().starts_with("0-"));
}

#[tokio::test]
async fn a_resumed_stream_that_already_ended_replays_and_closes() {
    let server = TestServer::start(
        Config::default().response_mode(ResponseMode::Sse),
        test_runtime(),
    )
    .await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let reply = client.post(&counting_call(9, 2, 0, 1)).await;
    let events = parse_events(&String::from_utf8_lossy(&reply.body));
    let priming = events[0].id.clone().unwrap();
    let (_, mut resumed) = client.get_stream(Some(&priming)).await;
    let replayed = within(resumed.rest()).await;
    let (progress, answers) = tally(&replayed);
    assert_eq!((progress, answers.len()), (vec![1, 2], 1));
}

/// HTTP-13 in `Auto` mode: a POST whose answer is slow turns to SSE when a
/// keep-alive is due, and its priming event then names a stream whose log
/// exists, although no event was logged yet (the POST leaves the log to
/// the stream's first logged event, and the response opens it before the
/// priming event). A client that drops the connection right after the
/// priming event resumes from it and gets the answer. Keep-alive every
/// 100 ms against an answer after 600 ms: generous for a loaded machine.
#[tokio::test]
async fn http_13_an_auto_post_turned_sse_by_a_slow_answer_resumes_from_its_priming_event() {
    let config = Config::default().keep_alive(Some(Duration::from_millis(100)));
    let server = TestServer::start(config, test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let slow = request(
        8,
        "tools/call",
        json!({"name": "wait", "arguments": {"pause_ms": 600}}),
    );
    let (head, mut stream) = client.post_stream(&slow).await;
    assert!(head.is_sse());
    let priming = within(stream.next_event()).await.unwrap();
    assert!(
        priming.id.is_some() && priming.data.is_empty(),
        "{priming:?}"
    );
    drop(stream);
    let (head, mut resumed) = client.get_stream(priming.id.as_deref()).await;
    assert_eq!(head.status, 200);
    let (_, answers) = tally(&within(resumed.rest()).await);
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["id"], 8);
    assert_eq!(answers[0]["result"]["content"][0]["text"], "waited");
}
