//! Server instructions per call under callgrind stay within the committed
//! budget (`bench/instruction-budget.json`) plus 10%: instruction counts
//! are repeatable, so a change that makes calls costlier fails here.
//! Needs valgrind; without it the test says so and passes, unless
//! `MCPWIRE_REQUIRE_EXTERNAL=1`.

use crate::support;

use mcpwire_bench::suite::profile;
use serde_json::Value;

/// How far above its budget a figure may go.
const TOLERANCE: f64 = 1.10;

/// The profile the servers were built with: budgets differ between an
/// optimized and an unoptimized build.
fn build_profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

#[test]
fn server_instructions_per_call_stay_within_budget() {
    if profile::valgrind_version().is_none() {
        assert!(
            std::env::var("MCPWIRE_REQUIRE_EXTERNAL").as_deref() != Ok("1"),
            "valgrind is required (MCPWIRE_REQUIRE_EXTERNAL=1) but not installed"
        );
        eprintln!("skipped: valgrind is not installed");
        return;
    }
    let budgets: Value =
        serde_json::from_str(include_str!("../../instruction-budget.json")).unwrap();
    let budgets = &budgets[build_profile()];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let bins = support::binaries();
    let mut report = Vec::new();
    let mut over = Vec::new();
    for (scenario, server, http, load) in profile::scenarios(&bins) {
        let (per_call, top) = runtime
            .block_on(profile::profile(&server, http, load, (50, 450)))
            .unwrap_or_else(|error| panic!("{scenario}: {error}"));
        let budget = budgets[&scenario].as_f64().unwrap_or_else(|| {
            panic!(
                "no {} budget for {scenario}: measured {per_call:.0}",
                build_profile()
            )
        });
        report.push(format!(
            "{scenario}: {per_call:.0} instructions per call (budget {budget:.0})"
        ));
        if per_call > budget * TOLERANCE {
            let costliest: Vec<String> = top
                .iter()
                .take(10)
                .map(|(function, cost)| format!("  {cost:>8.0}  {function}"))
                .collect();
            over.push(format!(
                "{scenario}: {per_call:.0} > {budget:.0} + 10%; costliest functions:\n{}",
                costliest.join("\n")
            ));
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(over.is_empty(), "over budget:\n{}", over.join("\n"));
}
