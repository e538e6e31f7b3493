//! The command line: every subcommand and option, as clap derive types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use clap_complete::Shell;

/// Appends the description of targets to a command's examples.
macro_rules! concat_help {
    ($examples:literal) => {
        concat!(
            $examples,
            "\n\n",
            "Targets:
  http://host/mcp, https://...   Streamable HTTP, falling back to legacy HTTP+SSE
  -- COMMAND [ARGS...]           a stdio server started as a child process
  NAME with --config FILE        a server of an `mcpServers` JSON file"
        )
    };
}

/// A command-line client for Model Context Protocol servers.
#[derive(Debug, Parser)]
#[command(
    name = "mcpwire",
    version,
    about = "Inspect, call and bridge Model Context Protocol (MCP) servers.",
    after_help = "Examples:
  mcpwire inspect -- npx -y @modelcontextprotocol/server-everything
  mcpwire call http://127.0.0.1:3000/mcp add_note title=Hi body=there
  mcpwire --config mcp.json read notes notes://all
  mcpwire bridge --listen 127.0.0.1:8080 -- my-stdio-server
  mcpwire demo

Exit codes: 0 success, 1 the tool reported an error, 2 usage error,
3 connection or protocol error, 130 interrupted."
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: GlobalOptions,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every command takes.
#[derive(Debug, Clone, Args)]
pub(crate) struct GlobalOptions {
    /// Print machine-readable JSON on stdout instead of tables and text.
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// A JSON file in the common `mcpServers` shape; a server's name then
    /// works as a target.
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Speak this protocol revision (e.g. 2025-06-18) instead of
    /// negotiating the newest both sides know.
    #[arg(long, global = true, value_name = "REVISION")]
    pub(crate) protocol_version: Option<String>,
    /// An HTTP header sent with every request to a URL target
    /// ("Name: value"); may be repeated.
    #[arg(long = "header", short = 'H', global = true, value_name = "HEADER")]
    pub(crate) headers: Vec<String>,
    /// How long a request may wait for its answer, in seconds.
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 60)]
    pub(crate) timeout: u64,
    /// The file OAuth tokens are kept in (default: $MCPWIRE_TOKEN_FILE,
    /// else $XDG_CONFIG_HOME/mcpwire/tokens.json, else
    /// ~/.config/mcpwire/tokens.json).
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) token_file: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Show the server: identity, revision, capabilities, instructions,
    /// tools, resources, templates and prompts.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire inspect -- npx -y @modelcontextprotocol/server-everything
  mcpwire inspect http://127.0.0.1:3000/mcp --json"
    ))]
    Inspect(TargetArgs),
    /// Call a tool with KEY=VALUE arguments (typed by its input schema) or
    /// --args-json.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire call add_note title=Groceries body='eggs, milk' -- ./server
  mcpwire call http://127.0.0.1:3000/mcp search_notes query=milk
  mcpwire call http://127.0.0.1:3000/mcp add --args-json '{\"a\": 1, \"b\": 2}'

Values are read by the tool's input schema: numbers and booleans as such,
objects and arrays as JSON, everything else as a string. Images and audio
are saved to files (see --output-dir) whose paths are printed."
    ))]
    Call(CallArgs),
    /// Read a resource by URI.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire read http://127.0.0.1:3000/mcp notes://all
  mcpwire read notes://note/0 -- ./server"
    ))]
    Read(ReadArgs),
    /// Get a prompt with KEY=VALUE arguments.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire prompt http://127.0.0.1:3000/mcp summarize_note id=0"
    ))]
    Prompt(PromptArgs),
    /// Complete an argument of a prompt or of a resource template.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire complete --prompt summarize_note --argument id -- ./server
  mcpwire complete --template 'notes://note/{id}' --argument id --value 1 http://127.0.0.1:3000/mcp"
    ))]
    Complete(CompleteArgs),
    /// Check that the server answers.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire ping http://127.0.0.1:3000/mcp"
    ))]
    Ping(TargetArgs),
    /// Check the server against the spec: negotiation in every revision,
    /// listings against the official schemas, error codes, ping; exit 1
    /// when a check failed.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire check -- ./my-server
  mcpwire check http://127.0.0.1:3000/mcp --json
  mcpwire check --revision 2025-06-18 --junit check.xml -- ./my-server
  mcpwire check --call-tools http://127.0.0.1:3000/mcp

Each finding names the rule of the spec it breaks (an id of the spec's
REQUIREMENTS.md), what was sent, what came back, and how to fix it. Tools
are called only with --call-tools (they may have side effects)."
    ))]
    Check(crate::check::CheckArgs),
    /// List, inspect, fetch the result of, or cancel the server's tasks
    /// (protocol 2025-11-25).
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire tasks list http://127.0.0.1:3000/mcp
  mcpwire tasks get http://127.0.0.1:3000/mcp 786512e2-9e0d-44bd-8f29-789f320fe840
  mcpwire tasks result http://127.0.0.1:3000/mcp 786512e2-9e0d-44bd-8f29-789f320fe840
  mcpwire tasks cancel http://127.0.0.1:3000/mcp 786512e2-9e0d-44bd-8f29-789f320fe840

