//! The table printed after a run: one row per scenario with its check
//! counts and its outcome against the baseline, a total, and what to fix.

use super::evaluate::{Evaluation, Outcome};
use super::results::Counts;

fn label(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::ExpectedFailure => "expected failure",
        Outcome::Regression => "REGRESSION",
        Outcome::Stale => "STALE ENTRY",
    }
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
        "{:<width$}  {:>7}  {:>7}  {:>7}  outcome\n",
        "scenario", "SUCCESS", "FAILURE", "WARNING"
    ));
    let mut total = Counts::default();
    let mut tally = [0usize; 4];
    for verdict in &evaluation.verdicts {
        let counts = verdict.counts;
        total.add(counts);
        let outcome = verdict.outcome();
        tally[outcome as usize] += 1;
        text.push_str(&format!(
            "{:<width$}  {:>7}  {:>7}  {:>7}  {}\n",
            verdict.scenario,
            counts.success,
            counts.failure,
            counts.warning,
            label(outcome)
        ));
    }
    text.push_str(&format!(
        "{:<width$}  {:>7}  {:>7}  {:>7}  {} scenarios: {} pass, {} expected failures, {} regressions, {} stale\n",
        "total",
        total.success,
        total.failure,
        total.warning,
        evaluation.verdicts.len(),
        tally[Outcome::Pass as usize],
        tally[Outcome::ExpectedFailure as usize],
        tally[Outcome::Regression as usize],
        tally[Outcome::Stale as usize],
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
    use super::super::evaluate::Verdict;
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
            },
            failing: strings(failing),
            unlisted: strings(unlisted),
            stale: strings(stale),
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
        assert_eq!(row("ping"), "1 0 0 pass");
        assert_eq!(row("tools-list"), "0 1 0 REGRESSION");
        assert_eq!(row("caching"), "6 0 1 expected failure");
        assert_eq!(row("server-initialize"), "1 0 0 STALE ENTRY");
        assert!(
            row("total").starts_with(
                "8 1 1 4 scenarios: 1 pass, 1 expected failures, 1 regressions, 1 stale"
            ),
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
}
