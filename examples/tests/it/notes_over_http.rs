//! The notes example over HTTP, run for real: the `notes-http` binary
//! (axum, Streamable HTTP at /mcp and HTTP+SSE at /sse) and the client
//! binary reaching it over both, with automatic fallback.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The running HTTP server; killed when dropped.
struct HttpServer {
    child: Child,
    streamable: String,
    legacy: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server() -> HttpServer {
    let mut child = Command::new(env!("CARGO_BIN_EXE_notes-http"))
        .arg("127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("notes-http starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let streamable = lines.next().expect("first line").expect("utf-8");
    let legacy = lines.next().expect("second line").expect("utf-8");
    assert!(streamable.starts_with("http://127.0.0.1:") && streamable.ends_with("/mcp"));
    assert!(legacy.ends_with("/sse"));
    HttpServer {
        child,
        streamable,
        legacy,
    }
}

/// Runs the example client with `args`, bounded in time.
fn run_client(args: &[&str]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_notes-client"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example client starts");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
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
fn the_client_reaches_the_axum_app_over_streamable_http_in_every_revision() {
    let server = start_server();
    let out = run_client(&[&server.streamable]);
    assert!(out.contains("transport: Some(StreamableHttp)"), "{out}");
    assert!(out.contains("speaking 2026-07-28"), "{out}");
    assert!(out.contains("note ids: "), "{out}");
    for revision in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let out = run_client(&["--protocol", revision, &server.streamable]);
        assert!(
            out.contains(&format!("speaking {revision}")),
            "{revision}: {out}"
        );
        assert!(
            out.contains("prompt: Summary of note 1"),
            "{revision}: {out}"
        );
    }
}

#[test]
fn the_client_falls_back_to_http_sse_at_the_legacy_endpoint() {
    let server = start_server();
    for revision in [None, Some("2024-11-05")] {
        let mut args = Vec::new();
        if let Some(revision) = revision {
            args.extend(["--protocol", revision]);
        }
        args.push(&server.legacy);
        let out = run_client(&args);
        assert!(out.contains("transport: Some(LegacySse)"), "{out}");
        assert!(
            out.contains("tools: add_note, search_notes, delete_note"),
            "{out}"
        );
        if let Some(revision) = revision {
            assert!(out.contains(&format!("speaking {revision}")), "{out}");
        }
    }
}
