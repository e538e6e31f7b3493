//! Schemas derived from Rust types (the `schemars` feature): what a client
//! lists is the struct, so the two cannot drift; derived schemas are
//! enforced like hand-written ones; a non-object `outputSchema` is refused
//! at `build()`; and the official TypeScript SDK client sees them.

use std::time::Duration;

use mcpwire::jsonrpc::memory::pair;
use mcpwire::prelude::*;
use mcpwire::server::BuildError;
use mcpwire::types::ProtocolVersion;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Serves `server` in memory and returns the listed tools and a client.
async fn listed(server: Server) -> (Vec<Tool>, Client) {
    let (client_io, server_io) = pair(64);
    tokio::spawn(async move { server.serve(server_io).await });
    let client = Client::connect(client_io, ClientConfig::named("t", "1"))
        .await
        .expect("connect");
    let tools = client.list_all_tools().await.expect("tools/list");
    (tools, client)
}

#[derive(Deserialize, JsonSchema)]
struct CountAsInteger {
    #[allow(dead_code, reason = "only its schema matters here")]
    count: u32,
}

#[derive(Deserialize, JsonSchema)]
struct CountAsText {
    #[allow(dead_code, reason = "only its schema matters here")]
    count: String,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug, PartialEq)]
struct Echoed {
    count: u32,
}

fn count_server<A: serde::de::DeserializeOwned + JsonSchema + Send + 'static>() -> Server {
    Server::builder("drift", "1.0.0")
        .derived_tool(Tool::named("count"), |_ctx: Context, _args: A| async {
            Ok::<_, HandlerError>(Structured(Echoed { count: 7 }))
        })
        .build()
        .expect("build")
}

#[tokio::test]
async fn changing_a_field_type_changes_the_schema_the_client_lists() {
    let (integer, _a) = listed(count_server::<CountAsInteger>()).await;
    let (text, _b) = listed(count_server::<CountAsText>()).await;
    let property = |tools: &[Tool]| tools[0].input_schema["properties"]["count"]["type"].clone();
    assert_eq!(property(&integer), json!("integer"));
    assert_eq!(property(&text), json!("string"));
    assert_eq!(integer[0].input_schema["required"], json!(["count"]));
    // The output schema is the one of the `Structured` type.
    let output = integer[0].output_schema.as_ref().expect("an outputSchema");
    assert_eq!(output["properties"]["count"]["type"], json!("integer"));
    assert_eq!(output["type"], json!("object"));
}

#[tokio::test]
async fn derived_schemas_are_enforced_before_and_after_the_handler() {
    let (_, client) = listed(count_server::<CountAsInteger>()).await;
    // A string where the struct has an integer: refused by the schema,
    // before the handler runs (a tool error the model can read).
    let refused = client
        .call_tool("count", json!({"count": "seven"}))
        .await
        .expect("an answer");
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let typed: Echoed = client
        .call_tool_as("count", json!({"count": 3}))
        .await
        .expect("a typed result");
    assert_eq!(typed, Echoed { count: 7 });
    // The text twin of the structured content, for clients that read only `content`.
    let result = client
        .call_tool("count", json!({"count": 3}))
        .await
        .unwrap();
    let text = result.content[0].as_text().expect("a text block");
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        json!({"count": 7})
    );
}

#[derive(Deserialize, JsonSchema)]
struct NoArguments {}

