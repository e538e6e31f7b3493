//! Multi round-trip fixtures of the `input-required-result-*` scenarios
//! (SEP-2322, 2026-07-28): tools and a prompt that answer `input_required`
//! until the client has supplied what they asked for.
//!
//! Each handler looks at what the retry brought (`ctx.elicit_response`,
//! `ctx.request_state`, ...) and either finishes or asks again, so a
//! missing or wrongly shaped answer leads to a new `input_required` rather
//! than an error. Requests are built with `ctx.input_required()`, which
//! leaves out what the client did not declare it can do.

use mcpwire_server::{
    Arguments, Context, HandlerError, InputRequired, PromptArguments, ServerBuilder,
};
use mcpwire_types::{
    CallToolResult, CreateMessageRequestParams, ElicitRequestParams, ElicitResult, ElicitValue,
    GetPromptResult, PrimitiveSchemaDefinition, Prompt, PromptMessage, RequestedSchema,
    SamplingMessage, StringSchema,
};

use super::tool_without_arguments;

/// The state `test_input_required_result_request_state` keeps between rounds.
const STATE_CONFIRM: &[u8] = b"awaiting-confirmation";

/// The state of `test_input_required_result_tampered_state`.
const STATE_TAMPER_CHECK: &[u8] = b"integrity-protected";

/// The states of `test_input_required_result_multi_round`, one per round.
const STATE_ROUND_1: &[u8] = b"round=1";
const STATE_ROUND_2: &[u8] = b"round=2";

/// The state of `test_input_required_result_multiple_inputs`.
const STATE_MULTIPLE: &[u8] = b"multiple-inputs";

/// Adds the multi round-trip tools and prompt.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            tool_without_arguments(
                "test_input_required_result_elicitation",
                "Asks for the user's name (input_required, key user_name), then greets them.",
            ),
            elicitation,
        )
        .tool(
            tool_without_arguments(
                "test_input_required_result_sampling",
                "Asks the client's model a question (input_required), then reports the answer.",
            ),
            sampling,
        )
        .tool(
            tool_without_arguments(
                "test_input_required_result_list_roots",
                "Asks for the client's roots (input_required), then lists them.",
            ),
            list_roots,
        )
        .tool(
            tool_without_arguments(
                "test_input_required_result_request_state",
                "Asks for a confirmation and keeps state across the round; answers state-ok.",
            ),
            request_state,
        )
        .tool(
            tool_without_arguments(
                "test_input_required_result_multiple_inputs",
                "Asks for an elicitation, a sampling and the roots at once.",
            ),
            multiple_inputs,
        )
        .tool(
            tool_without_arguments(
                "test_input_required_result_multi_round",
                "Needs two rounds of input, each with its own request state.",
            ),
            multi_round,
        )
        .tool(
            tool_without_arguments(
                "test_input_required_result_tampered_state",
                "Issues integrity-protected request state; a changed state is rejected.",
            ),
            tampered_state,
        )
        .tool(
            tool_without_arguments(
                "test_input_required_result_capabilities",
                "Asks for elicitation and sampling, leaving out what the client cannot do.",
            ),
            capabilities,
        )
        .prompt(input_prompt(), prompt)
}

/// A form with one required string field `field`.
fn one_field_form(message: &str, field: &str, description: &str) -> ElicitRequestParams {
    let schema = StringSchema {
        description: Some(description.to_owned()),
        ..StringSchema::default()
    };
    let form = RequestedSchema::default().with_property(
        field,
        PrimitiveSchemaDefinition::String(schema),
        true,
    );
    ElicitRequestParams::form(message, form)
}

/// The question the sampling fixtures ask.
fn capital_question() -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text("What is the capital of France?")],
        100,
    )
}

/// A string field of an elicitation answer, as text (other values as JSON).
fn field(result: &ElicitResult, name: &str) -> Option<String> {
    match result.content.as_ref()?.get(name)? {
        ElicitValue::String(text) => Some(text.clone()),
        other => serde_json::to_string(other).ok(),
    }
}

/// How an elicitation answer reads in a result.
fn describe(result: &ElicitResult) -> String {
    let action = serde_json::to_value(result.action)
        .ok()
        .and_then(|action| action.as_str().map(str::to_owned))
        .unwrap_or_default();
    let content = serde_json::to_string(&result.content).unwrap_or_default();
    format!("action={action}, content={content}")
}

fn ask(input: InputRequired) -> Result<CallToolResult, HandlerError> {
    Err(input.into())
}

async fn elicitation(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    match ctx.elicit_response("user_name") {
        Some(answer) => {
            let name = field(answer, "name").unwrap_or_else(|| "stranger".to_owned());
            Ok(CallToolResult::text(format!(
                "Hello, {name}! ({})",
                describe(answer)
            )))
        }
        None => ask(ctx.input_required().elicit(
            "user_name",
            one_field_form("What is your name?", "name", "Your name"),
        )),
    }
}

