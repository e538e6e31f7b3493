//! Project automation entry point: `cargo xtask <command>`.
//!
//! Every check CI runs is reachable from here, so that a developer can run
//! exactly what CI runs (`cargo xtask ci`) and nothing lives only in CI YAML.

// xtask is a developer tool: it talks to its user on stdout.
#![allow(clippy::print_stdout)]

mod bench;
mod ci;
mod codegen;
mod conformance;
mod matrix;
mod npm_tools;
mod py_tools;
mod redis;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `cargo xtask help` prints.
const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  codegen [--check]   regenerate committed generated files (--check: fail if stale)
  tidy                check file headers, file sizes, layering and lint inheritance
  ci                  run everything CI runs (fmt, clippy, matrix, tests, tidy, deny, conformance all)
  matrix              check every library crate alone with no, default and all features, and
                      every pair of facade features
  npm-tools           install the TypeScript reference server and SDK for mcpwire-cli's tests
  py-tools            install the Python SDK (a venv under target/) for the sans-io-server example's tests
  redis               install redis-server (Debian package) when missing, for mcpwire-redis's tests
  bench codec         measure the JSON-RPC codec against a serde_json::Value baseline
  conformance [server|client|auth-server|all|list] [--scenario NAME] [--runner VERSION] [--bless]
                      run the official MCP conformance runner against the everything-server
                      and everything-client, judged against conformance/baseline-<runner>.yaml;
                      `all` (the default): server and client on the pinned runner, the server
                      suite on the older runners of conformance/runner-version, auth-server
                      skipped (needs issue 7); ends with the line `N passed, M failed`
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = match args.split_first() {
        Some((command, rest)) => (command.as_str(), rest),
        None => ("help", &[][..]),
    };
    let outcome = match command {
        "codegen" => codegen::run(rest),
        "tidy" => tidy::run(rest),
        "matrix" => matrix::run(rest),
        "ci" => ci::run(rest),
        "bench" => bench::run(rest),
        "conformance" => conformance::run(rest),
        "redis" => redis::run(rest),
        "npm-tools" => npm_tools::run(rest),
        "py-tools" => py_tools::run_command(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command {other:?}\n\n{USAGE}")),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo metadata --no-deps` of the workspace at `root` (offline), parsed.
fn workspace_metadata(root: &Path) -> Result<serde_json::Value, String> {
    let output = std::process::Command::new(tidy::cargo_program())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .map_err(|error| format!("could not run `cargo metadata`: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo metadata` failed in {}: {}",
            root.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("`cargo metadata` printed invalid JSON: {error}"))
}

/// The workspace root (the parent of this crate's directory).
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}
