//! Every command against the demo server over stdio
//! (`mcpwire ... -- mcpwire serve-demo`), exit codes, and `--json`.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{finish, interrupt, mcpwire, run, start, temp_dir, with_demo};

#[test]
fn inspect_shows_identity_revision_capabilities_and_every_list() {
    let out = run(&with_demo(&["inspect"]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    for expected in [
        "Server:       mcpwire-demo",
        "Protocol:     2026-07-28 over stdio",
        "Capabilities: completions, extensions (io.modelcontextprotocol/tasks), logging",
        "Instructions: A demo notes server",
        "add_note      (body: string*, title: string*) -> (id: integer*)",
        "notes://all",
        "notes://note/{id}",
        "summarize_note  id*",
    ] {
        assert!(
            out.stdout.contains(expected),
            "{expected:?} missing in:\n{}",
            out.stdout
        );
    }
}

#[test]
fn inspect_json_reports_the_pinned_revision_of_every_era() {
    for revision in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        let out = run(&with_demo(&[
            "--json",
            "--protocol-version",
            revision,
            "inspect",
        ]));
        assert_eq!(out.code(), Some(0), "{revision}: {out:?}");
        let report = out.json();
        assert_eq!(report["protocolVersion"], revision);
        assert_eq!(report["serverInfo"]["name"], "mcpwire-demo");
        let tools: Vec<&str> = report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(tools.contains(&"add_note"), "{tools:?}");
        assert_eq!(
            report["resourceTemplates"][0]["uriTemplate"],
            "notes://note/{id}"
        );
        assert_eq!(report["prompts"][0]["name"], "summarize_note");
    }
}

#[test]
fn an_unknown_protocol_revision_is_a_usage_error() {
    let out = run(&with_demo(&["--protocol-version", "1999-01-01", "ping"]));
    assert_eq!(out.code(), Some(2), "{out:?}");
    assert!(out.stderr.contains("2025-11-25"), "{}", out.stderr);
}

#[test]
fn call_types_key_value_arguments_by_the_input_schema() {
    // `id=0` must reach the server as an integer, or the schema check fails.
    let out = run(&with_demo(&["call", "delete_note", "id=0"]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "Deleted note 0.");
}

#[test]
fn call_prints_text_and_pretty_structured_content() {
    let out = run(&with_demo(&[
        "call",
        "add_note",
        "title=Groceries",
        "body=eggs, milk",
    ]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(
        out.stdout
            .starts_with("Added note 1.\nstructured content:\n{\n  \"id\": 1\n}"),
        "{}",
        out.stdout
    );
}

#[test]
fn call_json_prints_the_result_and_takes_arguments_as_json() {
    let out = run(&with_demo(&[
        "--json",
        "call",
        "add_note",
        "--args-json",
        r#"{"title": "a", "body": "b"}"#,
    ]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    let result = out.json();
    assert_eq!(result["structuredContent"], json!({"id": 1}));
    assert_eq!(result["content"][0]["text"], "Added note 1.");
}

#[test]
fn a_tool_reporting_an_error_exits_1_with_its_message_shown() {
    let out = run(&with_demo(&["call", "delete_note", "id=42"]));
    assert_eq!(out.code(), Some(1), "{out:?}");
    assert!(out.stdout.contains("there is no note 42"), "{out:?}");
    assert!(out.stderr.contains("reported an error"), "{out:?}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        with_demo(&["call", "no_such_tool"]),
        with_demo(&["call", "delete_note", "id=not-a-number"]),
        with_demo(&["call", "delete_note", "no-equals-sign"]),
        vec!["call", "delete_note"],
        vec!["inspect"],
        vec!["no-such-command"],
        vec!["bridge", "--listen", "127.0.0.1:0"],
        // Issue 17 item 7: no unauthenticated bridge beyond loopback (the
        // check runs before anything is bound).
        vec!["bridge", "--listen", "0.0.0.0:0", "--", "cat"],
        vec!["bridge", "--listen", "[::]:0", "--", "cat"],
    ] {
        let out = run(&args);
        assert_eq!(out.code(), Some(2), "{args:?}: {out:?}");
    }
}

#[test]
fn connection_failures_exit_3() {
    let out = run(&["ping", "--", "/nonexistent/mcp-server"]);
    assert_eq!(out.code(), Some(3), "{out:?}");
    // A port nothing listens on: bind one, learn it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = run(&["ping", &format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(out.code(), Some(3), "{out:?}");
    // A program that is not an MCP server.
    let out = run(&["ping", "--", "true"]);
    assert_eq!(out.code(), Some(3), "{out:?}");
}

#[test]
fn images_are_saved_to_files_whose_paths_are_printed() {
    let dir = temp_dir("images");
    let out = run(&with_demo(&[
        "call",
        "pixel",
        "--output-dir",
        dir.to_str().unwrap(),
    ]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    let line = out.stdout.lines().find(|l| l.contains("saved to")).unwrap();
    let path = line
        .split("saved to ")
        .nth(1)
        .unwrap()
        .trim_end_matches(']');
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..4], b"\x89PNG");
}

#[test]
fn progress_is_shown_as_plain_lines_when_stderr_is_not_a_terminal() {
    let out = run(&with_demo(&["call", "search_notes", "query=welcome"]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(
        out.stderr.contains("progress 1/1 (100%) searching\n"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("0: Welcome"), "{}", out.stdout);
}

#[test]
fn server_log_messages_go_to_stderr_with_their_level() {
    for revision in ["2025-11-25", "2026-07-28"] {
        let out = run(&with_demo(&[
            "--protocol-version",
            revision,
            "call",
            "add_note",
            "title=t",
            "body=b",
        ]));
        assert_eq!(out.code(), Some(0), "{out:?}");
        assert!(
            out.stderr.contains("[info] notes: added note 1"),
            "{revision}: {}",
            out.stderr
        );
        assert!(!out.stdout.contains("[info]"), "{}", out.stdout);
    }
}

#[test]
fn read_prompt_complete_and_ping_show_their_results() {
    let out = run(&with_demo(&["read", "notes://note/0"]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(
        out.stdout
            .contains("── notes://note/0 (text/plain)\nWelcome"),
        "{}",
        out.stdout
    );

    let out = run(&with_demo(&["--json", "read", "notes://all"]));
    assert_eq!(out.json()["contents"][0]["text"], "- 0: Welcome\n");

    let out = run(&with_demo(&["read", "notes://note/9"]));
    assert_eq!(
        out.code(),
        Some(3),
        "an unknown resource is a protocol error: {out:?}"
    );

    let out = run(&with_demo(&["prompt", "summarize_note", "id=0"]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(
        out.stdout
            .starts_with("# Summary of note 0\nuser: Summarize this note"),
        "{}",
        out.stdout
    );

    let out = run(&with_demo(&[
        "--json",
        "complete",
        "--prompt",
        "summarize_note",
        "--argument",
        "id",
    ]));
    assert_eq!(out.json()["completion"]["values"], json!(["0"]));
    let out = run(&with_demo(&[
        "complete",
        "--template",
        "notes://note/{id}",
        "--argument",
        "id",
        "--value",
        "0",
    ]));
    assert_eq!(out.stdout, "0\n", "{out:?}");

    for revision in ["2025-06-18", "2026-07-28"] {
        let out = run(&with_demo(&[
            "--json",
            "--protocol-version",
            revision,
            "ping",
        ]));
        assert_eq!(out.code(), Some(0), "{out:?}");
        assert_eq!(out.json()["ok"], true);
    }
}

#[test]
fn logs_follows_until_its_duration_ends() {
    let out = run(&with_demo(&["logs", "--duration", "1"]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(
        out.stderr.contains("following mcpwire-demo"),
        "{}",
        out.stderr
    );
    let out = run(&with_demo(&[
        "--protocol-version",
        "2025-11-25",
        "logs",
        "--level",
        "warning",
        "--duration",
        "1",
    ]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    let out = run(&with_demo(&["logs", "--level", "loud"]));
    assert_eq!(out.code(), Some(2), "{out:?}");
}

#[test]
fn a_configured_server_name_is_a_target() {
    let dir = temp_dir("config");
    let path = dir.join("mcp.json");
    let config = json!({"mcpServers": {
        "demo": {"command": mcpwire(), "args": ["serve-demo"], "env": {"DEMO": "1"}, "cwd": &*dir},
        "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Test": "1"}}
    }});
    std::fs::write(&path, config.to_string()).unwrap();
    let out = run(&[
        "--config",
        path.to_str().unwrap(),
        "call",
        "demo",
        "delete_note",
        "id=0",
    ]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    let out = run(&["--config", path.to_str().unwrap(), "ping", "missing"]);
    assert_eq!(out.code(), Some(2), "{out:?}");
    assert!(out.stderr.contains("demo, remote"), "{}", out.stderr);
}

#[test]
fn ctrl_c_cancels_the_call_in_flight_and_exits_130() {
    // The server's input is copied to a file, to see the cancellation
    // arrive (CANCEL-01: it names the request still running) before the
    // end of its input (STDIO-07: the client ends the server it started).
    let dir = temp_dir("cancel");
    let seen = dir.join("server-input.jsonl");
    let server = format!("tee '{}' | '{}' serve-demo", seen.display(), mcpwire());
    let mut child = start(&["call", "countdown", "seconds=30", "--", "sh", "-c", &server]);
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    interrupt(&child);
    let out = finish(&mut child);
    assert_eq!(out.code(), Some(130), "{out:?}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "stopping took {:?}",
        started.elapsed()
    );
    assert!(out.stderr.contains("interrupted"), "{}", out.stderr);
    let input = std::fs::read_to_string(&seen).unwrap();
    let call = input
        .lines()
        .find(|l| l.contains("\"tools/call\""))
        .unwrap();
    let id = serde_json::from_str::<serde_json::Value>(call).unwrap()["id"].clone();
    let cancelled = input
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["method"] == "notifications/cancelled")
        .unwrap_or_else(|| panic!("no cancellation reached the server:\n{input}"));
    assert_eq!(cancelled["params"]["requestId"], id);
}

#[test]
fn demo_lists_the_tools_and_calls_one() {
    let out = run(&["demo"]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stdout.contains("Tools (7):"), "{}", out.stdout);
    assert!(out.stdout.contains("Added note 1."), "{}", out.stdout);
    let out = run(&["demo", "--json"]);
    let report = out.json();
    assert_eq!(report["inspect"]["serverInfo"]["name"], "mcpwire-demo");
    assert_eq!(report["call"]["structuredContent"]["id"], 1);
}

#[test]
fn every_command_has_help_with_examples_and_completions_are_generated() {
    for command in [
        "inspect",
        "call",
        "read",
        "prompt",
        "complete",
        "ping",
        "logs",
        "bridge",
        "demo",
        "completions",
    ] {
        let out = run(&[command, "--help"]);
        assert_eq!(out.code(), Some(0), "{command}: {out:?}");
        assert!(
            out.stdout.contains("Examples:"),
            "{command}: {}",
            out.stdout
        );
    }
    for shell in ["bash", "zsh", "fish"] {
        let out = run(&["completions", shell]);
        assert_eq!(out.code(), Some(0), "{shell}: {out:?}");
        assert!(
            out.stdout.contains("inspect") && out.stdout.contains("bridge"),
            "{shell}"
        );
    }
}
