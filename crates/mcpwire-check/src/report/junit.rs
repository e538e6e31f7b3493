//! The report as JUnit XML for CI systems: one `<testcase>` per check,
//! grouped in one `<testsuite>` per revision; failures as `<failure>`,
//! skipped checks as `<skipped>`, warnings as passing cases whose text is
//! in `<system-out>`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Finding, Level, Report};

/// One test case: its name and what it found, if anything.
struct Case<'a> {
    name: String,
    finding: Option<&'a Finding>,
}

pub(super) fn render(report: &Report) -> String {
    let mut suites: BTreeMap<String, Vec<Case<'_>>> = BTreeMap::new();
    for passed in &report.passed {
        let suite = passed.revision.clone().unwrap_or_else(|| "any".into());
        let name = format!("{} {}", passed.rule, passed.check);
        suites.entry(suite).or_default().push(Case {
            name,
            finding: None,
        });
    }
    for finding in &report.findings {
        let suite = finding.revision.clone().unwrap_or_else(|| "any".into());
        let name = format!("{} {}", finding.rule, first_line(&finding.message));
        suites.entry(suite).or_default().push(Case {
            name,
            finding: Some(finding),
        });
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        escape(&format!("mcpwire check {}", report.target)),
        report.passed.len() + report.findings.len(),
        report.failures(),
        report.infos()
    );
    for (suite, cases) in &suites {
        let failures = cases
            .iter()
            .filter(|c| c.finding.is_some_and(|f| f.level == Level::Fail))
            .count();
        let skipped = cases
            .iter()
            .filter(|c| c.finding.is_some_and(|f| f.level == Level::Info))
            .count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">",
            escape(&format!("mcpwire-check {suite}")),
            cases.len()
        );
        for case in cases {
            case_xml(&mut out, suite, case);
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn case_xml(out: &mut String, suite: &str, case: &Case<'_>) {
    let _ = write!(
        out,
        "    <testcase classname=\"{}\" name=\"{}\"",
        escape(&format!("mcpwire-check.{suite}")),
        escape(&case.name)
    );
    let Some(finding) = case.finding else {
        out.push_str("/>\n");
        return;
    };
    out.push_str(">\n");
    let details = details(finding);
    match finding.level {
        Level::Fail => {
            let _ = writeln!(
                out,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                escape(&finding.message),
                finding.rule,
                escape(&details)
            );
        }
        Level::Info => {
            let _ = writeln!(
                out,
                "      <skipped message=\"{}\"/>",
                escape(&finding.message)
            );
        }
        Level::Warn => {
            let _ = writeln!(
                out,
                "      <system-out>warning: {}</system-out>",
                escape(&details)
            );
        }
    }
    out.push_str("    </testcase>\n");
}

/// The finding's whole story: message, exchange and fix.
fn details(finding: &Finding) -> String {
    let mut text = finding.message.clone();
    if let Some(sent) = &finding.sent {
        let _ = write!(text, "\nsent: {sent}");
    }
    if let Some(received) = &finding.received {
        let _ = write!(text, "\nreceived: {received}");
    }
    let _ = write!(text, "\nfix: {}", finding.fix);
    text
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// `text` escaped for XML text and attributes; characters XML 1.0 cannot
/// carry at all are replaced.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Passed;

    #[test]
    fn a_failure_a_skip_and_a_pass_become_three_cases_with_escaped_text() {
        let finding = |level, message: &str| Finding {
            rule: "TOOL-14",
            level,
            revision: Some("2025-11-25".into()),
            message: message.into(),
            sent: None,
            received: Some(serde_json::json!({"a": "<b>"})),
            fix: "fix & retry",
        };
        let report = Report {
            target: "srv".into(),
            revisions: vec!["2025-11-25".into()],
            checks: 3,
            findings: vec![
                finding(Level::Fail, "bad \"x\""),
                finding(Level::Info, "skipped"),
            ],
            passed: vec![Passed {
                rule: "PING-01",
                revision: None,
                check: "ping".into(),
            }],
            capabilities: serde_json::Value::Null,
        };
        let xml = render(&report);
        assert!(
            xml.contains("tests=\"3\" failures=\"1\" skipped=\"1\""),
            "{xml}"
        );
        assert!(
            xml.contains("<failure message=\"bad &quot;x&quot;\" type=\"TOOL-14\">"),
            "{xml}"
        );
        assert!(
            xml.contains("&lt;b&gt;") && xml.contains("fix &amp; retry"),
            "{xml}"
        );
        assert!(xml.contains("<skipped message=\"skipped\"/>"), "{xml}");
        assert!(xml.contains("name=\"PING-01 ping\"/>"), "{xml}");
    }
}
