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
  ci                  run everything CI runs (fmt, clippy, tests, tidy, deny, conformance all)
  npm-tools           install the TypeScript reference server and SDK for mcpwire-cli's tests
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
        "ci" => ci::run(rest),
        "bench" => bench::run(rest),
        "conformance" => conformance::run(rest),
        "redis" => redis::run(rest),
        "npm-tools" => npm_tools::run(rest),
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

/// The workspace root (the parent of this crate's directory).
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}
