//! Diagnostic tools of the 2026-07-28 scenarios (`server-stateless`,
//! `http-custom-header-server-validation`): a tool needing a client
//! capability, one that would elicit mid-call, a logging tool, triggers for
//! list changes, and a tool with an `x-mcp-header` parameter.

use mcpwire_server::{Arguments, Context, HandlerError, ServerBuilder};
use mcpwire_types::{
    CallToolResult, ClientCapabilities, GetPromptResult, MissingRequiredClientCapabilityData,
    Prompt, PromptMessage, SamplingCapability,
};
use serde_json::{Value, json};

use super::interactive::{elicit, log_three_messages};
use super::schemas::user_form;
use super::{tool, tool_without_arguments};

/// The tool `test_trigger_tool_change` adds and removes in turn.
const DYNAMIC_TOOL: &str = "test_dynamic_tool";

/// The prompt `test_trigger_prompt_change` adds and removes in turn.
const DYNAMIC_PROMPT: &str = "test_dynamic_prompt";

/// The header the `x-mcp-header` parameter of `test_custom_header` mirrors
/// (sent as `Mcp-Param-Region`).
const CUSTOM_HEADER: &str = "Region";

/// The prompt `test_trigger_prompt_change` toggles.
fn dynamic_prompt() -> Prompt {
    let mut prompt = Prompt::new(DYNAMIC_PROMPT);
    prompt.description =
        Some("A prompt that test_trigger_prompt_change removes and adds back.".to_owned());
    prompt
}

/// Adds the diagnostic tools, and the prompt the prompt trigger toggles.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            tool_without_arguments(
                "test_missing_capability",
                "Needs the client's sampling capability; without it the call fails with -32021.",
            ),
            missing_capability,
        )
        .tool(
            tool_without_arguments(
                "test_streaming_elicitation",
                "Asks the user for input mid-call where the revision allows server requests.",
            ),
            streaming_elicitation,
        )
        .tool(
            tool_without_arguments(
                "test_logging_tool",
                "Sends three info log messages; none when the request asked for no logs.",
            ),
            logging_tool,
        )
        .tool(
            tool_without_arguments(
                "test_trigger_tool_change",
                "Adds or removes test_dynamic_tool, changing the tool list.",
            ),
            trigger_tool_change,
        )
        .tool(
            tool_without_arguments(
                "test_trigger_prompt_change",
                "Removes or adds back test_dynamic_prompt, changing the prompt list.",
            ),
            trigger_prompt_change,
        )
        .tool(
            tool(
                "test_custom_header",
                "Echoes its region argument, which clients mirror in the Mcp-Param-Region header.",
                json!({
                    "type": "object",
                    "properties": {
                        "region": {
                            "type": "string",
                            "description": "Any string",
                            "x-mcp-header": CUSTOM_HEADER
                        }
                    },
                    "required": ["region"]
                }),
            ),
            custom_header,
        )
        .prompt(dynamic_prompt(), dynamic_prompt_messages)
}

async fn missing_capability(
    ctx: Context,
    _args: Arguments,
) -> Result<CallToolResult, HandlerError> {
    if ctx.client_capabilities().supports_sampling() {
        return Ok(CallToolResult::text("The client declared sampling."));
    }
    let required = ClientCapabilities {
        sampling: Some(SamplingCapability::default()),
        ..ClientCapabilities::default()
    };
    let error = MissingRequiredClientCapabilityData::new(required).to_error();
    Err(HandlerError::Rpc(error))
}

/// In the handshake era this elicits like `test_elicitation`. From
/// 2026-07-28 a server may not send requests of its own on a response
/// stream, so the engine refuses and the tool answers with that refusal:
/// what the runner checks is that no request frame goes out.
async fn streaming_elicitation(
    ctx: Context,
    _args: Arguments,
) -> Result<CallToolResult, HandlerError> {
    match elicit(
        &ctx,
        "Please enter your user name and e-mail address",
        user_form(),
    )
    .await
    {
        Ok(result) => {
            let content = serde_json::to_string(&result.content).unwrap_or_default();
            Ok(CallToolResult::text(format!("Elicited: {content}")))
        }
        Err(HandlerError::Tool(refusal)) => {
            Ok(CallToolResult::text(format!("Not elicited: {refusal}")))
        }
        Err(other) => Err(other),
    }
}

async fn logging_tool(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    log_three_messages(&ctx).await;
    Ok(CallToolResult::text("Logging tool finished"))
}

async fn dynamic_tool(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    Ok(CallToolResult::text("The dynamic tool ran."))
}

async fn trigger_tool_change(
    ctx: Context,
    _args: Arguments,
) -> Result<CallToolResult, HandlerError> {
    let server = ctx.server();
    if server.remove_tool(DYNAMIC_TOOL) {
        return Ok(CallToolResult::text(format!("Removed {DYNAMIC_TOOL}.")));
    }
    let added = tool_without_arguments(
        DYNAMIC_TOOL,
        "A tool that test_trigger_tool_change adds and removes.",
    );
    server
        .add_tool(added, dynamic_tool)
        .map_err(HandlerError::internal)?;
    Ok(CallToolResult::text(format!("Added {DYNAMIC_TOOL}.")))
}

/// Adds or removes the dynamic prompt in turn.
async fn trigger_prompt_change(
    ctx: Context,
    _args: Arguments,
) -> Result<CallToolResult, HandlerError> {
    let server = ctx.server();
    if server.remove_prompt(DYNAMIC_PROMPT) {
        return Ok(CallToolResult::text(format!("Removed {DYNAMIC_PROMPT}.")));
    }
    server
        .add_prompt(dynamic_prompt(), dynamic_prompt_messages)
        .map_err(HandlerError::internal)?;
    Ok(CallToolResult::text(format!("Added {DYNAMIC_PROMPT}.")))
}

async fn dynamic_prompt_messages(
    _ctx: Context,
    _args: mcpwire_server::PromptArguments,
) -> Result<GetPromptResult, HandlerError> {
    Ok(GetPromptResult::new(vec![PromptMessage::user_text(
        "This prompt comes and goes with test_trigger_prompt_change.",
    )]))
}

async fn custom_header(_ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    let region = args
        .get("region")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(CallToolResult::text(format!("Region: {region}")))
}
