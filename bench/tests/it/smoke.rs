//! The whole suite in smoke mode (tiny durations, one round), so that
//! `cargo xtask bench` cannot rot: every server of every part must answer
//! every call, and the report must carry its ratio columns and targets.

use crate::support;

use mcpwire_bench::suite::scenarios::Role;
use mcpwire_bench::suite::{self, Part, Settings, report};

#[test]
fn every_part_runs_against_every_server_and_reports_ratios() {
    let bins = support::binaries();
    let settings = Settings::smoke();
    let parts = [Part::Codec, Part::Stdio, Part::Http, Part::Scale];
    let results = suite::run(&bins, &settings, &parts).unwrap();

    let failures: Vec<String> = results
        .records
        .iter()
        .filter_map(|r| {
            r.outcome
                .as_ref()
                .err()
                .map(|error| format!("{} / {}: {error}", r.scenario, r.target))
        })
        .collect();
    assert!(failures.is_empty(), "failed runs: {failures:#?}");
    for record in &results.records {
        let measured = record.outcome.as_ref().unwrap();
        assert!(
            measured.calls > 0,
            "{} / {}: no calls",
            record.scenario,
            record.target
        );
        if record.part != Part::Codec {
            assert!(
                measured.cold_start_ms > 0.0,
                "{} / {}",
                record.scenario,
                record.target
            );
            assert!(
                measured.peak_rss_kib > 0,
                "{} / {}",
                record.scenario,
                record.target
            );
        }
    }
    // Each stdio and HTTP scenario ran ours, the limit and the lean
    // reference.
    for scenario in [
        "stdio-64-200B",
        "http-json-16-200B",
        "http-sse-64-200B",
        "http-stateless-16-200B",
        "http-sse-1-64KiB",
    ] {
        let roles: Vec<Role> = results
            .records
            .iter()
            .filter(|r| r.scenario == scenario)
            .map(|r| r.role)
            .collect();
        for role in [Role::Ours, Role::Limit, Role::Lean] {
            assert!(
                roles.contains(&role),
                "{scenario}: no {role:?} in {roles:?}"
            );
        }
    }

    for (label, outcome) in &results.scale {
        let scale = outcome
            .as_ref()
            .unwrap_or_else(|error| panic!("{label}: {error}"));
        assert_eq!(scale.sessions, settings.sessions, "{label}");
        assert_eq!(scale.streams, settings.streams, "{label}");
        assert!(scale.loaded.calls > 0 && scale.idle.calls > 0, "{label}");
    }

    let rendered = report::render(&results);
    // Rows of targets that compare with rmcp (S2, H1) appear only when
    // bench/rmcp-echo was built, which a fresh clone's test run never does.
    for column in [
        "x limit",
        "x rmcp",
        "p99 x limit",
        "x lean",
        "CPU x lean",
        "| M1 |",
        "### targets",
        "| S1 |",
        "| H2 |",
        "| M2 |",
    ] {
        assert!(rendered.contains(column), "no {column:?} in:\n{rendered}");
    }
}
