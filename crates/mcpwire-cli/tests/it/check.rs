//! `mcpwire check`: the demo server passes (exit 0), a broken server fails
//! (exit 1) with its findings named by rule, in text and in JSON.

use crate::support::{Bridge, mcpwire, run, temp_dir};

#[test]
fn the_demo_server_passes_every_check() {
    let out = run(&["check", "--", mcpwire(), "serve-demo"]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stdout.contains(" 0 failed"), "{out:?}");
}

#[test]
fn a_broken_server_fails_with_its_findings_by_rule_in_json() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../mcpwire-check/tests/broken_server.py"
    );
    let out = run(&[
        "--json",
        "--protocol-version",
        "2025-11-25",
        "check",
        "--",
        "python3",
        script,
    ]);
    assert_eq!(out.code(), Some(1), "{out:?}");
    let report = out.json();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["rule"].as_str().unwrap())
        .collect();
    for rule in ["PING-01", "BASE-20", "TOOL-04", "STDIO-02"] {
        assert!(rules.contains(&rule), "{rule} missing from {rules:?}");
    }
    assert_eq!(report["revisions"], serde_json::json!(["2025-11-25"]));
}

#[test]
fn check_has_help_with_examples() {
    let out = run(&["check", "--help"]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(
        out.stdout.contains("Examples:") && out.stdout.contains("REQUIREMENTS.md"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_demo_server_passes_with_its_tools_called_and_a_junit_report() {
    let dir = temp_dir("check-junit");
    let file = dir.join("check.xml");
    let file_text = file.display().to_string();
    let out = run(&[
        "check",
        "--call-tools",
        "--junit",
        &file_text,
        "--",
        mcpwire(),
        "serve-demo",
    ]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(
        xml.starts_with("<?xml") && xml.contains("<testsuites"),
        "{xml}"
    );
    assert!(xml.matches("<testcase ").count() > 50, "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
}

#[test]
fn a_broken_server_checked_at_one_revision_has_failures_in_its_junit_report() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../mcpwire-check/tests/broken_server.py"
    );
    let dir = temp_dir("check-junit-broken");
    let file = dir.join("check.xml");
    let file_text = file.display().to_string();
    let out = run(&[
        "check",
        "--revision",
        "2025-11-25",
        "--junit",
        &file_text,
        "--",
        "python3",
        script,
    ]);
    assert_eq!(out.code(), Some(1), "{out:?}");
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(
        xml.contains("<failure message=") && xml.contains("type=\"PING-01\""),
        "{xml}"
    );
    assert!(
        out.stdout.contains("revisions spoken: 2025-11-25\n"),
        "{out:?}"
    );
}

#[test]
fn the_http_demo_passes_over_streamable_http_and_legacy_sse() {
    let bridge = Bridge::start(&[]);
    let out = run(&["check", &bridge.url]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stdout.contains(" 0 failed"), "{out:?}");
    let out = run(&["--json", "check", &bridge.sse_url()]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    let report = out.json();
    let legacy_checked = report["passed"]
        .as_array()
        .unwrap()
        .iter()
        .any(|check| check["rule"] == "LEG-01");
    assert!(legacy_checked, "{report}");
    bridge.stop();
}

#[test]
fn official_needs_an_http_url() {
    let out = run(&["check", "--official", "--", mcpwire(), "serve-demo"]);
    assert_eq!(out.code(), Some(2), "{out:?}");
    assert!(
        out.stderr.contains("--official needs an HTTP URL"),
        "{out:?}"
    );
}
