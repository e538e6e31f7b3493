//! Markdown tables of a suite run: per scenario, one row per server with
//! median figures and the `x limit` and `x rmcp` ratios (taken within each
//! round, shown as median [min-max]), then the targets, met or not.

use std::fmt::Write as _;

use super::scenarios::Role;
use super::{Part, Record, Results};
use crate::stats::{Measurement, median};

/// The median and range of per-round figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The median.
    pub median: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`, or `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Self> {
        let median = median(values)?;
        let finite = values.iter().copied().filter(|v| v.is_finite());
        Some(Self {
            median,
            min: finite.clone().fold(f64::INFINITY, f64::min),
            max: finite.fold(f64::NEG_INFINITY, f64::max),
        })
    }

    fn ratio(self) -> String {
        format!("{:.2} [{:.2}-{:.2}]", self.median, self.min, self.max)
    }
}

/// What a ratio compares.
#[derive(Debug, Clone, Copy)]
pub enum Metric {
    /// Calls per second (higher is better).
    Throughput,
    /// Median latency (lower is better).
    P50,
    /// 99th-percentile latency.
    P99,
    /// Cold start.
    ColdStart,
    /// Server CPU time per call (lower is better).
    Cpu,
}

impl Metric {
    fn of(self, m: &Measurement) -> f64 {
        match self {
            Metric::Throughput => m.calls_per_s,
            Metric::P50 => m.p50_us,
            Metric::P99 => m.p99_us,
            Metric::ColdStart => m.cold_start_ms,
            Metric::Cpu => m.server_cpu_us_per_call,
        }
    }
}

fn measured<'a>(
    results: &'a Results,
    scenario: &str,
    pick: impl Fn(&Record) -> bool + 'a,
) -> impl Iterator<Item = (usize, &'a Measurement)> + 'a {
    let scenario = scenario.to_owned();
    results
        .records
        .iter()
        .filter(move |r| r.scenario == scenario && pick(r))
        .filter_map(|r| r.outcome.as_ref().ok().map(|m| (r.round, m)))
}

/// Per-round `metric(target) / metric(reference)` in `scenario`, where the
/// reference is the server of role `reference`.
pub fn ratio(
    results: &Results,
    scenario: &str,
    target: &str,
    reference: Role,
    metric: Metric,
) -> Option<Spread> {
    let references: Vec<(usize, f64)> = measured(results, scenario, move |r| r.role == reference)
        .map(|(round, m)| (round, metric.of(m)))
        .collect();
    let ratios: Vec<f64> = measured(results, scenario, move |r| r.target == target)
        .filter_map(|(round, m)| {
            let (_, base) = references.iter().find(|(r, _)| *r == round)?;
            (*base > 0.0).then(|| metric.of(m) / base)
        })
        .collect();
    Spread::of(&ratios)
}

/// The label of the server of `role` in `scenario`.
fn label_of(results: &Results, scenario: &str, role: Role) -> Option<String> {
    results
        .records
        .iter()
        .find(|r| r.scenario == scenario && r.role == role)
        .map(|r| r.target.clone())
}

/// Medians over rounds of a figure of one server in one scenario.
fn median_of(
    results: &Results,
    scenario: &str,
    target: &str,
    figure: impl Fn(&Measurement) -> f64,
) -> Option<f64> {
    let values: Vec<f64> = measured(results, scenario, |r| r.target == target)
        .map(|(_, m)| figure(m))
        .collect();
    median(&values)
}

fn cell(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.decimals$}"))
}

fn spread_cell(spread: Option<Spread>) -> String {
    spread.map_or_else(|| "-".to_owned(), Spread::ratio)
}

/// The scenarios of `part`, in the order first run, and their servers.
fn layout(results: &Results, part: Part) -> Vec<(String, Vec<String>)> {
    let mut scenarios: Vec<(String, Vec<String>)> = Vec::new();
    for record in results.records.iter().filter(|r| r.part == part) {
        let at = match scenarios.iter().position(|(s, _)| *s == record.scenario) {
            Some(at) => at,
            None => {
                scenarios.push((record.scenario.clone(), Vec::new()));
                scenarios.len() - 1
            }
        };
        if let Some((_, targets)) = scenarios.get_mut(at)
            && !targets.contains(&record.target)
        {
            targets.push(record.target.clone());
        }
    }
    scenarios
}

