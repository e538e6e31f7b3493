//! Our binaries for the runner: building them with cargo (debug profile)
//! and running the everything-server for the length of a server suite.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::tidy::cargo_program;

/// How long the everything-server may take to print its URL. The binary
/// is built before it starts, so this only covers its own start-up.
const SERVER_START_TIMEOUT: Duration = Duration::from_secs(30);

/// How long to wait for the second (legacy URL) line once the first came.
const SECOND_LINE_TIMEOUT: Duration = Duration::from_secs(5);

/// Builds binary `name` of the `conformance` package (debug profile) and
/// returns its path.
///
/// The debug profile shares its artifacts with `cargo build` and `cargo
/// test`, so a run after the tests rebuilds almost nothing, and it keeps
/// debug assertions on; the runner measures behaviour, not speed (its
/// timing windows are tens of milliseconds to seconds).
pub(crate) fn build_binary(root: &Path, name: &str) -> Result<PathBuf, String> {
    if !package_has_binary(root, "conformance", name)? {
        return Err(format!("the conformance package has no `{name}` binary"));
    }
    println!("conformance: building {name}");
    let output = Command::new(cargo_program())
        .args(["build", "--package", "conformance", "--bin", name])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !output.status.success() {
        return Err(format!("building {name} failed"));
    }
    executable_from_messages(&String::from_utf8_lossy(&output.stdout), name)
        .ok_or_else(|| format!("cargo built {name} but named no executable"))
}

/// The executable of binary `name` in cargo's JSON messages.
fn executable_from_messages(messages: &str, name: &str) -> Option<PathBuf> {
    messages.lines().find_map(|line| {
        let message: serde_json::Value = serde_json::from_str(line).ok()?;
        let is_bin = message["reason"] == "compiler-artifact"
            && message["target"]["name"] == name
            && message["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|kind| kind == "bin"));
        is_bin
            .then(|| message["executable"].as_str().map(PathBuf::from))
            .flatten()
    })
}

/// Whether package `package` of the workspace has a binary target `name`.
fn package_has_binary(root: &Path, package: &str, name: &str) -> Result<bool, String> {
    let metadata = crate::workspace_metadata(root)?;
    Ok(has_binary(&metadata, package, name))
}

fn has_binary(metadata: &serde_json::Value, package: &str, name: &str) -> bool {
    metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|candidate| candidate["name"] == package)
        .flat_map(|candidate| candidate["targets"].as_array().into_iter().flatten())
        .any(|target| {
            target["name"] == name
                && target["kind"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|kind| kind == "bin"))
        })
}

/// A server process this command started (an everything-server, or the
/// scale-out mode's proxy); dropping it kills that process (and only it).
pub(crate) struct ServerProcess {
    child: Child,
    /// The URL it printed first.
    pub(crate) url: String,
    /// Its later stdout lines.
    lines: mpsc::Receiver<String>,
}

impl ServerProcess {
    /// Starts `binary --http 127.0.0.1:0`, with its stderr in `log`, and
    /// reads its Streamable HTTP URL from the first stdout line.
    pub(crate) fn start(binary: &Path, log: &Path) -> Result<Self, String> {
        let process = Self::launch(
            binary,
            &["--http", "127.0.0.1:0"],
            log,
            "the everything-server",
        )?;
        if let Ok(legacy) = process.lines.recv_timeout(SECOND_LINE_TIMEOUT) {
            println!("conformance: legacy HTTP+SSE endpoint at {}", legacy.trim());
        }
        Ok(process)
    }

    /// Starts `binary` with `args`, its stderr in `log`, and reads the URL
    /// it prints as its first stdout line; `what` names it in errors.
    pub(crate) fn launch(
        binary: &Path,
        args: &[&str],
        log: &Path,
        what: &str,
    ) -> Result<Self, String> {
        let log_file = std::fs::File::create(log)
            .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
        let mut child = Command::new(binary)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", binary.display()))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{what}'s stdout was not captured"));
        };
        let (lines_tx, lines) = mpsc::channel();
        // Reads every line, so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines_tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut process = Self {
            child,
            url: String::new(),
            lines,
        };
        let first = process.lines.recv_timeout(SERVER_START_TIMEOUT);
        let url = match first {
            Ok(line) => line.trim().to_owned(),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "{what} printed no URL within {SERVER_START_TIMEOUT:?}; see {}",
                    log.display()
                ));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = process
                    .child
                    .wait()
                    .map_or_else(|error| error.to_string(), |status| status.to_string());
                let stderr = std::fs::read_to_string(log).unwrap_or_default();
                return Err(format!(
                    "{what} exited ({status}) before printing its URL: {}",
                    stderr.trim()
                ));
            }
        };
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(format!("{what}'s first line is not a URL: {url:?}"));
        }
        process.url = url;
        Ok(process)
    }

    /// Whether the process has exited (crashed, for a server).
    pub(crate) fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // `kill` targets this child's pid only; `wait` reaps it.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_executable_comes_from_the_bin_artifact_message() {
        let messages = [
            json!({"reason": "compiler-artifact", "target": {"name": "conformance", "kind": ["lib"]}, "executable": null}),
            json!({"reason": "compiler-artifact", "target": {"name": "everything-server", "kind": ["bin"]}, "executable": "/t/debug/everything-server"}),
            json!({"reason": "build-finished", "success": true}),
        ]
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
        assert_eq!(
            executable_from_messages(&messages, "everything-server"),
            Some(PathBuf::from("/t/debug/everything-server"))
        );
        assert_eq!(
            executable_from_messages(&messages, "everything-client"),
            None
        );
    }

    #[test]
    fn binaries_are_found_by_package_name_and_kind() {
        let metadata = json!({"packages": [
            {"name": "conformance", "targets": [
                {"name": "conformance", "kind": ["lib"]},
                {"name": "everything-server", "kind": ["bin"]}
            ]},
            {"name": "other", "targets": [{"name": "everything-client", "kind": ["bin"]}]}
        ]});
        assert!(has_binary(&metadata, "conformance", "everything-server"));
        assert!(!has_binary(&metadata, "conformance", "everything-client"));
        assert!(!has_binary(&metadata, "conformance", "conformance"));
    }
}
