//! Judging a run against the baseline, and rewriting the baseline from a
//! run (`--bless`).
//!
//! The rules follow the runner's own `--expected-failures` (see
//! `CONTRACT.md` C.4 and `CONTRACT-0.2.md` 1.2), with warnings counted as
//! failures:
//!
//! - a scenario fails when any check is `FAILURE` or `WARNING`, or when it
//!   was meant to run and left no results;
//! - a failure is expected when the scenario is listed, or when every
//!   failing check is listed as `scenario:check`;
//! - a listed scenario that passes is stale, and so is a listed check that
//!   was emitted and passed everywhere (an absent or `SKIPPED` check leaves
//!   its entry alone);
//! - entries for scenarios outside the run are ignored, unless the run
//!   covered the whole suite and the runner does not know the scenario;
//! - a scenario that passes with at least as many `SKIPPED` checks as
//!   `SUCCESS` ones tested (next to) nothing: it is *vacuous*, and fails
//!   unless the baseline lists `scenario:vacuous` with the reason (an
//!   entry on a scenario that is no longer vacuous is stale).

use std::collections::BTreeSet;

use super::baseline::{Entries, TODO_REASON, scenario_of_key};
use super::results::{Counts, ScenarioResult};

/// The failing "check" a scenario without results gets.
pub(crate) const NO_RESULTS: &str = "(no checks.json was written)";

/// The check part of the baseline key (`scenario:vacuous`) that accepts a
/// vacuous pass.
pub(crate) const VACUOUS: &str = "vacuous";

/// How one scenario compares with the baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The scenario.
    pub(crate) scenario: String,
    /// Its check counts.
    pub(crate) counts: Counts,
    /// Its failing checks (`FAILURE` or `WARNING`), or [`NO_RESULTS`].
    pub(crate) failing: Vec<String>,
    /// Failing checks no entry covers: regressions.
    pub(crate) unlisted: Vec<String>,
    /// Entries that no longer fail: stale.
    pub(crate) stale: Vec<String>,
    /// Whether it passed with at least as many checks skipped as passed.
    pub(crate) vacuous: Vacuity,
}

/// Whether a passing scenario tested anything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Vacuity {
    /// It failed, or more checks passed than were skipped.
    #[default]
    Tested,
    /// Vacuous, and the baseline says why.
    Accepted,
    /// Vacuous, and the baseline does not list it: the run fails.
    Unaccepted,
}

/// The one-word outcome shown in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// No failing check, no entry.
    Pass,
    /// Failing, and covered by the baseline.
    ExpectedFailure,
    /// Failing where the baseline does not say so.
    Regression,
    /// Listed, but passing.
    Stale,
    /// Passing with at least as many checks skipped as passed, and not
    /// listed as such.
    Vacuous,
}

impl Verdict {
    /// Its outcome: a regression outranks a stale entry, which outranks
    /// an expected failure.
    pub(crate) fn outcome(&self) -> Outcome {
        if !self.unlisted.is_empty() {
            Outcome::Regression
        } else if !self.stale.is_empty() {
            Outcome::Stale
        } else if self.vacuous == Vacuity::Unaccepted {
            Outcome::Vacuous
        } else if !self.failing.is_empty() {
            Outcome::ExpectedFailure
        } else {
            Outcome::Pass
        }
    }
}

/// A whole run judged against the baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Evaluation {
    /// One verdict per scenario, sorted by scenario.
    pub(crate) verdicts: Vec<Verdict>,
    /// Baseline entries naming scenarios the runner does not have.
    pub(crate) unknown_entries: Vec<String>,
}

impl Evaluation {
    /// Whether the run matches the baseline exactly.
    pub(crate) fn is_clean(&self) -> bool {
        self.unknown_entries.is_empty()
            && self.verdicts.iter().all(|verdict| {
                matches!(verdict.outcome(), Outcome::Pass | Outcome::ExpectedFailure)
            })
    }
}

/// What a run covered.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'a> {
    /// The scenarios that should have results.
    pub(crate) expected: &'a [String],
    /// Every scenario the runner has in this mode, when the run covered
    /// all of them (so that entries naming others are reported).
    pub(crate) whole_suite: Option<&'a [String]>,
}

/// The results of every scenario in `scope`, with an empty result for
/// each expected scenario that has none, plus results the runner wrote
/// for scenarios outside `scope`.
fn with_missing(results: &[ScenarioResult], scope: Scope<'_>) -> Vec<(ScenarioResult, bool)> {
    let mut all: Vec<(ScenarioResult, bool)> = results
        .iter()
        .map(|result| (result.clone(), false))
        .collect();
    for scenario in scope.expected {
        if !results.iter().any(|result| &result.scenario == scenario) {
            let empty = ScenarioResult {
                scenario: scenario.clone(),
                checks: Vec::new(),
            };
            all.push((empty, true));
        }
    }
    all.sort_by(|a, b| a.0.scenario.cmp(&b.0.scenario));
    all
}

