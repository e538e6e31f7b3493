//! `mcpwire`: a command-line MCP client and bridge built on the public API
//! of the mcpwire crates: inspect a server, call its tools, read its
//! resources, get its prompts, follow its logs, and bridge stdio and HTTP.
//!
//! Tasks (2025-11-25, negotiated for them): `call TOOL --task` starts the
//! call as a task, prints its id, polls it to its end and prints the result
//! (Ctrl-C cancels it); `tasks list|get|result|cancel` work on the tasks a
//! server keeps for this client.
//!
//! Skills (extension `io.modelcontextprotocol/skills`): `skills list|get`
//! show entries and manifests; `skills read` loads a skill as a host does,
//! every byte verified against its entry.
//!
//! OAuth: `login URL` runs the authorization flow (a loopback redirect and
//! the browser, or `--redirect-capture` / `MCPWIRE_LOGIN_CAPTURE=1` for
//! servers that approve without a user) and keeps the tokens in a 0600 file
//! (`--token-file`, else `$MCPWIRE_TOKEN_FILE`, else
//! `$XDG_CONFIG_HOME/mcpwire/tokens.json` or `~/.config/mcpwire/tokens.json`);
//! every later command for that URL sends them, refreshing as needed;
//! `logout URL` forgets them.
//!
//! Exit codes: 0 success, 1 a tool reported an error (`isError`), 2 usage
//! error, 3 connection or protocol error, 130 interrupted (Ctrl-C).

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

mod arguments;
mod auth;
mod bridge;
mod check;
mod cli;
mod commands;
mod config;
mod demo;
mod error;
mod interact;
mod output;
mod relay;
mod session;
mod skill_commands;
mod target;
mod task_commands;

use cli::{Cli, Command};
use error::{CliError, CliResult};

/// Runs one command line.
async fn run(cli: Cli) -> CliResult {
    let global = &cli.global;
    match &cli.command {
        Command::Inspect(args) => commands::inspect(args, global).await,
        Command::Call(args) => commands::call(args, global).await,
        Command::Read(args) => commands::read(args, global).await,
        Command::Prompt(args) => commands::prompt(args, global).await,
        Command::Complete(args) => commands::complete(args, global).await,
        Command::Ping(args) => commands::ping(args, global).await,
        Command::Check(args) => check::check(args, global).await,
        Command::Logs(args) => commands::logs(args, global).await,
        Command::Login(args) => auth::login(args, global).await,
        Command::Logout(args) => auth::logout(args, global),
        Command::Tasks { action } => task_commands::tasks(action, global).await,
        Command::Skills { action } => skill_commands::skills(action, global).await,
        Command::Bridge(args) => bridge::bridge(args, global).await,
        Command::Demo => demo::demo(global).await,
        Command::ServeDemo => demo::serve_demo().await,
        Command::Completions { shell } => {
            let mut command = Cli::command();
            clap_complete::generate(*shell, &mut command, "mcpwire", &mut std::io::stdout());
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    // Usage errors exit 2 through clap, with its message and usage line.
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return CliError::connection(error).exit_code();
        }
    };
    let outcome = runtime.block_on(run(cli));
    // Do not wait for tasks still blocked on the terminal or the network.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if let Some(message) = error.message() {
                eprintln!("{message}");
            }
            error.exit_code()
        }
    }
}
