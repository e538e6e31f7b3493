//! The server's typed requests to the client (sampling, elicitation,
//! roots) and their capability gates per revision, the schema check of
//! elicitation answers (ELIC-16), the URL-mode helpers (ELIC-21, ELIC-25),
//! and cache hints (2026-07-28) from the builder, against a hand-written
//! client.

use crate::support;

use std::time::Duration;

use mcpwire_server::{Context, HandlerError, PeerRequestError, RequestOptions, Server};
use mcpwire_types::{
    CacheHint, CallToolResult, CreateMessageRequestParams, ElicitRequestParams,
    ElicitRequestURLParams, IncludeContext, NumberSchema, NumberType, PrimitiveSchemaDefinition,
    ReadResourceResult, RequestedSchema, Resource, ResourceContents, SamplingMessage, StringSchema,
    Tool,
};
use serde_json::{Value, json};
use support::{RawPeer, serve, stateless_meta, texts, with_meta};

fn age_form() -> RequestedSchema {
    let age = NumberSchema {
        schema_type: NumberType::Integer,
        minimum: Some(0.0),
        maximum: Some(150.0),
        ..NumberSchema::default()
    };
    RequestedSchema::default()
        .with_property(
            "name",
            PrimitiveSchemaDefinition::String(StringSchema::default()),
            true,
        )
        .with_property("age", PrimitiveSchemaDefinition::Number(age), false)
}

