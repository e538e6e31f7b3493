//! Against the TypeScript reference implementation, when installed
//! (`cargo xtask npm-tools` prints the environment; `cargo xtask ci` sets
//! it): `mcpwire` inspects and calls `@modelcontextprotocol/server-everything`
//! over stdio and through its own bridge, and the TypeScript SDK's
//! Streamable HTTP client reaches a stdio server through `mcpwire bridge`.
//!
//! Without the environment these tests skip with a message; with
//! `MCPWIRE_REQUIRE_EXTERNAL=1` a missing variable fails them instead.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::{Bridge, finish, on_terminal, run};

/// The value of `name`, or `None` (skip) when it is unset and not required.
fn external(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(value) if !value.is_empty() => Some(value),
        _ if std::env::var("MCPWIRE_REQUIRE_EXTERNAL").as_deref() == Ok("1") => {
            panic!("{name} is not set but MCPWIRE_REQUIRE_EXTERNAL=1; run `cargo xtask npm-tools`")
        }
        _ => {
            eprintln!(
                "skipped: {name} is not set (run `cargo xtask npm-tools` and export what it prints)"
            );
            None
        }
    }
}

fn node() -> String {
    std::env::var("MCPWIRE_NODE").unwrap_or_else(|_| "node".to_owned())
}

#[test]
fn server_everything_is_inspected_and_its_tools_called_over_stdio() {
    let Some(server) = external("MCPWIRE_SERVER_EVERYTHING") else {
        return;
    };
    let node = node();
    let out = run(&["--json", "inspect", "--", &node, &server]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    let report = out.json();
    assert_eq!(report["serverInfo"]["name"], "mcp-servers/everything");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for expected in ["echo", "get-sum", "get-tiny-image"] {
        assert!(
            tools.contains(&expected),
            "{expected} missing from {tools:?}"
        );
    }

    let out = run(&[
        "call",
        "echo",
        "message=hello from mcpwire",
        "--",
        &node,
        &server,
    ]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "Echo: hello from mcpwire");
    // Numbers typed by the input schema.
    let out = run(&["call", "get-sum", "a=2", "b=3.5", "--", &node, &server]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stdout.contains("5.5"), "{}", out.stdout);
    // Progress from a long-running operation, as plain lines.
    let out = run(&[
        "call",
        "trigger-long-running-operation",
        "duration=1",
        "steps=2",
        "--",
        &node,
        &server,
    ]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stderr.contains("progress 2/2 (100%)"), "{}", out.stderr);
    // Sampling asked of a client without a terminal is refused.
    let out = run(&[
        "call",
        "trigger-sampling-request",
        "prompt=hi",
        "--",
        &node,
        &server,
    ]);
    assert!(out.stderr.contains("not a terminal"), "{out:?}");
}

#[test]
fn server_everything_is_reached_through_the_bridge() {
    let Some(server) = external("MCPWIRE_SERVER_EVERYTHING") else {
        return;
    };
    let node = node();
    let bridge = Bridge::start_command(&[], &[&node, &server]);
    let out = run(&["call", &bridge.url, "echo", "message=bridged"]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "Echo: bridged");
    let out = run(&[
        "--protocol-version",
        "2024-11-05",
        "call",
        &bridge.sse_url(),
        "echo",
        "message=legacy",
    ]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "Echo: legacy");
}

#[test]
fn the_typescript_sdk_client_reaches_a_stdio_server_through_the_bridge() {
    let Some(tools_dir) = external("MCPWIRE_NPM_TOOLS") else {
        return;
    };
    // The script must sit beside the SDK's node_modules to import it.
    let script = PathBuf::from(&tools_dir).join("mcpwire-bridge-client.mjs");
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/ts/bridge_client.mjs");
    std::fs::copy(&source, &script).unwrap();
    let bridge = Bridge::start(&[]);
    let mut child = Command::new(node())
        .arg(&script)
        .args([
            &bridge.url,
            "add_note",
            r#"{"title": "from", "body": "typescript"}"#,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish(&mut child);
    assert_eq!(out.code(), Some(0), "{out:?}");
    let seen: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(seen["server"]["name"], "mcpwire-demo");
    assert!(
        seen["sessionId"].is_string(),
        "a handshake session through the bridge: {seen}"
    );
    assert!(
        seen["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "add_note"),
        "{seen}"
    );
    assert_eq!(seen["result"]["structuredContent"]["id"], 1);
}

#[test]
fn url_elicitation_shows_the_whole_url_and_opens_nothing_unless_the_user_agrees() {
    let Some(server) = external("MCPWIRE_SERVER_EVERYTHING") else {
        return;
    };
    let node = node();
    let url = "https://example.com/authorize?state=abc&scope=notes";
    let args = [
        "call",
        "trigger-url-elicitation",
        &format!("url={url}"),
        "message=Sign in",
        "elicitationId=e1",
        "--",
        &node,
        &server,
    ];
    let Some((code, screen)) = on_terminal(&args, "n\n") else {
        return;
    };
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains(&format!("URL: {url}")), "{screen}");
    assert!(screen.contains("Open this URL? [y/N]"), "{screen}");
    assert!(screen.contains("\"action\": \"decline\""), "{screen}");
}
