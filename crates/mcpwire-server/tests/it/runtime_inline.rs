//! Runtime tests of how a request's handler runs: polled once where the
//! request arrived and answered at once when it finishes there, moved to a
//! task of its own when it has to wait; either way answered exactly once,
//! in order with what it sent before, and also when it panics.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use mcpwire_server::{Context, Server};
use mcpwire_types::{CallToolResult, LoggingLevel, Tool};
use serde_json::{Value, json};
use support::{RawPeer, serve, texts};
use tokio::sync::Notify;

/// A server with a tool that answers at once, one that waits for `gate`,
/// one that panics after waiting, and one that logs before answering at
/// once.
fn server(gate: Arc<Notify>) -> Server {
    let empty = || json!({"type": "object"});
    Server::builder("inline", "1.0.0")
        .tool(
            Tool::new("quick", empty()),
            |_ctx: Context, _args| async move { Ok(CallToolResult::text("quick")) },
        )
        .tool(Tool::new("gated", empty()), move |_ctx: Context, _args| {
            let gate = Arc::clone(&gate);
            async move {
                gate.notified().await;
                Ok(CallToolResult::text("gated"))
            }
        })
        .tool(
            Tool::new("panics_later", empty()),
            |_ctx: Context, _args| async move {
                tokio::time::sleep(Duration::from_millis(10)).await;
                panic!("the handler gave up");
            },
        )
        .tool(
            Tool::new("logs", empty()),
            |ctx: Context, _args| async move {
                for n in 0..3 {
                    ctx.log(LoggingLevel::Error, None, json!(n)).await;
                }
                Ok(CallToolResult::text("logged"))
            },
        )
        .build()
        .unwrap()
}

async fn initialized(server: &Server) -> RawPeer {
    let (mut peer, _task) = serve(server);
    peer.initialize("2025-06-18", json!({})).await;
    peer
}

fn call(name: &str) -> Value {
    json!({"name": name, "arguments": {}})
}

#[tokio::test]
async fn a_waiting_handler_does_not_hold_up_a_later_request_and_is_answered_when_it_resumes() {
    let gate = Arc::new(Notify::new());
    let mut peer = initialized(&server(Arc::clone(&gate))).await;
    peer.send_request(1, "tools/call", call("gated")).await;
    let quick = peer.result(2, "tools/call", call("quick")).await;
    assert_eq!(texts(&quick), ["quick"]);
    gate.notify_one();
    let gated = peer.recv().await;
    assert_eq!(gated["id"], 1, "{gated}");
    assert_eq!(texts(&gated["result"]), ["gated"]);
    peer.expect_silence().await;
}

#[tokio::test]
async fn a_handler_that_panics_after_waiting_is_answered_with_an_internal_error() {
    let mut peer = initialized(&server(Arc::new(Notify::new()))).await;
    let error = peer.error(1, "tools/call", call("panics_later")).await;
    assert_eq!(error["code"], -32603, "{error}");
    let quick = peer.result(2, "tools/call", call("quick")).await;
    assert_eq!(texts(&quick), ["quick"]);
}

/// LOG: messages a handler sent before it finished reach the client before
/// its answer, also when it finished in its first poll.
#[tokio::test]
async fn what_a_handler_sent_before_finishing_at_once_precedes_its_answer() {
    let mut peer = initialized(&server(Arc::new(Notify::new()))).await;
    peer.result(1, "logging/setLevel", json!({"level": "debug"}))
        .await;
    let exchange = peer.exchange(2, "tools/call", call("logs")).await;
    let logged: Vec<&Value> = exchange
        .before
        .iter()
        .map(|message| &message["params"]["data"])
        .collect();
    assert_eq!(logged, [&json!(0), &json!(1), &json!(2)]);
    assert_eq!(texts(&exchange.response["result"]), ["logged"]);
    peer.expect_silence().await;
}
