//! Installing the Python reference client the examples' tests run against:
//! `mcp` (the official Python SDK, from PyPI), pinned, in a virtual
//! environment under `target/py-tools/`, made with the machine's `python3`.
//!
//! `cargo xtask ci` installs it before its test step and passes
//! `MCPWIRE_PYTHON` (the environment's interpreter) to the tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python SDK, pinned.
const MCP: (&str, &str) = ("mcp", "2.3.0");

/// The version of `package` the interpreter `python` can import, if any.
fn installed(python: &Path, package: &str) -> Option<String> {
    let output = Command::new(python)
        .args([
            "-c",
            &format!("import importlib.metadata as m; print(m.version({package:?}))"),
        ])
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Runs `command`, failing with what it printed.
fn run(mut command: Command) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|error| format!("cannot run {command:?}: {error}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{command:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// Makes the environment and installs what is missing; returns its interpreter.
pub(crate) fn ensure(root: &Path) -> Result<PathBuf, String> {
    let venv = root.join("target").join("py-tools");
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        let mut make = Command::new("python3");
        make.arg("-m").arg("venv").arg(&venv);
        run(make)?;
    }
    let (package, version) = MCP;
    if installed(&python, package).as_deref() != Some(version) {
        let mut install = Command::new(&python);
        install.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            &format!("{package}=={version}"),
        ]);
        run(install)?;
    }
    let found = installed(&python, package);
    if found.as_deref() != Some(version) {
        return Err(format!(
            "{package} is not at {version} in {} after installing (found {found:?})",
            venv.display()
        ));
    }
    Ok(python)
}
