//! `cargo xtask conformance`: the official MCP conformance runner against
//! our binaries, judged against a strict baseline.
//!
//! ```text
//! cargo xtask conformance [server|client|auth-server|all|list]
//!                         [--scenario NAME] [--runner VERSION] [--bless]
//! ```
//!
//! - Installs, idempotently and from the npm registry only, Node 22 (npm
//!   package `node-<os>-<arch>@22`) and the runner
//!   `@modelcontextprotocol/conformance` at the version pinned in
//!   `conformance/runner-version` (or `--runner`), under
//!   `target/conformance/tools/`. Only `npm` (any version) is needed.
//! - `server` builds and starts `everything-server --http 127.0.0.1:0`,
//!   runs the runner's `server` command on every scenario (`--suite all`)
//!   or on `--scenario`, and stops the server. `client` runs the runner's
//!   `client` command once per scenario against `everything-client`.
//!   `auth-server` would test an authorization server, of which there is
//!   none yet. `all` runs the three; `list` prints the runner's scenarios.
//! - Every scenario's `checks.json` is read and judged against
//!   `conformance/baseline-<runner version>.toml`: a failing scenario that
//!   is not listed fails the command, and so does a listed one that passes
//!   (the entry is stale). `--bless` rewrites the baseline from the run,
//!   keeping the reasons already written and marking new entries
//!   `TODO: reason`, which the baseline test rejects until a real reason
//!   replaces it.
//!
//! The judging is pure functions over parsed data ([`results`],
//! [`baseline`], [`evaluate`]), tested on fixtures; this file and [`run`]
//! only move data between processes and files.

mod args;
mod baseline;
mod evaluate;
mod install;
mod listing;
mod report;
mod results;
mod run;

use std::path::{Path, PathBuf};

use crate::workspace_root;

use args::Mode;

/// The file that pins the runner version.
const RUNNER_VERSION_FILE: &str = "conformance/runner-version";

/// Runs `cargo xtask conformance` with `args`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let options = args::parse(args)?;
    let root = workspace_root();
    let runner_version = match &options.runner {
        Some(version) => version.clone(),
        None => pinned_runner_version(&root)?,
    };
    install::check_version_text(&runner_version)?;
    run::run(&root, &options, &runner_version)
}

/// The runner version pinned in `conformance/runner-version`: its first
/// line that is neither blank nor a `#` comment.
fn pinned_runner_version(root: &Path) -> Result<String, String> {
    let path = root.join(RUNNER_VERSION_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    parse_pinned_version(&text).ok_or_else(|| format!("{} names no version", path.display()))
}

fn parse_pinned_version(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
}

/// The baseline file of runner `version`.
fn baseline_path(root: &Path, version: &str) -> PathBuf {
    root.join("conformance")
        .join(format!("baseline-{version}.toml"))
}

/// Where installed tools live.
fn tools_dir(root: &Path) -> PathBuf {
    root.join("target").join("conformance").join("tools")
}

/// Where the results of runner `version` in `mode` go.
fn results_dir(root: &Path, version: &str, mode: Mode) -> PathBuf {
    root.join("target")
        .join("conformance")
        .join("results")
        .join(version)
        .join(mode.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_version_is_the_first_line_that_is_not_a_comment() {
        let text = "# pinned\n\n  0.2.0-alpha.12  \n0.1.16\n";
        assert_eq!(
            parse_pinned_version(text).as_deref(),
            Some("0.2.0-alpha.12")
        );
        assert_eq!(parse_pinned_version("# only a comment\n"), None);
    }

    #[test]
    fn the_committed_pin_is_a_valid_version_with_a_baseline() {
        let root = workspace_root();
        let version = pinned_runner_version(&root).unwrap();
        install::check_version_text(&version).unwrap();
        assert!(
            baseline_path(&root, &version).is_file(),
            "the pinned runner {version} needs conformance/baseline-{version}.toml"
        );
    }

    /// The tidy rule for baselines: every committed baseline parses, fits
    /// its runner, gives every entry a real one-line reason (`--bless`
    /// writes `TODO: reason`, which must not be committed), and is in the
    /// form `--bless` writes.
    #[test]
    fn every_committed_baseline_gives_each_entry_a_real_reason() {
        let dir = workspace_root().join("conformance");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some(version) = name
                .strip_prefix("baseline-")
                .and_then(|rest| rest.strip_suffix(".toml"))
            else {
                continue;
            };
            seen += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            let parsed =
                baseline::Baseline::parse(&text).unwrap_or_else(|error| panic!("{name}: {error}"));
            let problems = parsed.problems(version);
            assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
            // Written as `--bless` writes it, so a bless shows only real changes.
            assert_eq!(
                parsed.to_text(),
                text,
                "{name} is not in the form --bless writes"
            );
        }
        assert!(seen > 0, "no baseline-*.toml in {}", dir.display());
    }
}