#[test]
fn a_list_output_is_refused_at_build_while_a_2025_revision_is_spoken() {
    let list_tool = |builder: mcpwire::server::ServerBuilder| {
        builder
            .derived_tool(Tool::named("list"), |_ctx: Context, _: NoArguments| async {
                Ok::<_, HandlerError>(Structured(vec![1, 2, 3]))
            })
            .build()
    };
    let error = list_tool(Server::builder("lists", "1.0.0")).unwrap_err();
    let BuildError::Schema { which, reason, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(*which, "outputSchema");
    assert!(reason.contains("wrap the value in a struct"), "{error}");
    assert!(reason.contains("its \"type\" is \"array\""), "{error}");
    // 2026-07-28 clients accept any structured content.
    let only_latest = Server::builder("lists", "1.0.0").versions([ProtocolVersion::V2026_07_28]);
    assert!(list_tool(only_latest).is_ok());
}

#[test]
fn a_schema_that_is_not_a_json_object_is_refused_by_name() {
    let error = Server::builder("bad", "1.0.0")
        .tool(
            Tool::new("bad", json!("object")),
            |_ctx: Context, _| async { Ok::<_, HandlerError>(CallToolResult::text("never")) },
        )
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the inputSchema of tool \"bad\" is unusable: it must be a JSON object (a schema with \
         \"type\": \"object\"), but it is not a JSON object but a string"
    );
}

/// The TypeScript SDK's client lists the notes server's tools over stdio
/// and sees the derived schemas (skipped without `cargo xtask npm-tools`'
/// environment, failed instead with `MCPWIRE_REQUIRE_EXTERNAL=1`).
#[test]
fn the_typescript_sdk_client_sees_the_derived_schemas() {
    let Ok(tools_dir) = std::env::var("MCPWIRE_NPM_TOOLS") else {
        assert_ne!(
            std::env::var("MCPWIRE_REQUIRE_EXTERNAL").as_deref(),
            Ok("1"),
            "MCPWIRE_NPM_TOOLS is not set; run `cargo xtask npm-tools`"
        );
        eprintln!("skipped: MCPWIRE_NPM_TOOLS is not set (run `cargo xtask npm-tools`)");
        return;
    };
    let node = std::env::var("MCPWIRE_NODE").unwrap_or_else(|_| "node".to_owned());
    // The script must sit beside the SDK's node_modules to import it.
    let script = std::path::Path::new(&tools_dir).join("mcpwire-list-tools.mjs");
    std::fs::write(&script, include_str!("../ts/list_tools.mjs")).unwrap();
    let seen = run_reference_client(&node, &script.display().to_string());
    let add = tool_named(&seen, "add_note");
    assert_eq!(add["inputSchema"]["properties"]["title"]["minLength"], 1);
    assert_eq!(add["inputSchema"]["required"], json!(["title", "body"]));
    assert_eq!(add["outputSchema"]["properties"]["id"]["type"], "integer");
    // The SDK validated the structured result against the derived schema.
    assert_eq!(seen["result"]["structuredContent"], json!({"id": 0}));
}

/// The Python SDK's client (`mcp` from PyPI) lists the notes server's tools
/// over stdio and sees the derived schemas (skipped without `MCPWIRE_PYTHON`,
/// which `cargo xtask ci` sets; failed instead with `MCPWIRE_REQUIRE_EXTERNAL=1`).
#[test]
fn the_python_sdk_client_sees_the_derived_schemas() {
    let Ok(python) = std::env::var("MCPWIRE_PYTHON") else {
        assert_ne!(
            std::env::var("MCPWIRE_REQUIRE_EXTERNAL").as_deref(),
            Ok("1"),
            "MCPWIRE_PYTHON is not set; `cargo xtask ci` installs the Python SDK"
        );
        eprintln!("skipped: MCPWIRE_PYTHON is not set");
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/py/list_tools.py");
    let seen = run_reference_client(&python, script);
    let add = tool_named(&seen, "add_note");
    assert_eq!(add["inputSchema"]["properties"]["title"]["minLength"], 1);
    assert_eq!(add["outputSchema"]["properties"]["id"]["type"], "integer");
    assert_eq!(seen["result"]["structuredContent"], json!({"id": 0}));
}

/// Runs a reference client `program script notes-server` (bounded in time)
/// and reads the JSON object it prints.
fn run_reference_client(program: &str, script: &str) -> Value {
    let mut child = std::process::Command::new(program)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_notes-server"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the reference client starts");
    // The interpreter and the SDK load in a second or two; 60 s leaves room
    // for a loaded CI machine.
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the reference client did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The listed tool called `name`.
fn tool_named<'a>(seen: &'a Value, name: &str) -> &'a Value {
    seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {seen}"))
}
