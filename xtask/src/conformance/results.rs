//! Reading the runner's results: one `checks.json` per scenario, in a
//! directory named after the scenario and a timestamp.
//!
//! Layout (runner 0.1.16 and 0.2): with `-o DIR`, a server run writes
//! `DIR/server-<scenario>-<timestamp>/checks.json` and a client run
//! `DIR/<scenario>-<timestamp>/checks.json`; scenario names containing `/`
//! (`auth/...`) make subdirectories. The timestamp is an ISO 8601 instant
//! with `:` and `.` turned into `-`, e.g. `2026-11-22T00-36-31-012Z`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// The status of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Status {
    /// The check passed.
    Success,
    /// A MUST failed.
    Failure,
    /// A SHOULD failed; counts as failing, like the runner's baseline does.
    Warning,
    /// A log of the traffic; never counts.
    Info,
    /// Not applicable; never counts.
    Skipped,
}

impl Status {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "SUCCESS" => Self::Success,
            "FAILURE" => Self::Failure,
            "WARNING" => Self::Warning,
            "INFO" => Self::Info,
            "SKIPPED" => Self::Skipped,
            _ => return None,
        })
    }

    /// Whether the check makes its scenario fail.
    pub(crate) fn is_failing(self) -> bool {
        matches!(self, Self::Failure | Self::Warning)
    }
}

/// One entry of a `checks.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Check {
    /// The check id, e.g. `tools-call-simple-text`.
    pub(crate) id: String,
    /// Its status.
    pub(crate) status: Status,
    /// The runner's explanation of a failure, if it gave one.
    pub(crate) error_message: Option<String>,
}

/// The checks of one scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScenarioResult {
    /// The scenario's name.
    pub(crate) scenario: String,
    /// Its checks, in file order.
    pub(crate) checks: Vec<Check>,
}

/// How many checks of each counted status a scenario has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// `SUCCESS` checks.
    pub(crate) success: usize,
    /// `FAILURE` checks.
    pub(crate) failure: usize,
    /// `WARNING` checks.
    pub(crate) warning: usize,
    /// `SKIPPED` checks: nothing was tested.
    pub(crate) skipped: usize,
}

impl Counts {
    /// Adds `other` to these counts.
    pub(crate) fn add(&mut self, other: Self) {
        self.success += other.success;
        self.failure += other.failure;
        self.warning += other.warning;
        self.skipped += other.skipped;
    }

    /// Whether a scenario with these counts tested (next to) nothing: at
    /// least as many checks skipped as succeeded.
    pub(crate) fn is_vacuous(self) -> bool {
        self.skipped >= self.success
    }
}

impl ScenarioResult {
    /// Its counts of `SUCCESS`, `FAILURE` and `WARNING` checks.
    pub(crate) fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for check in &self.checks {
            match check.status {
                Status::Success => counts.success += 1,
                Status::Failure => counts.failure += 1,
                Status::Warning => counts.warning += 1,
                Status::Skipped => counts.skipped += 1,
                Status::Info => {}
            }
        }
        counts
    }

    /// The ids of its failing checks (`FAILURE` or `WARNING`), each once,
    /// sorted.
    pub(crate) fn failing_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .checks
            .iter()
            .filter(|check| check.status.is_failing())
            .map(|check| check.id.clone())
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Whether check `id` was emitted and every emission of it passed.
    /// An id emitted only as `INFO` or `SKIPPED`, or never, is neither
    /// passing nor failing.
    pub(crate) fn check_passes(&self, id: &str) -> bool {
        let mut seen = false;
        for check in self.checks.iter().filter(|check| check.id == id) {
            match check.status {
                Status::Success => seen = true,
                Status::Failure | Status::Warning => return false,
                Status::Info | Status::Skipped => {}
            }
        }
        seen
    }
}

/// Reads a `checks.json` document.
pub(crate) fn parse_checks(text: &str) -> Result<Vec<Check>, String> {
    let value: Value = serde_json::from_str(text).map_err(|error| format!("not JSON: {error}"))?;
    let Value::Array(entries) = value else {
        return Err("not a JSON array of checks".to_owned());
    };
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let id = entry["id"]
                .as_str()
                .ok_or_else(|| format!("check {index} has no string id"))?;
            let status_text = entry["status"]
                .as_str()
                .ok_or_else(|| format!("check {id} has no string status"))?;
            let status = Status::parse(status_text)
                .ok_or_else(|| format!("check {id} has the unknown status {status_text:?}"))?;
            Ok(Check {
                id: id.to_owned(),
                status,
                error_message: entry["errorMessage"].as_str().map(str::to_owned),
            })
        })
        .collect()
}

