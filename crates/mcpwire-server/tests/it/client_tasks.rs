//! Tasks end to end through both runtimes: `mcpwire-client` calls a tool as
//! a 2025-11-25 task on an `mcpwire-server`, polls it, lists it, receives
//! its status notification, fetches its result, and cancels another.

use crate::support;

use std::time::Duration;

use mcpwire_client::{Client, ClientConfig, ClientError, task_of};
use mcpwire_jsonrpc::memory;
use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{Arguments, Context, HandlerError, Server};
use mcpwire_types::{
    CallToolResult, ClientCapabilities, Implementation, ProtocolVersion, TaskStatus, TaskSupport,
    Tool, ToolExecution,
};
use serde_json::json;
use support::within;

fn task_tool(name: &str) -> Tool {
    let mut tool = Tool::new(name, json!({"type": "object"}));
    tool.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    tool
}

async fn slow(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(200)) => Ok(CallToolResult::text("computed")),
        () = ctx.cancellation().cancelled() => Err(HandlerError::internal("cancelled")),
    }
}

async fn endless(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    std::future::pending::<()>().await;
    Ok(CallToolResult::text("never"))
}

async fn connect() -> Client {
    let server = Server::builder("tasks", "1")
        .tool(task_tool("slow"), slow)
        .tool(task_tool("endless"), endless)
        .tasks(TaskOptions::new())
        .build()
        .unwrap();
    let (client_end, server_end) = memory::pair(256);
    tokio::spawn(async move { server.serve(server_end).await });
    let config = ClientConfig::new(
        Implementation::new("task-client", "1"),
        ClientCapabilities::default(),
    )
    .pinned(ProtocolVersion::V2025_11_25);
    within("connect", Client::connect(client_end, config))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_client_calls_a_tool_as_a_task_and_fetches_its_result() {
    let client = connect().await;
    let mut updates = client.task_status_updates();
    let task = client
        .call_tool_as_task("slow", Default::default(), Some(60_000))
        .await
        .unwrap();
    assert_eq!(task.status, TaskStatus::Working);
    let polled = client.get_task(&task.task_id).await.unwrap();
    assert_eq!(polled.task_id, task.task_id);
    let listed = client.list_tasks(None).await.unwrap();
    assert!(listed.tasks.iter().any(|t| t.task_id == task.task_id));
    let result = within("tasks/result", client.task_tool_result(&task.task_id))
        .await
        .unwrap();
    assert_eq!(result.content, CallToolResult::text("computed").content);
    let update = within("a status notification", updates.next())
        .await
        .unwrap();
    assert_eq!(
        (update.task.task_id.as_str(), update.task.status),
        (task.task_id.as_str(), TaskStatus::Completed)
    );
    client.close().await;
}

#[tokio::test]
async fn a_client_cancels_a_running_task_and_cannot_cancel_it_twice() {
    let client = connect().await;
    let task = client
        .call_tool_as_task("endless", Default::default(), None)
        .await
        .unwrap();
    let cancelled = client.cancel_task(&task.task_id).await.unwrap();
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    // TASK-41: a terminal task cannot be cancelled again.
    let again = client.cancel_task(&task.task_id).await;
    assert!(matches!(again, Err(ClientError::Peer(error)) if error.code.0 == -32602));
    // A plain call of the same kind of tool is an ordinary result.
    let plain = client.call_tool("slow", ()).await.unwrap();
    assert!(task_of(&plain).is_none());
    client.close().await;
}
