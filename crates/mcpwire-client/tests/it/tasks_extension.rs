//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`,
//! SEP-2663) from the client, against the server runtime: calls that
//! become tasks, polled with `tasks/get`, given input with `tasks/update`,
//! and stopped with `tasks/cancel`.

use std::time::Duration;

use mcpwire_client::{
    Client, ClientConfig, ClientError, RequestOptions, task_of, with_tasks_extension,
};
use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{Arguments, Context, HandlerError, Server};
use mcpwire_types::methods::CallTool;
use mcpwire_types::tasks_extension::{DetailedTask, TaskAck};
use mcpwire_types::{
    BooleanSchema, CallToolRequestParams, CallToolResult, ClientCapabilities, ElicitRequestParams,
    ElicitValue, PrimitiveSchemaDefinition, ProtocolVersion, RequestedSchema, TaskStatus,
    TaskSupport, Tool, ToolExecution,
};
use serde_json::json;

use crate::support::{bounded, connect, pinned};

/// The most polls a test makes before giving up.
const MAX_POLLS: usize = 200;

fn tool(name: &str) -> Tool {
    let mut tool = Tool::new(name, json!({"type": "object"}));
    tool.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    tool
}

async fn slow(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(CallToolResult::text("slow done"))
}

/// Asks whether to go on after a first asynchronous step, then finishes.
async fn confirm(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    let answer = ctx
        .elicit_response("go")
        .and_then(|a| a.content.as_ref())
        .and_then(|c| c.get("go").cloned());
    match answer {
        Some(ElicitValue::Boolean(true)) => Ok(CallToolResult::text("went on")),
        Some(_) => Ok(CallToolResult::text("stopped")),
        None => {
            let schema = RequestedSchema::default().with_property(
                "go",
                PrimitiveSchemaDefinition::Boolean(BooleanSchema::default()),
                true,
            );
            let form = ElicitRequestParams::form("Go on?", schema);
            Err(ctx.input_required().elicit("go", form).into())
        }
    }
}

async fn endless(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    std::future::pending::<()>().await;
    Ok(CallToolResult::text("never"))
}

fn server() -> Server {
    Server::builder("tasks", "1")
        .tool(tool("slow"), slow)
        .tool(tool("confirm"), confirm)
        .tool(tool("endless"), endless)
        .tasks(TaskOptions::new().poll_interval(Duration::from_millis(20)))
        .build()
        .unwrap()
}

/// A 2026-07-28 client that declares elicitation and the tasks extension.
fn tasks_client_config() -> ClientConfig {
    let mut config = pinned(ProtocolVersion::V2026_07_28);
    config.capabilities =
        serde_json::from_value::<ClientCapabilities>(json!({"elicitation": {}})).unwrap();
    with_tasks_extension(config)
}

/// Calls `name`, which must become a task; returns the task's id.
async fn start_task(client: &Client, name: &str) -> String {
    let params = CallToolRequestParams::with_arguments(name, serde_json::Map::new());
    let result = client
        .request::<CallTool>(params, RequestOptions::default())
        .await
        .unwrap();
    task_of(&result).expect("the call became a task").task_id
}

/// Polls with the extension's `tasks/get` until the task is `status`.
async fn poll_until(client: &Client, task_id: &str, status: TaskStatus) -> DetailedTask {
    for _ in 0..MAX_POLLS {
        let task = client.get_extension_task(task_id).await.unwrap();
        if task.status == status {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {task_id} never reached {status:?}");
}

fn texts(result: &serde_json::Value) -> Vec<String> {
    let result: CallToolResult = serde_json::from_value(result.clone()).unwrap();
    result
        .content
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok())
        .filter_map(|block| block["text"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn a_2026_call_that_becomes_a_task_is_polled_with_the_extension_until_completed() {
    bounded(async {
        let client = connect(&server(), tasks_client_config()).await;
        let task_id = start_task(&client, "slow").await;
        let done = poll_until(&client, &task_id, TaskStatus::Completed).await;
        assert_eq!(done.task_id, task_id);
        assert_eq!(texts(done.result.as_ref().unwrap()), ["slow done"]);
    })
    .await;
}

#[tokio::test]
async fn a_2026_task_waiting_for_input_resumes_after_the_client_updates_it() {
    bounded(async {
        let client = connect(&server(), tasks_client_config()).await;
        let task_id = start_task(&client, "confirm").await;
        let waiting = poll_until(&client, &task_id, TaskStatus::InputRequired).await;
        let requests = serde_json::to_value(waiting.input_requests.unwrap()).unwrap();
        assert_eq!(requests["go"]["method"], "elicitation/create");
        let answers =
            serde_json::from_value(json!({"go": {"action": "accept", "content": {"go": true}}}))
                .unwrap();
        let ack = client
            .update_extension_task(&task_id, answers)
            .await
            .unwrap();
        assert_eq!(ack, TaskAck::default());
        let done = poll_until(&client, &task_id, TaskStatus::Completed).await;
        assert_eq!(texts(done.result.as_ref().unwrap()), ["went on"]);
    })
    .await;
}

#[tokio::test]
async fn a_2026_task_cancelled_by_the_client_reads_cancelled() {
    bounded(async {
        let client = connect(&server(), tasks_client_config()).await;
        let task_id = start_task(&client, "endless").await;
        let ack = client.cancel_extension_task(&task_id).await.unwrap();
        assert_eq!(ack, TaskAck::default());
        let task = client.get_extension_task(&task_id).await.unwrap();
        assert_eq!(task.status, TaskStatus::Cancelled);
    })
    .await;
}

#[tokio::test]
async fn extension_methods_are_refused_unsent_when_not_registered_or_core_in_the_revision() {
    bounded(async {
        let client = connect(&server(), pinned(ProtocolVersion::V2026_07_28)).await;
        let error = client.get_extension_task("any").await.unwrap_err();
        assert!(matches!(error, ClientError::Refused(_)), "{error:?}");
        // In 2025-11-25 `tasks/get` is a core method with its own result.
        let config = with_tasks_extension(pinned(ProtocolVersion::V2025_11_25));
        let client = connect(&server(), config).await;
        let error = client.get_extension_task("any").await.unwrap_err();
        assert!(matches!(error, ClientError::Refused(_)), "{error:?}");
    })
    .await;
}
