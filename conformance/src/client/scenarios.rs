//! The calls each client scenario's mock server watches for, once
//! connected (see `CONTRACT.md` B.2 and `CONTRACT-0.2.md` 3.1 to 3.7).

use std::collections::BTreeMap;

use mcpwire_client::{Client, ClientError, RequestOptions};
use mcpwire_types::methods::CallTool;
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, InputRequestKind, InputRequests, InputRequiredResult,
    InputResponse, InputResponses, ListRootsResult, Tool,
};
use serde_json::{Map, Value, json};

use super::elicitation;
use super::{Invocation, Scenario, ScenarioError};

/// How many `input_required` answers one call may get before the client
/// gives up, so that a server asking forever cannot keep it busy.
const MAX_INPUT_ROUNDS: usize = 8;

/// Plays `invocation`'s scenario on a connected `client`.
pub(super) async fn play(client: &Client, invocation: &Invocation) -> Result<(), ScenarioError> {
    match invocation.scenario {
        // The `initialize` mock declares no capabilities (it answers
        // `tools/list` all the same), and a client does not ask a server
        // for what it did not declare.
        Scenario::Initialize if client.server().capabilities.tools.is_none() => Ok(()),
        Scenario::Initialize | Scenario::RequestMetadata | Scenario::RefNoDeref => {
            list_tools(client).await.map(drop)
        }
        Scenario::ToolsCall => {
            list_tools(client).await?;
            let arguments = json!({"a": 2, "b": 3});
            expect_success(
                &call(client, "add_numbers", arguments).await?,
                "add_numbers",
            )
        }
        Scenario::ElicitationDefaults => {
            list_tools(client).await?;
            let name = "test_client_elicitation_defaults";
            expect_success(&call(client, name, json!({})).await?, name)
        }
        Scenario::SseRetry => {
            list_tools(client).await?;
            let name = "test_reconnection";
            expect_success(&call(client, name, json!({})).await?, name)
        }
        Scenario::RequestState => request_state(client).await,
        Scenario::StandardHeaders => every_request_kind(client).await,
        Scenario::CustomHeaders => context_tool_calls(client, invocation).await,
        Scenario::InvalidToolHeaders => {
            // The transport leaves out tools whose annotations are invalid,
            // so calling every listed tool calls only valid ones.
            for tool in list_tools(client).await? {
                call(client, &tool.name, sample_arguments(&tool)).await?;
            }
            Ok(())
        }
        Scenario::SchemaPreservation => schema_echo(client).await,
        Scenario::Authorization => super::auth::play(client).await,
        Scenario::SkillsList => {
            // Listing builds the registry; nothing is fetched before a load.
            let skills = client.list_skills().await.map_err(failed("skills/list"))?;
            tracing::info!(skills = skills.len(), "skills listed");
            Ok(())
        }
        Scenario::SkillsLoad => load_first_skill(client).await,
        Scenario::Unsupported(reason) => Err(ScenarioError::Unsupported(reason)),
    }
}

pub(super) fn failed(step: impl Into<String>) -> impl FnOnce(ClientError) -> ScenarioError {
    let step = step.into();
    move |error| ScenarioError::Call { step, error }
}

async fn list_tools(client: &Client) -> Result<Vec<Tool>, ScenarioError> {
    client.list_all_tools().await.map_err(failed("tools/list"))
}

async fn call(
    client: &Client,
    name: &str,
    arguments: impl Into<Value>,
) -> Result<CallToolResult, ScenarioError> {
    client
        .call_tool(name, arguments.into())
        .await
        .map_err(failed(format!("tools/call {name}")))
}

fn expect_success(result: &CallToolResult, tool: &str) -> Result<(), ScenarioError> {
    if result.is_error == Some(true) {
        return Err(ScenarioError::Unexpected(format!(
            "tool {tool} failed: {:?}",
            result.content
        )));
    }
    Ok(())
}

/// Arguments for `tool` made up from its input schema: a plausible value
/// for every property of a primitive type (the first of an `enum`).
pub(super) fn sample_arguments(tool: &Tool) -> Map<String, Value> {
    let Some(Value::Object(properties)) = tool.input_schema.get("properties") else {
        return Map::new();
    };
    properties
        .iter()
        .filter_map(|(name, schema)| Some((name.clone(), sample_value(schema)?)))
        .collect()
}

fn sample_value(schema: &Value) -> Option<Value> {
    if let Some(Value::Array(choices)) = schema.get("enum") {
        return choices.first().cloned();
    }
    Some(match schema.get("type")?.as_str()? {
        "string" => json!("example"),
        "integer" => json!(1),
        "number" => json!(1.5),
        "boolean" => json!(true),
        _ => return None,
    })
}

