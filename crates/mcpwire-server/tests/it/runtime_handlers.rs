//! Runtime tests of what handlers do through their `Context`: progress,
//! log messages, cancellation, and requests of their own to the client
//! (PROG-*, LOG-*, CANCEL-*, LIFE-14).

use crate::support;

use std::time::Duration;

use mcpwire_server::{Context, HandlerError, PeerRequestError, Server};
use mcpwire_session::{RequestOptions, ResponseError, SendError, Timeouts};
use mcpwire_types::methods::{ClientResult, ServerRequest};
use mcpwire_types::{CallToolResult, LoggingLevel, Tool};
use serde_json::{Value, json};
use support::{DropSignal, RawPeer, serve, stateless_meta, texts, with_meta, within};
use tokio::sync::mpsc;

/// What the `wait` tool reports to the test.
#[derive(Debug, PartialEq)]
enum Seen {
    Started,
    CancellationFired,
}

/// A server with tools that report progress, log, wait to be cancelled,
/// and ask the client for its roots. `seen` hears from the `wait` tool;
/// `stopped` gets one signal per `wait` call, fired when its future is dropped.
fn handler_server(
    seen: mpsc::UnboundedSender<Seen>,
    stopped: mpsc::UnboundedSender<tokio::sync::oneshot::Receiver<()>>,
    timeouts: Timeouts,
) -> Server {
    Server::builder("handlers", "1.0.0")
        .timeouts(timeouts)
        .tool(
            Tool::without_arguments("progress"),
            |ctx: Context, _args| async move {
                // 2 twice and 1.5 break PROG-03; they must not be sent.
                for step in [1.0, 2.0, 2.0, 1.5, 3.0] {
                    ctx.progress(step, Some(3.0), Some("working")).await;
                }
                Ok(CallToolResult::text("done"))
            },
        )
        .tool(
            Tool::without_arguments("log"),
            |ctx: Context, _args| async move {
                for level in [
                    LoggingLevel::Debug,
                    LoggingLevel::Info,
                    LoggingLevel::Warning,
                    LoggingLevel::Error,
                ] {
                    let data = serde_json::to_value(level).unwrap_or_default();
                    ctx.log(level, Some("tests"), data).await;
                }
                Ok(CallToolResult::text("logged"))
            },
        )
        .tool(
            Tool::without_arguments("wait"),
            move |ctx: Context, _args| {
                let seen = seen.clone();
                let (signal, heard) = DropSignal::new();
                let _ = stopped.send(heard);
                async move {
                    let _signal = signal;
                    let cancellation = ctx.cancellation().clone();
                    let watcher_seen = seen.clone();
                    // A task of its own, so that it outlives the handler's task.
                    tokio::spawn(async move {
                        cancellation.cancelled().await;
                        let _ = watcher_seen.send(Seen::CancellationFired);
                    });
                    let _ = seen.send(Seen::Started);
                    std::future::pending::<()>().await;
                    Ok(CallToolResult::text("never"))
                }
            },
        )
        .tool(
            Tool::without_arguments("roots"),
            |ctx: Context, _args| async move {
                let request = ServerRequest::ListRoots(Box::default());
                match ctx.request(request, RequestOptions::default()).await {
                    Ok(ClientResult::ListRoots(result)) => {
                        let uris: Vec<String> = result.roots.into_iter().map(|r| r.uri).collect();
                        Ok(CallToolResult::text(uris.join(",")))
                    }
                    Ok(other) => Err(HandlerError::internal(format!("{other:?}"))),
                    Err(PeerRequestError::Refused(SendError::PeerLacksCapability {
                        capability,
                        ..
                    })) => Err(HandlerError::tool(format!("refused: no {capability}"))),
                    Err(PeerRequestError::Refused(SendError::NotInRevision {
                        version, ..
                    })) => Err(HandlerError::tool(format!("refused: not in {version}"))),
                    Err(PeerRequestError::Failed(ResponseError::Peer(error))) => {
                        Err(HandlerError::tool(format!("failed: {}", error.code.0)))
                    }
                    Err(PeerRequestError::Failed(ResponseError::TimedOut)) => {
                        Err(HandlerError::tool("timed out"))
                    }
                    Err(other) => Err(HandlerError::internal(other)),
                }
            },
        )
        .build()
        .unwrap()
}

struct Fixture {
    server: Server,
    seen: mpsc::UnboundedReceiver<Seen>,
    stopped: mpsc::UnboundedReceiver<tokio::sync::oneshot::Receiver<()>>,
}

