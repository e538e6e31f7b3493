//! Keeping the client scenarios on loopback: the runner's mock servers
//! bind to every interface, so when this runs as root and `unshare` works,
//! the client-mode runner runs in a fresh network namespace whose only
//! interface is loopback (`CONTRACT.md` C.2); otherwise it runs as it is,
//! with a warning.
//!
//! Also here: running a process with a wall-clock bound, so that no runner
//! invocation can hang the command.

use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// The script `unshare` runs inside the new namespace: bring loopback up,
/// then become the command given after it (`$0` and `$@`), so that no
/// argument passes through a shell's word splitting.
const NAMESPACE_SCRIPT: &str = "ip link set lo up && exec \"$0\" \"$@\"";

/// How often a bounded wait checks its child.
const POLL: Duration = Duration::from_millis(50);

/// Where the client-mode runner runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Network {
    /// In a fresh network namespace with only loopback, up.
    LoopbackOnly,
    /// In this process's namespace; the reason says why.
    Shared(String),
}

/// The user id in the text of `/proc/self/status` (its real uid).
fn uid_in_status(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Finds out whether client runs can be isolated on this machine: as
/// root, by trying `unshare` (and `ip`) once.
pub(crate) fn probe() -> Network {
    let uid = std::fs::read_to_string("/proc/self/status")
        .ok()
        .as_deref()
        .and_then(uid_in_status);
    if uid != Some(0) {
        return Network::Shared("not running as root (a network namespace needs root)".to_owned());
    }
    let tried = Command::new("unshare")
        .args(["-n", "sh", "-c", "ip link set lo up"])
        .output();
    match tried {
        Ok(output) if output.status.success() => Network::LoopbackOnly,
        Ok(output) => Network::Shared(format!(
            "`unshare -n sh -c 'ip link set lo up'` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(error) => Network::Shared(format!("cannot run `unshare`: {error}")),
    }
}

impl Network {
    /// What to tell the user before the client scenarios run.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::LoopbackOnly => {
                "conformance: client scenarios run in a network namespace with only loopback"
                    .to_owned()
            }
            Self::Shared(reason) => format!(
                "conformance: WARNING: the runner's mock servers will listen on every network \
                 interface while the client scenarios run: {reason}"
            ),
        }
    }

    /// A command running `program` (then the arguments the caller adds) in
    /// this network.
    pub(crate) fn command(&self, program: &Path) -> Command {
        match self {
            Self::LoopbackOnly => {
                let mut command = Command::new("unshare");
                command
                    .args(["-n", "sh", "-c", NAMESPACE_SCRIPT])
                    .arg(program);
                command
            }
            Self::Shared(_) => Command::new(program),
        }
    }
}

/// Waits for `child` at most `limit`; past it, kills the child (its pid
/// only) and says so.
pub(crate) fn wait_bounded(mut child: Child, limit: Duration) -> Result<ExitStatus, String> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if started.elapsed() < limit => std::thread::sleep(POLL),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "it did not finish within {limit:?} and was stopped"
                ));
            }
            Err(error) => return Err(format!("cannot wait for it: {error}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_uid_is_read_from_proc_status() {
        let status = "Name:\txtask\nUid:\t1000\t1000\t1000\t1000\nGid:\t0\n";
        assert_eq!(uid_in_status(status), Some(1000));
        assert_eq!(uid_in_status("Uid:\t0\t0\t0\t0\n"), Some(0));
        assert_eq!(uid_in_status("Name: x\n"), None);
    }

    #[test]
    fn an_isolated_command_brings_loopback_up_then_execs_the_program() {
        let command = Network::LoopbackOnly.command(Path::new("/opt/node"));
        assert_eq!(command.get_program(), "unshare");
        let args: Vec<_> = command.get_args().collect();
        assert_eq!(args, ["-n", "sh", "-c", NAMESPACE_SCRIPT, "/opt/node"]);
        let shared = Network::Shared("no root".to_owned()).command(Path::new("/opt/node"));
        assert_eq!(shared.get_program(), "/opt/node");
        assert!(
            Network::Shared("no root".to_owned())
                .describe()
                .contains("WARNING")
        );
    }

    #[test]
    fn a_bounded_wait_returns_the_status_or_stops_the_child() {
        let quick = Command::new("true").spawn().unwrap();
        assert!(
            wait_bounded(quick, Duration::from_secs(10))
                .unwrap()
                .success()
        );
        let slow = Command::new("sleep").arg("5").spawn().unwrap();
        let started = Instant::now();
        let error = wait_bounded(slow, Duration::from_millis(100)).unwrap_err();
        assert!(error.contains("stopped"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(4));
    }
}
