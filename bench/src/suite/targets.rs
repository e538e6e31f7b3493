//! The performance targets (S1-S3, H1-H5, E1-E2, M1-M4, C1; issue 20's
//! table, with the earlier ones it keeps), checked against what a suite
//! run measured.

use super::Results;
use super::report::{Metric, Spread, ours_ratio};
use super::scenarios::Role;

/// One target and how the run fared.
#[derive(Debug, Clone)]
pub struct Check {
    /// The target's id in the issue.
    pub id: &'static str,
    /// What it asks, in words.
    pub target: &'static str,
    /// What was measured.
    pub measured: String,
    /// Whether it is met; `None` when the run did not measure it.
    pub met: Option<bool>,
}

/// `spread` against a floor (`at_least`) or a ceiling.
fn bound(spread: Option<Spread>, limit: f64, at_least: bool) -> (String, Option<bool>) {
    match spread {
        Some(s) => (
            format!("{:.2} [{:.2}-{:.2}]", s.median, s.min, s.max),
            Some(if at_least {
                s.median >= limit
            } else {
                s.median <= limit
            }),
        ),
        None => ("-".to_owned(), None),
    }
}

/// Both halves must hold; either missing makes the whole unmeasured.
fn both(
    (a_text, a_met): (String, Option<bool>),
    (b_text, b_met): (String, Option<bool>),
) -> (String, Option<bool>) {
    let met = match (a_met, b_met) {
        (Some(x), Some(y)) => Some(x && y),
        _ => None,
    };
    (format!("{a_text}; {b_text}"), met)
}

fn value(value: Option<f64>, limit: f64, unit: &str) -> (String, Option<bool>) {
    match value {
        Some(v) => (format!("{v:.0} {unit}"), Some(v <= limit)),
        None => ("-".to_owned(), None),
    }
}