/// The load table of `part`.
fn load_table(results: &Results, part: Part, out: &mut String) {
    let _ = writeln!(
        out,
        "| scenario | server | calls/s | p50 µs | p99 µs | server CPU µs/call | peak RSS KiB | cold start ms | x limit | p50 x limit | p99 x limit | x lean | CPU x lean | x rmcp |"
    );
    let _ = writeln!(
        out,
        "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---|---|---|"
    );
    for (scenario, targets) in layout(results, part) {
        for target in targets {
            let failures: Vec<&str> = results
                .records
                .iter()
                .filter(|r| r.scenario == scenario && r.target == target)
                .filter_map(|r| r.outcome.as_ref().err().map(String::as_str))
                .collect();
            let figure = |f: fn(&Measurement) -> f64| median_of(results, &scenario, &target, f);
            let vs = |role, metric| spread_cell(ratio(results, &scenario, &target, role, metric));
            let mut row = format!(
                "| {scenario} | {target} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                cell(figure(|m| m.calls_per_s), 0),
                cell(figure(|m| m.p50_us), 0),
                cell(figure(|m| m.p99_us), 0),
                cell(figure(|m| m.server_cpu_us_per_call), 1),
                cell(figure(|m| m.peak_rss_kib as f64), 0),
                cell(figure(|m| m.cold_start_ms), 1),
                vs(Role::Limit, Metric::Throughput),
                vs(Role::Limit, Metric::P50),
                vs(Role::Limit, Metric::P99),
                vs(Role::Lean, Metric::Throughput),
                vs(Role::Lean, Metric::Cpu),
                vs(Role::Rmcp, Metric::Throughput),
            );
            if let Some(first) = failures.first() {
                let _ = write!(row, " failed {}x: {first}", failures.len());
            }
            let _ = writeln!(out, "{row}");
        }
    }
}

/// The whole report.
pub fn render(results: &Results) -> String {
    let mut out = String::new();
    let codec = layout(results, Part::Codec);
    if !codec.is_empty() {
        let _ = writeln!(out, "### codec limit: serde_json on one core\n");
        let _ = writeln!(out, "| message | calls/s | µs/call |\n|---|---:|---:|");
        for (scenario, targets) in codec {
            for target in targets {
                let rate = median_of(results, &scenario, &target, |m| m.calls_per_s);
                let per_call = median_of(results, &scenario, &target, |m| m.server_cpu_us_per_call);
                let _ = writeln!(
                    out,
                    "| {scenario} | {} | {} |",
                    cell(rate, 0),
                    cell(per_call, 2)
                );
            }
        }
        let _ = writeln!(out);
    }
    for (part, title) in [(Part::Stdio, "stdio"), (Part::Http, "Streamable HTTP")] {
        if results.records.iter().any(|r| r.part == part) {
            let _ = writeln!(out, "### {title}\n");
            load_table(results, part, &mut out);
            let _ = writeln!(out);
        }
    }
    if !results.scale.is_empty() {
        let _ = writeln!(out, "### scale: idle sessions and open GET streams\n");
        let _ = writeln!(
            out,
            "| server | sessions | streams | sessions/s | bytes/session | bytes/stream | growth MiB | p50 idle µs | p50 loaded µs | p99 idle µs | p99 loaded µs |"
        );
        let _ = writeln!(
            out,
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for (label, outcome) in &results.scale {
            match outcome {
                Ok(s) => {
                    let _ = writeln!(
                        out,
                        "| {label} | {} | {} | {:.0} | {:.0} | {:.0} | {:.1} | {:.0} | {:.0} | {:.0} | {:.0} |",
                        s.sessions,
                        s.streams,
                        s.sessions_per_s,
                        s.bytes_per_session,
                        s.bytes_per_stream,
                        s.growth_kib as f64 / 1024.0,
                        s.idle.p50_us,
                        s.loaded.p50_us,
                        s.idle.p99_us,
                        s.loaded.p99_us,
                    );
                }
                Err(error) => {
                    let _ = writeln!(out, "| {label} | failed: {error} |||||||||");
                }
            }
        }
        let _ = writeln!(out);
    }
    if !results.profiles.is_empty() {
        let _ = writeln!(
            out,
            "### profile: server instructions per call (callgrind)\n"
        );
        for profile in &results.profiles {
            match &profile.outcome {
                Ok(per_call) => {
                    let _ = writeln!(
                        out,
                        "**{}**: {per_call:.0} instructions per call\n",
                        profile.scenario
                    );
                    let _ = writeln!(out, "| instructions/call | function |\n|---:|---|");
                    for (function, cost) in &profile.top {
                        let _ = writeln!(out, "| {cost:.0} | `{function}` |");
                    }
                }
                Err(error) => {
                    let _ = writeln!(out, "**{}**: failed: {error}", profile.scenario);
                }
            }
            let _ = writeln!(out);
        }
    }
    let checks = super::targets::check(results);
    if !checks.is_empty() {
        let _ = writeln!(out, "### targets\n");
        let _ = writeln!(out, "| id | target | measured | met |\n|---|---|---|---|");
        for check in checks {
            let met = match check.met {
                Some(true) => "yes",
                Some(false) => "**no**",
                None => "not run",
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {met} |",
                check.id, check.target, check.measured
            );
        }
        let _ = writeln!(out);
    }
    for skipped in &results.skipped {
        let _ = writeln!(out, "skipped: {skipped}");
    }
    out
}

/// The ratio of the server of role `Ours` in `scenario` to `reference`.
pub fn ours_ratio(
    results: &Results,
    scenario: &str,
    reference: Role,
    metric: Metric,
) -> Option<Spread> {
    let ours = label_of(results, scenario, Role::Ours)?;
    ratio(results, scenario, &ours, reference, metric)
}
