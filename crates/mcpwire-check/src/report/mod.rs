//! What a check run found: findings by rule, as text for people and JSON
//! for machines.

mod junit;

use serde::Serialize;
use serde_json::Value;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    /// A MUST of the spec is broken: the run fails.
    Fail,
    /// A SHOULD is not followed.
    Warn,
    /// A check that could not run here (skipped), with the reason.
    Info,
}

/// One problem, with the rule it breaks and how to fix it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The rule's id in the spec's `REQUIREMENTS.md` (e.g. `LIFE-09`).
    pub rule: &'static str,
    /// Fail or warn.
    pub level: Level,
    /// The protocol revision spoken, if the check had one.
    pub revision: Option<String>,
    /// What was checked and what was wrong.
    pub message: String,
    /// What was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent: Option<Value>,
    /// What came back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received: Option<Value>,
    /// How to fix it.
    pub fix: &'static str,
}

/// A check that passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Passed {
    /// The rule checked.
    pub rule: &'static str,
    /// The protocol revision spoken, if the check had one.
    pub revision: Option<String>,
    /// What was checked.
    pub check: String,
}

/// Everything a run found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The server checked.
    pub target: String,
    /// The revisions the server spoke.
    pub revisions: Vec<String>,
    /// How many checks ran.
    pub checks: usize,
    /// What they found.
    pub findings: Vec<Finding>,
    /// The checks that passed.
    pub passed: Vec<Passed>,
    /// The capabilities the server declared at the newest revision it
    /// spoke (`null` when it spoke none).
    pub capabilities: Value,
}

impl Report {
    /// How many findings fail the run.
    pub fn failures(&self) -> usize {
        self.count(Level::Fail)
    }

    /// How many findings are warnings.
    pub fn warnings(&self) -> usize {
        self.count(Level::Warn)
    }

    /// How many checks were skipped or only informative.
    pub fn infos(&self) -> usize {
        self.count(Level::Info)
    }

    /// How many findings of each rule at each level, as `(rule, level,
    /// count)` sorted by rule: a summary stable between runs.
    pub fn counts(&self) -> Vec<(&'static str, Level, usize)> {
        let mut counts = std::collections::BTreeMap::new();
        for finding in &self.findings {
            *counts.entry((finding.rule, finding.level)).or_insert(0) += 1;
        }
        counts
            .into_iter()
            .map(|((rule, level), n)| (rule, level, n))
            .collect()
    }

    /// The report as JUnit XML: one test case per check, failures as
    /// `<failure>`, warnings as passing cases with their text in
    /// `<system-out>`, skipped checks as `<skipped>`.
    pub fn to_junit(&self) -> String {
        junit::render(self)
    }

    fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|f| f.level == level).count()
    }

    /// The findings of `rule`.
    pub fn of_rule(&self, rule: &str) -> Vec<&Finding> {
        self.findings.iter().filter(|f| f.rule == rule).collect()
    }

    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The report for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "mcpwire check {}\nrevisions spoken: {}\n",
            self.target,
            self.revisions.join(", ")
        );
        for finding in &self.findings {
            let level = match finding.level {
                Level::Fail => "FAIL",
                Level::Warn => "warn",
                Level::Info => "info",
            };
            let revision = finding.revision.as_deref().unwrap_or("-");
            out.push_str(&format!(
                "{level} {} [{revision}] {}\n",
                finding.rule, finding.message
            ));
            if let Some(sent) = &finding.sent {
                out.push_str(&format!("     sent:     {sent}\n"));
            }
            if let Some(received) = &finding.received {
                out.push_str(&format!("     received: {received}\n"));
            }
            out.push_str(&format!("     fix:      {}\n", finding.fix));
        }
        out.push_str(&format!(
            "{} checks, {} failed, {} warnings, {} skipped\n",
            self.checks,
            self.failures(),
            self.warnings(),
            self.infos()
        ));
        out
    }
}
