//! Builds and runs the load suite of `bench/`: the bench crate in release,
//! rmcp's echo server (its own workspace, `bench/rmcp-echo`, so the test
//! command never compiles rmcp), then `bench-suite` with the parts asked
//! for. The markdown report is printed and kept as
//! `target/bench/<time>-report.md`, the raw results as JSON lines in
//! `target/bench/<time>-raw.jsonl`.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::tidy;

/// Builds what the suite needs and runs `parts` with `options`.
pub(super) fn run(root: &Path, parts: &[&str], options: &[String]) -> Result<(), String> {
    cargo(root, &["build", "--release", "-p", "mcpwire-bench"])?;
    let rmcp_target = root.join("target/rmcp-echo");
    let rmcp_built = cargo(
        root,
        &[
            "build",
            "--release",
            "--manifest-path",
            "bench/rmcp-echo/Cargo.toml",
            "--target-dir",
            &rmcp_target.display().to_string(),
        ],
    );
    if let Err(error) = &rmcp_built {
        println!("warning: rmcp-echo did not build ({error}); its rows will be missing");
    }

    let out_dir = root.join("target/bench");
    std::fs::create_dir_all(&out_dir)
        .map_err(|error| format!("cannot create {}: {error}", out_dir.display()))?;
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let raw = out_dir.join(format!("{stamp}-raw.jsonl"));
    let report_path = out_dir.join(format!("{stamp}-report.md"));

    let suite = root.join("target/release/bench-suite");
    println!("==> bench-suite {}", parts.join(" "));
    let output = Command::new(&suite)
        .args(parts)
        .args(options)
        .arg("--raw")
        .arg(&raw)
        .arg("--rmcp")
        .arg(rmcp_target.join("release/rmcp-echo"))
        .current_dir(root)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|error| format!("could not run {}: {error}", suite.display()))?;
    let report = String::from_utf8_lossy(&output.stdout);
    print!("{report}");
    std::fs::write(&report_path, report.as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", report_path.display()))?;
    println!(
        "raw results: {}\nreport: {}",
        raw.display(),
        report_path.display()
    );
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("bench-suite exited with {}", output.status))
    }
}

fn cargo(root: &Path, args: &[&str]) -> Result<(), String> {
    println!("==> cargo {}", args.join(" "));
    let status = Command::new(tidy::cargo_program())
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|error| format!("could not run cargo: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` exited with {status}", args.join(" ")))
    }
}
