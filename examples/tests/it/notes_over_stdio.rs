//! The notes example, run for real: the client binary spawns the server
//! binary and talks to it over pipes, in every revision.

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs the example client against the example server, bounded in time.
fn run_client(extra: &[&str]) -> String {
    run(
        env!("CARGO_BIN_EXE_notes-client"),
        extra,
        env!("CARGO_BIN_EXE_notes-server"),
    )
}

/// Runs `client` with `extra` arguments and then `server`, bounded in time;
/// returns its stdout.
fn run(client: &str, extra: &[&str], server: &str) -> String {
    let mut command = Command::new(client);
    command.args(extra).arg(server);
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the example client starts");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the example client did not finish within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    assert!(output.status.success(), "client failed: {output:?}");
    String::from_utf8(output.stdout).expect("utf-8")
}

#[test]
fn the_client_negotiates_the_newest_revision_by_default_and_uses_every_feature() {
    let out = run_client(&[]);
    assert!(
        out.contains("connected to notes-server speaking 2026-07-28"),
        "{out}"
    );
    assert!(
        out.contains("tools: add_note, search_notes, delete_note"),
        "{out}"
    );
    assert!(out.contains(r#"add_note: {"id":1}"#), "{out}");
    assert!(
        out.contains(r#"search_notes: {"matches":[{"id":1,"title":"Ideas"}]}"#),
        "{out}"
    );
    // The typed client reads structuredContent straight into the struct.
    assert!(
        out.contains(r#"typed search: Found { matches: [Match { id: 0, title: "Groceries" }] }"#),
        "{out}"
    );
    assert!(
        out.contains("delete_note 99: error=true there is no note 99"),
        "{out}"
    );
    assert!(out.contains("- 0: Groceries\n- 1: Ideas"), "{out}");
    assert!(out.contains("note ids: 0, 1"), "{out}");
    assert!(out.contains("prompt: Summary of note 1"), "{out}");
    assert!(out.contains("server ended: ExitedOnEof"), "{out}");
}

#[test]
fn every_handshake_revision_works_over_stdio() {
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let out = run_client(&["--protocol", revision]);
        let expected = format!("connected to notes-server speaking {revision}");
        assert!(out.contains(&expected), "{revision}: {out}");
        assert!(out.contains("note ids: 0, 1"), "{revision}: {out}");
        // Structured output exists from 2025-06-18 on; older peers get none.
        let structured = out.contains(r#"add_note: {"id":0}"#);
        assert_eq!(structured, revision >= "2025-06-18", "{revision}: {out}");
    }
}

/// The code of a README example binary, as the README shows it: the file
/// without its leading `//!` and `#![...]` lines.
fn shown(source: &str) -> String {
    let mut lines = source
        .lines()
        .skip_while(|l| l.starts_with("//!") || l.starts_with("#!["));
    let mut body: String = lines.by_ref().map(|l| format!("{l}\n")).collect();
    body.insert_str(0, "```rust\n");
    body.push_str("```");
    body
}

#[test]
fn the_readme_shows_the_todo_server_and_client_as_compiled_and_run_here() {
    let readme = include_str!("../../../README.md");
    for source in [
        include_str!("../../src/bin/todo-server.rs"),
        include_str!("../../src/bin/todo-client.rs"),
    ] {
        let block = shown(source);
        assert!(readme.contains(&block), "README lacks, verbatim:\n{block}");
    }
    // The promise of the README: a server under 40 lines, a client under 25.
    let server = shown(include_str!("../../src/bin/todo-server.rs"));
    let client = shown(include_str!("../../src/bin/todo-client.rs"));
    assert!(server.lines().count() - 2 < 40, "{server}");
    assert!(client.lines().count() - 2 < 25, "{client}");
    let out = run(
        env!("CARGO_BIN_EXE_todo-client"),
        &[],
        env!("CARGO_BIN_EXE_todo-server"),
    );
    assert_eq!(out, "added todo #1\n");
}
