//! `cargo xtask ci`: everything CI runs, in order, stopping at the first failure.
//!
//! CI calls this command and nothing else, so a developer reproduces a CI
//! run exactly with `cargo xtask ci`. Steps run from cheapest to dearest so
//! a formatting slip fails in seconds, and nothing cleans the target
//! directory, so a re-run only rebuilds what changed. Clippy and the tests
//! share the default dev profile and flags, which keeps their dependency
//! builds reusable between runs, and the last step, the official
//! conformance runner against our binaries (`cargo xtask conformance
//! all`), builds them in that same debug profile, reusing the test build.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::{conformance, matrix, npm_tools, py_tools, redis, tidy, workspace_root};

/// What one step does.
#[derive(Debug, Clone, Copy)]
enum Action {
    /// Run cargo with these arguments.
    Cargo(&'static [&'static str]),
    /// Run the tidy checks in-process.
    Tidy,
    /// Run cargo-deny with these arguments, installing it first if needed.
    Deny(&'static [&'static str]),
    /// Run `cargo xtask conformance` in-process with these arguments.
    Conformance(&'static [&'static str]),
    /// Check every library crate alone in each of its feature sets.
    Matrix,
}

/// One named step of the CI run.
#[derive(Debug, Clone, Copy)]
struct Step {
    /// Short name shown in banners and in the failure message.
    name: &'static str,
    /// What the step runs.
    action: Action,
}

/// The CI run, in order.
const STEPS: &[Step] = &[
    Step {
        name: "fmt",
        action: Action::Cargo(&["fmt", "--all", "--check"]),
    },
    Step {
        name: "clippy",
        action: Action::Cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    },
    Step {
        // Each library crate alone, with no, default and all features, and
        // every pair of facade features: what the unified build cannot see.
        name: "matrix",
        action: Action::Matrix,
    },
    Step {
        name: "test",
        action: Action::Cargo(&["test", "--workspace"]),
    },
    Step {
        // The workspace's test build unifies features, and the client turns
        // jsonschema on (`full-schemas`): the schema rules without it (the
        // built-in validator alone, `NeedsFullSchemas`) are tested here.
        name: "test without full-schemas",
        action: Action::Cargo(&[
            "test",
            "-p",
            "mcpwire-types",
            "--features",
            "schema",
            "--lib",
        ]),
    },
    Step {
        name: "tidy",
        action: Action::Tidy,
    },
    Step {
        // Advisories are left out on purpose: they need the RustSec
        // database from the network, and CI must pass offline.
        name: "deny",
        action: Action::Deny(&["check", "bans", "licenses", "sources"]),
    },
    Step {
        // Last: the dearest step, and it reuses the test step's debug build.
        // Any failure the baselines do not expect fails CI.
        name: "conformance",
        action: Action::Conformance(&["all"]),
    },
];

/// Runs every CI step on this workspace; `args` must be empty.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("ci takes no arguments, got {extra:?}"));
    }
    let root = workspace_root();
    let started = Instant::now();
    for (index, step) in STEPS.iter().enumerate() {
        println!();
        println!(
            "==> ci step {}/{}: {} ({})",
            index + 1,
            STEPS.len(),
            step.name,
            describe(step.action)
        );
        let step_started = Instant::now();
        run_action(&root, step.action).map_err(|error| {
            format!(
                "ci step {}/{} ({}) failed: {error}",
                index + 1,
                STEPS.len(),
                step.name
            )
        })?;
        println!(
            "==> ci step {}/{}: {} passed in {:.1}s",
            index + 1,
            STEPS.len(),
            step.name,
            step_started.elapsed().as_secs_f64()
        );
    }
    let names: Vec<&str> = STEPS.iter().map(|step| step.name).collect();
    println!();
    println!(
        "==> ci passed: {} in {:.1}s",
        names.join(", "),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The command line a step stands for, as shown in its banner.
fn describe(action: Action) -> String {
    match action {
        Action::Cargo(args) => format!("cargo {}", args.join(" ")),
        Action::Tidy => "cargo xtask tidy".to_string(),
        Action::Deny(args) => format!("cargo deny {}", args.join(" ")),
        Action::Conformance(args) => format!("cargo xtask conformance {}", args.join(" ")),
        Action::Matrix => "cargo xtask matrix".to_string(),
    }
}

/// Runs one step's action in `root`.
fn run_action(root: &Path, action: Action) -> Result<(), String> {
    match action {
        Action::Cargo(args) => {
            // mcpwire-redis's tests start their own redis-server,
            // mcpwire-cli's run the TypeScript reference server and SDK, and
            // sans-io-server's the Python SDK's client.
            if args.first() == Some(&"test") {
                redis::ensure_installed()?;
                let mut env = npm_tools::ensure(root)?.test_env();
                env.extend(py_tools::ensure(root)?.test_env());
                return run_cargo_with_env(root, args, &env);
            }
            run_cargo(root, args)
        }
        Action::Tidy => tidy::check_workspace(root),
        Action::Deny(args) => {
            ensure_cargo_deny(root)?;
            let mut deny_args = vec!["deny"];
            deny_args.extend_from_slice(args);
            run_cargo(root, &deny_args)
        }
        Action::Conformance(args) => {
            let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
            conformance::run(&args)
        }
        Action::Matrix => matrix::run(&[]),
    }
}

/// Installs cargo-deny unless `cargo deny` already runs.
fn ensure_cargo_deny(root: &Path) -> Result<(), String> {
    let installed = Command::new(tidy::cargo_program())
        .args(["deny", "--version"])
        .current_dir(root)
        .output()
        .is_ok_and(|output| output.status.success());
    if installed {
        return Ok(());
    }
    println!("cargo-deny is not installed; installing it (once) with `cargo install`");
    run_cargo(root, &["install", "--locked", "cargo-deny"])
}

/// Runs cargo with `args` in `root`, its output going straight to ours.
fn run_cargo(root: &Path, args: &[&str]) -> Result<(), String> {
    run_cargo_with_env(root, args, &[])
}

/// Runs cargo with `args` in `root` and these environment variables added.
fn run_cargo_with_env(root: &Path, args: &[&str], env: &[(&str, String)]) -> Result<(), String> {
    let status = Command::new(tidy::cargo_program())
        .args(args)
        .envs(env.iter().map(|(name, value)| (*name, value)))
        .current_dir(root)
        .status()
        .map_err(|error| format!("could not run `cargo {}`: {error}", args.join(" ")))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` exited with {status}", args.join(" ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_run_in_the_documented_order() {
        let names: Vec<&str> = STEPS.iter().map(|step| step.name).collect();
        assert_eq!(
            names,
            [
                "fmt",
                "clippy",
                "matrix",
                "test",
                "test without full-schemas",
                "tidy",
                "deny",
                "conformance"
            ]
        );
    }

    #[test]
    fn banners_show_the_exact_commands() {
        let commands: Vec<String> = STEPS.iter().map(|step| describe(step.action)).collect();
        assert_eq!(
            commands,
            [
                "cargo fmt --all --check",
                "cargo clippy --workspace --all-targets -- -D warnings",
                "cargo xtask matrix",
                "cargo test --workspace",
                "cargo test -p mcpwire-types --features schema --lib",
                "cargo xtask tidy",
                "cargo deny check bans licenses sources",
                "cargo xtask conformance all",
            ]
        );
    }

    #[test]
    fn arguments_are_rejected() {
        let error = run(&["--fast".to_string()]).unwrap_err();
        assert!(error.contains("--fast"), "{error}");
    }
}
