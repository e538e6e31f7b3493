//! The everything-server binary: `--stdio` serves on stdin and stdout,
//! `--http ADDRESS` serves HTTP and prints its two URLs on stdout.
//!
//! `cargo xtask conformance server` starts it with `--http 127.0.0.1:0`
//! and reads the first stdout line (the Streamable HTTP URL) to point the
//! runner at it; the second line is the legacy HTTP+SSE URL. Logs go to
//! stderr in both modes.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use conformance::everything;
use conformance::http::{self, Endpoints, HttpError};

/// What `--help` and usage errors print.
const USAGE: &str = "\
usage: everything-server --stdio
       everything-server --http ADDRESS   (e.g. 127.0.0.1:0)

--stdio  serve MCP on stdin and stdout
--http   serve Streamable HTTP and the legacy HTTP+SSE endpoint on ADDRESS;
         print the Streamable HTTP URL, then the legacy URL, one per line
";

/// How long the process waits for tokio's blocking stdin reader after
/// serving ended (it cannot be interrupted; see `mcpwire_stdio::stdio`).
const SHUTDOWN_GRACE: Duration = Duration::from_millis(200);

/// How the server is asked to run.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    Stdio,
    Http(SocketAddr),
    Help,
}

/// Reads the command line (without the program name).
fn parse(args: &[String]) -> Result<Mode, String> {
    match args {
        [flag] if flag == "--stdio" => Ok(Mode::Stdio),
        [flag] if flag == "--help" || flag == "-h" => Ok(Mode::Help),
        [flag, address] if flag == "--http" => address
            .parse()
            .map(Mode::Http)
            .map_err(|error| format!("--http needs an address like 127.0.0.1:0: {error}")),
        [] => Err("choose --stdio or --http ADDRESS".to_owned()),
        other => Err(format!("unexpected arguments {other:?}")),
    }
}

/// Prints the endpoints on stdout, one per line, and flushes: the reader
/// waits for these lines before it starts the runner.
fn announce(endpoints: &Endpoints) -> std::io::Result<()> {
    // In HTTP mode stdout is ours to print on: it carries no protocol.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", endpoints.streamable)?;
    writeln!(stdout, "{}", endpoints.legacy)?;
    stdout.flush()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match parse(&args) {
        Ok(Mode::Help) => {
            eprint!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(mode) => mode,
        Err(message) => {
            eprintln!("everything-server: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    // Only protocol messages may reach stdout on stdio: logs go to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .init();
    let server = match everything::server() {
        Ok(server) => server,
        Err(error) => {
            eprintln!("everything-server: the fixtures do not build: {error}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("everything-server: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async move {
        match mode {
            Mode::Stdio => server
                .serve(mcpwire_stdio::stdio())
                .await
                .map_err(|error| (ExitCode::FAILURE, error.to_string())),
            Mode::Http(address) => http::serve(server, address, announce)
                .await
                .map_err(|error: HttpError| (ExitCode::FAILURE, error.to_string())),
            Mode::Help => Ok(()),
        }
    });
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            eprintln!("everything-server: {message}");
            code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn the_two_modes_parse() {
        assert_eq!(parse(&args(&["--stdio"])), Ok(Mode::Stdio));
        assert_eq!(
            parse(&args(&["--http", "127.0.0.1:0"])),
            Ok(Mode::Http("127.0.0.1:0".parse().unwrap()))
        );
    }

    #[test]
    fn a_missing_mode_or_bad_address_is_refused() {
        assert!(parse(&args(&[])).is_err());
        assert!(parse(&args(&["--http"])).is_err());
        assert!(parse(&args(&["--http", "localhost"])).is_err());
        assert!(parse(&args(&["--stdio", "extra"])).is_err());
    }
}
