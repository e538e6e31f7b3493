//! Installs `redis-server` for the tests of mcpwire-redis, which start their
//! own Redis on a free loopback port: `cargo xtask ci` calls this before its
//! test step, and `cargo xtask redis` runs it alone.

use std::process::{Command, Stdio};

/// The program the tests of mcpwire-redis start.
const SERVER: &str = "redis-server";

/// The Debian package that provides it.
const PACKAGE: &str = "redis-server";

/// Whether `redis-server --version` runs.
fn installed() -> bool {
    Command::new(SERVER)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Runs `apt-get` with `args`, non-interactively; its output goes to ours.
fn apt_get(args: &[&str]) -> Result<(), String> {
    let status = Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .map_err(|error| format!("could not run `apt-get {}`: {error}", args.join(" ")))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`apt-get {}` exited with {status}", args.join(" ")))
    }
}

/// Installs the Debian package `redis-server` unless `redis-server` already
/// runs. The package lists are refreshed (`apt-get update`) only when the
/// first install attempt fails, since a fresh container often has none.
pub(crate) fn ensure_installed() -> Result<(), String> {
    if installed() {
        return Ok(());
    }
    println!("{SERVER} is not installed; installing the Debian package {PACKAGE} (once)");
    let install = ["install", "-y", "--no-install-recommends", PACKAGE];
    if apt_get(&install).is_err() {
        apt_get(&["update"])?;
        apt_get(&install)?;
    }
    if installed() {
        Ok(())
    } else {
        Err(format!(
            "{PACKAGE} was installed but `{SERVER} --version` does not run"
        ))
    }
}

/// `cargo xtask redis`: installs `redis-server` when missing; takes no arguments.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("redis takes no arguments, got {extra:?}"));
    }
    ensure_installed()
}
