//! Multi round-trip requests (2026-07-28, SEP-2322) through the runtime:
//! `input_required` rounds, sealed request state, capability filtering,
//! and the same handlers in the handshake revisions.

use crate::support;

use mcpwire_server::{Arguments, Context, HandlerError, InputRequired, Server, StateKeyRing};
use mcpwire_types::{
    CallToolResult, CreateMessageRequestParams, ElicitRequestParams, GetPromptResult, Prompt,
    PromptMessage, RequestedSchema, SamplingMessage, Tool,
};
use serde_json::{Value, json};
use support::{RawPeer, serve, stateless_meta, texts, with_meta};

fn form() -> ElicitRequestParams {
    ElicitRequestParams::form("Your name?", RequestedSchema::default())
}

fn question() -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text("2+2?")], 10)
}

/// Greets once `name` was elicited.
async fn greet(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    match ctx.elicit_response("name") {
        Some(answer) => Ok(CallToolResult::text(format!(
            "hello {}",
            serde_json::to_string(&answer.content).unwrap()
        ))),
        None => Err(ctx.input_required().elicit("name", form()).into()),
    }
}

/// Greets once `name` was elicited, with the arguments of that run.
async fn recall(ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    match ctx.elicit_response("name") {
        Some(_) => Ok(CallToolResult::text(serde_json::to_string(&args).unwrap())),
        None => Err(ctx.input_required().elicit("name", form()).into()),
    }
}

/// Two rounds: the state says which one the retry answers.
async fn counter(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    match ctx.request_state() {
        Some(b"2") => Ok(CallToolResult::text("done")),
        Some(b"1") => Err(InputRequired::new().state(*b"2").into()),
        _ => Err(InputRequired::new().state(*b"1").into()),
    }
}

/// Asks for elicitation, sampling and roots, filtered by the client's
/// capabilities; finishes when everything asked for was answered.
async fn everything(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let ask = ctx
        .input_required()
        .elicit("name", form())
        .sample("sum", question())
        .list_roots("roots");
    let answered = ask
        .requests()
        .iter()
        .all(|(key, _)| ctx.input_responses().get(key).is_some());
    if answered && !ctx.input_responses().is_empty() {
        let keys: Vec<&String> = ctx.input_responses().iter().map(|(k, _)| k).collect();
        return Ok(CallToolResult::text(format!("{keys:?}")));
    }
    Err(ask.into())
}

/// Never satisfied: asks for the name again on every run.
async fn insatiable(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    Err(ctx.input_required().elicit("name", form()).into())
}

/// Ignores the capability filter: asks for sampling whatever the client said.
async fn stubborn(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    Err(InputRequired::new().sample("sum", question()).into())
}

async fn prompt(
    ctx: Context,
    _args: mcpwire_server::PromptArguments,
) -> Result<GetPromptResult, HandlerError> {
    match ctx.elicit_response("name") {
        Some(_) => Ok(GetPromptResult::new(vec![PromptMessage::user_text("ok")])),
        None => Err(ctx.input_required().elicit("name", form()).into()),
    }
}

async fn completer(
    ctx: Context,
    _value: String,
    _context: std::collections::BTreeMap<String, String>,
) -> Result<Vec<String>, HandlerError> {
    Err(ctx.input_required().elicit("name", form()).into())
}

fn tool(name: &str) -> Tool {
    Tool::new(name, json!({"type": "object"}))
}

fn server() -> Server {
    server_with_key([3; 32])
}

fn server_with_key(key: [u8; 32]) -> Server {
    server_with_ring(StateKeyRing::new(key))
}

fn server_with_ring(ring: StateKeyRing) -> Server {
    let mut asking = Prompt::new("asking");
    asking.arguments = Some(vec![mcpwire_types::PromptArgument::new("topic")]);
    Server::builder("input", "1")
        .request_state_keys(ring)
        .tool(tool("greet"), greet)
        .tool(tool("recall"), recall)
        .tool(tool("counter"), counter)
        .tool(tool("everything"), everything)
        .tool(tool("stubborn"), stubborn)
        .tool(tool("insatiable"), insatiable)
        .prompt(asking, prompt)
        .prompt_completion("asking", "topic", completer)
        .build()
        .unwrap()
}

fn all_capabilities() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

fn call(name: &str, extra: Value, capabilities: Value) -> Value {
    let mut params = json!({"name": name, "arguments": {}});
    if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
        params.extend(extra);
    }
    with_meta(params, &stateless_meta(capabilities))
}

async fn stateless_call(peer: &mut RawPeer, id: i64, name: &str, extra: Value) -> Value {
    peer.request(id, "tools/call", call(name, extra, all_capabilities()))
        .await
}