/// `http-standard-headers`: one request of every kind that carries
/// `Mcp-Name`, for every tool, resource and prompt listed.
async fn every_request_kind(client: &Client) -> Result<(), ScenarioError> {
    for tool in list_tools(client).await? {
        call(client, &tool.name, sample_arguments(&tool)).await?;
    }
    let resources = client
        .list_all_resources()
        .await
        .map_err(failed("resources/list"))?;
    for resource in resources {
        client
            .read_resource(resource.uri.clone())
            .await
            .map_err(failed(format!("resources/read {}", resource.uri)))?;
    }
    let prompts = client
        .list_all_prompts()
        .await
        .map_err(failed("prompts/list"))?;
    for prompt in prompts {
        let arguments: BTreeMap<String, String> = prompt
            .arguments
            .iter()
            .flatten()
            .map(|argument| (argument.name.clone(), "example".to_owned()))
            .collect();
        client
            .get_prompt(prompt.name.clone(), arguments)
            .await
            .map_err(failed(format!("prompts/get {}", prompt.name)))?;
    }
    Ok(())
}

/// `http-custom-headers`: the calls `toolCalls` of the context lists, with
/// exactly its arguments, after a `tools/list` that teaches the transport
/// which parameters go into headers.
async fn context_tool_calls(client: &Client, invocation: &Invocation) -> Result<(), ScenarioError> {
    let Some(Value::Array(calls)) = invocation.context.get("toolCalls") else {
        return Err(ScenarioError::Unexpected(
            "the context has no toolCalls array".to_owned(),
        ));
    };
    list_tools(client).await?;
    for entry in calls {
        let Some(name) = entry.get("name").and_then(Value::as_str) else {
            return Err(ScenarioError::Unexpected(format!(
                "a toolCalls entry has no name: {entry}"
            )));
        };
        let arguments = entry.get("arguments").cloned().unwrap_or_else(|| json!({}));
        call(client, name, arguments).await?;
    }
    Ok(())
}

/// `json-schema-2020-12-preservation`: send the focal tool's input schema,
/// as the client holds it, back through `json_schema_echo`.
async fn schema_echo(client: &Client) -> Result<(), ScenarioError> {
    let focal = "json_schema_2020_12_tool";
    let tools = list_tools(client).await?;
    let Some(tool) = tools.iter().find(|tool| tool.name == focal) else {
        return Err(ScenarioError::Unexpected(format!("no tool {focal} listed")));
    };
    let mut arguments = Map::new();
    arguments.insert(
        "schema".to_owned(),
        Value::Object(tool.input_schema.clone()),
    );
    let echo = "json_schema_echo";
    expect_success(&call(client, echo, arguments).await?, echo)
}

/// Answers every input request the way this client answers server
/// requests: elicitation with the form's defaults, roots with none.
/// Sampling is left unanswered (there is no model behind this client).
pub(super) fn answer_inputs(requests: &InputRequests) -> InputResponses {
    let mut responses = InputResponses::new();
    for (key, request) in requests.iter() {
        let response = match &request.kind {
            InputRequestKind::Elicit(params) => InputResponse::Elicit(elicitation::answer(params)),
            InputRequestKind::ListRoots(_) => {
                InputResponse::ListRoots(ListRootsResult::new(Vec::new()))
            }
            InputRequestKind::CreateMessage(_) | InputRequestKind::Other { .. } => continue,
        };
        responses.insert(key.clone(), response);
    }
    responses
}

/// The params of the retry that answers `input`: the answers, and the
/// request state exactly as the server sent it (or none if it sent none).
pub(super) fn retry_params(
    mut params: CallToolRequestParams,
    input: &InputRequiredResult,
) -> CallToolRequestParams {
    params.input_responses = input.input_requests.as_ref().map(answer_inputs);
    params.request_state.clone_from(&input.request_state);
    params
}

/// Sends `params`; returns the result, or the server's `input_required`.
async fn call_once(
    client: &Client,
    params: CallToolRequestParams,
) -> Result<Result<CallToolResult, Box<InputRequiredResult>>, ScenarioError> {
    let step = format!("tools/call {}", params.name);
    match client
        .request::<CallTool>(params, RequestOptions::default())
        .await
    {
        Ok(result) => Ok(Ok(result)),
        Err(ClientError::InputRequired(input)) => Ok(Err(input)),
        Err(error) => Err(ScenarioError::Call { step, error }),
    }
}

/// Retries `params` after `input` until the server completes the call.
async fn complete_call(
    client: &Client,
    params: CallToolRequestParams,
    mut input: Box<InputRequiredResult>,
) -> Result<CallToolResult, ScenarioError> {
    for _ in 0..MAX_INPUT_ROUNDS {
        match call_once(client, retry_params(params.clone(), &input)).await? {
            Ok(result) => return Ok(result),
            Err(again) => input = again,
        }
    }
    Err(ScenarioError::Unexpected(format!(
        "tool {} still needed input after {MAX_INPUT_ROUNDS} rounds",
        params.name
    )))
}

