//! The everything-client binary: `everything-client <server URL>`, with the
//! scenario named in `MCP_CONFORMANCE_SCENARIO`, as the official
//! conformance runner starts it for each client scenario.
//!
//! It exits 0 when the scenario ran to its end, and 1 when it failed, is
//! not supported or unknown, or the invocation is wrong (the reason goes to
//! stderr), as the runner expects of a client. It gives
//! up on its own after [`DEADLINE`], before the runner's 30 s timeout, so
//! that a hung scenario still ends with a reason. Logs go to stderr, which
//! the runner keeps beside the scenario's results.

use std::process::ExitCode;
use std::time::Duration;

use conformance::client::{self, CONTEXT_VAR, Invocation, SCENARIO_VAR, VERSION_VAR};

/// How long one scenario may take, end to end.
const DEADLINE: Duration = Duration::from_secs(25);

/// How long the runtime waits for its tasks after the scenario ended.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(200);

/// What usage errors print.
const USAGE: &str = "\
usage: MCP_CONFORMANCE_SCENARIO=NAME everything-client SERVER_URL

optional environment: MCP_CONFORMANCE_PROTOCOL_VERSION (the revision to speak),
MCP_CONFORMANCE_CONTEXT (the scenario's data, a JSON object)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let invocation = match Invocation::read(
        &args,
        std::env::var(SCENARIO_VAR).ok(),
        std::env::var(VERSION_VAR).ok(),
        std::env::var(CONTEXT_VAR).ok(),
    ) {
        Ok(invocation) => invocation,
        Err(message) => {
            eprintln!("everything-client: {message}\n\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("everything-client: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match tokio::time::timeout(DEADLINE, client::run(&invocation)).await {
            Ok(outcome) => outcome.map_err(|error| error.to_string()),
            Err(_) => Err(format!("the scenario did not finish within {DEADLINE:?}")),
        }
    });
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    match outcome {
        Ok(()) => {
            eprintln!("everything-client: {} done", invocation.name);
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("everything-client: {}: {message}", invocation.name);
            ExitCode::FAILURE
        }
    }
}
