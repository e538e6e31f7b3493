//! The runtime-free example server run as a real child process over pipes:
//! every handshake revision (LIFE-09), the stateless 2026-07-28
//! revision, the error codes of TOOL-16 and BASE-20, exit at the end of
//! stdin, and the Python SDK's client in both eras.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// Generous: the server answers in microseconds; a loaded CI machine with
/// two cores shared by several builds can still take seconds to start it.
const DEADLINE: Duration = Duration::from_secs(60);

const SERVER: &str = env!("CARGO_BIN_EXE_sans-io-server");

/// Runs `command` with `input` on stdin (then closed) and returns its output,
/// killing it if it has not exited by the deadline.
fn run(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    drop(stdin);
    let pid = child.id();
    let (done, wait) = mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    match wait.recv_timeout(DEADLINE) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("{command:?} did not exit within {DEADLINE:?} after its stdin closed");
        }
    }
}

/// Sends `messages` one per line and returns the answers, one per line.
fn exchange(messages: &[Value]) -> Vec<Value> {
    let mut input = Vec::new();
    for message in messages {
        input.extend_from_slice(message.to_string().as_bytes());
        input.push(b'\n');
    }
    answers(&input)
}

fn answers(input: &[u8]) -> Vec<Value> {
    let output = run(&mut Command::new(SERVER), input);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    // Nothing but JSON-RPC on stdout, one message a line (STDIO-01, STDIO-02): every line parses.
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn request(id: u64, method: &str, params: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The calls every era makes, with `meta` in their params (empty in the
/// handshake era, the per-request protocol fields in 2026-07-28).
fn calls(meta: &Value) -> Vec<Value> {
    vec![
        request(2, "tools/list", &json!({"_meta": meta})),
        request(
            3,
            "tools/call",
            &json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}),
        ),
        request(
            4,
            "tools/call",
            &json!({"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta}),
        ),
        request(
            5,
            "tools/call",
            &json!({"name": "add", "arguments": {"a": 2}, "_meta": meta}),
        ),
        request(6, "tools/call", &json!({"name": "nope", "_meta": meta})),
        request(7, "prompts/list", &json!({"_meta": meta})),
    ]
}

/// The answers to [`calls`], whatever the era.
fn check_calls(answers: &[Value]) {
    let names: Vec<&str> = answers[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "add"]);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "hi");
    assert_eq!(answers[2]["result"]["content"][0]["text"], r#"{"sum":5.0}"#);
    // TOOL-16: bad arguments are a tool failure; an unknown tool is -32602.
    assert_eq!(answers[3]["result"]["isError"], true);
    assert_eq!(answers[4]["error"]["code"], -32602);
    // A capability the server did not declare: method not found.
    assert_eq!(answers[5]["error"]["code"], -32601);
    for (answer, id) in answers.iter().zip(2..) {
        assert_eq!(answer["id"], id, "{answer}");
    }
}

#[test]
fn every_handshake_revision_is_negotiated_and_served() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut messages = vec![
            request(
                1,
                "initialize",
                &json!({
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"},
                }),
            ),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ];
        messages.extend(calls(&json!({})));
        let answers = exchange(&messages);
        assert_eq!(answers.len(), 7, "{version}: {answers:?}");
        let init = &answers[0]["result"];
        assert_eq!(init["protocolVersion"], version, "LIFE-09");
        assert_eq!(init["serverInfo"]["name"], "sans-io-server");
        assert!(init["capabilities"]["tools"].is_object());
        check_calls(&answers[1..]);
        // The same structured result, fitted to each revision: no
        // `structuredContent` before 2025-06-18 (it came with output schemas).
        let structured = answers[3]["result"].get("structuredContent");
        let expected = json!({"sum": 5.0});
        assert_eq!(
            structured,
            (version >= "2025-06-18").then_some(&expected),
            "{version}"
        );
    }
}

#[test]
fn the_stateless_revision_is_discovered_and_served_without_initialize() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut messages = vec![request(1, "server/discover", &json!({"_meta": meta}))];
    messages.extend(calls(&meta));
    let answers = exchange(&messages);
    assert_eq!(answers.len(), 7, "{answers:?}");
    let discover = &answers[0]["result"];
    assert_eq!(discover["supportedVersions"][0], "2026-07-28");
    assert!(discover["capabilities"]["tools"].is_object());
    check_calls(&answers[1..]);
    assert_eq!(
        answers[3]["result"]["structuredContent"],
        json!({"sum": 5.0})
    );
    // 2026-07-28 results say what they are.
    assert_eq!(answers[2]["result"]["resultType"], "complete");
}

#[test]
fn text_that_is_not_a_message_is_answered_and_reading_goes_on() {
    let mut input = b"this is not json\n\n[]\n".to_vec();
    let ping = request(9, "ping", &json!({}));
    input.extend_from_slice(format!("{ping}\n").as_bytes());
    let answers = answers(&input);
    // BASE-20: -32700 for text that is not JSON, -32600 for an empty batch,
    // both with a null id (BASE-09); the blank line is skipped; ping works before
    // initialize (LIFE-05).
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32700);
    assert_eq!(answers[0]["id"], Value::Null);
    assert_eq!(answers[1]["error"]["code"], -32600);
    assert_eq!(answers[2], json!({"jsonrpc": "2.0", "id": 9, "result": {}}));
}

#[test]
fn the_server_exits_cleanly_when_stdin_ends() {
    let output = run(&mut Command::new(SERVER), b"");
    assert!(output.status.success(), "{output:?}");
    assert!(output.stdout.is_empty());
}

/// The Python interpreter that has the `mcp` SDK (`cargo xtask py-tools`
/// installs it and prints `MCPWIRE_PYTHON`; `cargo xtask ci` sets it), or
/// `None` (skip) when unset and not required.
fn python() -> Option<String> {
    match std::env::var("MCPWIRE_PYTHON") {
        Ok(value) if !value.is_empty() => Some(value),
        _ if std::env::var("MCPWIRE_REQUIRE_EXTERNAL").as_deref() == Ok("1") => {
            panic!(
                "MCPWIRE_PYTHON is not set but MCPWIRE_REQUIRE_EXTERNAL=1; run `cargo xtask py-tools`"
            )
        }
        _ => {
            eprintln!("skipped: MCPWIRE_PYTHON is not set (run `cargo xtask py-tools`)");
            None
        }
    }
}

#[test]
fn the_python_sdk_client_reaches_it_in_both_eras() {
    let Some(python) = python() else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python_client.py");
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let output = run(Command::new(&python).args([script, mode, SERVER]), b"");
        assert!(output.status.success(), "{mode}: {output:?}");
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            report,
            json!({
                "protocolVersion": version,
                "serverName": "sans-io-server",
                "tools": ["echo", "add"],
                "echo": ["hello from python"],
                "addStructured": {"sum": 42.0},
                "badArgumentsIsError": true,
                "unknownToolCode": -32602,
            }),
            "{mode}"
        );
    }
}