/// Judges `results` against `entries` (one baseline section).
pub(crate) fn evaluate(
    results: &[ScenarioResult],
    entries: &Entries,
    scope: Scope<'_>,
) -> Evaluation {
    let mut verdicts = Vec::new();
    for (result, missing) in with_missing(results, scope) {
        let failing = if missing {
            vec![NO_RESULTS.to_owned()]
        } else {
            result.failing_ids()
        };
        let scenario = result.scenario.clone();
        let whole_listed = entries.contains_key(&scenario);
        let counts = result.counts();
        let vacuous_key = format!("{scenario}:{VACUOUS}");
        let vacuous_listed = entries.contains_key(&vacuous_key);
        let is_vacuous = !missing && failing.is_empty() && counts.is_vacuous();
        let vacuous = match (is_vacuous, vacuous_listed) {
            (false, _) => Vacuity::Tested,
            (true, true) => Vacuity::Accepted,
            (true, false) => Vacuity::Unaccepted,
        };
        let check_entries: Vec<(&String, &str)> = entries
            .keys()
            .filter(|key| **key != vacuous_key)
            .filter_map(|key| {
                let check = key.strip_prefix(scenario.as_str())?.strip_prefix(':')?;
                Some((key, check))
            })
            .collect();
        let (unlisted, stale) = if whole_listed {
            let stale = if failing.is_empty() {
                vec![scenario.clone()]
            } else {
                Vec::new()
            };
            (Vec::new(), stale)
        } else {
            let listed: BTreeSet<&str> = check_entries.iter().map(|(_, check)| *check).collect();
            let unlisted = failing
                .iter()
                .filter(|id| !listed.contains(id.as_str()))
                .cloned()
                .collect();
            let stale = check_entries
                .iter()
                .filter(|(_, check)| result.check_passes(check))
                .map(|(key, _)| (*key).clone())
                .collect();
            (unlisted, stale)
        };
        let mut stale = stale;
        if vacuous_listed && !is_vacuous {
            stale.push(vacuous_key);
        }
        verdicts.push(Verdict {
            scenario,
            counts,
            failing,
            unlisted,
            stale,
            vacuous,
        });
    }
    let unknown_entries = match scope.whole_suite {
        Some(known) => entries
            .keys()
            .filter(|key| {
                !known
                    .iter()
                    .any(|scenario| scenario == scenario_of_key(key))
            })
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    Evaluation {
        verdicts,
        unknown_entries,
    }
}

/// The baseline section rewritten from a run: scenarios outside the run
/// keep their entries; a passing scenario loses its entries; a failing one
/// keeps the entries that still apply (with their reasons) and gains
/// `TODO: reason` entries for the rest, a whole-scenario entry when it had
/// none before, check entries when it already had check entries.
pub(crate) fn bless(previous: &Entries, results: &[ScenarioResult], scope: Scope<'_>) -> Entries {
    let evaluation = evaluate(results, previous, scope);
    let ran: BTreeSet<&str> = evaluation
        .verdicts
        .iter()
        .map(|verdict| verdict.scenario.as_str())
        .collect();
    let mut blessed: Entries = previous
        .iter()
        .filter(|(key, _)| !ran.contains(scenario_of_key(key)))
        .map(|(key, reason)| (key.clone(), reason.clone()))
        .collect();
    for verdict in &evaluation.verdicts {
        if verdict.vacuous != Vacuity::Tested {
            let key = format!("{}:{VACUOUS}", verdict.scenario);
            let reason = previous
                .get(&key)
                .cloned()
                .unwrap_or_else(|| TODO_REASON.to_owned());
            blessed.insert(key, reason);
        }
        if verdict.failing.is_empty() {
            continue;
        }
        let scenario = &verdict.scenario;
        let own: Vec<(&String, &String)> = previous
            .iter()
            .filter(|(key, _)| scenario_of_key(key) == scenario)
            .collect();
        let has_check_entries = own.iter().any(|(key, _)| key.contains(':'));
        let no_results = verdict.failing.iter().any(|id| id == NO_RESULTS);
        if previous.contains_key(scenario) || !has_check_entries || no_results {
            let reason = previous
                .get(scenario)
                .cloned()
                .unwrap_or_else(|| TODO_REASON.to_owned());
            blessed.insert(scenario.clone(), reason);
            // Check entries beside a whole-scenario entry say something
            // more precise: keep them while they still fail.
            for (key, reason) in own.iter().filter(|(key, _)| key.contains(':')) {
                if !verdict.stale.contains(key) {
                    blessed.insert((*key).clone(), (*reason).clone());
                }
            }
            continue;
        }
        for (key, reason) in &own {
            if !verdict.stale.contains(key) {
                blessed.insert((*key).clone(), (*reason).clone());
            }
        }
        for check in &verdict.unlisted {
            blessed.insert(format!("{scenario}:{check}"), TODO_REASON.to_owned());
        }
    }
    blessed
}

#[cfg(test)]
mod tests {
    use super::super::results::{Check, Status};
    use super::*;

    fn result(scenario: &str, checks: &[(&str, Status)]) -> ScenarioResult {
        ScenarioResult {
            scenario: scenario.to_owned(),
            checks: checks
                .iter()
                .map(|(id, status)| Check {
                    id: (*id).to_owned(),
                    status: *status,
                    error_message: None,
                })
                .collect(),
        }
    }

    fn entries(list: &[(&str, &str)]) -> Entries {
        list.iter()
            .map(|(key, reason)| ((*key).to_owned(), (*reason).to_owned()))
            .collect()
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| (*name).to_owned()).collect()
    }

    fn outcomes(evaluation: &Evaluation) -> Vec<(&str, Outcome)> {
        evaluation
            .verdicts
            .iter()
            .map(|verdict| (verdict.scenario.as_str(), verdict.outcome()))
            .collect()
    }

    use Status::{Failure, Info, Skipped, Success, Warning};

    #[test]
    fn unlisted_failures_and_warnings_are_regressions() {
        let results = [
            result("ping", &[("ping", Success), ("traffic", Info)]),
            result("tools-list", &[("tools-list", Failure)]),
            result(
                "server-sse-polling",
                &[("server-sse-priming-event", Warning)],
            ),
        ];
        let expected = names(&["ping", "tools-list", "server-sse-polling"]);
        let scope = Scope {
            expected: &expected,
            whole_suite: None,
        };
        let evaluation = evaluate(&results, &Entries::new(), scope);
        assert_eq!(
            outcomes(&evaluation),
            [
                ("ping", Outcome::Pass),
                ("server-sse-polling", Outcome::Regression),
                ("tools-list", Outcome::Regression)
            ]
        );
        assert_eq!(
            evaluation.verdicts[1].unlisted,
            ["server-sse-priming-event"]
        );
        assert!(!evaluation.is_clean());
    }

    #[test]
    fn listed_failures_are_expected_and_listed_passes_are_stale() {
        let results = [
            result("tasks-lifecycle", &[("tasks-sync-tool-call", Failure)]),
            result("ping", &[("ping", Success)]),
        ];
        let expected = names(&["tasks-lifecycle", "ping"]);
        let scope = Scope {
            expected: &expected,
            whole_suite: None,
        };
        let baseline = entries(&[("tasks-lifecycle", "no tasks"), ("ping", "was broken")]);
        let evaluation = evaluate(&results, &baseline, scope);
        assert_eq!(
            outcomes(&evaluation),
            [
                ("ping", Outcome::Stale),
                ("tasks-lifecycle", Outcome::ExpectedFailure)
            ]
        );
        assert_eq!(evaluation.verdicts[0].stale, ["ping"]);
        assert!(!evaluation.is_clean());
        let fixed = entries(&[("tasks-lifecycle", "no tasks")]);
        assert!(evaluate(&results, &fixed, scope).is_clean());
    }

    #[test]
    fn check_entries_cover_only_their_check() {
        let results = [result(
            "server-stateless",
            &[
                ("sep-2575-server-sends-subscription-ack", Failure),
                ("sep-2575-server-implements-discover", Success),
                ("sep-2575-http-server-error-jsonrpc-id", Skipped),
            ],
        )];
        let expected = names(&["server-stateless"]);
        let scope = Scope {
            expected: &expected,
            whole_suite: None,
        };
        let covering = entries(&[(
            "server-stateless:sep-2575-server-sends-subscription-ack",
            "no listen",
        )]);
        assert_eq!(
            outcomes(&evaluate(&results, &covering, scope)),
            [("server-stateless", Outcome::ExpectedFailure)]
        );
        // A listed check that was skipped is left alone; one that passed is stale.
        let with_skipped = entries(&[
            (
                "server-stateless:sep-2575-server-sends-subscription-ack",
                "no listen",
            ),
            (
                "server-stateless:sep-2575-http-server-error-jsonrpc-id",
                "ids",
            ),
        ]);
        assert!(evaluate(&results, &with_skipped, scope).is_clean());
        let with_passing = entries(&[
            (
                "server-stateless:sep-2575-server-sends-subscription-ack",
                "no listen",
            ),
            (
                "server-stateless:sep-2575-server-implements-discover",
                "was missing",
            ),
        ]);
        let evaluation = evaluate(&results, &with_passing, scope);
        assert_eq!(evaluation.verdicts[0].outcome(), Outcome::Stale);
        assert_eq!(
            evaluation.verdicts[0].stale,
            ["server-stateless:sep-2575-server-implements-discover"]
        );
        let other_check = entries(&[("server-stateless:something-else", "x")]);
        let evaluation = evaluate(&results, &other_check, scope);
        assert_eq!(evaluation.verdicts[0].outcome(), Outcome::Regression);
    }

    #[test]
    fn a_scenario_without_results_fails_unless_listed() {
        let expected = names(&["dns-rebinding-protection"]);
        let scope = Scope {
            expected: &expected,
            whole_suite: None,
        };
        let evaluation = evaluate(&[], &Entries::new(), scope);
        assert_eq!(evaluation.verdicts[0].unlisted, [NO_RESULTS]);
        let listed = entries(&[("dns-rebinding-protection", "no HTTP yet")]);
        assert!(evaluate(&[], &listed, scope).is_clean());
    }

    #[test]
    fn entries_outside_the_run_matter_only_for_a_whole_suite() {
        let results = [result("ping", &[("ping", Success)])];
        let expected = names(&["ping"]);
        let baseline = entries(&[("tools-list", "x"), ("no-such-scenario:check", "typo")]);
        let single = Scope {
            expected: &expected,
            whole_suite: None,
        };
        assert!(evaluate(&results, &baseline, single).is_clean());
        let known = names(&["ping", "tools-list"]);
        let whole = Scope {
            expected: &expected,
            whole_suite: Some(&known),
        };
        let evaluation = evaluate(&results, &baseline, whole);
        assert_eq!(evaluation.unknown_entries, ["no-such-scenario:check"]);
        assert!(!evaluation.is_clean());
    }

    #[test]
    fn blessing_keeps_reasons_drops_stale_entries_and_marks_new_ones() {
        let results = [
            result("ping", &[("ping", Success)]),
            result("tools-list", &[("tools-list", Failure)]),
            result("caching", &[("sep-2549-ttl-non-negative", Warning)]),
            result(
                "server-stateless",
                &[("ack", Failure), ("discover", Success), ("filter", Failure)],
            ),
        ];
        let expected = names(&[
            "ping",
            "tools-list",
            "caching",
            "server-stateless",
            "dns-rebinding-protection",
        ]);
        let scope = Scope {
            expected: &expected,
            whole_suite: None,
        };
        let previous = entries(&[
            ("ping", "was broken"),
            ("tools-list", "known reason"),
            ("server-stateless:ack", "no listen"),
            ("server-stateless:discover", "was missing"),
            ("auth/dpop", "outside the run"),
        ]);
        let blessed = bless(&previous, &results, scope);
        assert_eq!(
            blessed,
            entries(&[
                ("auth/dpop", "outside the run"),
                ("caching", TODO_REASON),
                ("dns-rebinding-protection", TODO_REASON),
                ("server-stateless:ack", "no listen"),
                ("server-stateless:filter", TODO_REASON),
                ("tools-list", "known reason"),
            ])
        );
        assert!(evaluate(&results, &blessed, scope).is_clean());
    }

    #[test]
    fn a_pass_with_as_many_checks_skipped_as_passed_is_vacuous_unless_listed() {
        use Status::{Skipped, Success};
        let results = [
            result("skills", &[("list", Skipped), ("wire", Success)]),
            result("listed", &[("a", Skipped), ("b", Skipped), ("c", Success)]),
            result("tested", &[("a", Skipped), ("b", Success), ("c", Success)]),
            result("cured", &[("a", Success)]),
        ];
        let baseline = entries(&[
            ("listed:vacuous", "the runner skips these on purpose"),
            ("cured:vacuous", "was vacuous once"),
        ]);
        let expected = names(&["cured", "listed", "skills", "tested"]);
        let scope = Scope {
            expected: &expected,
            whole_suite: None,
        };
        let evaluation = evaluate(&results, &baseline, scope);
        assert_eq!(
            outcomes(&evaluation),
            [
                ("cured", Outcome::Stale),
                ("listed", Outcome::Pass),
                ("skills", Outcome::Vacuous),
                ("tested", Outcome::Pass),
            ]
        );
        assert!(!evaluation.is_clean());
        let blessed = bless(&baseline, &results, scope);
        assert_eq!(
            blessed,
            entries(&[
                ("listed:vacuous", "the runner skips these on purpose"),
                ("skills:vacuous", TODO_REASON),
            ])
        );
    }
}
