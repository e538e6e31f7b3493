//! Load clients: each spawns one server process, opens it (cold start to
//! the first answer), drives `echo` calls at a fixed concurrency for a
//! fixed time and reads the server's CPU and memory from `/proc`.

pub mod codec;
pub mod http;
pub mod scale;
pub mod stdio;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use crate::messages::Era;

/// How long a server may take to answer any one call before the run is
/// abandoned as failed.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

/// How long a server may take to start and answer its first request: far
/// longer than a call, because under valgrind reading the debug
/// information of an unoptimized binary takes a while.
pub const OPEN_TIMEOUT: Duration = Duration::from_secs(180);

/// A server program and its arguments.
#[derive(Debug, Clone)]
pub struct ServerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

impl ServerCommand {
    /// `program` with `args`.
    pub fn new(program: impl Into<PathBuf>, args: &[&str]) -> Self {
        Self {
            program: program.into(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        }
    }

    /// A tokio command with stdin and stdout piped, stderr discarded, killed
    /// when dropped so that no failed run leaves a server behind.
    pub(crate) fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        command
    }

    /// Spawns the server as [`command`](Self::command) makes it, with its
    /// process id.
    pub(crate) fn spawn(&self) -> Result<(tokio::process::Child, u32), String> {
        let child = self
            .command()
            .spawn()
            .map_err(|error| format!("cannot spawn {}: {error}", self.program.display()))?;
        let pid = child.id().ok_or("the server exited at once")?;
        Ok((child, pid))
    }
}

/// The shape of one load run.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// Requests in flight at once (stdio) or connections (HTTP, one
    /// request in flight each).
    pub concurrency: usize,
    /// About how many bytes each request is.
    pub size: usize,
    /// Which era the client speaks.
    pub era: Era,
    /// Calls made before measuring (warm caches, grown buffers).
    pub warmup: Duration,
    /// How long calls are measured.
    pub duration: Duration,
    /// Stop after this many calls in all, if that comes first (profiling
    /// runs want a fixed count, not a fixed time).
    pub max_calls: Option<u64>,
}
