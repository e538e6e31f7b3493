//! The server behind `mcpwire demo` and `mcpwire serve-demo`: the notes
//! server (with a welcome note) plus a tool for each thing a client should
//! see once: progress over time and tasks (a countdown), elicitation,
//! sampling, and an image.

use std::time::Duration;

use mcpwire::prelude::*;
use mcpwire::server::BuildError;
use mcpwire::server::tasks::TaskOptions;
use mcpwire::types::{
    ContentBlock, CreateMessageRequestParams, ElicitRequestParams, RequestedSchema, TaskSupport,
    ToolExecution,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::notes::{self, Notebook};

/// A 1×1 PNG, the image the `pixel` tool returns.
const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[derive(Deserialize)]
struct Countdown {
    seconds: u64,
}

#[derive(Deserialize)]
struct Text {
    text: String,
}

/// Builds the demo server: the notes (starting with note 0, "Welcome"),
/// tasks, and the `countdown`, `ask_name`, `summarize` and `pixel` tools.
///
/// # Errors
///
/// Never in practice: the catalog is fixed and valid.
pub fn demo_server() -> Result<Server, BuildError> {
    let notebook = Notebook::with_note("Welcome", "This note came with the demo server.");
    let mut countdown = Tool::new(
        "countdown",
        json!({"type": "object", "properties": {"seconds": {"type": "integer", "minimum": 0, "maximum": 600}}, "required": ["seconds"]}),
    )
    .description("Counts down one second at a time, reporting progress.");
    // The countdown may run as a task (2025-11-25), for `call --task`.
    countdown.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    let ask = Tool::new("ask_name", json!({"type": "object", "properties": {}}))
        .description("Asks the user for their name (elicitation) and greets them.");
    let summarize = Tool::new(
        "summarize",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    )
    .description("Asks the client's model to summarize a text (sampling).");
    let pixel = Tool::new("pixel", json!({"type": "object", "properties": {}}))
        .description("Returns a one-pixel PNG image.");
    notes::builder("mcpwire-demo", notebook)
        .tasks(TaskOptions::new())
        .instructions("A demo notes server. Add notes with add_note, find them with search_notes.")
        .typed_tool(countdown, count_down)
        .tool(ask, |ctx: Context, _args| ask_name(ctx))
        .typed_tool(summarize, summarize_text)
        .tool(pixel, |_ctx: Context, _args| one_pixel())
        .build()
}

async fn count_down(ctx: Context, args: Countdown) -> Result<CallToolResult, HandlerError> {
    for left in (1..=args.seconds).rev() {
        let done = (args.seconds - left) as f64;
        let message = format!("{left} s left");
        ctx.progress(done, Some(args.seconds as f64), Some(&message))
            .await;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Ok(CallToolResult::text("Liftoff."))
}

async fn ask_name(ctx: Context) -> Result<CallToolResult, HandlerError> {
    let name = ctx
        .elicit_response("name")
        .and_then(|answer| answer.content.as_ref())
        .and_then(|content| content.get("name"))
        .map(|name| match serde_json::to_value(name) {
            Ok(Value::String(text)) => text,
            Ok(other) => other.to_string(),
            Err(_) => String::new(),
        });
    if let Some(name) = name {
        return Ok(CallToolResult::text(format!("Hello, {name}!")));
    }
    if ctx.elicit_response("name").is_some() {
        return Ok(CallToolResult::text("Hello, stranger."));
    }
    let schema: RequestedSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Your name"}},
        "required": ["name"]
    }))
    .map_err(|error| HandlerError::Internal(error.to_string()))?;
    let question = ElicitRequestParams::form("What is your name?", schema);
    Err(ctx.input_required().elicit("name", question).into())
}

async fn summarize_text(ctx: Context, args: Text) -> Result<CallToolResult, HandlerError> {
    if let Some(answer) = ctx.sampling_response("summary") {
        let reply = serde_json::to_value(answer).unwrap_or_default();
        let text = reply
            .pointer("/content/text")
            .and_then(Value::as_str)
            .unwrap_or("(no text)");
        return Ok(CallToolResult::text(format!("Summary: {text}")));
    }
    let params: CreateMessageRequestParams = serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": format!("Summarize: {}", args.text)}}],
        "maxTokens": 200
    }))
    .map_err(|error| HandlerError::Internal(error.to_string()))?;
    Err(ctx.input_required().sample("summary", params).into())
}

async fn one_pixel() -> Result<CallToolResult, HandlerError> {
    let image: ContentBlock = serde_json::from_value(
        json!({"type": "image", "data": PIXEL_PNG, "mimeType": "image/png"}),
    )
    .map_err(|error| HandlerError::Internal(error.to_string()))?;
    let mut result = CallToolResult::text("A one-pixel image:");
    result.content.push(image);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_server_builds_with_the_notes_and_its_own_tools() {
        let server = demo_server();
        assert!(server.is_ok(), "{:?}", server.err());
    }
}