fn fixture_with(timeouts: Timeouts) -> Fixture {
    let (seen_tx, seen) = mpsc::unbounded_channel();
    let (stopped_tx, stopped) = mpsc::unbounded_channel();
    Fixture {
        server: handler_server(seen_tx, stopped_tx, timeouts),
        seen,
        stopped,
    }
}

fn fixture() -> Fixture {
    fixture_with(Timeouts::default())
}

fn call_with_meta(name: &str, meta: Value) -> Value {
    let mut params = call(name);
    params["_meta"] = meta;
    params
}

fn call(name: &str) -> Value {
    json!({"name": name, "arguments": {}})
}

async fn initialized(server: &Server, version: &str, capabilities: Value) -> RawPeer {
    let (mut peer, _task) = serve(server);
    peer.initialize(version, capabilities).await;
    peer
}

/// PROG-03, PROG-05: progress goes out only for a request that carried a
/// token, with that token, each value above the last, and before the answer.
#[tokio::test]
async fn progress_reaches_the_client_only_with_a_token_and_strictly_increasing() {
    let fixture = fixture();
    let mut peer = initialized(&fixture.server, "2025-06-18", json!({})).await;
    for (id, token) in [(1, json!("tok-1")), (2, json!(7))] {
        let params = call_with_meta("progress", json!({"progressToken": token}));
        let exchange = peer.exchange(id, "tools/call", params).await;
        let expected: Vec<Value> = [1.0, 2.0, 3.0]
            .into_iter()
            .map(|progress| {
                json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": progress, "total": 3.0, "message": "working"}
                })
            })
            .collect();
        assert_eq!(exchange.before, expected);
        assert_eq!(texts(&exchange.response["result"]), ["done"]);
    }
    // Without a token, nothing but the answer.
    let result = peer.result(3, "tools/call", call("progress")).await;
    assert_eq!(texts(&result), ["done"]);
    peer.expect_silence().await;
}

#[tokio::test]
async fn a_stateless_request_with_a_progress_token_gets_progress() {
    let fixture = fixture();
    let (mut peer, _task) = serve(&fixture.server);
    let mut meta = stateless_meta(json!({}));
    meta["progressToken"] = json!("stateless");
    let params = with_meta(call("progress"), &meta);
    let exchange = peer.exchange(1, "tools/call", params).await;
    let progress: Vec<&Value> = exchange
        .before
        .iter()
        .map(|notification| &notification["params"]["progress"])
        .collect();
    assert_eq!(progress, [&json!(1.0), &json!(2.0), &json!(3.0)]);
    for notification in &exchange.before {
        assert_eq!(notification["params"]["progressToken"], "stateless");
    }
}

/// PROG-04: 2024-11-05 progress has no `message`.
#[tokio::test]
async fn progress_in_2024_11_05_carries_no_message() {
    let fixture = fixture();
    let mut peer = initialized(&fixture.server, "2024-11-05", json!({})).await;
    let params = call_with_meta("progress", json!({"progressToken": "t"}));
    let exchange = peer.exchange(1, "tools/call", params).await;
    assert_eq!(exchange.before.len(), 3);
    for notification in &exchange.before {
        assert!(
            notification["params"].get("message").is_none(),
            "{notification}"
        );
    }
}

