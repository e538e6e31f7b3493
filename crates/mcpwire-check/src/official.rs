//! `--official`: the official conformance runner
//! (`@modelcontextprotocol/conformance`, the package `cargo xtask
//! conformance` pins) run against a Streamable HTTP URL, for the server
//! scenarios that apply to any server, its checks folded into the report.
//!
//! Which scenarios: those that need none of the runner's special test
//! tools, resources or prompts (`test_simple_text`, `test://static-text`,
//! ...): `server-initialize`, `ping`, `tools-list`, `resources-list`,
//! `prompts-list`, `logging-set-level` (each only when the server declares
//! the capability it uses), `server-sse-multiple-streams` (three concurrent
//! `tools/list`) and `dns-rebinding-protection`. Every other server scenario
//! calls a fixture by name and would only report that an ordinary server
//! lacks it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::Options;
use crate::report::{Finding, Level, Passed, Report};

/// The runner version `cargo xtask conformance` pins
/// (`conformance/runner-versions`): the one whose scenarios are described
/// in the project's conformance contract.
pub const RUNNER_VERSION: &str = "0.1.16";

/// How long one scenario may take: the runner's own timeouts are 30 s.
const SCENARIO_LIMIT: Duration = Duration::from_secs(120);

/// A scenario, the rule it checks, and the capability it needs.
struct Scenario {
    name: &'static str,
    rule: &'static str,
    needs: Option<&'static str>,
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "server-initialize",
        rule: "LIFE-03",
        needs: None,
    },
    Scenario {
        name: "ping",
        rule: "PING-01",
        needs: None,
    },
    Scenario {
        name: "tools-list",
        rule: "TOOL-04",
        needs: Some("tools"),
    },
    Scenario {
        name: "resources-list",
        rule: "RES-04",
        needs: Some("resources"),
    },
    Scenario {
        name: "prompts-list",
        rule: "PROMPT-07",
        needs: Some("prompts"),
    },
    Scenario {
        name: "logging-set-level",
        rule: "LOG-02",
        needs: Some("logging"),
    },
    Scenario {
        name: "server-sse-multiple-streams",
        rule: "HTTP-31",
        needs: Some("tools"),
    },
    Scenario {
        name: "dns-rebinding-protection",
        rule: "HTTP-02",
        needs: None,
    },
];

/// How to start the runner: a program and the arguments before the
/// runner's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runner {
    program: String,
    args: Vec<String>,
}

impl Runner {
    /// The runner installed by the project's tools
    /// (`MCPWIRE_CONFORMANCE_RUNNER`, the runner's `dist/index.js`, run by
    /// `MCPWIRE_NODE` or `node`), else `npx --yes` installing the pinned
    /// version from npm.
    pub fn from_env() -> Self {
        match std::env::var("MCPWIRE_CONFORMANCE_RUNNER") {
            Ok(script) if !script.is_empty() => Self {
                program: std::env::var("MCPWIRE_NODE").unwrap_or_else(|_| "node".into()),
                args: vec![script],
            },
            _ => Self {
                program: "npx".into(),
                args: vec![
                    "--yes".into(),
                    format!("@modelcontextprotocol/conformance@{RUNNER_VERSION}"),
                ],
            },
        }
    }

    /// A runner started as `program args...`.
    pub fn new(program: impl Into<String>, args: Vec<String>) -> Self {
        Self {
            program: program.into(),
            args,
        }
    }
}

/// Runs the applicable scenarios against `url` and adds their checks to
/// `report` (SUCCESS passes, FAILURE fails, WARNING warns, SKIPPED is
/// info; the runner's INFO traffic logs are left out).
pub async fn run(runner: &Runner, url: &str, options: &Options, report: &mut Report) {
    let revision = options.revision.map(|v| v.to_string());
    for scenario in SCENARIOS {
        if let Some(capability) = scenario.needs
            && !report
                .capabilities
                .get(capability)
                .is_some_and(Value::is_object)
        {
            continue;
        }
        let outcome = run_scenario(runner, url, scenario.name).await;
        report.checks += 1;
        let checks = match outcome {
            Ok(checks) => checks,
            Err(error) => {
                report.findings.push(Finding {
                    rule: scenario.rule,
                    level: Level::Fail,
                    revision: revision.clone(),
                    message: format!("official runner, {}: {error}", scenario.name),
                    sent: None,
                    received: None,
                    fix: "install Node 22 and npm (or run `cargo xtask npm-tools` and export what it prints)",
                });
                continue;
            }
        };
        report.checks -= 1;
        for check in checks {
            fold(report, scenario, &check, revision.as_ref());
        }
    }
}