/// A server whose tools ask the client through the typed context calls
/// and report what happened as text.
fn asking_server() -> Server {
    Server::builder("asking", "1.0.0")
        .tool(
            Tool::without_arguments("ask_age"),
            |ctx: Context, _| async move {
                let params = ElicitRequestParams::form("Who are you?", age_form());
                let text = match ctx.elicit(params, RequestOptions::default()).await {
                    Ok(result) => format!("ok {}", serde_json::to_string(&result.content).unwrap()),
                    Err(PeerRequestError::InvalidElicitationContent(mismatch)) => {
                        format!("invalid {mismatch}")
                    }
                    Err(other) => format!("failed {other}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(
            Tool::without_arguments("open_url"),
            |ctx: Context, _| async move {
                let params = ElicitRequestParams::Url(
                    ElicitRequestURLParams::new("Sign in", "https://example.com/login")
                        .with_elicitation_id("e-1"),
                );
                let text = match ctx.elicit(params, RequestOptions::default()).await {
                    Ok(result) => format!("ok {:?}", result.action),
                    Err(other) => format!("failed {other}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(
            Tool::without_arguments("sample_with_tools"),
            |ctx: Context, _| async move {
                let mut params =
                    CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 5);
                params.tools = Some(vec![Tool::without_arguments("lookup")]);
                let text = match ctx.create_message(params, RequestOptions::default()).await {
                    Ok(_) => "ok".to_owned(),
                    Err(other) => format!("failed {other}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(
            Tool::without_arguments("sample_context"),
            |ctx: Context, _| async move {
                let mut params =
                    CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 5);
                params.include_context = Some(IncludeContext::AllServers);
                let text = match ctx.create_message(params, RequestOptions::default()).await {
                    Ok(_) => "ok".to_owned(),
                    Err(other) => format!("failed {other}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(
            Tool::without_arguments("roots"),
            |ctx: Context, _| async move {
                let text = match ctx.list_roots(RequestOptions::default()).await {
                    Ok(result) => format!("ok {}", result.roots.len()),
                    Err(other) => format!("failed {other}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(
            Tool::without_arguments("needs_login"),
            |_ctx: Context, _| async move {
                let login = ElicitRequestURLParams::new("Sign in", "https://example.com/login")
                    .with_elicitation_id("login-1");
                Err::<CallToolResult, _>(HandlerError::url_elicitation_required(vec![login]))
            },
        )
        .tool(
            Tool::without_arguments("complete_later"),
            |ctx: Context, _| async move {
                let text = match ctx.elicitation_complete("e-1").await {
                    Ok(()) => "sent".to_owned(),
                    Err(other) => format!("refused {other}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .build()
        .unwrap()
}

async fn call(peer: &mut RawPeer, id: i64, tool: &str) -> Value {
    peer.send_request(id, "tools/call", json!({"name": tool}))
        .await;
    peer.recv().await
}

/// Answers the server request `request` with `result`, then reads the tool's answer.
async fn answer_then_text(peer: &mut RawPeer, request: &Value, result: Value) -> String {
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
        .await;
    let response = peer.recv().await;
    texts(&response["result"]).join("")
}

#[tokio::test]
async fn a_form_answer_that_does_not_match_the_schema_reaches_the_handler_as_an_error_elic_16() {
    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    let request = call(&mut peer, 1, "ask_age").await;
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(
        request["params"]["requestedSchema"]["required"],
        json!(["name"])
    );
    let bad = json!({"action": "accept", "content": {"age": 200}});
    let text = answer_then_text(&mut peer, &request, bad).await;
    assert_eq!(text, "invalid name: is required; age: must be at most 150");

    let request = call(&mut peer, 2, "ask_age").await;
    let good = json!({"action": "accept", "content": {"name": "Ada", "age": 36}});
    let text = answer_then_text(&mut peer, &request, good).await;
    assert_eq!(text, r#"ok {"age":36,"name":"Ada"}"#);

    // Declining carries no content and needs none.
    let request = call(&mut peer, 3, "ask_age").await;
    let text = answer_then_text(&mut peer, &request, json!({"action": "decline"})).await;
    assert_eq!(text, "ok null");
}

#[tokio::test]
async fn url_mode_is_sent_only_to_a_client_that_declared_it_elic_06() {
    // An empty `elicitation` object means form mode only (ELIC-04).
    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-11-25", json!({"elicitation": {}}))
        .await;
    let response = call(&mut peer, 1, "open_url").await;
    let text = texts(&response["result"]).join("");
    assert!(text.contains("elicitation.url"), "{text}");

    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-11-25", json!({"elicitation": {"url": {}}}))
        .await;
    let request = call(&mut peer, 1, "open_url").await;
    assert_eq!(request["params"]["mode"], "url");
    assert_eq!(request["params"]["elicitationId"], "e-1");
    let text = answer_then_text(&mut peer, &request, json!({"action": "accept"})).await;
    assert_eq!(text, "ok Accept");
}

#[tokio::test]
async fn sampling_tools_and_wide_context_need_their_capabilities_samp_04_samp_06() {
    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-11-25", json!({"sampling": {}})).await;
    for (id, tool, capability) in [
        (1, "sample_with_tools", "sampling.tools"),
        (2, "sample_context", "sampling.context"),
    ] {
        let response = call(&mut peer, id, tool).await;
        let text = texts(&response["result"]).join("");
        assert!(
            text.starts_with("failed") && text.contains(capability),
            "{text}"
        );
    }

    let (mut peer, _task) = serve(&asking_server());
    peer.initialize(
        "2025-11-25",
        json!({"sampling": {"tools": {}, "context": {}}}),
    )
    .await;
    let request = call(&mut peer, 1, "sample_with_tools").await;
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["tools"][0]["name"], "lookup");
    let reply =
        json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"});
    assert_eq!(answer_then_text(&mut peer, &request, reply).await, "ok");

    // Before 2025-11-25 `includeContext` needed no capability.
    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-06-18", json!({"sampling": {}})).await;
    let request = call(&mut peer, 1, "sample_context").await;
    assert_eq!(request["params"]["includeContext"], "allServers");
}

#[tokio::test]
async fn roots_are_asked_only_of_a_client_with_the_capability_roots_08() {
    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-03-26", json!({})).await;
    let response = call(&mut peer, 1, "roots").await;
    assert!(texts(&response["result"]).join("").contains("roots"));

    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-03-26", json!({"roots": {}})).await;
    let request = call(&mut peer, 1, "roots").await;
    assert_eq!(request["method"], "roots/list");
    let roots = json!({"roots": [{"uri": "file:///a"}]});
    assert_eq!(answer_then_text(&mut peer, &request, roots).await, "ok 1");
}

#[tokio::test]
async fn a_handler_can_require_a_url_elicitation_and_announce_its_completion_elic_25() {
    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-11-25", json!({"elicitation": {"url": {}}}))
        .await;
    let response = call(&mut peer, 1, "needs_login").await;
    assert_eq!(response["error"]["code"], -32042);
    let elicitation = &response["error"]["data"]["elicitations"][0];
    assert_eq!(elicitation["elicitationId"], "login-1");
    assert_eq!(elicitation["url"], "https://example.com/login");

    let exchange = peer
        .exchange(2, "tools/call", json!({"name": "complete_later"}))
        .await;
    assert_eq!(texts(&exchange.response["result"]), ["sent"]);
    assert_eq!(exchange.before.len(), 1, "{:?}", exchange.before);
    assert_eq!(
        exchange.before[0]["method"],
        "notifications/elicitation/complete"
    );
    assert_eq!(exchange.before[0]["params"]["elicitationId"], "e-1");

    // A client without URL mode is not sent the notification (ELIC-21).
    let (mut peer, _task) = serve(&asking_server());
    peer.initialize("2025-11-25", json!({"elicitation": {"form": {}}}))
        .await;
    let response = call(&mut peer, 1, "complete_later").await;
    assert!(texts(&response["result"]).join("").starts_with("refused"));
}

#[test]
fn a_url_elicitation_error_without_an_id_is_an_internal_error_elic_24() {
    let unnamed = ElicitRequestURLParams::new("Sign in", "https://example.com/login");
    assert!(matches!(
        HandlerError::url_elicitation_required(vec![unnamed]),
        HandlerError::Internal(_)
    ));
    assert!(matches!(
        HandlerError::url_elicitation_required(Vec::new()),
        HandlerError::Internal(_)
    ));
}

/// A server with cache hints: a server-wide one, a shorter one for the
/// tool `fresh`, and a public one for the resource `file:///public`.
fn hinted_server() -> Server {
    let minute = Duration::from_secs(60);
    let read = |_ctx: Context, uri: String| async move {
        Ok::<_, HandlerError>(ReadResourceResult::new(vec![ResourceContents::text(
            &uri,
            "text/plain",
            "x",
        )]))
    };
    Server::builder("hinted", "1.0.0")
        .cache_hint(CacheHint::public(minute))
        .tool_cache_hint("fresh", CacheHint::private(Duration::from_secs(1)))
        .resource_cache_hint(
            "file:///public",
            CacheHint::public(Duration::from_secs(600)),
        )
        .tool(
            Tool::without_arguments("stable"),
            |_ctx: Context, _| async { Ok::<_, HandlerError>(CallToolResult::text("s")) },
        )
        .tool(Tool::without_arguments("fresh"), |_ctx: Context, _| async {
            Ok::<_, HandlerError>(CallToolResult::text("f"))
        })
        .resource(Resource::new("file:///public", "public"), read)
        .resource(Resource::new("file:///other", "other"), read)
        .build()
        .unwrap()
}

#[tokio::test]
async fn configured_cache_hints_reach_2026_07_28_results_and_no_older_revision() {
    let (mut peer, _task) = serve(&hinted_server());
    let meta = stateless_meta(json!({}));
    let discover = peer
        .result(1, "server/discover", with_meta(json!({}), &meta))
        .await;
    assert_eq!(
        (discover["ttlMs"].clone(), discover["cacheScope"].clone()),
        (json!(60_000), json!("public"))
    );
    // The page lists `fresh`: as fresh as it, and private.
    let tools = peer
        .result(2, "tools/list", with_meta(json!({}), &meta))
        .await;
    assert_eq!(
        (tools["ttlMs"].clone(), tools["cacheScope"].clone()),
        (json!(1000), json!("private"))
    );
    let read = |uri: &str| with_meta(json!({"uri": uri}), &meta);
    let public = peer
        .result(3, "resources/read", read("file:///public"))
        .await;
    assert_eq!(
        (public["ttlMs"].clone(), public["cacheScope"].clone()),
        (json!(600_000), json!("public"))
    );
    let other = peer
        .result(4, "resources/read", read("file:///other"))
        .await;
    assert_eq!(other["ttlMs"], json!(60_000));
    let resources = peer
        .result(5, "resources/list", with_meta(json!({}), &meta))
        .await;
    assert_eq!(resources["ttlMs"], json!(60_000));

    let (mut peer, _task) = serve(&hinted_server());
    peer.initialize("2025-11-25", json!({})).await;
    let tools = peer.result(1, "tools/list", json!({})).await;
    assert!(
        tools.get("ttlMs").is_none() && tools.get("cacheScope").is_none(),
        "{tools}"
    );
}

#[tokio::test]
async fn without_configured_hints_2026_07_28_results_are_stale_and_private() {
    let server = Server::builder("plain", "1.0.0")
        .tool(Tool::without_arguments("t"), |_ctx: Context, _| async {
            Ok::<_, HandlerError>(CallToolResult::text("t"))
        })
        .build()
        .unwrap();
    let (mut peer, _task) = serve(&server);
    let meta = stateless_meta(json!({}));
    let tools = peer
        .result(1, "tools/list", with_meta(json!({}), &meta))
        .await;
    assert_eq!(
        (tools["ttlMs"].clone(), tools["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
}

/// A server whose tools ask through `input_required` (2026-07-28): `login`
/// a URL-mode elicitation, `age` a form checked on the retry.
fn input_server() -> Server {
    Server::builder("input", "1.0.0")
        .tool(
            Tool::without_arguments("login"),
            |ctx: Context, _| async move {
                let login = ElicitRequestURLParams::new("Sign in", "https://example.com/login")
                    .with_elicitation_id("login-2");
                Err::<CallToolResult, _>(
                    ctx.input_required()
                        .elicit("login", ElicitRequestParams::Url(login))
                        .into(),
                )
            },
        )
        .tool(
            Tool::without_arguments("age"),
            |ctx: Context, _| async move {
                match ctx.checked_elicit_response("who", &age_form()) {
                    Some(Ok(answer)) => Ok(CallToolResult::text(format!("{:?}", answer.action))),
                    Some(Err(mismatch)) => Ok(CallToolResult::text(format!("invalid {mismatch}"))),
                    None => Err(ctx
                        .input_required()
                        .elicit("who", ElicitRequestParams::form("Who?", age_form()))
                        .into()),
                }
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_input_request_in_an_undeclared_elicitation_mode_is_left_out_2026_07_28() {
    let (mut peer, _task) = serve(&input_server());
    let form_only = stateless_meta(json!({"elicitation": {}}));
    let error = peer
        .error(
            1,
            "tools/call",
            with_meta(json!({"name": "login"}), &form_only),
        )
        .await;
    assert_eq!(error["code"], -32021, "{error}");
    assert!(error.to_string().contains("\"url\""), "{error}");

    let with_url = stateless_meta(json!({"elicitation": {"url": {}}}));
    let result = peer
        .result(
            2,
            "tools/call",
            with_meta(json!({"name": "login"}), &with_url),
        )
        .await;
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(result["inputRequests"]["login"]["params"]["mode"], "url");
}

#[tokio::test]
async fn a_retry_whose_form_answer_breaks_the_schema_is_reported_to_the_handler_2026_07_28() {
    let (mut peer, _task) = serve(&input_server());
    let meta = stateless_meta(json!({"elicitation": {}}));
    let first = peer
        .result(1, "tools/call", with_meta(json!({"name": "age"}), &meta))
        .await;
    assert_eq!(first["resultType"], "input_required");
    let retry = |content: Value| {
        with_meta(
            json!({"name": "age", "inputResponses": {"who": {"action": "accept", "content": content}}}),
            &meta,
        )
    };
    let bad = peer
        .result(2, "tools/call", retry(json!({"name": 3})))
        .await;
    assert_eq!(texts(&bad), ["invalid name: must be a string"]);
    let good = peer
        .result(3, "tools/call", retry(json!({"name": "Ada"})))
        .await;
    assert_eq!(texts(&good), ["Accept"]);
}
