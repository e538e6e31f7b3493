//! `mcpwire check`: the demo server passes (exit 0), a broken server fails
//! (exit 1) with its findings named by rule, in text and in JSON.

use crate::support::{mcpwire, run};

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
