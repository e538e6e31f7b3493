//! The notes example, run for real: the client binary spawns the server
//! binary and talks to it over pipes, in every revision.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "tests: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs the example client against the example server, bounded in time.
fn run_client(extra: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_notes-client"));
    command.args(extra).arg(env!("CARGO_BIN_EXE_notes-server"));
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
