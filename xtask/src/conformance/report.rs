//! The tables printed after a run: one row per scenario with its check
//! counts and its outcome against the baseline, a total, and what to fix;
//! then one row per spec revision the runner tags scenarios with; and the
//! scenario counts that end the command's output (`N passed, M failed`).

use std::collections::BTreeMap;

use super::evaluate::{Evaluation, Outcome, Vacuity, Verdict};
use super::listing::Listed;
use super::results::Counts;

/// The row of a scenario without tags in the revision table.
const UNTAGGED: &str = "(untagged)";

fn label(verdict: &Verdict) -> &'static str {
    match verdict.outcome() {
        // The runner counts a scenario whose checks were skipped as
        // passing; say so, since (next to) nothing was tested.
        Outcome::Pass if verdict.vacuous == Vacuity::Accepted => "pass (vacuous, in the baseline)",
        Outcome::Pass => "pass",
        Outcome::ExpectedFailure => "expected failure",
        Outcome::Regression => "REGRESSION",
        Outcome::Stale => "STALE ENTRY",
        Outcome::Vacuous => "VACUOUS (skipped >= success)",
    }
}

/// How many scenarios passed (no failing check) and failed (expected or
/// not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Scenarios without a failing check.
    pub(crate) passed: usize,
    /// Scenarios with a failing check or without results.
    pub(crate) failed: usize,
    /// Of the failed, those the baseline expects.
    pub(crate) expected: usize,
    /// Regressions, stale entries and unlisted vacuous passes: what makes
    /// the run fail.
    pub(crate) unexpected: usize,
    /// Of the passed, those with at least as many checks skipped as
    /// passed (listed in the baseline or not).
    pub(crate) vacuous: usize,
}

impl Tally {
    /// The tally of `verdicts`.
    pub(crate) fn of<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Self {
        let mut tally = Self::default();
        for verdict in verdicts {
            tally.add_verdict(verdict);
        }
        tally
    }

    fn add_verdict(&mut self, verdict: &Verdict) {
        if verdict.failing.is_empty() {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
        if verdict.vacuous != Vacuity::Tested {
            self.vacuous += 1;
        }
        match verdict.outcome() {
            Outcome::ExpectedFailure => self.expected += 1,
            Outcome::Regression | Outcome::Stale | Outcome::Vacuous => self.unexpected += 1,
            Outcome::Pass => {}
        }
    }

    /// Adds `other` to this tally.
    pub(crate) fn add(&mut self, other: Self) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.expected += other.expected;
        self.unexpected += other.unexpected;
        self.vacuous += other.vacuous;
    }

    /// The line that ends the command's output: `N passed, M failed`.
    pub(crate) fn final_line(self) -> String {
        format!("{} passed, {} failed", self.passed, self.failed)
    }

    /// The tally in words, for the summary of one mode.
    pub(crate) fn describe(self) -> String {
        format!(
            "{} passed, {} failed, {} vacuous ({} expected by the baseline, {} not)",
            self.passed, self.failed, self.vacuous, self.expected, self.unexpected
        )
    }
}

/// The per-revision table: each scenario counted under every revision (or
/// `extension`, `draft`) the runner tags it with, dated revisions first.
pub(crate) fn render_revisions(evaluation: &Evaluation, listed: &[Listed]) -> String {
    let tags: BTreeMap<&str, &[String]> = listed
        .iter()
        .map(|scenario| (scenario.name.as_str(), scenario.tags.as_slice()))
        .collect();
    let mut rows: BTreeMap<(bool, &str), Tally> = BTreeMap::new();
    for verdict in &evaluation.verdicts {
        let own = tags
            .get(verdict.scenario.as_str())
            .copied()
            .filter(|own| !own.is_empty());
        let names: Vec<&str> = match own {
            Some(own) => own.iter().map(String::as_str).collect(),
            None => vec![UNTAGGED],
        };
        for name in names {
            // Dated revisions (`2025-11-25`) sort before words (`extension`).
            let dated = name.starts_with(|c: char| c.is_ascii_digit());
            rows.entry((!dated, name)).or_default().add_verdict(verdict);
        }
    }
    let width = rows
        .keys()
        .map(|(_, name)| name.len())
        .chain(["revision".len()])
        .max()
        .unwrap_or_default();
    let mut text = format!(
        "{:<width$}  {:>9}  {:>6}  {:>6}  {:>8}  {:>10}\n",
        "revision", "scenarios", "passed", "failed", "expected", "unexpected"
    );
    for ((_, name), tally) in &rows {
        text.push_str(&format!(
            "{:<width$}  {:>9}  {:>6}  {:>6}  {:>8}  {:>10}\n",
            name,
            tally.passed + tally.failed,
            tally.passed,
            tally.failed,
            tally.expected,
            tally.unexpected
        ));
    }
    text
}