fn fold(report: &mut Report, scenario: &Scenario, check: &Value, revision: Option<&String>) {
    let id = check
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or(scenario.name);
    let status = check
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let text = check
        .get("errorMessage")
        .or_else(|| check.get("description"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let level = match status {
        "SUCCESS" => {
            report.checks += 1;
            report.passed.push(Passed {
                rule: scenario.rule,
                revision: revision.cloned(),
                check: format!("official runner {}/{id}", scenario.name),
            });
            return;
        }
        "FAILURE" => Level::Fail,
        "WARNING" => Level::Warn,
        "SKIPPED" => Level::Info,
        _ => return,
    };
    report.checks += 1;
    report.findings.push(Finding {
        rule: scenario.rule,
        level,
        revision: revision.cloned(),
        message: format!("official runner {}/{id} {status}: {text}", scenario.name),
        sent: None,
        received: Some(check.clone()),
        fix: "see the runner's check description (npx @modelcontextprotocol/conformance list)",
    });
}

/// Runs one scenario; the entries of its `checks.json`.
async fn run_scenario(runner: &Runner, url: &str, scenario: &str) -> Result<Vec<Value>, String> {
    let dir = std::env::temp_dir().join(format!(
        "mcpwire-check-official-{}-{scenario}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // Removed whatever happened (a runner that timed out left it before).
    let outcome = run_scenario_in(runner, url, scenario, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

/// [`run_scenario`] with the runner writing its results under `dir`.
async fn run_scenario_in(
    runner: &Runner,
    url: &str,
    scenario: &str,
    dir: &Path,
) -> Result<Vec<Value>, String> {
    let mut command = tokio::process::Command::new(&runner.program);
    command
        .args(&runner.args)
        .args(["server", "--url", url, "--scenario", scenario, "-o"])
        .arg(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", runner.program))?;
    let output = tokio::time::timeout(SCENARIO_LIMIT, child.wait_with_output())
        .await
        .map_err(|_| format!("the runner took more than {SCENARIO_LIMIT:?}"))?
        .map_err(|e| e.to_string())?;
    match checks_file(dir) {
        Some(path) => std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str::<Vec<Value>>(&text).map_err(|e| e.to_string())),
        None => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: String = stderr.lines().rev().take(5).collect::<Vec<_>>().join(" | ");
            Err(format!("no checks.json (exit {}): {tail}", output.status))
        }
    }
}

/// The `checks.json` of the one scenario run under `dir`
/// (`dir/server-<scenario>-<timestamp>/checks.json`).
fn checks_file(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("checks.json"))
        .find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            target: "t".into(),
            revisions: vec![],
            checks: 0,
            findings: vec![],
            passed: vec![],
            capabilities: Value::Null,
        }
    }

    #[test]
    fn runner_statuses_fold_into_passes_failures_warnings_and_skips() {
        let mut report = report();
        let scenario = &SCENARIOS[1];
        for status in ["SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"] {
            let check = serde_json::json!({"id": "ping", "status": status, "errorMessage": "x"});
            fold(&mut report, scenario, &check, None);
        }
        assert_eq!(report.passed.len(), 1);
        assert_eq!(report.failures(), 1);
        assert_eq!(report.warnings(), 1);
        assert_eq!(report.infos(), 1);
        assert_eq!(report.checks, 4);
        assert!(report.findings.iter().all(|f| f.rule == "PING-01"));
    }

    #[test]
    fn a_runner_that_cannot_start_is_a_failure_of_each_scenario_run() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut report = report();
        let runner = Runner::new("/nonexistent/mcpwire-check-runner", vec![]);
        runtime.block_on(run(
            &runner,
            "http://127.0.0.1:9/mcp",
            &Options::default(),
            &mut report,
        ));
        // No capabilities known: only the three scenarios that need none.
        assert_eq!(report.failures(), 3, "{}", report.to_text());
    }
}