/// Every target the run measured something for.
pub fn check(results: &Results) -> Vec<Check> {
    let mut checks = Vec::new();
    use Metric::{ColdStart, Cpu, P50, P99, Throughput};
    let mut add = |id, target, (measured, met): (String, Option<bool>)| {
        if met.is_some() {
            checks.push(Check {
                id,
                target,
                measured,
                met,
            });
        }
    };
    let limit = |scenario: &str, metric| ours_ratio(results, scenario, Role::Limit, metric);
    let rmcp = |scenario: &str| ours_ratio(results, scenario, Role::Rmcp, Throughput);

    let lean_cpu = |scenario: &str| ours_ratio(results, scenario, Role::Lean, Cpu);
    add(
        "S1",
        "stdio, 1 in flight, ~200 B: >= 0.9x raw pipe echo",
        bound(limit("stdio-1-200B", Throughput), 0.9, true),
    );
    add(
        "S2",
        "stdio, 64 in flight: >= 0.4x raw, server CPU per call <= 1.5x lean",
        both(
            bound(limit("stdio-64-200B", Throughput), 0.4, true),
            bound(lean_cpu("stdio-64-200B"), 1.5, false),
        ),
    );
    add(
        "S2r",
        "stdio, 64 in flight: >= 3x rmcp",
        bound(rmcp("stdio-64-200B"), 3.0, true),
    );
    add(
        "S3",
        "stdio, 64 KiB, 1 in flight: >= 0.6x raw",
        bound(limit("stdio-1-64KiB", Throughput), 0.6, true),
    );
    add(
        "H1",
        "HTTP JSON, 16 connections: >= 0.8x bare hyper, server CPU per call <= 1.5x lean",
        both(
            bound(limit("http-json-16-200B", Throughput), 0.8, true),
            bound(lean_cpu("http-json-16-200B"), 1.5, false),
        ),
    );
    add(
        "H1",
        "HTTP JSON, 64 connections: >= 0.8x bare hyper",
        bound(limit("http-json-64-200B", Throughput), 0.8, true),
    );
    for scenario in ["http-json-16-200B", "http-json-64-200B"] {
        add(
            "H1r",
            "HTTP JSON, 16 and 64 connections: >= 2x rmcp stateful",
            bound(rmcp(scenario), 2.0, true),
        );
    }
    add(
        "H2",
        "HTTP SSE, 64 connections: >= 0.6x bare hyper",
        bound(limit("http-sse-64-200B", Throughput), 0.6, true),
    );
    add(
        "H4",
        "HTTP, 1 connection: p50 <= 1.2x, p99 <= 1.5x bare hyper",
        both(
            bound(limit("http-json-1-200B", P50), 1.2, false),
            bound(limit("http-json-1-200B", P99), 1.5, false),
        ),
    );
    add(
        "H5",
        "HTTP, 64 KiB, 1 connection: >= 0.4x bare hyper, JSON and SSE answers",
        both(
            bound(limit("http-json-1-64KiB", Throughput), 0.4, true),
            bound(limit("http-sse-1-64KiB", Throughput), 0.4, true),
        ),
    );
    // The `P-` profiles explain gaps; they have no target of their own.
    for profile in results
        .profiles
        .iter()
        .filter(|p| !p.scenario.starts_with("P-"))
    {
        let (id, target, ceiling, lean_scenario) = if profile.scenario.starts_with("E1") {
            (
                "E1",
                "server instructions per call, stdio 64 in flight: <= 9,000",
                9_000.0,
                super::profile::LEAN_E1,
            )
        } else {
            (
                "E2",
                "server instructions per call, HTTP 16 connections: <= 30,000",
                30_000.0,
                super::profile::LEAN_E2,
            )
        };
        let ours = profile.outcome.as_ref().ok().copied();
        let (mut measured, met) = value(ours, ceiling, "instructions");
        // The lean reference under the same load, when it was profiled.
        let lean = results
            .profiles
            .iter()
            .find(|p| p.scenario == lean_scenario)
            .and_then(|p| p.outcome.as_ref().ok().copied());
        if let (Some(ours), Some(lean)) = (ours, lean.filter(|lean| *lean > 0.0)) {
            measured = format!("{measured} ({:.2}x lean's {lean:.0})", ours / lean);
        }
        add(id, target, (measured, met));
    }
    if let Some((_, Ok(scale))) = results
        .scale
        .iter()
        .find(|(label, _)| label.starts_with("mcpwire"))
    {
        let per = scale.bytes_per_session + scale.bytes_per_stream;
        add(
            "M2",
            "memory per idle session: <= 16 KiB with its GET stream, <= 4 KiB without",
            (
                format!(
                    "{:.1} KiB; {:.1} KiB",
                    per / 1024.0,
                    scale.bytes_per_session / 1024.0
                ),
                Some(per <= 16.0 * 1024.0 && scale.bytes_per_session <= 4.0 * 1024.0),
            ),
        );
        // Measured when the run opened 10,000 of each, else projected
        // from the bytes each session and stream took.
        let (growth, how) = if scale.sessions >= 10_000 && scale.streams >= 10_000 {
            (scale.growth_kib as f64 / 1024.0, "measured")
        } else {
            (
                per * 10_000.0 / (1024.0 * 1024.0),
                "projected from the bytes each",
            )
        };
        add(
            "M3",
            "10,000 sessions with GET streams: growth <= 160 MiB, opened at >= 1,000/s",
            (
                format!(
                    "{growth:.0} MiB ({how}), {:.0} sessions/s",
                    scale.sessions_per_s
                ),
                Some(growth <= 160.0 && scale.sessions_per_s >= 1_000.0),
            ),
        );
        let slowdown = scale.loaded.p50_us / scale.idle.p50_us.max(1e-9);
        add(
            "scale",
            "tools/call p50 at 16 connections with every session open: <= 1.5x idle",
            (format!("{slowdown:.2}x"), Some(slowdown <= 1.5)),
        );
    }
    let peak = |prefix: &str| {
        let peaks: Vec<f64> = results
            .records
            .iter()
            .filter(|r| r.role == Role::Ours && r.scenario.starts_with(prefix))
            .filter_map(|r| r.outcome.as_ref().ok())
            .map(|m| m.peak_rss_kib as f64 / 1024.0)
            .collect();
        peaks.into_iter().reduce(f64::max)
    };
    add(
        "M4",
        "peak RSS under load: <= 6 MiB stdio",
        value(peak("stdio"), 6.0, "MiB"),
    );
    add(
        "M4",
        "peak RSS under load: <= 8 MiB HTTP",
        value(peak("http"), 8.0, "MiB"),
    );
    add(
        "M1",
        "peak RSS, one session answering 64 KiB calls over SSE: <= 16 MiB",
        value(peak("http-sse-1-64KiB"), 16.0, "MiB"),
    );
    add(
        "C1",
        "cold start to the initialize answer: <= 1.5x a bare binary's",
        bound(limit(super::COLD_START_SCENARIO, ColdStart), 1.5, false),
    );
    checks
}
