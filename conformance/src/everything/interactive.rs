//! Tools that talk back to the client while their call is in flight: log
//! messages, progress, sampling and elicitation requests, and the SSE
//! polling tool `test_reconnection`.

use std::time::Duration;

use mcpwire_server::{Arguments, Context, HandlerError, PeerRequestError, ServerBuilder};
use mcpwire_session::RequestOptions;
use mcpwire_types::methods::{ClientResult, ServerRequest};
use mcpwire_types::{
    CallToolResult, CreateMessageRequestParams, ElicitRequestParams, ElicitResult, LoggingLevel,
    SamplingContent, SamplingMessage,
};
use serde_json::{Value, json};

use super::schemas::{defaults_form, enums_form, requested, user_form};
use super::{tool, tool_without_arguments};

/// The pause between the messages of the logging and progress tools, so
/// that they arrive while the call is visibly still running.
const STEP: Duration = Duration::from_millis(50);

/// `maxTokens` of the sampling request.
const SAMPLING_MAX_TOKENS: u64 = 100;

/// Adds the interactive tools.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            tool_without_arguments(
                "test_tool_with_logging",
                "Sends three info log messages 50 ms apart while running.",
            ),
            with_logging,
        )
        .tool(
            tool_without_arguments(
                "test_tool_with_progress",
                "Reports progress 0, 50 and 100 of 100, 50 ms apart, when asked for progress.",
            ),
            with_progress,
        )
        .tool(
            tool(
                "test_sampling",
                "Asks the client's LLM to answer the prompt (sampling/createMessage).",
                json!({
                    "type": "object",
                    "properties": {"prompt": {"type": "string", "description": "What to ask the LLM"}},
                    "required": ["prompt"]
                }),
            ),
            sampling,
        )
        .tool(
            tool(
                "test_elicitation",
                "Asks the user for a user name and e-mail address (elicitation/create, form mode).",
                json!({
                    "type": "object",
                    "properties": {"message": {"type": "string", "description": "What to tell the user"}},
                    "required": ["message"]
                }),
            ),
            elicitation,
        )
        .tool(
            tool_without_arguments(
                "test_elicitation_sep1034_defaults",
                "Asks for a form whose fields all carry defaults (SEP-1034).",
            ),
            elicitation_defaults,
        )
        .tool(
            tool_without_arguments(
                "test_elicitation_sep1330_enums",
                "Asks for a form with every enum shape: untitled, titled, legacy, multi-select (SEP-1330).",
            ),
            elicitation_enums,
        )
        .tool(
            tool_without_arguments(
                "test_reconnection",
                "Answers after a pause, for the SSE polling and resumption scenario (SEP-1699).",
            ),
            reconnection,
        )
}

/// Sends the three log messages of the logging tools, `STEP` apart.
pub(super) async fn log_three_messages(ctx: &Context) {
    for (index, message) in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    .into_iter()
    .enumerate()
    {
        if index > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.log(LoggingLevel::Info, None, message).await;
    }
}

async fn with_logging(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    log_three_messages(&ctx).await;
    Ok(CallToolResult::text(
        "Tool with logging executed successfully",
    ))
}

async fn with_progress(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    for (index, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if index > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.progress(progress, Some(100.0), None).await;
    }
    Ok(CallToolResult::text(
        "Tool with progress executed successfully",
    ))
}

/// A required string argument (the input schema already made sure it is
/// there; this only avoids trusting that).
fn string_argument<'a>(args: &'a Arguments, name: &str) -> Result<&'a str, HandlerError> {
    args.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| HandlerError::tool(format!("the argument {name:?} must be a string")))
}

/// Turns a failed request to the client into a tool error the model can read.
fn peer_failure(what: &str, error: &PeerRequestError) -> HandlerError {
    HandlerError::tool(format!("{what} failed: {error}"))
}

async fn sampling(ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    let prompt = string_argument(&args, "prompt")?;
    let params = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(prompt)],
        SAMPLING_MAX_TOKENS,
    );
    let request = ServerRequest::CreateMessage(Box::new(params));
    let answer = ctx
        .request(request, RequestOptions::default())
        .await
        .map_err(|error| peer_failure("sampling/createMessage", &error))?;
    let ClientResult::CreateMessage(result) = answer else {
        return Err(peer_failure(
            "sampling/createMessage",
            &PeerRequestError::UnexpectedResult,
        ));
    };
    let text: Vec<&str> = result
        .content
        .blocks()
        .iter()
        .filter_map(|block| match block {
            SamplingContent::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect();
    Ok(CallToolResult::text(format!(
        "LLM response: {}",
        text.join("\n")
    )))
}

/// Sends `elicitation/create` in form mode showing `message` and asking for
/// `form`, and waits for the user's answer.
pub(super) async fn elicit(
    ctx: &Context,
    message: &str,
    form: Value,
) -> Result<ElicitResult, HandlerError> {
    let schema = requested(form).map_err(HandlerError::internal)?;
    let request = ServerRequest::Elicit(Box::new(ElicitRequestParams::form(message, schema)));
    let answer = ctx
        .request(request, RequestOptions::default())
        .await
        .map_err(|error| peer_failure("elicitation/create", &error))?;
    match answer {
        ClientResult::Elicit(result) => Ok(*result),
        _ => Err(peer_failure(
            "elicitation/create",
            &PeerRequestError::UnexpectedResult,
        )),
    }
}

/// `action=<action>, content=<content as JSON>`, the summary the
/// elicitation tools return.
fn describe(result: &ElicitResult) -> String {
    let action = serde_json::to_value(result.action).unwrap_or(Value::Null);
    let action = action.as_str().unwrap_or("unknown");
    let content = serde_json::to_string(&result.content).unwrap_or_default();
    format!("action={action}, content={content}")
}

async fn elicitation(ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    let message = string_argument(&args, "message")?;
    let result = elicit(&ctx, message, user_form()).await?;
    Ok(CallToolResult::text(format!(
        "User response: {}",
        describe(&result)
    )))
}

async fn elicitation_defaults(
    ctx: Context,
    _args: Arguments,
) -> Result<CallToolResult, HandlerError> {
    let message = "Please review and update the form fields with defaults";
    let result = elicit(&ctx, message, defaults_form()).await?;
    Ok(CallToolResult::text(format!(
        "Elicitation completed: {}",
        describe(&result)
    )))
}

async fn elicitation_enums(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let message = "Please choose from every kind of enum field";
    let result = elicit(&ctx, message, enums_form()).await?;
    Ok(CallToolResult::text(format!(
        "Elicitation completed: {}",
        describe(&result)
    )))
}

/// How long `test_reconnection` works before answering: long enough for a
/// transport to close the request's SSE stream and let the client resume.
const RECONNECTION_PAUSE: Duration = Duration::from_millis(500);

async fn reconnection(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    // SEP-1699: the call's stream is closed before its answer, so that the
    // client resumes it with `Last-Event-ID` and finds the answer there
    // (`server-sse-polling`). Over stdio, or for older clients, nothing
    // is closed and the answer comes as usual.
    ctx.close_sse_stream().await;
    tokio::time::sleep(RECONNECTION_PAUSE).await;
    Ok(CallToolResult::text(
        "Reconnection test completed successfully",
    ))
}
