//! Runtime tests of prompts and completions over the wire: rendering with
//! arguments, argument checks, and completers for prompt arguments and
//! template variables (PROMPT-*, COMP-*).

use crate::support;

use std::collections::BTreeMap;

use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::{
    GetPromptResult, Prompt, PromptArgument, PromptMessage, ReadResourceResult, ResourceTemplate,
};
use serde_json::{Value, json};
use support::{RawPeer, serve};

const TEMPLATE: &str = "repo://{owner}/{name}";

fn argument(name: &str, required: bool) -> PromptArgument {
    let mut argument = PromptArgument::new(name);
    argument.required = Some(required);
    argument
}

fn greet_prompt() -> Prompt {
    let mut prompt = Prompt::new("greet");
    prompt.arguments = Some(vec![argument("name", true), argument("style", false)]);
    prompt
}

fn prompt_server() -> Server {
    Server::builder("prompts", "1.0.0")
        .prompt(greet_prompt(), |_ctx: Context, args| async move {
            let style = args.get("style").map_or("plain", String::as_str);
            let text = format!("Hello, {} ({style})!", args["name"]);
            Ok(GetPromptResult::new(vec![PromptMessage::user_text(text)]))
        })
        .prompt(Prompt::new("vanishing"), |_ctx: Context, _args| async {
            Err(HandlerError::NotFound("the prompt's source".into()))
        })
        .resource_template(
            ResourceTemplate::new(TEMPLATE, "a repository"),
            |_ctx: Context, _uri, _vars| async { Ok(ReadResourceResult::new(Vec::new())) },
        )
        .prompt_completion(
            "greet",
            "name",
            |_ctx: Context, partial: String, others: BTreeMap<String, String>| async move {
                // The other arguments reach the completer (COMP-03).
                let prefix = others.get("style").cloned().unwrap_or_default();
                Ok(["alice", "albert", "bob"]
                    .into_iter()
                    .filter(|name| name.starts_with(&partial))
                    .map(|name| format!("{prefix}{name}"))
                    .collect())
            },
        )
        .template_completion(
            TEMPLATE,
            "name",
            |_ctx: Context, partial: String, others: BTreeMap<String, String>| async move {
                let owner = others.get("owner").cloned().unwrap_or_default();
                Ok((0..250).map(|i| format!("{owner}/{partial}{i}")).collect())
            },
        )
        .build()
        .unwrap()
}

async fn initialized(server: &Server, version: &str) -> RawPeer {
    let (mut peer, _task) = serve(server);
    peer.initialize(version, json!({})).await;
    peer
}

fn get(name: &str, arguments: Value) -> Value {
    let mut params = json!({ "name": name });
    params["arguments"] = arguments;
    params
}

#[tokio::test]
async fn a_prompt_is_rendered_from_its_arguments() {
    let server = prompt_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let result = peer
        .result(
            1,
            "prompts/get",
            get("greet", json!({"name": "Ada", "style": "warm"})),
        )
        .await;
    assert_eq!(
        result["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada (warm)!"}}])
    );
    // An optional argument may be left out.
    let result = peer
        .result(2, "prompts/get", get("greet", json!({"name": "Bo"})))
        .await;
    assert_eq!(
        result["messages"][0]["content"]["text"],
        "Hello, Bo (plain)!"
    );
}

/// PROMPT-05, PROMPT-06: a missing required argument is -32602, checked
/// before the handler runs.
#[tokio::test]
async fn a_missing_required_argument_is_invalid_params() {
    let server = prompt_server();
    let mut peer = initialized(&server, "2025-11-25").await;
    for (id, params) in [
        (1, get("greet", json!({"style": "warm"}))),
        (2, json!({"name": "greet"})),
    ] {
        let error = peer.error(id, "prompts/get", params).await;
        assert_eq!(error["code"], -32602, "{error}");
        assert!(
            error["message"].as_str().unwrap().contains("name"),
            "{error}"
        );
    }
}

