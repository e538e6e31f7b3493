//! `check`: the conformance and lint checks of `mcpwire-check` against the
//! target, as text, JSON (`--json`) or JUnit XML (`--junit FILE`); exit 1
//! when a check failed.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use mcpwire_types::ProtocolVersion;

use crate::cli::GlobalOptions;
use crate::commands::no_more_words;
use crate::error::{CliError, CliResult};
use crate::output::{line, print_json};
use crate::target::{Target, resolve, url_headers};

/// `check`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CheckArgs {
    /// The target (a URL or a configured server name), unless a command
    /// follows `--`.
    #[arg(value_name = "TARGET")]
    pub(crate) words: Vec<String>,
    /// Check only this revision (e.g. 2025-06-18); the global
    /// --protocol-version means the same.
    #[arg(long, value_name = "REVISION")]
    pub(crate) revision: Option<String>,
    /// Call every tool with arguments synthesized from its input schema
    /// and check results, structuredContent, progress and cancellation.
    /// Tools may have side effects: only against a server you may change.
    #[arg(long)]
    pub(crate) call_tools: bool,
    /// Also write the report as JUnit XML to FILE (one test case per check).
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
    /// Also run the official conformance runner's server scenarios that
    /// apply to any server (HTTP targets only; needs Node and npm) and fold
    /// their results into the report.
    #[arg(long)]
    pub(crate) official: bool,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// Runs every check on the target and prints the report.
pub(crate) async fn check(args: &CheckArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let headers = url_headers(&target, global)?;
    let target = match target {
        Target::Url { url, .. } => mcpwire_check::Target::Url(url),
        Target::Command { program, args, .. } => mcpwire_check::Target::Command { program, args },
    };
    if args.official && !matches!(target, mcpwire_check::Target::Url(_)) {
        return Err(CliError::usage(
            "--official needs an HTTP URL: the official runner speaks Streamable HTTP only",
        ));
    }
    if args.official && !headers.is_empty() {
        return Err(CliError::usage(
            "--official cannot send extra headers (the official runner has no way to): drop --header or --official",
        ));
    }
    let mut options = headers.into_iter().fold(
        mcpwire_check::Options::default().with_call_tools(args.call_tools),
        |options, (name, value)| options.with_header(name, value),
    );
    if global.timeout > 0 {
        options = options.with_timeout(Duration::from_secs(global.timeout));
    }
    let revision = args.revision.as_ref().or(global.protocol_version.as_ref());
    if let Some(version) = revision {
        let version = ProtocolVersion::parse(version).map_err(CliError::usage)?;
        options = options.with_revision(version);
    }
    let mut report = mcpwire_check::run(&target, &options).await;
    if args.official
        && let mcpwire_check::Target::Url(url) = &target
    {
        let runner = mcpwire_check::official::Runner::from_env();
        mcpwire_check::official::run(&runner, url, &options, &mut report).await;
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, report.to_junit()).map_err(|error| {
            CliError::usage(format!("cannot write {}: {error}", path.display()))
        })?;
    }
    if global.json {
        print_json(&report.to_json());
    } else {
        line(report.to_text().trim_end());
    }
    match report.failures() {
        0 => Ok(()),
        _ => Err(CliError::ToolFailed),
    }
}
