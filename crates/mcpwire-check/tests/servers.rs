//! `mcpwire_check::run` against real servers: the conformance
//! everything-server over Streamable HTTP (clean), the runtime-free example
//! server over stdio (clean), and a deliberately broken stdio server whose
//! every planted defect must be reported by its rule.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

use std::time::Duration;

use mcpwire_check::{Level, Options, Report, Target, run};

#[path = "servers/calls.rs"]
mod calls;
#[path = "servers/examples.rs"]
mod examples;
#[path = "servers/headers.rs"]
mod headers;
#[path = "servers/official.rs"]
mod official;

/// Generous: each answer takes milliseconds; a CI machine with two cores
/// shared by several builds can stall a process for seconds.
fn options() -> Options {
    Options::default().with_timeout(Duration::from_secs(30))
}

fn assert_clean(report: &Report) {
    let failures: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.level == Level::Fail)
        .collect();
    assert!(failures.is_empty(), "{}", report.to_text());
}

/// The conformance everything-server on 127.0.0.1: its Streamable HTTP
/// and legacy SSE URLs.
async fn everything_http_server() -> (String, String) {
    let server = conformance::everything::server().unwrap();
    let (url_tx, url_rx) = tokio::sync::oneshot::channel();
    let address = "127.0.0.1:0".parse().unwrap();
    tokio::spawn(conformance::http::serve(
        server,
        address,
        move |endpoints| {
            let _ = url_tx.send((endpoints.streamable.clone(), endpoints.legacy.clone()));
            Ok(())
        },
    ));
    tokio::time::timeout(Duration::from_secs(60), url_rx)
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_streamable_http_has_no_failures() {
    let (url, _) = everything_http_server().await;
    let report = run(&Target::Url(url), &options()).await;
    println!("{}", report.to_text());
    assert_clean(&report);
    assert_eq!(
        report.revisions,
        [
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ]
    );
    // The 2026-07-28 standard headers were checked (a missing and a
    // mismatched `Mcp-Method`, each refused with 400 HeaderMismatch).
    let headers = report
        .passed
        .iter()
        .filter(|pass| pass.rule == "HTTP-HEADERS-2026")
        .count();
    assert_eq!(headers, 2, "{}", report.to_text());
}

/// A binary of another workspace package, built first if needed (cargo
/// builds only this package's own binaries for its tests).
fn workspace_binary(package: &str, bin: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", package, "--bin", bin])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success(), "building {bin} failed");
    // The test binary lives in target/<profile>/deps.
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(std::path::Path::parent).unwrap();
    dir.join(bin).display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_stdio_has_no_failures() {
    let program = workspace_binary("conformance", "everything-server");
    let target = Target::Command {
        program,
        args: vec!["--stdio".into()],
    };
    let report = run(&target, &options()).await;
    assert_clean(&report);
    assert_eq!(
        report.revisions,
        [
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_planted_defect_of_the_broken_server_is_reported_by_its_rule() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/broken_server.py");
    let target = Target::Command {
        program: "python3".into(),
        args: vec![script.into()],
    };
    let report = run(&target, &options()).await;
    let text = report.to_text();
    let rules = |level| {
        let mut rules: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.level == level)
            .map(|f| f.rule)
            .collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    };
    assert_eq!(
        rules(Level::Fail),
        [
            "BASE-20", "COMP-02", "LIFE-10", "PING-01", "RES-04", "STDIO-02", "TOOL-04", "TOOL-05"
        ],
        "{text}"
    );
    assert_eq!(
        rules(Level::Warn),
        ["LIFE-15", "PAGE-05", "TOOL-09", "TOOL-10", "TOOL-16"],
        "{text}"
    );
    // Both BASE-20 defects: the unknown method and the bad params.
    let base = report.of_rule("BASE-20");
    assert!(
        base.iter()
            .any(|f| f.message.starts_with("mcpwire/no-such-method")),
        "{text}"
    );
    assert!(
        base.iter().any(|f| f.message.starts_with("tools/call")),
        "{text}"
    );
    // Every finding says what was sent or received, and how to fix it.
    for finding in &report.findings {
        assert!(!finding.fix.is_empty());
    }
    assert_eq!(report.revisions, ["2025-11-25"]);
    assert!(report.failures() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_free_example_server_passes_without_a_warning() {
    let program = workspace_binary("sans-io-server", "sans-io-server");
    let target = Target::Command {
        program,
        args: vec![],
    };
    let report = run(&target, &options()).await;
    assert!(report.findings.is_empty(), "{}", report.to_text());
    assert_eq!(
        report.revisions,
        [
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ]
    );
}

/// `(program, args)` of the TypeScript reference server, when installed
/// (`cargo xtask npm-tools`; `cargo xtask ci` sets it), or `None` (skip)
/// when unset and not required.
fn reference_server() -> Option<(String, String)> {
    match std::env::var("MCPWIRE_SERVER_EVERYTHING") {
        Ok(script) if !script.is_empty() => {
            let node = std::env::var("MCPWIRE_NODE").unwrap_or_else(|_| "node".to_owned());
            Some((node, script))
        }
        _ if std::env::var("MCPWIRE_REQUIRE_EXTERNAL").as_deref() == Ok("1") => {
            panic!(
                "MCPWIRE_SERVER_EVERYTHING is not set but MCPWIRE_REQUIRE_EXTERNAL=1; run `cargo xtask npm-tools`"
            )
        }
        _ => {
            eprintln!(
                "skipped: MCPWIRE_SERVER_EVERYTHING is not set (run `cargo xtask npm-tools`)"
            );
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_reference_server_gets_a_stable_report() {
    let Some((node, script)) = reference_server() else {
        return;
    };
    let target = Target::Command {
        program: node,
        args: vec![script, "stdio".into()],
    };
    let summary = |report: &Report| {
        let mut found: Vec<(String, &'static str, Level)> = report
            .findings
            .iter()
            .map(|f| (f.revision.clone().unwrap_or_default(), f.rule, f.level))
            .collect();
        found.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        (report.revisions.clone(), report.checks, found)
    };
    let first = run(&target, &options()).await;
    let second = run(&target, &options()).await;
    assert_eq!(
        first.revisions,
        ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"],
        "{}",
        first.to_text()
    );
    assert!(first.checks > 100, "{}", first.to_text());
    assert_eq!(
        summary(&first),
        summary(&second),
        "the report changed between two runs"
    );
}

/// Kills the broken HTTP server when the test ends, however it ends.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_defects_of_a_broken_server_are_reported_by_their_rules() {
    use std::io::BufRead;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/broken_http_server.py");
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = KillOnDrop(child);
    let mut url = String::new();
    std::io::BufReader::new(stdout).read_line(&mut url).unwrap();
    let target = Target::Url(url.trim().to_owned());
    let report = run(
        &target,
        &options().with_revision(mcpwire_types::ProtocolVersion::V2025_11_25),
    )
    .await;
    drop(server);
    let text = report.to_text();
    for rule in ["HTTP-09", "HTTP-45", "HTTP-39", "HTTP-03"] {
        let found = report.of_rule(rule);
        assert!(
            found.iter().any(|f| f.level == Level::Fail),
            "{rule} not reported:\n{text}"
        );
    }
    assert!(report.of_rule("HTTP-35").is_empty(), "{text}");
    // A foreign Host is only a warning; the missing version header is fine.
    assert!(
        report
            .of_rule("HTTP-02")
            .iter()
            .all(|f| f.level == Level::Warn),
        "{text}"
    );
    assert!(!report.of_rule("HTTP-02").is_empty(), "{text}");
    assert!(report.of_rule("HTTP-44").is_empty(), "{text}");
}

/// A server that takes connections and never answers anything: the check
/// ends with failures within a few of its per-answer timeouts, rather than
/// waiting for as long as the server is silent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_ends_the_check_with_failures_in_bounded_time() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut connections = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            connections.push(stream);
        }
    });
    let options = Options::default().with_timeout(Duration::from_secs(1));
    // Well under the client's own 30 s status bound: only the check's
    // per-answer timeout can end it this soon (the margin is for a loaded
    // two-core machine).
    let report = tokio::time::timeout(Duration::from_secs(20), run(&Target::Url(url), &options))
        .await
        .expect("the check waited on a silent server");
    assert!(
        report.findings.iter().any(|f| f.level == Level::Fail),
        "{}",
        report.to_text()
    );
    held.abort();
}
