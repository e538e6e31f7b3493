//! `--official`: the official conformance runner's scenarios that apply to
//! any server, run against the everything-server over Streamable HTTP and
//! folded into the report with no failure.

use mcpwire_check::official::{Runner, run as run_official};
use mcpwire_check::{Target, run};

use super::{assert_clean, everything_http_server, options};

/// The runner installed by `cargo xtask npm-tools`, or `None` (skip) when
/// it is not installed and not required.
fn installed_runner() -> Option<Runner> {
    match std::env::var("MCPWIRE_CONFORMANCE_RUNNER") {
        Ok(script) if !script.is_empty() => Some(Runner::from_env()),
        _ if std::env::var("MCPWIRE_REQUIRE_EXTERNAL").as_deref() == Ok("1") => {
            panic!("MCPWIRE_CONFORMANCE_RUNNER is not set but MCPWIRE_REQUIRE_EXTERNAL=1")
        }
        _ => {
            eprintln!(
                "skipped: MCPWIRE_CONFORMANCE_RUNNER is not set (run `cargo xtask npm-tools`)"
            );
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_scenarios_that_apply_to_any_server_pass_on_the_everything_server() {
    let Some(runner) = installed_runner() else {
        return;
    };
    let (url, _) = everything_http_server().await;
    let options = options().with_revision(mcpwire_types::ProtocolVersion::V2025_11_25);
    let mut report = run(&Target::Url(url.clone()), &options).await;
    run_official(&runner, &url, &options, &mut report).await;
    assert_clean(&report);
    let official: Vec<&str> = report
        .passed
        .iter()
        .filter(|p| p.check.starts_with("official runner "))
        .map(|p| p.rule)
        .collect();
    // Every applicable scenario ran: the everything-server declares tools,
    // resources, prompts and logging.
    for rule in [
        "LIFE-03",
        "PING-01",
        "TOOL-04",
        "RES-04",
        "PROMPT-07",
        "LOG-02",
        "HTTP-02",
    ] {
        assert!(
            official.contains(&rule),
            "{rule} missing: {official:?}\n{}",
            report.to_text()
        );
    }
}
