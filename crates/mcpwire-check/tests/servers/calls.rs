//! `--call-tools`: every tool of the everything-server called over stdio
//! and Streamable HTTP without a failure, the planted defects of the
//! broken server's tools (structuredContent, progress, cancellation)
//! reported by their rules, and a stable report for the TypeScript
//! reference server with its tools called.

use mcpwire_check::{Level, Report, Target, run};

use super::{assert_clean, everything_http_server, options, reference_server, workspace_binary};

fn passed(report: &Report, rule: &str) -> usize {
    report.passed.iter().filter(|p| p.rule == rule).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_of_the_everything_server_over_stdio_answers_within_the_rules() {
    let program = workspace_binary("conformance", "everything-server");
    let target = Target::Command {
        program,
        args: vec!["--stdio".into()],
    };
    let report = run(&target, &options().with_call_tools(true)).await;
    assert_clean(&report);
    // Each result fits CallToolResult; test_tool_with_progress reports
    // increasing progress for our token.
    assert!(passed(&report, "BASE-07") >= 10, "{}", report.to_text());
    assert!(passed(&report, "PROG-03") >= 1, "{}", report.to_text());
    assert!(passed(&report, "PROG-05") >= 1, "{}", report.to_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_of_the_everything_server_over_http_answers_within_the_rules() {
    let (url, _legacy) = everything_http_server().await;
    let report = run(&Target::Url(url), &options().with_call_tools(true)).await;
    assert_clean(&report);
    assert!(passed(&report, "BASE-07") >= 10, "{}", report.to_text());
    assert!(passed(&report, "PROG-03") >= 1, "{}", report.to_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broken_tools_are_reported_by_their_rules() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/broken_server.py");
    let target = Target::Command {
        program: "python3".into(),
        args: vec![script.into()],
    };
    let report = run(&target, &options().with_call_tools(true)).await;
    let text = report.to_text();
    let has = |rule: &str, level: Level| report.of_rule(rule).iter().any(|f| f.level == level);
    assert!(has("TOOL-14", Level::Fail), "{text}");
    assert!(has("PROG-03", Level::Fail), "{text}");
    assert!(has("CANCEL-05", Level::Warn), "{text}");
    // The structured tool repeats its structuredContent as text: no TOOL-13.
    assert!(report.of_rule("TOOL-13").is_empty(), "{text}");
    let tool14 = report.of_rule("TOOL-14");
    let finding = tool14.iter().find(|f| f.level == Level::Fail).unwrap();
    assert!(finding.message.contains("\"structured\""), "{text}");
    assert!(
        finding.sent.is_some() && finding.received.is_some(),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_reference_server_with_its_tools_called_gets_a_stable_report() {
    let Some((node, script)) = reference_server() else {
        return;
    };
    let target = Target::Command {
        program: node,
        args: vec![script, "stdio".into()],
    };
    let options = options().with_call_tools(true);
    let first = run(&target, &options).await;
    let second = run(&target, &options).await;
    println!("{}", first.to_text());
    println!("counts per rule: {:?}", first.counts());
    assert_eq!(first.counts(), second.counts(), "{}", second.to_text());
    // Its tools were called and their results judged, and its long-running
    // tool (progress every 2 s) was slow enough for the cancellation check
    // to run rather than be skipped.
    assert!(passed(&first, "BASE-07") >= 5, "{}", first.to_text());
    let cancellation_judged = passed(&first, "CANCEL-05") > 0
        || first
            .of_rule("CANCEL-05")
            .iter()
            .any(|f| f.level != Level::Info);
    assert!(cancellation_judged, "{}", first.to_text());
}
