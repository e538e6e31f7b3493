//! Running the built `mcpwire` binary with bounded waits, and a bridge
//! serving the demo server on 127.0.0.1 for the duration of a test.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The longest any one command of a test may run.
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// The binary under test.
pub(crate) fn mcpwire() -> &'static str {
    env!("CARGO_BIN_EXE_mcpwire")
}

/// What a finished command left.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Outcome {
    /// The exit code (`None` when killed by a signal).
    pub(crate) fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Stdout as JSON; panics with both streams when it is not.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("stdout is not JSON ({error}): {self:?}"))
    }
}

/// Waits for `child` for at most `timeout`, killing it after that.
pub(crate) fn wait_bounded(child: &mut Child, timeout: Duration) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            panic!("the command did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Collects a child's stdout and stderr on threads of their own.
fn collect(child: &mut Child) -> (mpsc::Receiver<String>, mpsc::Receiver<String>) {
    let read_all = |mut stream: Box<dyn Read + Send>| {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stream.read_to_string(&mut text);
            let _ = tx.send(text);
        });
        rx
    };
    let stdout = read_all(Box::new(child.stdout.take().unwrap()));
    let stderr = read_all(Box::new(child.stderr.take().unwrap()));
    (stdout, stderr)
}

/// Starts `mcpwire ARGS` with stdin not a terminal (empty) and the given
/// working directory.
pub(crate) fn start(args: &[&str]) -> Child {
    Command::new(mcpwire())
        .args(args)
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `mcpwire ARGS` to its end.
pub(crate) fn run(args: &[&str]) -> Outcome {
    let mut child = start(args);
    finish(&mut child)
}

/// Waits for a started command and collects its output.
pub(crate) fn finish(child: &mut Child) -> Outcome {
    let (stdout, stderr) = collect(child);
    let status = wait_bounded(child, COMMAND_TIMEOUT);
    Outcome {
        status,
        stdout: stdout.recv_timeout(COMMAND_TIMEOUT).unwrap(),
        stderr: stderr.recv_timeout(COMMAND_TIMEOUT).unwrap(),
    }
}

/// `args` followed by `-- mcpwire serve-demo`: the demo server over stdio.
pub(crate) fn with_demo<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.extend(["--", mcpwire(), "serve-demo"]);
    all
}

/// Sends SIGINT to a process this test started.
pub(crate) fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// A directory of a test's own under the system's temporary directory,
/// removed with what it holds when dropped (also when the test fails).
pub(crate) struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh directory under the system's temporary directory.
pub(crate) fn temp_dir(name: &str) -> TempDir {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir =
        std::env::temp_dir().join(format!("mcpwire-cli-{name}-{}-{stamp}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// `mcpwire bridge --listen 127.0.0.1:0 [EXTRA] -- mcpwire serve-demo`,
/// stopped with SIGINT when dropped.
pub(crate) struct Bridge {
    child: Child,
    /// The Streamable HTTP endpoint (the first line of the bridge's stdout).
    pub(crate) url: String,
}

impl Bridge {
    /// Starts a bridge to the demo server and waits for its URL.
    pub(crate) fn start(extra: &[&str]) -> Self {
        Self::start_command(extra, &[mcpwire(), "serve-demo"])
    }

    /// Starts a bridge to the stdio server `command` and waits for its URL.
    pub(crate) fn start_command(extra: &[&str], command: &[&str]) -> Self {
        let mut args = vec!["bridge", "--listen", "127.0.0.1:0"];
        args.extend(extra);
        args.push("--");
        args.extend(command);
        let mut child = Command::new(mcpwire())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut first = String::new();
            let _ = BufReader::new(stdout).read_line(&mut first);
            let _ = tx.send(first);
        });
        let url = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the bridge printed no URL")
            .trim()
            .to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
            "{url:?}"
        );
        Self { child, url }
    }

    /// The legacy HTTP+SSE endpoint beside it.
    pub(crate) fn sse_url(&self) -> String {
        self.url.replace("/mcp", "/sse")
    }

    /// The `host:port` it listens on.
    pub(crate) fn address(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned()
    }

    /// Stops it with SIGINT and returns how it ended.
    pub(crate) fn stop(mut self) -> ExitStatus {
        interrupt(&self.child);
        let status = wait_bounded(&mut self.child, Duration::from_secs(20));
        // Disarm Drop: the child has been reaped.
        self.child = Command::new("true").spawn().unwrap();
        let _ = self.child.wait();
        status
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `mcpwire ARGS` on a pseudo-terminal (through
/// util-linux `script`), typing `input`; returns what the terminal showed,
/// or `None` when `script` is not installed.
pub(crate) fn on_terminal(args: &[&str], input: &str) -> Option<(Option<i32>, String)> {
    use std::io::Write;

    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is not installed, so no terminal can be simulated");
        return None;
    }
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let command = format!("'{}' {}", mcpwire(), quoted.join(" "));
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    // Keep the terminal's input open until the command is done: its end
    // would reach the command as end of input.
    let out = finish(&mut child);
    drop(stdin);
    Some((out.code(), out.stdout))
}