Tasks use the 2025-11-25 revision (tasks/list, tasks/get, tasks/result,
tasks/cancel), which these commands negotiate unless --protocol-version
names another revision (an error). Servers may keep tasks per session
(mcpwire's servers do): a task is then visible only within the session that
started it, and each mcpwire command opens a session of its own. Servers
that keep tasks per user show them to every command logged in as that user
(see `mcpwire login`)."
    ))]
    Tasks {
        /// What to do.
        #[command(subcommand)]
        action: TasksAction,
    },
    /// List, inspect and load the server's skills (extension
    /// io.modelcontextprotocol/skills), verifying what is read.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire skills list http://127.0.0.1:3000/mcp
  mcpwire skills get http://127.0.0.1:3000/mcp skill://pdf-processing/SKILL.md
  mcpwire skills read http://127.0.0.1:3000/mcp skill://pdf-processing/SKILL.md
  mcpwire skills read http://127.0.0.1:3000/mcp skill://pdf-processing/SKILL.md references/FORMS.md

`read` loads the skill as a host does: its entry comes from skills/get, and
the file read is checked against it (size, SHA-256, and for SKILL.md the
frontmatter field by field); a mismatch is an error and nothing is printed."
    ))]
    Skills {
        /// What to do.
        #[command(subcommand)]
        action: crate::skill_commands::SkillsAction,
    },
    /// Log in to an OAuth-protected server: run the authorization flow and
    /// keep its tokens, which every later command for that URL then uses.
    #[command(after_help = "Examples:
  mcpwire login https://mcp.example.com/mcp
  mcpwire login http://127.0.0.1:3000/mcp --token-file ./tokens.json
  MCPWIRE_LOGIN_CAPTURE=1 mcpwire login http://127.0.0.1:3000/mcp

The full authorization URL is printed on stderr; on a terminal, mcpwire
offers to open it in the browser, and a listener on 127.0.0.1 receives the
redirect back. --redirect-capture (or MCPWIRE_LOGIN_CAPTURE=1) instead
fetches the URL itself and reads the code from the redirect: only for
authorization servers that approve without asking anyone (tests, automation).

Tokens are kept in --token-file, else $MCPWIRE_TOKEN_FILE, else
$XDG_CONFIG_HOME/mcpwire/tokens.json, else ~/.config/mcpwire/tokens.json,
a file only its owner may read (0600).")]
    Login(LoginArgs),
    /// Forget the stored OAuth tokens of a server.
    #[command(after_help = "Examples:
  mcpwire logout https://mcp.example.com/mcp")]
    Logout(LogoutArgs),
    /// Follow the server's log messages and change notifications until Ctrl-C.
    #[command(after_help = concat_help!(
        "Examples:
  mcpwire logs --level debug http://127.0.0.1:3000/mcp"
    ))]
    Logs(LogsArgs),
    /// Bridge transports: serve a stdio server over HTTP (--listen), or
    /// expose an HTTP server as a stdio server (--stdio).
    #[command(after_help = "Examples:
  mcpwire bridge --listen 127.0.0.1:8080 -- npx -y some-stdio-server
  mcpwire bridge --listen 127.0.0.1:0 --bearer s3cret -- ./server
  mcpwire bridge --stdio https://example.com/mcp

With --listen, each HTTP session gets its own child process; Streamable
HTTP is served at /mcp and the legacy HTTP+SSE transport at /sse and
/message. The first line on stdout is the /mcp URL. Host and Origin are
checked against loopback names unless --allow-host/--allow-origin widen them.")]
    Bridge(BridgeArgs),
    /// Run a built-in demo server and show `inspect` and one `call` against it.
    #[command(after_help = "Examples:
  mcpwire demo
  mcpwire demo --json")]
    Demo,
    /// Serve the built-in demo server on stdin/stdout.
    #[command(hide = true)]
    ServeDemo,
    /// Print a shell completion script.
    #[command(after_help = "Examples:
  mcpwire completions bash > /etc/bash_completion.d/mcpwire
  mcpwire completions zsh > ~/.zfunc/_mcpwire
  mcpwire completions fish > ~/.config/fish/completions/mcpwire.fish")]
    Completions {
        /// The shell.
        shell: Shell,
    },
}