fn log_levels(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .map(|message| {
            assert_eq!(message["method"], "notifications/message", "{message}");
            assert_eq!(message["params"]["logger"], "tests");
            assert_eq!(message["params"]["data"], message["params"]["level"]);
            message["params"]["level"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// LOG-02: every level until `logging/setLevel`, then that level and above.
#[tokio::test]
async fn log_messages_follow_the_level_the_session_set() {
    let fixture = fixture();
    let mut peer = initialized(&fixture.server, "2025-11-25", json!({})).await;
    let exchange = peer.exchange(1, "tools/call", call("log")).await;
    assert_eq!(
        log_levels(&exchange.before),
        ["debug", "info", "warning", "error"]
    );

    peer.result(2, "logging/setLevel", json!({"level": "warning"}))
        .await;
    let exchange = peer.exchange(3, "tools/call", call("log")).await;
    assert_eq!(log_levels(&exchange.before), ["warning", "error"]);
    assert_eq!(texts(&exchange.response["result"]), ["logged"]);
}

/// 2026-07-28: a request gets log messages only when its `_meta` carries
/// `io.modelcontextprotocol/logLevel`, and then at that level and above.
#[tokio::test]
async fn stateless_requests_get_log_messages_only_at_their_own_log_level() {
    let fixture = fixture();
    let (mut peer, _task) = serve(&fixture.server);
    let params = with_meta(call("log"), &stateless_meta(json!({})));
    let result = peer.result(1, "tools/call", params).await;
    assert_eq!(texts(&result), ["logged"]);

    let mut meta = stateless_meta(json!({}));
    meta["io.modelcontextprotocol/logLevel"] = json!("error");
    let exchange = peer
        .exchange(2, "tools/call", with_meta(call("log"), &meta))
        .await;
    assert_eq!(log_levels(&exchange.before), ["error"]);
}

/// CANCEL-05: `notifications/cancelled` stops the handler (its signal
/// fires and its task ends) and no answer is sent for that request.
#[tokio::test]
async fn cancelling_a_request_stops_its_handler_and_suppresses_the_answer() {
    let mut fixture = fixture();
    let mut peer = initialized(&fixture.server, "2025-06-18", json!({})).await;
    peer.send_request(5, "tools/call", call("wait")).await;
    assert_eq!(
        within("start", fixture.seen.recv()).await,
        Some(Seen::Started)
    );
    let stopped = within("the drop signal", fixture.stopped.recv())
        .await
        .unwrap();

    peer.notify(
        "notifications/cancelled",
        json!({"requestId": 5, "reason": "no longer needed"}),
    )
    .await;
    within("the handler to stop", stopped).await.unwrap();
    assert_eq!(
        within("the signal", fixture.seen.recv()).await,
        Some(Seen::CancellationFired)
    );
    peer.sync().await;
    peer.expect_silence().await;
}

#[tokio::test]
async fn cancelling_a_stateless_request_stops_its_handler_too() {
    let mut fixture = fixture();
    let (mut peer, _task) = serve(&fixture.server);
    let params = with_meta(call("wait"), &stateless_meta(json!({})));
    peer.send_request(8, "tools/call", params).await;
    assert_eq!(
        within("start", fixture.seen.recv()).await,
        Some(Seen::Started)
    );
    let stopped = within("the drop signal", fixture.stopped.recv())
        .await
        .unwrap();
    peer.notify("notifications/cancelled", json!({"requestId": 8}))
        .await;
    within("the handler to stop", stopped).await.unwrap();
    peer.sync().await;
    peer.expect_silence().await;
}

/// CANCEL-09: cancelling an unknown or finished request is ignored.
#[tokio::test]
async fn cancelling_an_unknown_or_finished_request_is_ignored() {
    let fixture = fixture();
    let mut peer = initialized(&fixture.server, "2025-06-18", json!({})).await;
    peer.result(1, "tools/call", call("progress")).await;
    peer.notify("notifications/cancelled", json!({"requestId": 1}))
        .await;
    peer.notify("notifications/cancelled", json!({"requestId": 99}))
        .await;
    peer.notify("notifications/cancelled", json!({"requestId": "x"}))
        .await;
    let result = peer.result(2, "tools/call", call("progress")).await;
    assert_eq!(texts(&result), ["done"]);
    peer.expect_silence().await;
}

/// A handler's request to the client travels on the wire and the client's
/// answer comes back to the handler.
#[tokio::test]
async fn a_handlers_roots_request_reaches_the_client_and_its_answer_returns() {
    let fixture = fixture();
    let mut peer = initialized(&fixture.server, "2025-06-18", json!({"roots": {}})).await;
    peer.send_request(1, "tools/call", call("roots")).await;
    let request = peer.recv().await;
    assert_eq!(request["method"], "roots/list", "{request}");
    let id = request["id"].clone();
    assert!(id.is_number() || id.is_string(), "{request}");
    peer.send(json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {"roots": [{"uri": "file:///home", "name": "home"}, {"uri": "file:///tmp"}]}
    }))
    .await;
    let exchange = peer.answer_to(1).await;
    assert!(exchange.before.is_empty(), "{:?}", exchange.before);
    assert_eq!(
        texts(&exchange.response["result"]),
        ["file:///home,file:///tmp"]
    );
}

#[tokio::test]
async fn an_error_answer_to_a_handlers_request_reaches_the_handler() {
    let fixture = fixture();
    let mut peer = initialized(&fixture.server, "2025-06-18", json!({"roots": {}})).await;
    peer.send_request(1, "tools/call", call("roots")).await;
    let request = peer.recv().await;
    peer.send(json!({
        "jsonrpc": "2.0",
        "id": request["id"],
        "error": {"code": -32601, "message": "no roots here"}
    }))
    .await;
    let response = peer.answer_to(1).await.response;
    assert_eq!(texts(&response["result"]), ["failed: -32601"]);
}

/// LIFE-14: a client that did not declare `roots` is never asked for them.
#[tokio::test]
async fn a_roots_request_is_refused_when_the_client_did_not_declare_roots() {
    let fixture = fixture();
    let mut peer = initialized(&fixture.server, "2025-06-18", json!({})).await;
    // `request` fails if a roots/list request comes before the answer.
    let result = peer.result(1, "tools/call", call("roots")).await;
    assert_eq!(result["isError"], true);
    assert_eq!(texts(&result), ["refused: no roots"]);
}

/// 2026-07-28 has no session to carry a server request: refused.
#[tokio::test]
async fn a_stateless_request_cannot_send_requests_to_the_client() {
    let fixture = fixture();
    let (mut peer, _task) = serve(&fixture.server);
    let params = with_meta(call("roots"), &stateless_meta(json!({"roots": {}})));
    let result = peer.result(1, "tools/call", params).await;
    assert_eq!(texts(&result), ["refused: not in 2026-07-28"]);
}

/// LIFE-16: an unanswered server request times out; the handler learns it
/// and the client is told with `notifications/cancelled`.
#[tokio::test]
async fn an_unanswered_handler_request_times_out_and_is_cancelled() {
    let mut timeouts = Timeouts::default();
    timeouts.request = Duration::from_millis(100);
    let fixture = fixture_with(timeouts);
    let mut peer = initialized(&fixture.server, "2025-06-18", json!({"roots": {}})).await;
    peer.send_request(1, "tools/call", call("roots")).await;
    let request = peer.recv().await;
    assert_eq!(request["method"], "roots/list");
    let exchange = peer.answer_to(1).await;
    assert_eq!(
        exchange.before,
        [json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": request["id"], "reason": "request timed out"}
        })]
    );
    assert_eq!(texts(&exchange.response["result"]), ["timed out"]);
}