async fn sampling(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    match ctx.sampling_response("capital") {
        Some(answer) => {
            let text = serde_json::to_string(&answer.content).unwrap_or_default();
            Ok(CallToolResult::text(format!(
                "The model {} answered: {text}",
                answer.model
            )))
        }
        None => ask(ctx.input_required().sample("capital", capital_question())),
    }
}

async fn list_roots(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    match ctx.roots_response("roots") {
        Some(answer) => {
            let uris: Vec<&str> = answer.roots.iter().map(|root| root.uri.as_str()).collect();
            Ok(CallToolResult::text(format!("Roots: {}", uris.join(", "))))
        }
        None => ask(ctx.input_required().list_roots("roots")),
    }
}

async fn request_state(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let confirmed = ctx.elicit_response("confirm");
    match (ctx.request_state(), confirmed) {
        (Some(STATE_CONFIRM), Some(answer)) => Ok(CallToolResult::text(format!(
            "state-ok: the state came back intact ({})",
            describe(answer)
        ))),
        _ => ask(ctx
            .input_required()
            .elicit(
                "confirm",
                one_field_form("Please confirm to continue.", "ok", "Anything, to confirm"),
            )
            .state(STATE_CONFIRM)),
    }
}

async fn multiple_inputs(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let name = ctx.elicit_response("user_name");
    let capital = ctx.sampling_response("capital");
    let roots = ctx.roots_response("roots");
    if let (Some(STATE_MULTIPLE), Some(name), Some(capital), Some(roots)) =
        (ctx.request_state(), name, capital, roots)
    {
        return Ok(CallToolResult::text(format!(
            "All inputs received: name ({}), sampling by {}, {} root(s).",
            describe(name),
            capital.model,
            roots.roots.len()
        )));
    }
    ask(ctx
        .input_required()
        .elicit(
            "user_name",
            one_field_form("What is your name?", "name", "Your name"),
        )
        .sample("capital", capital_question())
        .list_roots("roots")
        .state(STATE_MULTIPLE))
}

async fn multi_round(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let state = ctx.request_state();
    if state == Some(STATE_ROUND_2) && ctx.elicit_response("step_2").is_some() {
        return Ok(CallToolResult::text("Both rounds done."));
    }
    if state == Some(STATE_ROUND_1) && ctx.elicit_response("step_1").is_some() {
        return ask(ctx
            .input_required()
            .elicit(
                "step_2",
                one_field_form("Round 2: one more answer.", "answer", "Anything"),
            )
            .state(STATE_ROUND_2));
    }
    ask(ctx
        .input_required()
        .elicit(
            "step_1",
            one_field_form("Round 1: a first answer.", "answer", "Anything"),
        )
        .state(STATE_ROUND_1))
}

async fn tampered_state(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    // A changed state never gets here: the runtime rejects it with -32602.
    if ctx.request_state() == Some(STATE_TAMPER_CHECK) && ctx.elicit_response("confirm").is_some() {
        return Ok(CallToolResult::text("The state was intact."));
    }
    ask(ctx
        .input_required()
        .elicit(
            "confirm",
            one_field_form("Please confirm.", "ok", "Anything, to confirm"),
        )
        .state(STATE_TAMPER_CHECK))
}

async fn capabilities(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let name = ctx.elicit_response("user_name");
    let capital = ctx.sampling_response("capital");
    let has_name = name.is_some() || !ctx.can_elicit();
    let has_capital = capital.is_some() || !ctx.can_sample();
    if has_name && has_capital && (name.is_some() || capital.is_some()) {
        return Ok(CallToolResult::text(format!(
            "Received: elicitation {}, sampling {}.",
            name.is_some(),
            capital.is_some()
        )));
    }
    // `input_required()` drops the elicitation when the client cannot
    // elicit and the sampling when it cannot sample; with neither the
    // runtime answers -32021.
    ask(ctx
        .input_required()
        .elicit(
            "user_name",
            one_field_form("What is your name?", "name", "Your name"),
        )
        .sample("capital", capital_question()))
}

fn input_prompt() -> Prompt {
    let mut prompt = Prompt::new("test_input_required_result_prompt");
    prompt.description =
        Some("Asks for context (input_required), then builds a message with it.".to_owned());
    prompt
}

async fn prompt(ctx: Context, _args: PromptArguments) -> Result<GetPromptResult, HandlerError> {
    match ctx.elicit_response("context") {
        Some(answer) => {
            let context = field(answer, "context").unwrap_or_default();
            Ok(GetPromptResult::new(vec![PromptMessage::user_text(
                format!("Use this context: {context}"),
            )]))
        }
        None => Err(ctx
            .input_required()
            .elicit(
                "context",
                one_field_form("What context should the prompt use?", "context", "Context"),
            )
            .into()),
    }
}
