//! `ChildProcess`: the handle on a spawned server, and its shutdown sequence.

use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::process::Child;
use tokio::task::JoinHandle;
use tokio::time::timeout;

use crate::child_input::SharedStdin;
use crate::error::ChildError;

/// How long `shutdown` waits, once the child has ended, for the last lines
/// of its stderr to be forwarded (a grandchild may keep the pipe open).
const STDERR_DRAIN: Duration = Duration::from_secs(1);

/// How a child process ended under [`ChildProcess::shutdown`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShutdownOutcome {
    /// It exited within the first grace period after its stdin was closed,
    /// or had already exited: the graceful end the protocol asks for.
    ExitedOnEof(ExitStatus),
    /// It had already ended, or ended after its stdin was closed, by a
    /// signal this client did not send: a crash (`SIGSEGV`, `SIGABRT`) or
    /// a kill from outside. `status.signal()` names it.
    Signalled(ExitStatus),
    /// It ignored the end of its input but exited after `SIGTERM`.
    ExitedAfterSigterm(ExitStatus),
    /// It ignored `SIGTERM` too and was killed with `SIGKILL`.
    Killed(ExitStatus),
}

impl ShutdownOutcome {
    /// The exit status, whichever way the child ended.
    pub fn status(&self) -> ExitStatus {
        match *self {
            Self::ExitedOnEof(status)
            | Self::Signalled(status)
            | Self::ExitedAfterSigterm(status)
            | Self::Killed(status) => status,
        }
    }
}

/// The handle on a server process started by
/// [`StdioClient::spawn`](crate::StdioClient::spawn).
///
/// The client owns the server's lifetime (STDIO-07). End it with
/// [`shutdown`](Self::shutdown), which follows the protocol's sequence.
/// Dropping the handle kills the process at once (`SIGKILL`), so a
/// forgotten handle never leaves a server running.
#[derive(Debug)]
pub struct ChildProcess {
    child: Child,
    stdin: Arc<SharedStdin>,
    server_name: String,
    stdin_close_grace: Duration,
    sigterm_grace: Duration,
    /// The task forwarding stderr to `tracing`, when stderr is forwarded.
    stderr_forwarder: Option<JoinHandle<()>>,
    /// The server's process group (led by the server), until signalled for
    /// good.
    group: Option<i32>,
}

impl ChildProcess {
    pub(crate) fn new(
        child: Child,
        stdin: Arc<SharedStdin>,
        server_name: String,
        stdin_close_grace: Duration,
        sigterm_grace: Duration,
        stderr_forwarder: Option<JoinHandle<()>>,
    ) -> Self {
        let group = child.id().and_then(|pid| i32::try_from(pid).ok());
        Self {
            child,
            stdin,
            server_name,
            stdin_close_grace,
            sigterm_grace,
            stderr_forwarder,
            group,
        }
    }

    /// The name the server goes by in logs (by default, the program's file
    /// name).
    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    /// The operating system's id of the process, while it has not been
    /// reaped.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Closes the server's stdin now, whether or not the transport is still
    /// in use: the server reads end of input, and a `send` on the transport
    /// fails from then on. Closing twice does nothing.
    pub fn close_stdin(&self) {
        self.stdin.close();
    }

    /// The exit status, if the process has ended.
    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>, ChildError> {
        self.child.try_wait().map_err(ChildError::Wait)
    }

    /// Waits for the process to end on its own, sending nothing. Cancel
    /// safe: dropping the future loses nothing, so it can watch for an
    /// unexpected exit alongside other work.
    pub async fn wait(&mut self) -> Result<ExitStatus, ChildError> {
        self.child.wait().await.map_err(ChildError::Wait)
    }

    /// Ends the server the way the protocol asks (LIFE-15): close its stdin,
    /// wait up to the first grace period for it to exit, then send
    /// `SIGTERM`, wait up to the second grace period, then `SIGKILL` it.
    /// Returns how it ended once it has been reaped.
    ///
    /// Call the transport's `close` first if packets may still be on their
    /// way: this closes stdin without flushing what a pending `send` has not
    /// written yet. If this future is dropped, or fails, the handle is
    /// dropped with it and the process killed.
    pub async fn shutdown(mut self) -> Result<ShutdownOutcome, ChildError> {
        let outcome = self.escalate().await?;
        self.finish_stderr().await;
        tracing::debug!(
            target: crate::stderr::TARGET,
            server = self.server_name.as_str(),
            ?outcome,
            "server process ended"
        );
        Ok(outcome)
    }

    async fn escalate(&mut self) -> Result<ShutdownOutcome, ChildError> {
        let outcome = self.escalate_leader().await;
        // Whatever the server started and left behind goes with it, once.
        self.kill_group();
        self.group = None;
        outcome
    }

    async fn escalate_leader(&mut self) -> Result<ShutdownOutcome, ChildError> {
        self.stdin.close();
        if let Ok(status) = timeout(self.stdin_close_grace, self.child.wait()).await {
            let status = status.map_err(ChildError::Wait)?;
            // Only the stdin was closed so far: a signal came from elsewhere.
            return Ok(
                if std::os::unix::process::ExitStatusExt::signal(&status).is_some() {
                    ShutdownOutcome::Signalled(status)
                } else {
                    ShutdownOutcome::ExitedOnEof(status)
                },
            );
        }

        // The child cannot have been reaped yet (the wait above would have
        // returned its status), so its pid still names it, and its group.
        if let Some(group) = self.group {
            match kill(Pid::from_raw(-group), Signal::SIGTERM) {
                Ok(()) | Err(Errno::ESRCH) => {}
                Err(errno) => return Err(ChildError::Signal(errno.into())),
            }
        }
        if let Ok(status) = timeout(self.sigterm_grace, self.child.wait()).await {
            return Ok(ShutdownOutcome::ExitedAfterSigterm(
                status.map_err(ChildError::Wait)?,
            ));
        }

        if let Err(error) = self.child.start_kill() {
            // Refused only for a process already reaped: it exited on the
            // SIGTERM after all.
            return match self.try_wait()? {
                Some(status) => Ok(ShutdownOutcome::ExitedAfterSigterm(status)),
                None => Err(ChildError::Signal(error)),
            };
        }
        let status = self.child.wait().await.map_err(ChildError::Wait)?;
        Ok(ShutdownOutcome::Killed(status))
    }

    /// Lets the stderr forwarder log what the child wrote before it ended.
    async fn finish_stderr(&mut self) {
        if let Some(mut forwarder) = self.stderr_forwarder.take()
            && timeout(STDERR_DRAIN, &mut forwarder).await.is_err()
        {
            forwarder.abort();
        }
    }
}

impl ChildProcess {
    /// Sends `SIGKILL` to the server's process group: whatever the server
    /// started and left behind (a group outlives its leader).
    fn kill_group(&self) {
        if let Some(group) = self.group {
            let _ = kill(Pid::from_raw(-group), Signal::SIGKILL);
        }
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        // `kill_on_drop` kills the server; its descendants share its group.
        self.kill_group();
        // The child itself is killed by `kill_on_drop`; the forwarder would
        // end with the stderr pipe, but a grandchild may hold that open.
        if let Some(forwarder) = self.stderr_forwarder.take() {
            forwarder.abort();
        }
    }
}
