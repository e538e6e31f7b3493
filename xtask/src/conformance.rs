//! `cargo xtask conformance`: the official MCP conformance runner against
//! our binaries, judged against a strict baseline.
//!
//! ```text
//! cargo xtask conformance [server|client|auth-server|scale-out|all|list]
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
//!   `client` command once per scenario against `everything-client`, in a
//!   network namespace with only loopback when it can ([`isolation`]).
//!   `auth-server` starts `everything-authorization-server` (mcpwire-auth's
//!   embedded authorization server), runs the runner's `authorization`
//!   command against it and plays the browser of its authorization-code
//!   scenario (`run/auth_server.rs`). `scale-out` starts a `redis-server`,
//!   three everything-server instances sharing it (`--redis`; their
//!   `requestState` key ring lives there too) and `round-robin-proxy` in front of them, which sends
//!   every request to the next instance, and runs the same server suite
//!   against the proxy (`run/scale_out.rs`). `all` runs the four with the
//!   pinned runner, then the server, client and scale-out suites with each
//!   older runner listed after it in `conformance/runner-version` (with
//!   `--runner`, only that runner's four). `list` prints the runner's
//!   scenarios.
//! - Every scenario's `checks.json` is read and judged against
//!   `conformance/baseline-<runner version>.yaml`: a failing scenario that
//!   is not listed fails the command, and so does a listed one that passes
//!   (the entry is stale). `--bless` rewrites the baseline from the run,
//!   keeping the reasons already written and marking new entries
//!   `TODO: reason`, which the baseline test rejects until a real reason
//!   replaces it.
//! - Each mode prints a table per scenario and one per spec revision; the
//!   command ends with a summary whose last line is `N passed, M failed`,
//!   counting scenarios (expected failures among the failed).
//!
//! The judging is pure functions over parsed data ([`results`],
//! [`baseline`], [`evaluate`], [`report`]), tested on fixtures; [`run()`]
//! and [`binaries`] only move data between processes and files.

mod args;
mod baseline;
mod binaries;
mod evaluate;
pub(crate) mod install;
mod isolation;
mod listing;
mod report;
mod results;
mod run;

use std::path::{Path, PathBuf};

use crate::workspace_root;

use args::{Mode, Options};
use run::Step;

/// The file that pins the runner version.
const RUNNER_VERSION_FILE: &str = "conformance/runner-version";

/// Runs `cargo xtask conformance` with `args`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let options = args::parse(args)?;
    let root = workspace_root();
    let versions = match &options.runner {
        Some(version) => vec![version.clone()],
        None => pinned_runner_versions(&root)?,
    };
    for version in &versions {
        install::check_version_text(version)?;
    }
    run::run(&root, &options, &plan(&options, &versions))
}

/// What to run with which runner: `all` runs every mode with the first
/// version and the server, client and scale-out suites with each further
/// one; a single mode runs with the first version only.
fn plan(options: &Options, versions: &[String]) -> Vec<Step> {
    let Some((first, older)) = versions.split_first() else {
        return Vec::new();
    };
    if options.mode != Mode::All {
        return vec![Step {
            version: first.clone(),
            modes: vec![options.mode],
        }];
    }
    let mut plan = vec![Step {
        version: first.clone(),
        modes: vec![Mode::Server, Mode::Client, Mode::AuthServer, Mode::ScaleOut],
    }];
    // Older runners have no authorization-server mode; their server,
    // client and scale-out suites still run, each judged by that runner's
    // own baseline.
    plan.extend(older.iter().map(|version| Step {
        version: version.clone(),
        modes: vec![Mode::Server, Mode::Client, Mode::ScaleOut],
    }));
    plan
}

/// The runner versions of `conformance/runner-version`: the pinned one
/// first, then the older ones whose server and client suites `all` also runs.
fn pinned_runner_versions(root: &Path) -> Result<Vec<String>, String> {
    let path = root.join(RUNNER_VERSION_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let versions = parse_pinned_versions(&text);
    if versions.is_empty() {
        return Err(format!("{} names no version", path.display()));
    }
    Ok(versions)
}

/// Every line that is neither blank nor a `#` comment, in order.
fn parse_pinned_versions(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The baseline file of runner `version`.
fn baseline_path(root: &Path, version: &str) -> PathBuf {
    root.join("conformance")
        .join(format!("baseline-{version}.yaml"))
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

    fn versions(list: &[&str]) -> Vec<String> {
        list.iter().map(|version| (*version).to_owned()).collect()
    }

    fn options(mode: Mode) -> Options {
        Options {
            mode,
            scenario: None,
            runner: None,
            bless: false,
        }
    }

    #[test]
    fn the_pinned_versions_are_the_lines_that_are_not_comments() {
        let text = "# pinned\n\n  0.2.0-alpha.12  \n# older\n0.1.16\n";
        assert_eq!(
            parse_pinned_versions(text),
            versions(&["0.2.0-alpha.12", "0.1.16"])
        );
        assert!(parse_pinned_versions("# only a comment\n").is_empty());
    }

    #[test]
    fn all_runs_every_mode_with_the_pinned_runner_and_the_server_client_and_scale_out_suites_with_older_ones()
     {
        let pinned = versions(&["0.2.0-alpha.12", "0.1.16"]);
        assert_eq!(
            plan(&options(Mode::All), &pinned),
            [
                Step {
                    version: "0.2.0-alpha.12".to_owned(),
                    modes: vec![Mode::Server, Mode::Client, Mode::AuthServer, Mode::ScaleOut]
                },
                Step {
                    version: "0.1.16".to_owned(),
                    modes: vec![Mode::Server, Mode::Client, Mode::ScaleOut]
                }
            ]
        );
        assert_eq!(
            plan(&options(Mode::Client), &pinned),
            [Step {
                version: "0.2.0-alpha.12".to_owned(),
                modes: vec![Mode::Client]
            }]
        );
        assert_eq!(
            plan(&options(Mode::ScaleOut), &pinned),
            [Step {
                version: "0.2.0-alpha.12".to_owned(),
                modes: vec![Mode::ScaleOut]
            }]
        );
        assert!(plan(&options(Mode::All), &[]).is_empty());
    }

    #[test]
    fn every_pinned_version_is_valid_and_has_a_baseline() {
        let root = workspace_root();
        let pinned = pinned_runner_versions(&root).unwrap();
        for version in pinned {
            install::check_version_text(&version).unwrap();
            assert!(
                baseline_path(&root, &version).is_file(),
                "runner {version} needs conformance/baseline-{version}.yaml"
            );
        }
    }

    /// The tidy rule for baselines: every committed baseline is YAML,
    /// parses, fits its runner, gives every entry a real one-line reason
    /// (`--bless` writes `TODO: reason`, which must not be committed), and
    /// is in the form `--bless` writes.
    #[test]
    fn every_committed_baseline_gives_each_entry_a_real_reason() {
        let dir = workspace_root().join("conformance");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some(rest) = name.strip_prefix("baseline-") else {
                continue;
            };
            let Some(version) = rest.strip_suffix(".yaml") else {
                panic!("{name}: baselines are YAML, named baseline-<runner version>.yaml");
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
        assert!(seen > 0, "no baseline-*.yaml in {}", dir.display());
    }
}
