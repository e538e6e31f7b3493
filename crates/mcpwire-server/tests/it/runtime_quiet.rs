//! Runtime tests of a session that went quiet: after 100 ms without a
//! message it gives back the spare room of its queues and tables and the
//! channels no handler uses (issue 20, memory per idle session), and it
//! serves on exactly as before: its subscriptions, its tasks, its running
//! handlers and the channel handlers talk back on all survive.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{Arguments, Context, HandlerError, Server};
use mcpwire_types::{
    CallToolResult, LoggingLevel, ReadResourceResult, Resource, ResourceContents, TaskSupport,
    Tool, ToolExecution,
};
use serde_json::{Value, json};
use support::{RawPeer, serve, texts};
use tokio::sync::Notify;

const NOTES: &str = "file:///notes.txt";

/// Long enough for a session to go quiet and shrink (after 100 ms without
/// a message; the driver looks within another 100 ms), with room for a
/// loaded machine's late timers.
const QUIET_FOR: Duration = Duration::from_millis(400);

async fn slow(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(CallToolResult::text("done"))
}

/// A server with a resource, a tool that logs, one that waits for `gate`
/// and logs once it may go on, and one that may run as a task.
fn server(gate: Arc<Notify>) -> Server {
    let empty = || json!({"type": "object"});
    let mut task_tool = Tool::new("slow", empty());
    task_tool.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    Server::builder("quiet", "1.0.0")
        .resource(
            Resource::new(NOTES, "notes"),
            |_ctx: Context, uri| async move {
                let contents = ResourceContents::text(&uri, "text/plain", "buy milk");
                Ok(ReadResourceResult::new(vec![contents]))
            },
        )
        .tool(
            Tool::new("logs", empty()),
            |ctx: Context, _args| async move {
                ctx.log(LoggingLevel::Error, None, json!("hello")).await;
                Ok(CallToolResult::text("logged"))
            },
        )
        .tool(Tool::new("gated", empty()), move |ctx: Context, _args| {
            let gate = Arc::clone(&gate);
            async move {
                gate.notified().await;
                ctx.log(LoggingLevel::Error, None, json!("resumed")).await;
                Ok(CallToolResult::text("gated"))
            }
        })
        .tool(task_tool, slow)
        .tasks(TaskOptions::new())
        .build()
        .unwrap()
}

async fn initialized(server: &Server) -> RawPeer {
    let (mut peer, _task) = serve(server);
    peer.initialize("2025-11-25", json!({})).await;
    peer
}

fn call(name: &str) -> Value {
    json!({"name": name, "arguments": {}})
}

/// Calls the `logs` tool: its log message, then its answer.
async fn call_logs(peer: &mut RawPeer, id: i64) {
    let exchange = peer.exchange(id, "tools/call", call("logs")).await;
    let logged: Vec<&Value> = exchange
        .before
        .iter()
        .map(|message| &message["params"]["data"])
        .collect();
    assert_eq!(logged, [&json!("hello")]);
    assert_eq!(texts(&exchange.response["result"]), ["logged"]);
}

#[tokio::test]
async fn a_quiet_session_keeps_its_subscriptions_and_its_handlers_still_talk_back() {
    let server = server(Arc::new(Notify::new()));
    let mut peer = initialized(&server).await;
    call_logs(&mut peer, 1).await;
    peer.result(2, "resources/subscribe", json!({"uri": NOTES}))
        .await;
    for round in 0..2 {
        tokio::time::sleep(QUIET_FOR).await;
        server.resource_updated(NOTES);
        let updated = peer.recv().await;
        assert_eq!(
            updated["method"], "notifications/resources/updated",
            "round {round}: {updated}"
        );
        assert_eq!(updated["params"]["uri"], NOTES);
        call_logs(&mut peer, 10 + round).await;
    }
    peer.expect_silence().await;
}

#[tokio::test]
async fn a_handler_waiting_while_its_session_goes_quiet_still_talks_back_and_is_answered() {
    let gate = Arc::new(Notify::new());
    let mut peer = initialized(&server(Arc::clone(&gate))).await;
    peer.send_request(1, "tools/call", call("gated")).await;
    tokio::time::sleep(QUIET_FOR).await;
    gate.notify_one();
    let exchange = peer.answer_to(1).await;
    let logged: Vec<&Value> = exchange
        .before
        .iter()
        .map(|message| &message["params"]["data"])
        .collect();
    assert_eq!(logged, [&json!("resumed")]);
    assert_eq!(texts(&exchange.response["result"]), ["gated"]);
    peer.expect_silence().await;
}

/// TASK-47: a task made without a requestor is bound to its session; the
/// session's name for that outlives its going quiet.
#[tokio::test]
async fn a_quiet_session_still_finds_the_tasks_it_made() {
    let server = server(Arc::new(Notify::new()));
    let mut peer = initialized(&server).await;
    let params = json!({"name": "slow", "arguments": {}, "task": {}});
    let created = peer.result(1, "tools/call", params).await;
    let task_id = created["task"]["taskId"].as_str().unwrap().to_owned();
    tokio::time::sleep(QUIET_FOR).await;
    // The task's status notification may come first (TASK-*: the server
    // tells the client when it completes).
    let exchange = peer
        .exchange(2, "tasks/result", json!({"taskId": task_id}))
        .await;
    for notice in &exchange.before {
        assert_eq!(notice["method"], "notifications/tasks/status", "{notice}");
        assert_eq!(notice["params"]["taskId"], task_id.as_str());
    }
    let result = &exchange.response["result"];
    assert_eq!(texts(result), ["done"], "{result}");
    let seen = peer
        .result(3, "tasks/get", json!({"taskId": task_id}))
        .await;
    assert_eq!(seen["status"], "completed", "{seen}");
}