/// Calls tool `name` and expects `input_required` first.
async fn call_expecting_input(
    client: &Client,
    name: &str,
) -> Result<(CallToolRequestParams, Box<InputRequiredResult>), ScenarioError> {
    let params = CallToolRequestParams::with_arguments(name, Map::new());
    match call_once(client, params.clone()).await? {
        Err(input) => Ok((params, input)),
        Ok(_) => Err(ScenarioError::Unexpected(format!(
            "tool {name} completed without asking for input"
        ))),
    }
}

/// `sep-2322-client-request-state`: multi round-trip tool calls. The
/// request state goes back unchanged, an unrelated call in between
/// carries none, a call without state is retried without state, and a
/// result without `resultType` is complete.
async fn request_state(client: &Client) -> Result<(), ScenarioError> {
    list_tools(client).await?;
    let (echo, input) = call_expecting_input(client, "test_mrtr_echo_state").await?;
    let unrelated = "test_mrtr_unrelated";
    call_once(
        client,
        CallToolRequestParams::with_arguments(unrelated, Map::new()),
    )
    .await?
    .map_err(|_| ScenarioError::Unexpected(format!("tool {unrelated} asked for input")))?;
    expect_success(
        &complete_call(client, echo, input).await?,
        "test_mrtr_echo_state",
    )?;
    let (no_state, input) = call_expecting_input(client, "test_mrtr_no_state").await?;
    expect_success(
        &complete_call(client, no_state, input).await?,
        "test_mrtr_no_state",
    )?;
    let plain = "test_mrtr_no_result_type";
    call_once(
        client,
        CallToolRequestParams::with_arguments(plain, Map::new()),
    )
    .await?
    .map_err(|_| ScenarioError::Unexpected(format!("tool {plain} asked for input")))
    .and_then(|result| expect_success(&result, plain))
}

/// Loads the first listed skill through the verified path, then reads
/// each supporting file its entry lists; a verification failure stops
/// before any supporting file is read.
async fn load_first_skill(client: &Client) -> Result<(), ScenarioError> {
    let skills = client.list_skills().await.map_err(failed("skills/list"))?;
    let Some(entry) = skills.first() else {
        return Err(ScenarioError::Unexpected(
            "skills/list returned no skill".to_owned(),
        ));
    };
    let loaded = client
        .load_skill(entry)
        .await
        .map_err(failed("loading the skill"))?;
    let files: Vec<String> = entry
        .resources
        .listed()
        .unwrap_or_default()
        .iter()
        .filter(|file| file.uri != entry.uri)
        .map(|file| file.uri.clone())
        .collect();
    for uri in files {
        loaded
            .read_file(client, &uri)
            .await
            .map_err(failed("reading a skill file"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(schema: Value) -> Tool {
        Tool::new("t", schema)
    }

    #[test]
    fn sample_arguments_cover_primitive_properties_only() {
        let tool = tool(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "verbose": {"type": "boolean"},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "nested": {"type": "object"},
                "list": {"type": "array"}
            }
        }));
        assert_eq!(
            Value::Object(sample_arguments(&tool)),
            json!({"region": "example", "count": 1, "ratio": 1.5, "verbose": true, "mode": "fast"})
        );
        assert!(sample_arguments(&self::tool(json!({"type": "object"}))).is_empty());
    }

    #[test]
    fn a_retry_answers_each_input_request_and_echoes_the_state_unchanged() {
        let input: InputRequiredResult = serde_json::from_value(json!({
            "resultType": "input_required",
            "inputRequests": {
                "confirm": {"method": "elicitation/create", "params": {
                    "message": "Sure?",
                    "requestedSchema": {"type": "object", "properties": {
                        "ok": {"type": "boolean", "default": true}
                    }}
                }},
                "roots": {"method": "roots/list"},
                "sample": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
            },
            "requestState": "  {\"opaque\": 1} "
        }))
        .unwrap();
        let params = CallToolRequestParams::with_arguments("t", Map::new());
        let retry = retry_params(params, &input);
        assert_eq!(retry.request_state.as_deref(), Some("  {\"opaque\": 1} "));
        let responses = serde_json::to_value(retry.input_responses.unwrap()).unwrap();
        assert_eq!(
            responses,
            json!({"confirm": {"action": "accept", "content": {"ok": true}}, "roots": {"roots": []}})
        );
        let stateless = InputRequiredResult::new(InputRequests::new());
        let retry = retry_params(CallToolRequestParams::new("t"), &stateless);
        assert_eq!(retry.request_state, None);
    }
}
