//! Installing the Python reference client the runtime-free example's tests
//! run against: the official `mcp` SDK from PyPI, pinned, in a virtual
//! environment under `target/py-tools/`.
//!
//! `cargo xtask py-tools` installs it and prints the environment the tests
//! read; `cargo xtask ci` installs it before its test step and passes that
//! environment (with `MCPWIRE_REQUIRE_EXTERNAL=1`, so the tests fail
//! instead of skipping).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python SDK, pinned: 2.x speaks both eras (`mode="legacy"` and the
/// `server/discover` probe of 2026-07-28).
const SDK: (&str, &str) = ("mcp", "2.3.0");

/// The installed client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PyTools {
    /// The virtual environment's interpreter, which can `import mcp`.
    pub(crate) python: PathBuf,
}

impl PyTools {
    /// The environment the tests of the runtime-free examples read.
    pub(crate) fn test_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("MCPWIRE_PYTHON", self.python.display().to_string()),
            ("MCPWIRE_REQUIRE_EXTERNAL", "1".to_owned()),
        ]
    }
}

/// The version of `package` that `python` has, if any.
fn installed(python: &Path, package: &str) -> Option<String> {
    let probe = format!("import importlib.metadata as m; print(m.version({package:?}))");
    let output = Command::new(python).args(["-c", &probe]).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Runs `program` with `args`, failing with its output when it fails.
fn run(program: &Path, args: &[&str]) -> Result<(), String> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|error| format!("could not run {}: {error}", program.display()))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "`{} {}` failed ({}): {}",
        program.display(),
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stderr).trim()
    ))
}

/// Creates the environment under `root/target` if needed and installs the
/// pinned SDK into it.
pub(crate) fn ensure(root: &Path) -> Result<PyTools, String> {
    let venv = root.join("target").join("py-tools").join("venv");
    let python = venv.join("bin").join("python");
    let (package, version) = SDK;
    if installed(&python, package).as_deref() == Some(version) {
        return Ok(PyTools { python });
    }
    if !python.is_file() {
        let venv_arg = venv.display().to_string();
        run(Path::new("python3"), &["-m", "venv", &venv_arg])?;
    }
    let pin = format!("{package}=={version}");
    run(&python, &["-m", "pip", "install", "--quiet", &pin])?;
    let found = installed(&python, package);
    if found.as_deref() != Some(version) {
        return Err(format!(
            "{package} is not at {version} in {} after installing (found {found:?})",
            venv.display()
        ));
    }
    Ok(PyTools { python })
}

/// `cargo xtask py-tools`: installs and prints the tests' environment.
pub(crate) fn run_command(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("py-tools takes no arguments, got {extra:?}"));
    }
    let tools = ensure(&crate::workspace_root())?;
    println!("# the environment of `cargo test -p sans-io-server` against the Python SDK:");
    for (name, value) in tools.test_env() {
        println!("export {name}={value:?}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tests_are_told_where_python_is_and_that_it_is_required() {
        let tools = PyTools {
            python: PathBuf::from("/v/bin/python"),
        };
        let env = tools.test_env();
        assert_eq!(env[0], ("MCPWIRE_PYTHON", "/v/bin/python".to_owned()));
        assert_eq!(env[1], ("MCPWIRE_REQUIRE_EXTERNAL", "1".to_owned()));
    }

    #[test]
    fn a_missing_interpreter_has_no_version() {
        assert_eq!(installed(Path::new("/nonexistent/python"), "mcp"), None);
    }
}