/// PROMPT-05: an unknown prompt is -32602 in every revision, and so is a
/// prompt whose handler says something is not found (-32002 is for
/// resources only).
#[tokio::test]
async fn an_unknown_prompt_is_invalid_params() {
    let server = prompt_server();
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut peer = initialized(&server, version).await;
        let error = peer.error(1, "prompts/get", get("nope", json!({}))).await;
        assert_eq!(error["code"], -32602, "{version}: {error}");
        let error = peer
            .error(2, "prompts/get", get("vanishing", json!({})))
            .await;
        assert_eq!(error["code"], -32602, "{version}: {error}");
    }
}

fn complete_prompt(argument: &str, value: &str, context: Value) -> Value {
    let mut params = json!({
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": argument, "value": value}
    });
    params["context"] = json!({});
    params["context"]["arguments"] = context;
    params
}

#[tokio::test]
async fn prompt_argument_completion_uses_the_partial_value_and_the_other_arguments() {
    let server = prompt_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let result = peer
        .result(
            1,
            "completion/complete",
            complete_prompt("name", "al", json!({})),
        )
        .await;
    assert_eq!(result["completion"]["values"], json!(["alice", "albert"]));
    assert_eq!(result["completion"]["hasMore"], false);
    assert_eq!(result["completion"]["total"], 2);

    let context = json!({"style": "dr. "});
    let result = peer
        .result(
            2,
            "completion/complete",
            complete_prompt("name", "b", context),
        )
        .await;
    assert_eq!(result["completion"]["values"], json!(["dr. bob"]));
}

/// COMP-02: at most 100 values, with `hasMore` and the `total` found.
#[tokio::test]
async fn template_variable_completion_is_capped_at_100_values_with_has_more_and_total() {
    let server = prompt_server();
    let mut peer = initialized(&server, "2025-11-25").await;
    let params = json!({
        "ref": {"type": "ref/resource", "uri": TEMPLATE},
        "argument": {"name": "name", "value": "lib"},
        "context": {"arguments": {"owner": "rust"}}
    });
    let result = peer.result(1, "completion/complete", params).await;
    let values = result["completion"]["values"].as_array().unwrap();
    assert_eq!(values.len(), 100);
    assert_eq!(values[0], "rust/lib0");
    assert_eq!(values[99], "rust/lib99");
    assert_eq!(result["completion"]["hasMore"], true);
    assert_eq!(result["completion"]["total"], 250);
}

#[tokio::test]
async fn an_argument_without_a_completer_completes_to_nothing() {
    let server = prompt_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let result = peer
        .result(
            1,
            "completion/complete",
            complete_prompt("style", "w", json!({})),
        )
        .await;
    assert_eq!(result["completion"]["values"], json!([]));
    let params = json!({
        "ref": {"type": "ref/resource", "uri": TEMPLATE},
        "argument": {"name": "owner", "value": ""}
    });
    let result = peer.result(2, "completion/complete", params).await;
    assert_eq!(result["completion"]["values"], json!([]));
}

/// COMP-04: a reference to an unknown prompt or template is -32602.
#[tokio::test]
async fn completing_for_an_unknown_prompt_or_template_is_invalid_params() {
    let server = prompt_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let unknown_prompt = json!({
        "ref": {"type": "ref/prompt", "name": "nope"},
        "argument": {"name": "x", "value": ""}
    });
    let error = peer.error(1, "completion/complete", unknown_prompt).await;
    assert_eq!(error["code"], -32602, "{error}");
    let unknown_template = json!({
        "ref": {"type": "ref/resource", "uri": "nope://{x}"},
        "argument": {"name": "x", "value": ""}
    });
    let error = peer.error(2, "completion/complete", unknown_template).await;
    assert_eq!(error["code"], -32602, "{error}");
}

/// COMP-01: a server with completers declares `completions`.
#[tokio::test]
async fn a_server_with_completers_declares_completions() {
    let server = prompt_server();
    let (mut peer, _task) = serve(&server);
    let result = peer.initialize("2025-06-18", json!({})).await;
    assert_eq!(result["capabilities"]["completions"], json!({}));
    assert_eq!(result["capabilities"]["prompts"]["listChanged"], true);
}
