//! Runtime tests of tools over the wire: listing and paging, argument
//! validation per revision, handler errors, structured output checks and
//! typed arguments (TOOL-*, PAGE-*).

use crate::support;

use mcpwire_jsonrpc::{ErrorCode, ErrorObject};
use mcpwire_server::schema::CompiledSchema;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::{CallToolResult, ContentBlock, Tool};
use serde::Deserialize;
use serde_json::{Value, json};
use support::{RawPeer, serve, stateless_meta, texts, with_meta};

/// The revisions with a handshake that structured output exists in.
const HANDSHAKE_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn echo_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    })
}

fn weather_tool() -> Tool {
    let mut tool = Tool::new("weather", json!({"type": "object"}));
    tool = tool.output_schema(json!({
        "type": "object",
        "properties": {"temperature": {"type": "number"}},
        "required": ["temperature"]
    }));
    tool
}

#[derive(Deserialize)]
struct AddArguments {
    a: i64,
    b: i64,
}

/// A server with tools for every path `tools/call` can take.
fn tool_server() -> Server {
    let add_schema = json!({
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"]
    });
    Server::builder("tools", "1.0.0")
        .tool(
            Tool::new("echo", echo_schema()),
            |_ctx: Context, args| async move {
                let text = args["text"].as_str().unwrap_or_default().to_owned();
                Ok(CallToolResult::text(text))
            },
        )
        .tool(
            Tool::new("show_arguments", json!({"type": "object"})),
            |_ctx: Context, args| async move {
                Ok(CallToolResult::text(Value::Object(args).to_string()))
            },
        )
        .tool(
            Tool::new("fail", json!({"type": "object"})),
            |_ctx: Context, args| async move {
                Err(match args["kind"].as_str().unwrap_or_default() {
                    "tool" => HandlerError::tool("the disk is full"),
                    "invalid" => HandlerError::InvalidParams("bad input".into()),
                    "not_found" => HandlerError::NotFound("the thing".into()),
                    "rpc" => HandlerError::Rpc(ErrorObject::new(ErrorCode(-32050), "custom")),
                    _ => HandlerError::internal("boom"),
                })
            },
        )
        .tool(weather_tool(), |_ctx: Context, args| async move {
            let mut result = CallToolResult::new(Vec::new());
            match args["mode"].as_str().unwrap_or_default() {
                "good" => result.structured_content = Some(json!({"temperature": 21.5})),
                "wrong_type" => result.structured_content = Some(json!({"temperature": "warm"})),
                "with_content" => {
                    result.structured_content = Some(json!({"temperature": 3}));
                    result.content = vec![ContentBlock::text("cold")];
                }
                "failed" => return Ok(CallToolResult::error("no sensor")),
                _ => {}
            }
            Ok(result)
        })
        .typed_tool(
            Tool::new("add", add_schema),
            |_ctx: Context, args: AddArguments| async move {
                Ok(CallToolResult::text((args.a + args.b).to_string()))
            },
        )
        .tool(
            Tool::new("panics", json!({"type": "object"})),
            |_ctx: Context, _args| async move {
                if std::hint::black_box(true) {
                    panic!("a bug in the handler");
                }
                Ok(CallToolResult::text("unreachable"))
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

fn call(name: &str, arguments: Value) -> Value {
    let mut params = json!({ "name": name });
    params["arguments"] = arguments;
    params
}

fn names(result: &Value, key: &str) -> Vec<String> {
    result[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn tools_are_listed_in_registration_order() {
    let server = tool_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let result = peer.result(1, "tools/list", json!({})).await;
    assert_eq!(
        names(&result, "tools"),
        ["echo", "show_arguments", "fail", "weather", "add", "panics"]
    );
    assert!(result.get("nextCursor").is_none(), "{result}");
    assert_eq!(result["tools"][0]["inputSchema"], echo_schema());
}

/// PAGE-02, PAGE-06: following `nextCursor` visits every tool once, in order.
#[tokio::test]
async fn walking_tool_pages_of_two_returns_each_tool_once() {
    let server = Server::builder("paged", "1.0.0").page_size(2);
    let server = (0..5)
        .fold(server, |builder, i| {
            builder.tool(
                Tool::without_arguments(format!("tool_{i}")),
                |_ctx: Context, _args| async { Ok(CallToolResult::text("")) },
            )
        })
        .build()
        .unwrap();
    let mut peer = initialized(&server, "2025-11-25").await;
    let mut seen = Vec::new();
    let mut params = json!({});
    let mut pages = 0;
    for id in 1.. {
        let result = peer.result(id, "tools/list", params).await;
        let page = names(&result, "tools");
        assert!(page.len() <= 2, "a page holds at most 2 tools: {page:?}");
        seen.extend(page);
        pages += 1;
        match result.get("nextCursor") {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, ["tool_0", "tool_1", "tool_2", "tool_3", "tool_4"]);
}

/// PAGE-05: an invalid cursor is -32602 on every paginated list.
#[tokio::test]
async fn a_garbage_cursor_is_invalid_params_on_every_list() {
    let server = Server::builder("lists", "1.0.0")
        .enable_tools()
        .enable_resources()
        .enable_prompts()
        .build()
        .unwrap();
    let mut peer = initialized(&server, "2025-06-18").await;
    let methods = [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ];
    for (id, method) in (1..).zip(methods) {
        let error = peer
            .error(id, method, json!({"cursor": "not a cursor!"}))
            .await;
        assert_eq!(error["code"], -32602, "{method}: {error}");
    }
}

#[tokio::test]
async fn a_call_without_arguments_gets_an_empty_object() {
    let server = tool_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let result = peer
        .result(1, "tools/call", json!({"name": "show_arguments"}))
        .await;
    assert_eq!(texts(&result), ["{}"]);
    assert!(result.get("isError").is_none(), "{result}");
}

#[tokio::test]
async fn calling_an_unknown_tool_is_invalid_params_in_every_revision() {
    let server = tool_server();
    for version in HANDSHAKE_VERSIONS {
        let mut peer = initialized(&server, version).await;
        let error = peer.error(1, "tools/call", call("nope", json!({}))).await;
        assert_eq!(error["code"], -32602, "{version}: {error}");
        assert!(error["message"].as_str().unwrap().contains("nope"));
    }
    let (mut peer, _task) = serve(&server);
    let params = with_meta(call("nope", json!({})), &stateless_meta(json!({})));
    let error = peer.error(1, "tools/call", params).await;
    assert_eq!(error["code"], -32602, "2026-07-28: {error}");
}

/// TOOL-16: from 2025-11-25 on, arguments failing `inputSchema` are a tool
/// execution error the model can read; before, a protocol error.
#[tokio::test]
async fn invalid_arguments_are_a_tool_error_from_2025_11_25_and_invalid_params_before() {
    let server = tool_server();
    let bad = json!({"text": 42});
    let expected = CompiledSchema::compile(&echo_schema())
        .unwrap()
        .validate(&bad)
        .unwrap_err()
        .to_string();

    let mut peer = initialized(&server, "2025-11-25").await;
    let result = peer
        .result(1, "tools/call", call("echo", bad.clone()))
        .await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(texts(&result)[0].contains(&expected), "{result}");

    let (mut stateless, _task) = serve(&server);
    let params = with_meta(call("echo", bad.clone()), &stateless_meta(json!({})));
    let result = stateless.result(1, "tools/call", params).await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(texts(&result)[0].contains(&expected), "{result}");

    for version in ["2025-06-18", "2025-03-26"] {
        let mut peer = initialized(&server, version).await;
        let error = peer.error(1, "tools/call", call("echo", bad.clone())).await;
        assert_eq!(error["code"], -32602, "{version}: {error}");
        assert!(error["message"].as_str().unwrap().contains(&expected));
    }
}

#[tokio::test]
async fn missing_required_arguments_fail_validation() {
    let server = tool_server();
    let mut peer = initialized(&server, "2025-11-25").await;
    let result = peer.result(1, "tools/call", json!({"name": "echo"})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(texts(&result)[0].contains("text"), "{result}");
}

#[tokio::test]
async fn a_tool_error_is_an_is_error_result_with_its_message() {
    let server = tool_server();
    for version in HANDSHAKE_VERSIONS {
        let mut peer = initialized(&server, version).await;
        let result = peer
            .result(1, "tools/call", call("fail", json!({"kind": "tool"})))
            .await;
        assert_eq!(result["isError"], true, "{version}: {result}");
        assert_eq!(texts(&result), ["the disk is full"]);
    }
}

/// Handler errors other than `Tool` are JSON-RPC errors. `NotFound` from a
/// tool is -32602: -32002 means a missing resource, and only there.
#[tokio::test]
async fn other_handler_errors_become_json_rpc_errors_with_their_codes() {
    let server = tool_server();
    let cases = [
        ("invalid", -32602),
        ("internal", -32603),
        ("rpc", -32050),
        ("not_found", -32602),
    ];
    for version in ["2025-06-18", "2025-11-25"] {
        let mut peer = initialized(&server, version).await;
        for (id, (kind, code)) in (1..).zip(cases) {
            let error = peer
                .error(id, "tools/call", call("fail", json!({"kind": kind})))
                .await;
            assert_eq!(error["code"], code, "{version} {kind}: {error}");
        }
    }
}

/// TOOL-13: a structured result without content gets its JSON as text.
#[tokio::test]
async fn conforming_structured_content_is_sent_with_a_text_twin() {
    let server = tool_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let result = peer
        .result(1, "tools/call", call("weather", json!({"mode": "good"})))
        .await;
    assert_eq!(result["structuredContent"], json!({"temperature": 21.5}));
    let twin: Value = serde_json::from_str(&texts(&result)[0]).unwrap();
    assert_eq!(twin, json!({"temperature": 21.5}));

    // Content the tool wrote itself is kept as it is.
    let result = peer
        .result(
            2,
            "tools/call",
            call("weather", json!({"mode": "with_content"})),
        )
        .await;
    assert_eq!(texts(&result), ["cold"]);
    assert_eq!(result["structuredContent"], json!({"temperature": 3}));
}

/// TOOL-14: a tool with an `outputSchema` must return conforming
/// `structuredContent`; otherwise the caller gets an error, not bad data.
#[tokio::test]
async fn structured_content_violating_or_missing_the_output_schema_is_an_error() {
    let server = tool_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let error = peer
        .error(
            1,
            "tools/call",
            call("weather", json!({"mode": "wrong_type"})),
        )
        .await;
    assert_eq!(error["code"], -32603, "{error}");
    assert!(error["message"].as_str().unwrap().contains("outputSchema"));

    let error = peer
        .error(2, "tools/call", call("weather", json!({"mode": "missing"})))
        .await;
    assert_eq!(error["code"], -32603, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("no structuredContent")
    );

    // A failed call carries no structured result, and that is fine.
    let result = peer
        .result(3, "tools/call", call("weather", json!({"mode": "failed"})))
        .await;
    assert_eq!(result["isError"], true, "{result}");
}

#[tokio::test]
async fn typed_tools_decode_their_arguments_and_report_misfits_as_tool_errors() {
    let server = tool_server();
    let mut peer = initialized(&server, "2025-11-25").await;
    let result = peer
        .result(1, "tools/call", call("add", json!({"a": 2, "b": 40})))
        .await;
    assert_eq!(texts(&result), ["42"]);
    assert!(result.get("isError").is_none());

    // 1.5 satisfies `"type": "number"` but is no i64.
    let result = peer
        .result(2, "tools/call", call("add", json!({"a": 1.5, "b": 1})))
        .await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        texts(&result)[0].starts_with("invalid arguments"),
        "{result}"
    );
}

/// A handler that panics still gets an answer (-32603), and the session
/// keeps serving: the client is not left waiting forever.
#[tokio::test]
async fn a_panicking_handler_is_answered_with_an_internal_error() {
    let server = tool_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let error = peer.error(1, "tools/call", call("panics", json!({}))).await;
    assert_eq!(error["code"], -32603, "{error}");
    let result = peer
        .result(2, "tools/call", call("echo", json!({"text": "still here"})))
        .await;
    assert_eq!(texts(&result), ["still here"]);
}