/// The shape of a result-directory timestamp: `d` is a digit.
const TIMESTAMP_PATTERN: &str = "dddd-dd-ddTdd-dd-dd-dddZ";

/// Whether `text` is a result-directory timestamp.
fn is_timestamp(text: &str) -> bool {
    text.len() == TIMESTAMP_PATTERN.len()
        && text
            .chars()
            .zip(TIMESTAMP_PATTERN.chars())
            .all(|(c, p)| match p {
                'd' => c.is_ascii_digit(),
                other => c == other,
            })
}

/// The scenario a result directory belongs to, from its path relative to
/// the output directory (with `/` separators), or `None` if the path is
/// not a result directory. `prefix` is `server-` for server runs.
pub(crate) fn scenario_of(relative_dir: &str, prefix: &str) -> Option<String> {
    let cut = relative_dir.len().checked_sub(TIMESTAMP_PATTERN.len())?;
    let (head, timestamp) = relative_dir.split_at_checked(cut)?;
    if !is_timestamp(timestamp) {
        return None;
    }
    let name = head.strip_suffix('-')?.strip_prefix(prefix)?;
    (!name.is_empty()).then(|| name.to_owned())
}

/// Reads every `checks.json` under `dir`. When a scenario ran more than
/// once, its latest result (by timestamp) wins.
pub(crate) fn collect(dir: &Path, prefix: &str) -> Result<Vec<ScenarioResult>, String> {
    let mut found: BTreeMap<String, (String, Vec<Check>)> = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries = std::fs::read_dir(&current)
            .map_err(|error| format!("cannot list {}: {error}", current.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|error| format!("cannot list {}: {error}", current.display()))?
                .path();
            if !path.is_dir() {
                continue;
            }
            let checks_file = path.join("checks.json");
            let relative = path
                .strip_prefix(dir)
                .map_err(|error| error.to_string())?
                .to_string_lossy()
                .replace('\\', "/");
            match scenario_of(&relative, prefix) {
                Some(scenario) if checks_file.is_file() => {
                    let text = std::fs::read_to_string(&checks_file).map_err(|error| {
                        format!("cannot read {}: {error}", checks_file.display())
                    })?;
                    let checks = parse_checks(&text)
                        .map_err(|error| format!("{}: {error}", checks_file.display()))?;
                    let newer = found
                        .get(&scenario)
                        .is_none_or(|(seen, _)| relative.as_str() > seen.as_str());
                    if newer {
                        found.insert(scenario, (relative, checks));
                    }
                }
                _ => pending.push(path),
            }
        }
    }
    Ok(found
        .into_iter()
        .map(|(scenario, (_, checks))| ScenarioResult { scenario, checks })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a real `checks.json` (runner 0.2.0-alpha.12, scenario
    /// `caching` against a server that was not listening), shortened.
    const CACHING: &str = r#"[
      {"id": "sep-2549-tools-list-caching-hints", "name": "ToolsListCachingHints",
       "description": "tools/list response includes ttlMs and cacheScope caching hints",
       "status": "FAILURE", "timestamp": "2026-11-22T00:36:31.961Z",
       "errorMessage": "tools/list request failed: fetch failed",
       "specReferences": [{"id": "SEP-2549", "url": "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2549"}]},
      {"id": "sep-2549-resources-read-caching-hints", "name": "ResourcesReadCachingHints",
       "description": "resources/read response includes ttlMs and cacheScope caching hints",
       "status": "SKIPPED", "timestamp": "2026-11-22T00:36:31.977Z",
       "errorMessage": "resources/read was not exercised"},
      {"id": "sep-2549-ttl-non-negative", "name": "TtlNonNegative", "description": "",
       "status": "WARNING", "timestamp": "2026-11-22T00:36:31.977Z"},
      {"id": "traffic", "name": "Traffic", "description": "", "status": "INFO",
       "timestamp": "2026-11-22T00:36:31.977Z", "details": {"anything": [1, 2]}},
      {"id": "wire-schema-valid", "name": "WireSchemaValid", "description": "",
       "status": "SUCCESS", "timestamp": "2026-11-22T00:36:31.977Z"}
    ]"#;

    #[test]
    fn checks_keep_id_status_and_message() {
        let checks = parse_checks(CACHING).unwrap();
        assert_eq!(checks.len(), 5);
        assert_eq!(checks[0].id, "sep-2549-tools-list-caching-hints");
        assert_eq!(checks[0].status, Status::Failure);
        assert_eq!(
            checks[0].error_message.as_deref(),
            Some("tools/list request failed: fetch failed")
        );
        assert_eq!(checks[4].status, Status::Success);
        assert_eq!(checks[4].error_message, None);
    }

    #[test]
    fn counts_count_skipped_and_failing_ids_ignore_info_and_skipped() {
        let result = ScenarioResult {
            scenario: "caching".to_owned(),
            checks: parse_checks(CACHING).unwrap(),
        };
        assert_eq!(
            result.counts(),
            Counts {
                success: 1,
                failure: 1,
                warning: 1,
                skipped: 1
            }
        );
        assert_eq!(
            result.failing_ids(),
            [
                "sep-2549-tools-list-caching-hints",
                "sep-2549-ttl-non-negative"
            ]
        );
        assert!(result.check_passes("wire-schema-valid"));
        assert!(!result.check_passes("sep-2549-resources-read-caching-hints"));
        assert!(!result.check_passes("sep-2549-ttl-non-negative"));
        assert!(!result.check_passes("never-emitted"));
    }

    #[test]
    fn a_check_emitted_twice_passes_only_if_every_emission_passes() {
        let check = |status| Check {
            id: "sep-2243-server-reject-invalid-headers".to_owned(),
            status,
            error_message: None,
        };
        let mixed = ScenarioResult {
            scenario: "http-header-validation".to_owned(),
            checks: vec![check(Status::Success), check(Status::Failure)],
        };
        assert!(!mixed.check_passes("sep-2243-server-reject-invalid-headers"));
        assert_eq!(mixed.failing_ids().len(), 1);
    }

    #[test]
    fn malformed_checks_are_refused_with_the_reason() {
        for (text, needle) in [
            ("{}", "array"),
            ("[{\"status\": \"SUCCESS\"}]", "no string id"),
            ("[{\"id\": \"x\", \"status\": \"MAYBE\"}]", "unknown status"),
            ("nope", "not JSON"),
        ] {
            let error = parse_checks(text).unwrap_err();
            assert!(error.contains(needle), "{text}: {error}");
        }
    }

    #[test]
    fn result_directories_name_their_scenario() {
        let ts = "2026-11-22T00-36-31-012Z";
        assert_eq!(
            scenario_of(&format!("server-ping-{ts}"), "server-").as_deref(),
            Some("ping")
        );
        assert_eq!(
            scenario_of(&format!("server-tools-call-with-progress-{ts}"), "server-").as_deref(),
            Some("tools-call-with-progress")
        );
        assert_eq!(
            scenario_of(&format!("auth/metadata-default-{ts}"), "").as_deref(),
            Some("auth/metadata-default")
        );
        assert_eq!(
            scenario_of(&format!("sse-retry-{ts}"), "").as_deref(),
            Some("sse-retry")
        );
    }

    #[test]
    fn other_directories_are_not_results() {
        assert_eq!(scenario_of("auth", ""), None);
        assert_eq!(scenario_of("server-ping", "server-"), None);
        assert_eq!(
            scenario_of("server-ping-2026-11-22T00-36-31-012", "server-"),
            None
        );
        assert_eq!(
            scenario_of("ping-2026-11-22T00-36-31-012Z", "server-"),
            None
        );
        assert_eq!(scenario_of("-2026-11-22T00-36-31-012Z", ""), None);
    }

    #[test]
    fn collecting_reads_nested_results_and_keeps_the_latest_run() {
        let dir = std::env::temp_dir().join(format!("xtask-results-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let write = |relative: &str, status: &str| {
            let path = dir.join(relative);
            std::fs::create_dir_all(&path).unwrap();
            let text = format!("[{{\"id\": \"c\", \"status\": \"{status}\"}}]");
            std::fs::write(path.join("checks.json"), text).unwrap();
        };
        write("initialize-2026-11-22T00-00-00-000Z", "FAILURE");
        write("initialize-2026-11-22T00-00-01-000Z", "SUCCESS");
        write("auth/metadata-default-2026-11-22T00-00-00-000Z", "WARNING");
        let results = collect(&dir, "").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let summary: Vec<(&str, Status)> = results
            .iter()
            .map(|result| (result.scenario.as_str(), result.checks[0].status))
            .collect();
        assert_eq!(
            summary,
            [
                ("auth/metadata-default", Status::Warning),
                ("initialize", Status::Success)
            ]
        );
    }
}