/// The report of `evaluation` under `title` (e.g. `server, runner 0.1.16`).
pub(crate) fn render(title: &str, evaluation: &Evaluation) -> String {
    let width = evaluation
        .verdicts
        .iter()
        .map(|verdict| verdict.scenario.len())
        .chain(["scenario".len(), "total".len()])
        .max()
        .unwrap_or_default();
    let mut text = format!("\n=== conformance: {title} ===\n");
    text.push_str(&format!(
        "{:<width$}  {:>7}  {:>7}  {:>7}  {:>7}  outcome\n",
        "scenario", "SUCCESS", "FAILURE", "WARNING", "SKIPPED"
    ));
    let mut total = Counts::default();
    let mut tally = [0usize; 5];
    for verdict in &evaluation.verdicts {
        let counts = verdict.counts;
        total.add(counts);
        tally[verdict.outcome() as usize] += 1;
        text.push_str(&format!(
            "{:<width$}  {:>7}  {:>7}  {:>7}  {:>7}  {}\n",
            verdict.scenario,
            counts.success,
            counts.failure,
            counts.warning,
            counts.skipped,
            label(verdict)
        ));
    }
    text.push_str(&format!(
        "{:<width$}  {:>7}  {:>7}  {:>7}  {:>7}  {} scenarios: {} pass, {} expected failures, {} regressions, {} stale, {} vacuous\n",
        "total",
        total.success,
        total.failure,
        total.warning,
        total.skipped,
        evaluation.verdicts.len(),
        tally[Outcome::Pass as usize],
        tally[Outcome::ExpectedFailure as usize],
        tally[Outcome::Regression as usize],
        tally[Outcome::Stale as usize],
        tally[Outcome::Vacuous as usize],
    ));
    let tallied = Tally::of(&evaluation.verdicts);
    text.push_str(&format!(
        "passed / failed / vacuous: {} / {} / {}\n",
        tallied.passed, tallied.failed, tallied.vacuous
    ));
    for verdict in &evaluation.verdicts {
        if !verdict.unlisted.is_empty() {
            text.push_str(&format!(
                "regression in {}: failing checks not in the baseline: {}\n",
                verdict.scenario,
                verdict.unlisted.join(", ")
            ));
        }
        if !verdict.stale.is_empty() {
            text.push_str(&format!(
                "stale baseline entries (they pass now; remove them): {}\n",
                verdict.stale.join(", ")
            ));
        }
        if verdict.vacuous == Vacuity::Unaccepted {
            text.push_str(&format!(
                "vacuous pass of {}: {} checks skipped, {} passed; make it test something, \
                 or list \"{}:{}\" in the baseline with the reason\n",
                verdict.scenario,
                verdict.counts.skipped,
                verdict.counts.success,
                verdict.scenario,
                super::evaluate::VACUOUS
            ));
        }
    }
    for entry in &evaluation.unknown_entries {
        text.push_str(&format!(
            "baseline entry {entry:?} names a scenario the runner does not have\n"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(
        scenario: &str,
        counts: (usize, usize, usize),
        failing: &[&str],
        unlisted: &[&str],
        stale: &[&str],
    ) -> Verdict {
        let strings = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect();
        Verdict {
            scenario: scenario.to_owned(),
            counts: Counts {
                success: counts.0,
                failure: counts.1,
                warning: counts.2,
                skipped: 0,
            },
            failing: strings(failing),
            unlisted: strings(unlisted),
            stale: strings(stale),
            vacuous: Vacuity::Tested,
        }
    }

    #[test]
    fn the_table_shows_counts_outcomes_totals_and_what_to_fix() {
        let evaluation = Evaluation {
            verdicts: vec![
                verdict("ping", (1, 0, 0), &[], &[], &[]),
                verdict(
                    "tools-list",
                    (0, 1, 0),
                    &["tools-list"],
                    &["tools-list"],
                    &[],
                ),
                verdict("caching", (6, 0, 1), &["ttl"], &[], &[]),
                verdict(
                    "server-initialize",
                    (1, 0, 0),
                    &[],
                    &[],
                    &["server-initialize"],
                ),
            ],
            unknown_entries: vec!["typo".to_owned()],
        };
        let text = render("server, runner 0.1.16", &evaluation);
        assert!(
            text.contains("=== conformance: server, runner 0.1.16 ==="),
            "{text}"
        );
        let row = |name: &str| {
            text.lines()
                .find(|line| line.starts_with(&format!("{name} ")))
                .unwrap_or_default()
                .split_whitespace()
                .skip(1)
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(row("ping"), "1 0 0 0 pass");
        assert_eq!(row("tools-list"), "0 1 0 0 REGRESSION");
        assert_eq!(row("caching"), "6 0 1 0 expected failure");
        assert_eq!(row("server-initialize"), "1 0 0 0 STALE ENTRY");
        assert!(
            row("total").starts_with(
                "8 1 1 0 4 scenarios: 1 pass, 1 expected failures, 1 regressions, 1 stale, 0 vacuous"
            ),
            "{text}"
        );
        assert!(
            text.contains("passed / failed / vacuous: 2 / 2 / 0"),
            "{text}"
        );
        assert!(
            text.contains(
                "regression in tools-list: failing checks not in the baseline: tools-list"
            )
        );
        assert!(
            text.contains("stale baseline entries (they pass now; remove them): server-initialize")
        );
        assert!(text.contains("\"typo\" names a scenario the runner does not have"));
    }

    #[test]
    fn vacuous_passes_are_flagged_listed_or_not_and_tallied() {
        let mut unlisted = verdict("skills", (1, 0, 0), &[], &[], &[]);
        unlisted.counts.skipped = 3;
        unlisted.vacuous = Vacuity::Unaccepted;
        let mut listed = verdict("tasks-status-notifications", (2, 0, 0), &[], &[], &[]);
        listed.counts.skipped = 2;
        listed.vacuous = Vacuity::Accepted;
        let evaluation = Evaluation {
            verdicts: vec![unlisted, listed],
            unknown_entries: Vec::new(),
        };
        assert!(!evaluation.is_clean());
        let text = render("client, runner x", &evaluation);
        assert!(
            text.lines().any(|line| {
                line.split_whitespace().collect::<Vec<_>>().join(" ")
                    == "skills 1 0 0 3 VACUOUS (skipped >= success)"
            }),
            "{text}"
        );
        assert!(text.contains("pass (vacuous, in the baseline)"), "{text}");
        assert!(text.contains("\"skills:vacuous\""), "{text}");
        assert!(
            text.contains("passed / failed / vacuous: 2 / 0 / 2"),
            "{text}"
        );
        let tally = Tally::of(&evaluation.verdicts);
        assert_eq!((tally.vacuous, tally.unexpected), (2, 1));
    }

    fn evaluation_of_four() -> Evaluation {
        Evaluation {
            verdicts: vec![
                verdict("ping", (1, 0, 0), &[], &[], &[]),
                verdict("tools-list", (0, 1, 0), &["t"], &["t"], &[]),
                verdict("caching", (6, 0, 1), &["ttl"], &[], &[]),
                verdict("mystery", (1, 0, 0), &[], &[], &[]),
            ],
            unknown_entries: Vec::new(),
        }
    }

    #[test]
    fn scenarios_are_tallied_as_passed_or_failed_whether_expected_or_not() {
        let tally = Tally::of(&evaluation_of_four().verdicts);
        assert_eq!(
            tally,
            Tally {
                passed: 2,
                failed: 2,
                expected: 1,
                unexpected: 1,
                vacuous: 0
            }
        );
        let mut total = tally;
        total.add(tally);
        assert_eq!(total.final_line(), "4 passed, 4 failed");
        assert_eq!(
            tally.describe(),
            "2 passed, 2 failed, 0 vacuous (1 expected by the baseline, 1 not)"
        );
    }

    #[test]
    fn the_revision_table_counts_each_scenario_under_each_of_its_tags() {
        let listed = |name: &str, tags: &[&str]| Listed {
            name: name.to_owned(),
            tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
        };
        let listing = [
            listed("ping", &["2025-06-18", "2025-11-25"]),
            listed("tools-list", &["2025-11-25", "2026-07-28"]),
            listed("caching", &["extension"]),
        ];
        let text = render_revisions(&evaluation_of_four(), &listing);
        let rows: Vec<Vec<&str>> = text
            .lines()
            .map(|line| line.split_whitespace().collect())
            .collect();
        assert_eq!(
            rows,
            [
                vec![
                    "revision",
                    "scenarios",
                    "passed",
                    "failed",
                    "expected",
                    "unexpected"
                ],
                vec!["2025-06-18", "1", "1", "0", "0", "0"],
                vec!["2025-11-25", "2", "1", "1", "0", "1"],
                vec!["2026-07-28", "1", "0", "1", "0", "1"],
                vec!["(untagged)", "1", "1", "0", "0", "0"],
                vec!["extension", "1", "0", "1", "1", "0"],
            ]
        );
    }
}
