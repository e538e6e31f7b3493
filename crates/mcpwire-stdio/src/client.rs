//! The client side of stdio: `StdioClient` configures and spawns a server process.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcpwire_jsonrpc::LineCodec;
use tokio::process::{ChildStdout, Command};

use crate::child::ChildProcess;
use crate::child_input::{ChildInput, SharedStdin};
use crate::error::ChildError;
use crate::stderr;
use crate::transport::StdioTransport;

/// The transport to a spawned server: it reads the child's stdout and
/// writes the child's stdin.
pub type ChildTransport = StdioTransport<ChildStdout, ChildInput>;

/// What becomes of a spawned server's stderr, set with
/// [`StdioClient::stderr`].
///
/// Whatever the choice, stderr output is never taken as a sign of an error
/// (STDIO-04): servers log everything there, errors and chatter alike.
///
/// The default, [`Trace`](Self::Trace), keeps the lines in `tracing`, so
/// without a subscriber they are not shown anywhere: a program that wants
/// to see a server's panics either installs a subscriber (e.g.
/// `tracing_subscriber::fmt().with_writer(std::io::stderr).init()`) or
/// picks [`Inherit`](Self::Inherit), which is also what a command-line tool
/// usually wants. [`Discard`](Self::Discard) is for servers known to be noisy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum StderrMode {
    /// Each line becomes a `tracing` event at level `info`, target
    /// `mcpwire_stdio::child`, with a field `server` naming the server.
    #[default]
    Trace,
    /// The child writes straight to this process's stderr.
    Inherit,
    /// The output is thrown away.
    Discard,
}

/// Configuration for starting an MCP server as a child process and talking
/// to it over its stdin and stdout, in the manner of
/// [`std::process::Command`].
///
/// ```no_run
/// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use mcpwire_stdio::{ShutdownOutcome, StdioClient};
///
/// let (transport, server) = StdioClient::new("my-mcp-server")
///     .arg("--verbose")
///     .env("API_TOKEN", "from-the-environment")
///     .stdin_close_grace(Duration::from_secs(5))
///     .spawn()?;
/// // ... drive a client session over `transport` ...
/// drop(transport);
/// let outcome = server.shutdown().await?;
/// if !matches!(outcome, ShutdownOutcome::ExitedOnEof(_)) {
///     eprintln!("the server had to be terminated: {outcome:?}");
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct StdioClient {
    program: OsString,
    args: Vec<OsString>,
    clear_env: bool,
    /// Variables to set (`Some`) or remove (`None`), in the order given.
    env: Vec<(OsString, Option<OsString>)>,
    current_dir: Option<PathBuf>,
    stderr: StderrMode,
    server_name: Option<String>,
    max_line_length: usize,
    stdin_close_grace: Duration,
    sigterm_grace: Duration,
}

/// Shows the variables set by name only: their values are often secrets
/// (API tokens), and `Debug` output ends up in logs.
impl std::fmt::Debug for StdioClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let env: Vec<String> = self
            .env
            .iter()
            .map(|(key, value)| match value {
                Some(_) => format!("{}=<redacted>", key.to_string_lossy()),
                None => format!("-{}", key.to_string_lossy()),
            })
            .collect();
        f.debug_struct("StdioClient")
            .field("program", &self.program)
            .field("args", &self.args)
            .field("clear_env", &self.clear_env)
            .field("env", &env)
            .field("current_dir", &self.current_dir)
            .field("stderr", &self.stderr)
            .field("server_name", &self.server_name)
            .field("max_line_length", &self.max_line_length)
            .field("stdin_close_grace", &self.stdin_close_grace)
            .field("sigterm_grace", &self.sigterm_grace)
            .finish()
    }
}

impl StdioClient {
    /// The default wait for the server to exit after its stdin is closed.
    pub const DEFAULT_STDIN_CLOSE_GRACE: Duration = Duration::from_secs(2);
    /// The default wait for the server to exit after `SIGTERM`.
    pub const DEFAULT_SIGTERM_GRACE: Duration = Duration::from_secs(2);

