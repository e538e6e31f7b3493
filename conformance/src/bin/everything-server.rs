//! The everything-server binary: `--stdio` serves on stdin and stdout,
//! `--http ADDRESS` serves HTTP and prints its two URLs on stdout; with
//! `--redis URL [--state-key HEX]` too, it is one of several instances
//! that share their state in Redis (`conformance::scale_out`).
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
use conformance::scale_out::{self, SharedState, parse_state_key};

/// What `--help` and usage errors print.
const USAGE: &str = "\
usage: everything-server --stdio
       everything-server --http ADDRESS   (e.g. 127.0.0.1:0)
       everything-server --http ADDRESS --redis URL [--state-key HEX]

--stdio      serve MCP on stdin and stdout
--http       serve Streamable HTTP and the legacy HTTP+SSE endpoint on ADDRESS;
             print the Streamable HTTP URL, then the legacy URL, one per line
--redis      keep the Streamable HTTP sessions, stream events, message bus and
             tasks in the Redis at URL (e.g. redis://127.0.0.1:6379/), shared
             with every instance given the same URL; the legacy HTTP+SSE
             endpoint stays per instance
--state-key  the key sealing requestState (64 hex digits), the same on every
             instance sharing the Redis; without it, the instances share a
             key ring kept in the Redis
";

/// How long the process waits for tokio's blocking stdin reader after
/// serving ended (it cannot be interrupted; see `mcpwire_stdio::stdio`).
const SHUTDOWN_GRACE: Duration = Duration::from_millis(200);

/// How the server is asked to run.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    Stdio,
    Http(SocketAddr, Option<SharedState>),
    Help,
}

/// Reads the command line (without the program name).
fn parse(args: &[String]) -> Result<Mode, String> {
    match args {
        [flag] if flag == "--stdio" => Ok(Mode::Stdio),
        [flag] if flag == "--help" || flag == "-h" => Ok(Mode::Help),
        [flag, address, rest @ ..] if flag == "--http" => {
            let address = address
                .parse()
                .map_err(|error| format!("--http needs an address like 127.0.0.1:0: {error}"))?;
            Ok(Mode::Http(address, parse_shared(rest)?))
        }
        [] => Err("choose --stdio or --http ADDRESS".to_owned()),
        other => Err(format!("unexpected arguments {other:?}")),
    }
}

/// Reads `--redis URL --state-key HEX` (in either order), or nothing.
fn parse_shared(args: &[String]) -> Result<Option<SharedState>, String> {
    let (mut redis_url, mut state_key) = (None, None);
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let Some(value) = rest.next() else {
            return Err(format!("{flag} needs a value"));
        };
        match flag.as_str() {
            "--redis" => redis_url = Some(value.clone()),
            "--state-key" => state_key = Some(parse_state_key(value)?),
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    match (redis_url, state_key) {
        (None, None) => Ok(None),
        (Some(redis_url), state_key) => Ok(Some(SharedState {
            redis_url,
            state_key,
        })),
        (None, Some(_)) => Err("--state-key needs --redis".to_owned()),
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
            Mode::Http(address, None) => http::serve(server, address, announce)
                .await
                .map_err(|error: HttpError| (ExitCode::FAILURE, error.to_string())),
            Mode::Http(address, Some(shared)) => scale_out::serve(&shared, address, announce)
                .await
                .map_err(|error| (ExitCode::FAILURE, error.to_string())),
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
            Ok(Mode::Http("127.0.0.1:0".parse().unwrap(), None))
        );
    }

    #[test]
    fn a_state_key_needs_redis_and_redis_takes_an_optional_state_key() {
        let key = "ab".repeat(32);
        let shared = SharedState {
            redis_url: "redis://127.0.0.1:6379/".to_owned(),
            state_key: Some([0xab; 32]),
        };
        assert_eq!(
            parse(&args(&[
                "--http",
                "127.0.0.1:0",
                "--state-key",
                &key,
                "--redis",
                "redis://127.0.0.1:6379/"
            ])),
            Ok(Mode::Http("127.0.0.1:0".parse().unwrap(), Some(shared)))
        );
        let url = "redis://127.0.0.1:6379/";
        let ring = SharedState {
            redis_url: url.to_owned(),
            state_key: None,
        };
        assert_eq!(
            parse(&args(&["--http", "127.0.0.1:0", "--redis", url])),
            Ok(Mode::Http("127.0.0.1:0".parse().unwrap(), Some(ring)))
        );
        assert!(parse(&args(&["--http", "127.0.0.1:0", "--state-key", &key])).is_err());
        assert!(
            parse(&args(&[
                "--http",
                "127.0.0.1:0",
                "--state-key",
                "abc",
                "--redis",
                url
            ]))
            .is_err()
        );
        assert!(parse(&args(&["--http", "127.0.0.1:0", "--redis"])).is_err());
    }

    #[test]
    fn a_missing_mode_or_bad_address_is_refused() {
        assert!(parse(&args(&[])).is_err());
        assert!(parse(&args(&["--http"])).is_err());
        assert!(parse(&args(&["--http", "localhost"])).is_err());
        assert!(parse(&args(&["--stdio", "extra"])).is_err());
    }
}