/// A target and nothing else.
#[derive(Debug, Clone, Args)]
pub(crate) struct TargetArgs {
    /// The target (a URL or a configured server name), unless a command
    /// follows `--`.
    #[arg(value_name = "TARGET")]
    pub(crate) words: Vec<String>,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `call`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CallArgs {
    /// [TARGET] TOOL [KEY=VALUE]...
    #[arg(value_name = "ARGS", required = true)]
    pub(crate) words: Vec<String>,
    /// The arguments as one JSON object (instead of KEY=VALUE).
    #[arg(long, value_name = "JSON")]
    pub(crate) args_json: Option<String>,
    /// Run the call as a task (protocol 2025-11-25, negotiated for it):
    /// print the task id, poll until the task is over, then print the
    /// result; Ctrl-C cancels the task.
    #[arg(long)]
    pub(crate) task: bool,
    /// Where images and audio of the result are saved (default: the
    /// current directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) output_dir: Option<PathBuf>,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `read`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ReadArgs {
    /// [TARGET] URI
    #[arg(value_name = "ARGS", required = true)]
    pub(crate) words: Vec<String>,
    /// Where binary contents are saved (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) output_dir: Option<PathBuf>,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `prompt`.
#[derive(Debug, Clone, Args)]
pub(crate) struct PromptArgs {
    /// [TARGET] NAME [KEY=VALUE]...
    #[arg(value_name = "ARGS", required = true)]
    pub(crate) words: Vec<String>,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `complete`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CompleteArgs {
    /// Complete an argument of this prompt.
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with = "template",
        required_unless_present = "template"
    )]
    pub(crate) prompt: Option<String>,
    /// Complete a variable of this resource template (its URI template).
    #[arg(long, value_name = "URI_TEMPLATE")]
    pub(crate) template: Option<String>,
    /// The argument (or template variable) to complete.
    #[arg(long, value_name = "NAME")]
    pub(crate) argument: String,
    /// What was typed so far.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub(crate) value: String,
    /// The target (a URL or a configured server name), unless a command
    /// follows `--`.
    #[arg(value_name = "TARGET")]
    pub(crate) words: Vec<String>,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `logs`.
#[derive(Debug, Clone, Args)]
pub(crate) struct LogsArgs {
    /// The lowest level of log messages wanted.
    #[arg(long, value_name = "LEVEL", default_value = "debug")]
    pub(crate) level: String,
    /// Stop after this many seconds (default: until Ctrl-C).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) duration: Option<u64>,
    #[command(flatten)]
    pub(crate) target: TargetArgs,
}

/// `bridge`.
#[derive(Debug, Clone, Args)]
pub(crate) struct BridgeArgs {
    /// Serve the stdio server given after `--` over HTTP on ADDRESS
    /// (e.g. 127.0.0.1:8080; port 0 picks a free one).
    #[arg(
        long,
        value_name = "ADDRESS",
        conflicts_with = "stdio",
        required_unless_present = "stdio"
    )]
    pub(crate) listen: Option<String>,
    /// Expose the HTTP server at URL as a stdio server on stdin/stdout.
    #[arg(long, value_name = "URL")]
    pub(crate) stdio: Option<String>,
    /// With --listen: require `Authorization: Bearer TOKEN` on every request.
    #[arg(long, value_name = "TOKEN")]
    pub(crate) bearer: Option<String>,
    /// With --listen: serve on an address other than loopback without
    /// --bearer (anyone who reaches it may then start the command).
    #[arg(long)]
    pub(crate) insecure: bool,
    /// With --listen: the most server processes running at once (one per
    /// session or stateless request); further requests wait.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub(crate) max_children: usize,
    /// With --listen: how long a session waits for one of those processes
    /// before it is given up (its client sees the session end).
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub(crate) slot_wait: u64,
    /// With --listen: a further Host header value to accept (besides loopback).
    #[arg(long, value_name = "HOST")]
    pub(crate) allow_host: Vec<String>,
    /// With --listen: a further Origin to accept (besides loopback).
    #[arg(long, value_name = "ORIGIN")]
    pub(crate) allow_origin: Vec<String>,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `tasks` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub(crate) enum TasksAction {
    /// List the tasks the server keeps for this client.
    List(TargetArgs),
    /// Show one task's state.
    Get(TaskIdArgs),
    /// Wait for a tool-call task to end and print its result like `call`.
    Result(TaskIdArgs),
    /// Ask the server to cancel a task, and show its state afterwards.
    Cancel(TaskIdArgs),
}

/// A target and a task id.
#[derive(Debug, Clone, Args)]
pub(crate) struct TaskIdArgs {
    /// [TARGET] TASK_ID
    #[arg(value_name = "ARGS", required = true)]
    pub(crate) words: Vec<String>,
    /// Where images and audio of a result are saved (default: the current
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) output_dir: Option<PathBuf>,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `login`.
#[derive(Debug, Clone, Args)]
pub(crate) struct LoginArgs {
    /// The server's URL.
    #[arg(value_name = "URL")]
    pub(crate) url: String,
    /// Fetch the authorization URL without a browser and read the code from
    /// its redirect (also MCPWIRE_LOGIN_CAPTURE=1); only for authorization
    /// servers that approve without asking anyone.
    #[arg(long)]
    pub(crate) redirect_capture: bool,
}

/// `logout`.
#[derive(Debug, Clone, Args)]
pub(crate) struct LogoutArgs {
    /// The server's URL.
    #[arg(value_name = "URL")]
    pub(crate) url: String,
}
