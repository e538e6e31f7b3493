//! The examples' servers pass every check, tools called: the notes and
//! todo servers over stdio, the notes server over Streamable HTTP and over
//! the legacy HTTP+SSE transport; and the everything-server over its
//! legacy endpoint.

use std::io::BufRead;

use mcpwire_check::{Target, run};

use super::{KillOnDrop, assert_clean, everything_http_server, options, workspace_binary};

async fn stdio_example_is_clean(bin: &str) {
    let program = workspace_binary("mcpwire-examples", bin);
    let target = Target::Command {
        program,
        args: vec![],
    };
    let report = run(&target, &options().with_call_tools(true)).await;
    assert_clean(&report);
    assert!(report.revisions.len() >= 4, "{}", report.to_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notes_server_over_stdio_has_no_failures() {
    stdio_example_is_clean("notes-server").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_todo_server_over_stdio_has_no_failures() {
    stdio_example_is_clean("todo-server").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notes_server_over_http_and_legacy_sse_has_no_failures() {
    let program = workspace_binary("mcpwire-examples", "notes-http");
    let mut child = std::process::Command::new(program)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = KillOnDrop(child);
    let mut lines = std::io::BufReader::new(stdout).lines();
    let streamable = lines.next().unwrap().unwrap();
    let legacy = lines.next().unwrap().unwrap();
    let report = run(&Target::Url(streamable), &options().with_call_tools(true)).await;
    assert_clean(&report);
    // The HTTP checks ran at each session revision, Origin among them.
    for rule in ["HTTP-02", "HTTP-03", "HTTP-09", "HTTP-44", "HTTP-45"] {
        assert!(
            report.passed.iter().any(|p| p.rule == rule),
            "{rule}: {}",
            report.to_text()
        );
    }
    let report = run(&Target::Url(legacy), &options()).await;
    drop(server);
    assert_clean(&report);
    assert!(
        report.passed.iter().any(|p| p.rule == "LEG-01"),
        "{}",
        report.to_text()
    );
    assert!(
        report.revisions.contains(&"2024-11-05".to_owned()),
        "{}",
        report.to_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_legacy_sse_has_no_failures() {
    let (_, legacy) = everything_http_server().await;
    let report = run(&Target::Url(legacy), &options()).await;
    assert_clean(&report);
    assert!(
        report.passed.iter().any(|p| p.rule == "LEG-01"),
        "{}",
        report.to_text()
    );
}