#[tokio::test]
async fn a_handler_asking_for_input_answers_input_required_and_finishes_on_the_retry() {
    let (mut peer, _task) = serve(&server());
    let first = stateless_call(&mut peer, 1, "greet", json!({})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(
        result["inputRequests"]["name"]["method"],
        "elicitation/create"
    );
    assert!(
        result.get("requestState").is_none(),
        "no state was set: {result}"
    );

    let answer = json!({"inputResponses": {"name": {"action": "accept", "content": {"n": "Ada"}}}});
    let second = stateless_call(&mut peer, 2, "greet", answer).await;
    assert_eq!(
        texts(&second["result"]),
        [r#"hello {"n":"Ada"}"#],
        "{second}"
    );
    assert_ne!(second["result"]["resultType"], "input_required");
}

#[tokio::test]
async fn a_missing_or_misshapen_answer_is_asked_for_again_and_extra_keys_are_ignored() {
    let (mut peer, _task) = serve(&server());
    let wrong_key = json!({"inputResponses": {"other": {"action": "accept"}}});
    let again = stateless_call(&mut peer, 1, "greet", wrong_key).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");

    let wrong_shape = json!({"inputResponses": {"name": {"roots": []}}});
    let again = stateless_call(&mut peer, 2, "greet", wrong_shape).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");

    let extra = json!({"inputResponses": {
        "name": {"action": "accept", "content": {"n": "Bo"}},
        "unrelated": {"x": 1}
    }});
    let done = stateless_call(&mut peer, 3, "greet", extra).await;
    assert_eq!(texts(&done["result"]), [r#"hello {"n":"Bo"}"#], "{done}");

    let not_an_object = json!({"inputResponses": {"name": 12345}});
    let rejected = stateless_call(&mut peer, 4, "greet", not_an_object).await;
    assert_eq!(rejected["error"]["code"], -32602, "{rejected}");
}

#[tokio::test]
async fn sealed_state_round_trips_and_differs_per_round() {
    let (mut peer, _task) = serve(&server());
    let first = stateless_call(&mut peer, 1, "counter", json!({})).await;
    let state_1 = first["result"]["requestState"].as_str().unwrap().to_owned();
    assert_eq!(first["result"]["resultType"], "input_required");
    assert!(first["result"].get("inputRequests").is_none(), "{first}");
    // 32 bytes of HMAC tag, 8 of time and one of state, base64url: 55 characters.
    assert_eq!(state_1.len(), 55, "the state is sealed: {state_1}");

    let second = stateless_call(&mut peer, 2, "counter", json!({"requestState": state_1})).await;
    let state_2 = second["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    assert_ne!(state_1, state_2);

    let third = stateless_call(&mut peer, 3, "counter", json!({"requestState": state_2})).await;
    assert_eq!(texts(&third["result"]), ["done"], "{third}");
}

#[tokio::test]
async fn tampered_foreign_or_misplaced_state_is_invalid_params_before_the_handler_runs() {
    let (mut peer, _task) = serve(&server());
    let first = stateless_call(&mut peer, 1, "counter", json!({})).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();

    let tampered = json!({"requestState": format!("{state}-TAMPERED")});
    let error = stateless_call(&mut peer, 2, "counter", tampered).await;
    assert_eq!(error["error"]["code"], -32602, "{error}");

    let elsewhere = json!({"requestState": state.clone()});
    let error = stateless_call(&mut peer, 3, "greet", elsewhere).await;
    assert_eq!(
        error["error"]["code"], -32602,
        "a state of another tool: {error}"
    );

    let (mut other, _task) = serve(&server_with_key([4; 32]));
    let foreign = json!({"requestState": state});
    let error = stateless_call(&mut other, 4, "counter", foreign).await;
    assert_eq!(
        error["error"]["code"], -32602,
        "another server's state: {error}"
    );
}

#[tokio::test]
async fn a_round_started_on_one_instance_finishes_on_another_across_a_key_rotation() {
    // Two instances share one ring, as instances behind a load balancer must.
    let ring = StateKeyRing::new([5; 32]);
    let (mut first_instance, _a) = serve(&server_with_ring(ring.clone()));
    let (mut second_instance, _b) = serve(&server_with_ring(ring.clone()));
    let first = stateless_call(&mut first_instance, 1, "counter", json!({})).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();

    ring.rotate([6; 32]);
    let second = stateless_call(
        &mut second_instance,
        2,
        "counter",
        json!({"requestState": state.clone()}),
    )
    .await;
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");

    ring.retire_previous();
    let replay = stateless_call(
        &mut second_instance,
        3,
        "counter",
        json!({"requestState": state}),
    )
    .await;
    assert_eq!(
        replay["error"]["code"], -32602,
        "a state of a retired key: {replay}"
    );
}

#[tokio::test]
async fn input_requests_leave_out_what_the_client_did_not_declare() {
    let (mut peer, _task) = serve(&server());
    let only_sampling = call("everything", json!({}), json!({"sampling": {}}));
    let answer = peer.request(1, "tools/call", only_sampling).await;
    let requests = answer["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["sum"], "{answer}");

    let all = stateless_call(&mut peer, 2, "everything", json!({})).await;
    let requests = all["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 3, "{all}");

    let stubborn = call("stubborn", json!({}), json!({"elicitation": {}}));
    let error = peer.request(3, "tools/call", stubborn).await;
    assert_eq!(error["error"]["code"], -32021, "{error}");
    assert_eq!(
        error["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
}

#[tokio::test]
async fn prompts_ask_for_input_and_lists_and_completions_never_do() {
    let (mut peer, _task) = serve(&server());
    let meta = stateless_meta(all_capabilities());
    let get = with_meta(json!({"name": "asking"}), &meta);
    let first = peer.request(1, "prompts/get", get).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let retry = with_meta(
        json!({"name": "asking", "inputResponses": {"name": {"action": "decline"}}}),
        &meta,
    );
    let second = peer.request(2, "prompts/get", retry).await;
    assert!(second["result"]["messages"].is_array(), "{second}");

    for (id, method) in [(3, "tools/list"), (4, "prompts/list")] {
        let list = peer.request(id, method, with_meta(json!({}), &meta)).await;
        assert_ne!(list["result"]["resultType"], "input_required", "{list}");
    }
    let complete = with_meta(
        json!({"ref": {"type": "ref/prompt", "name": "asking"},
               "argument": {"name": "topic", "value": "x"}}),
        &meta,
    );
    let error = peer.request(5, "completion/complete", complete).await;
    assert_eq!(error["error"]["code"], -32603, "{error}");
}

#[tokio::test]
async fn handshake_revisions_send_the_input_requests_to_the_client_themselves() {
    let (mut peer, _task) = serve(&server());
    peer.initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    peer.send_request(1, "tools/call", json!({"name": "greet", "arguments": {}}))
        .await;
    let request = peer.recv().await;
    assert_eq!(request["method"], "elicitation/create", "{request}");
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"action": "accept", "content": {"n": "Cy"}}}))
        .await;
    let answer = peer.answer_to(1).await.response;
    assert_eq!(
        texts(&answer["result"]),
        [r#"hello {"n":"Cy"}"#],
        "{answer}"
    );
}

#[tokio::test]
async fn handshake_revisions_fail_clearly_when_the_client_cannot_fulfil_the_input() {
    let (mut peer, _task) = serve(&server());
    peer.initialize("2025-06-18", json!({})).await;
    let error = peer
        .error(
            1,
            "tools/call",
            json!({"name": "stubborn", "arguments": {}}),
        )
        .await;
    assert_eq!(error["code"], -32603, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("multi round-trip"),
        "{error}"
    );
}

/// Issue 17 item 11: every input request left out because the client did
/// not declare elicitation is a clear error naming the capability (ELIC-06),
/// not an internal "named no request" one.
#[tokio::test]
async fn elic_06_handshake_revisions_name_the_capability_an_undeclared_input_needs() {
    let (mut peer, _task) = serve(&server());
    peer.initialize("2025-06-18", json!({})).await;
    let error = peer
        .error(1, "tools/call", json!({"name": "greet", "arguments": {}}))
        .await;
    assert_eq!(error["code"], -32600, "{error}");
    assert!(
        error["data"]["requiredCapabilities"]["elicitation"].is_object(),
        "{error}"
    );
}

#[tokio::test]
async fn a_handler_run_again_after_a_local_input_round_gets_the_arguments_of_the_call() {
    let arguments = json!({
        "text": "a \"quoted\" line\nand \u{e9} \u{2713} \\ end",
        "numbers": [1, -2, 2.5, 18446744073709551615_u64],
        "nested": {"deep": [null, true, {"k": ""}]}
    });
    let (mut peer, _task) = serve(&server());
    peer.initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    let params = json!({"name": "recall", "arguments": arguments, "x-vendor": 1});
    peer.send_request(1, "tools/call", params).await;
    let request = peer.recv().await;
    assert_eq!(request["method"], "elicitation/create", "{request}");
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"action": "accept", "content": {"n": "Cy"}}}))
        .await;
    let answer = peer.answer_to(1).await.response;
    let seen: Value = serde_json::from_str(&texts(&answer["result"])[0]).unwrap();
    assert_eq!(seen, arguments);
}

/// The runtime fulfils a handler's input rounds itself in the handshake
/// revisions, but not forever: a handler still asking after 16 runs gets
/// its call failed (-32603) rather than the client asked again and again.
#[tokio::test]
async fn handshake_revisions_stop_fulfilling_input_after_sixteen_runs() {
    let (mut peer, _task) = serve(&server());
    peer.initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    peer.send_request(
        1,
        "tools/call",
        json!({"name": "insatiable", "arguments": {}}),
    )
    .await;
    let mut asked = 0;
    let mut answer = None;
    // Bounded: the runtime may ask 16 times; 32 messages are more than enough.
    for _ in 0..32 {
        let message = peer.recv().await;
        if message["method"] == "elicitation/create" {
            asked += 1;
            peer.send(json!({"jsonrpc": "2.0", "id": message["id"],
                "result": {"action": "accept", "content": {"n": "Cy"}}}))
                .await;
            continue;
        }
        answer = Some(message);
        break;
    }
    let answer = answer.unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("asked for input more than 16 times"),
        "{answer}"
    );
    assert_eq!(asked, 16);
}