/// CANCEL-01, CANCEL-05: when the client cancels a request whose handler is
/// waiting on a request of its own to the client, that request is cancelled
/// too (the client learns it with `notifications/cancelled`), and the
/// cancelled call gets no answer.
#[tokio::test]
async fn cancelling_a_request_cancels_the_requests_its_handler_sent() {
    let fixture = fixture();
    let mut peer = initialized(&fixture.server, "2025-06-18", json!({"roots": {}})).await;
    peer.send_request(1, "tools/call", call("roots")).await;
    let request = peer.recv().await;
    assert_eq!(request["method"], "roots/list");
    peer.send(json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "the user gave up"}
    }))
    .await;
    assert_eq!(
        peer.recv().await,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {
                "requestId": request["id"],
                "reason": "the request it was sent for has ended"
            }
        })
    );
}

/// A handler's progress sent from a task of its own, while the session's
/// driver has nothing else to do (the handler waits, no request comes,
/// and the session, quiet, has shrunk and set no timer), wakes the
/// driver and reaches the client before the request ends: the driver
/// polls its command channel only when it holds something, and a send
/// must still wake it. The handler finishes only once the client has
/// seen the progress, so a lost wake-up fails the test rather than
/// delaying the notification until the answer.
#[tokio::test]
async fn progress_sent_from_a_task_wakes_an_idle_session() {
    let seen = std::sync::Arc::new(tokio::sync::Notify::new());
    let told = seen.clone();
    let server = Server::builder("relay", "1.0.0")
        .tool(
            Tool::without_arguments("relay"),
            move |ctx: Context, _args| {
                let told = told.clone();
                async move {
                    for step in [1.0, 2.0] {
                        let ctx = ctx.clone();
                        // Well after the session went quiet (its driver then
                        // shrinks it and arms no timer): nothing but the send
                        // can wake it.
                        tokio::spawn(async move {
                            tokio::time::sleep(Duration::from_millis(300)).await;
                            ctx.progress(step, None, None).await;
                        });
                        told.notified().await;
                    }
                    Ok(CallToolResult::text("relayed"))
                }
            },
        )
        .build()
        .unwrap();
    let mut peer = initialized(&server, "2025-06-18", json!({})).await;
    let params = call_with_meta("relay", json!({"progressToken": "t"}));
    peer.send_request(1, "tools/call", params).await;
    for step in [1.0, 2.0] {
        let progress = within("the progress", peer.recv()).await;
        assert_eq!(progress["method"], "notifications/progress");
        assert_eq!(progress["params"]["progress"], step);
        seen.notify_one();
    }
    let answer = within("the answer", peer.recv()).await;
    assert_eq!(texts(&answer["result"]), ["relayed"]);
}