    /// A configuration that runs `program` (looked up in `PATH` when it has
    /// no slash) with no arguments, this process's environment and
    /// directory, and stderr forwarded to `tracing`.
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Self {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            clear_env: false,
            env: Vec::new(),
            current_dir: None,
            stderr: StderrMode::default(),
            server_name: None,
            max_line_length: LineCodec::DEFAULT_MAX_LINE_LENGTH,
            stdin_close_grace: Self::DEFAULT_STDIN_CLOSE_GRACE,
            sigterm_grace: Self::DEFAULT_SIGTERM_GRACE,
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_owned()));
        self
    }

    /// Sets an environment variable for the server (the place for its
    /// credentials on stdio, STDIO-06).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    /// Sets several environment variables.
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        for (key, value) in vars {
            self = self.env(key, value);
        }
        self
    }

    /// Keeps a variable of this process's environment from the server.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.env.push((key.as_ref().to_owned(), None));
        self
    }

    /// Starts the server with an empty environment plus only the variables
    /// set after this call (earlier `env` calls are forgotten, as with
    /// [`std::process::Command::env_clear`]).
    pub fn env_clear(mut self) -> Self {
        self.clear_env = true;
        self.env.clear();
        self
    }

    /// Runs the server in `dir` instead of this process's directory.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.current_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// What to do with the server's stderr; by default each line is
    /// forwarded to `tracing`.
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }

    /// The name that identifies the server in logs (the `server` field of
    /// forwarded stderr lines); by default the program's file name.
    pub fn server_name(mut self, name: impl Into<String>) -> Self {
        self.server_name = Some(name.into());
        self
    }

    /// The longest line accepted from the server, not counting the line
    /// ending; longer lines are dropped and reported as invalid.
    pub fn max_line_length(mut self, max_line_length: usize) -> Self {
        self.max_line_length = max_line_length;
        self
    }

    /// How long [`ChildProcess::shutdown`] waits for the server to exit
    /// after closing its stdin, before sending `SIGTERM` (2 s by default).
    pub fn stdin_close_grace(mut self, grace: Duration) -> Self {
        self.stdin_close_grace = grace;
        self
    }

    /// How long [`ChildProcess::shutdown`] waits for the server to exit
    /// after `SIGTERM`, before sending `SIGKILL` (2 s by default).
    pub fn sigterm_grace(mut self, grace: Duration) -> Self {
        self.sigterm_grace = grace;
        self
    }

    /// Starts the server and returns the transport to it and the handle
    /// that supervises it.
    ///
    /// The transport owns the child's stdin and stdout: its `close` closes
    /// the server's stdin even without the handle. The handle can still
    /// close stdin itself, as the first step of
    /// [`shutdown`](ChildProcess::shutdown). The configuration can be used
    /// again, for example to restart a server that exited unexpectedly.
    ///
    /// # Panics
    ///
    /// When called outside a tokio runtime with I/O enabled, as tokio's
    /// process support requires.
    pub fn spawn(&self) -> Result<(ChildTransport, ChildProcess), ChildError> {
        let spawn_error = |source: io::Error| ChildError::Spawn {
            program: self.program.to_string_lossy().into_owned(),
            source,
        };
        let mut child = self.command().spawn().map_err(spawn_error)?;
        // Both pipes were requested above, so they are present; the checks
        // turn an impossible absence into an error rather than a panic.
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| spawn_error(io::Error::other("stdin was not captured")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| spawn_error(io::Error::other("stdout was not captured")))?;

        let server_name = self.resolved_server_name();
        let stderr_forwarder = child
            .stderr
            .take()
            .map(|pipe| tokio::spawn(stderr::forward_lines(pipe, server_name.clone())));

        let shared_stdin = SharedStdin::new(stdin);
        let transport = StdioTransport::with_codec(
            stdout,
            ChildInput::new(shared_stdin.clone()),
            LineCodec::with_max_line_length(self.max_line_length),
        );
        let process = ChildProcess::new(
            child,
            shared_stdin,
            server_name,
            self.stdin_close_grace,
            self.sigterm_grace,
            stderr_forwarder,
        );
        Ok((transport, process))
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        if self.clear_env {
            command.env_clear();
        }
        for (key, value) in &self.env {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        if let Some(dir) = &self.current_dir {
            command.current_dir(dir);
        }
        let stderr = match self.stderr {
            StderrMode::Trace => Stdio::piped(),
            StderrMode::Inherit => Stdio::inherit(),
            StderrMode::Discard => Stdio::null(),
        };
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            // A process group of its own, led by the server: the signals of
            // `shutdown` and of dropping the handle reach whatever it started
            // (servers run through `npx` or `uv` are grandchildren), and a
            // Ctrl-C meant for this process does not hit it first.
            .process_group(0);
        command
    }

    fn resolved_server_name(&self) -> String {
        if let Some(name) = &self.server_name {
            return name.clone();
        }
        let program = Path::new(&self.program);
        program
            .file_name()
            .unwrap_or(program.as_os_str())
            .to_string_lossy()
            .into_owned()
    }
}
