//! Task fixtures of the `tasks-*` scenarios (extension
//! `io.modelcontextprotocol/tasks`, SEP-2663; also callable as 2025-11-25
//! tasks): tools whose `execution.taskSupport` lets the runtime run them in
//! the background, built only on the public API.
//!
//! In 2026-07-28 the runtime makes a call a task when its handler does not
//! finish at once, so the fixtures that must become tasks start with a
//! short sleep, and `test_tool_with_task` asks for the user's name before
//! any asynchronous work, so that its first round is an ordinary
//! `input_required` answer and only the second round becomes a task.

use std::time::Duration;

use mcpwire_jsonrpc::{ErrorCode, ErrorObject};
use mcpwire_server::{Arguments, Context, HandlerError, ServerBuilder};
use mcpwire_types::{
    BooleanSchema, CallToolResult, ElicitAction, ElicitRequestParams, ElicitValue,
    PrimitiveSchemaDefinition, RequestedSchema, StringSchema, TaskSupport, Tool, ToolExecution,
};
use serde_json::json;

use super::tool;

/// How long the fixtures that must become tasks wait before working, so
/// that their first poll is not ready.
const SETTLE: Duration = Duration::from_millis(20);

/// The longest `slow_compute` sleeps, whatever it is asked.
const MAX_SECONDS: f64 = 120.0;

/// Adds the task tools.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            tool(
                "greet",
                "Greets `name` synchronously (never a task).",
                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
            ),
            greet,
        )
        .tool(
            with_tasks(
                tool(
                    "slow_compute",
                    "Sleeps `seconds`, then reports `label`; may run as a task.",
                    json!({"type": "object", "properties": {
                        "seconds": {"type": "number", "minimum": 0},
                        "label": {"type": "string"}
                    }}),
                ),
                TaskSupport::Optional,
            ),
            slow_compute,
        )
        .tool(
            with_tasks(
                tool(
                    "failing_job",
                    "Runs only as a task and finishes with a tool error.",
                    json!({"type": "object"}),
                ),
                TaskSupport::Required,
            ),
            failing_job,
        )
        .tool(
            with_tasks(
                tool(
                    "protocol_error_job",
                    "Runs as a task and fails with a JSON-RPC error.",
                    json!({"type": "object"}),
                ),
                TaskSupport::Optional,
            ),
            protocol_error_job,
        )
        .tool(
            with_tasks(
                tool(
                    "confirm_delete",
                    "Asks the user to confirm deleting `filename`, then reports what it did.",
                    json!({"type": "object", "properties": {"filename": {"type": "string"}}}),
                ),
                TaskSupport::Optional,
            ),
            confirm_delete,
        )
        .tool(
            with_tasks(
                tool(
                    "multi_input",
                    "Asks two questions at once, then reports both answers.",
                    json!({"type": "object"}),
                ),
                TaskSupport::Optional,
            ),
            multi_input,
        )
        .tool(
            with_tasks(
                tool(
                    "test_tool_with_task",
                    "Asks for a name synchronously, then greets it from a task.",
                    json!({"type": "object"}),
                ),
                TaskSupport::Required,
            ),
            tool_with_task,
        )
}

fn with_tasks(mut tool: Tool, support: TaskSupport) -> Tool {
    tool.execution = Some(ToolExecution {
        task_support: Some(support),
        ..ToolExecution::default()
    });
    tool
}

fn text_argument(args: &Arguments, name: &str) -> Option<String> {
    args.get(name).and_then(|v| v.as_str()).map(str::to_owned)
}

async fn greet(_ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    let name = text_argument(&args, "name").unwrap_or_else(|| "world".to_owned());
    Ok(CallToolResult::text(format!("Hello, {name}!")))
}

async fn slow_compute(ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    let seconds = args
        .get("seconds")
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(1.0)
        .clamp(0.0, MAX_SECONDS);
    let label = text_argument(&args, "label").unwrap_or_else(|| "compute".to_owned());
    if seconds > 0.0 {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {}
            () = ctx.cancellation().cancelled() => {
                return Err(HandlerError::Internal(format!("{label} was cancelled")));
            }
        }
    }
    Ok(CallToolResult::text(format!(
        "{label}: done after {seconds} s"
    )))
}

async fn failing_job(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(SETTLE).await;
    Err(HandlerError::tool("failing_job failed on purpose"))
}

async fn protocol_error_job(
    _ctx: Context,
    _args: Arguments,
) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(SETTLE).await;
    Err(HandlerError::Rpc(ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        "protocol_error_job failed with a protocol error on purpose",
    )))
}

/// A form asking one yes/no question, field `confirm`.
fn confirm_form(message: String) -> ElicitRequestParams {
    let form = RequestedSchema::default().with_property(
        "confirm",
        PrimitiveSchemaDefinition::Boolean(BooleanSchema::default()),
        true,
    );
    ElicitRequestParams::form(message, form)
}

/// A form asking for one string, field `name`.
fn name_form(message: &str) -> ElicitRequestParams {
    let form = RequestedSchema::default().with_property(
        "name",
        PrimitiveSchemaDefinition::String(StringSchema::default()),
        true,
    );
    ElicitRequestParams::form(message, form)
}

async fn confirm_delete(ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(SETTLE).await;
    let filename = text_argument(&args, "filename").unwrap_or_else(|| "the file".to_owned());
    let Some(answer) = ctx.elicit_response("confirm") else {
        let question = confirm_form(format!("Delete {filename}?"));
        return Err(ctx.input_required().elicit("confirm", question).into());
    };
    let confirmed = answer.action == ElicitAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|content| content.get("confirm"))
            .is_some_and(|value| *value == ElicitValue::Boolean(true));
    Ok(CallToolResult::text(if confirmed {
        format!("Deleted {filename}.")
    } else {
        format!("Kept {filename}.")
    }))
}

async fn multi_input(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(SETTLE).await;
    let first = ctx.elicit_response("first");
    let second = ctx.elicit_response("second");
    match (first, second) {
        (Some(first), Some(second)) => Ok(CallToolResult::text(format!(
            "Answers: {:?} and {:?}",
            first.content, second.content
        ))),
        _ => Err(ctx
            .input_required()
            .elicit("first", confirm_form("First question: proceed?".to_owned()))
            .elicit("second", name_form("Second question: your name?"))
            .into()),
    }
}

async fn tool_with_task(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let name = ctx
        .elicit_response("name")
        .and_then(|answer| answer.content.as_ref())
        .and_then(|content| content.get("name"))
        .and_then(|value| match value {
            ElicitValue::String(name) => Some(name.clone()),
            _ => None,
        });
    // Asked before any asynchronous work: the question is a synchronous
    // `input_required` answer, and only the second round becomes a task.
    let Some(name) = name else {
        return Err(ctx
            .input_required()
            .elicit("name", name_form("What is your name?"))
            .into());
    };
    tokio::time::sleep(SETTLE).await;
    Ok(CallToolResult::text(format!(
        "Hello, {name}! (from a task)"
    )))
}
