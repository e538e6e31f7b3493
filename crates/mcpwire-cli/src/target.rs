//! Targets: a URL, a stdio command after `--`, or a configured server's
//! name; resolving them from the command line and connecting a client.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use mcpwire::auth::client::OAuthAuthorizer;
use mcpwire::client::{Client, ClientConfig, ClientHandler, ConnectError, Timeouts};
use mcpwire::http::client::{Authorizer, ClientOptions};
use mcpwire::http_legacy::auto::{AutoOptions, Choice, TransportKind, connect_auto};
use mcpwire::stdio::{ChildProcess, StderrMode, StdioClient};
use mcpwire::types::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};

use crate::auth::{self, AuthWatch};
use crate::cli::GlobalOptions;
use crate::config;
use crate::error::{CliError, CliResult};

/// Where the server is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Target {
    /// A Streamable HTTP (or legacy HTTP+SSE) endpoint.
    Url {
        /// The endpoint.
        url: String,
        /// Headers sent with every request, in order.
        headers: Vec<(String, String)>,
    },
    /// A stdio server to start.
    Command {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: BTreeMap<String, String>,
        /// Its working directory.
        cwd: Option<PathBuf>,
    },
}

/// Whether `word` names an HTTP endpoint.
pub(crate) fn is_url(word: &str) -> bool {
    word.starts_with("http://") || word.starts_with("https://")
}

/// Splits a command's words into the target and the rest: the command
/// after `--` when there is one, else the first word (a URL or a name in
/// the `--config` file).
///
/// # Errors
///
/// A usage error when no target is given or a name cannot be resolved.
pub(crate) fn resolve(
    words: &[String],
    command: &[String],
    global: &GlobalOptions,
) -> CliResult<(Target, Vec<String>)> {
    if let Some((program, args)) = command.split_first() {
        let target = Target::Command {
            program: program.clone(),
            args: args.to_vec(),
            env: BTreeMap::new(),
            cwd: None,
        };
        return Ok((target, words.to_vec()));
    }
    let Some((first, rest)) = words.split_first() else {
        return Err(CliError::usage(
            "no server given: name a URL, a server of --config, or a command after `--`",
        ));
    };
    let target = if is_url(first) {
        Target::Url {
            url: first.clone(),
            headers: Vec::new(),
        }
    } else if let Some(path) = &global.config {
        config::lookup(path, first)?
    } else {
        return Err(CliError::usage(format!(
            "{first:?} is not a URL; give --config FILE to use server names, \
             or the server's command after `--`"
        )));
    };
    Ok((target, rest.to_vec()))
}

/// A connected client, and the child process it talks to, if any.
pub(crate) struct Connection {
    /// The client.
    pub(crate) client: Client,
    /// The stdio server started for it.
    child: Option<ChildProcess>,
    /// For a URL: which HTTP transport the automatic fallback chose.
    choice: Option<Choice>,
}

impl Connection {
    /// The transport spoken: `stdio`, `streamable-http` or `legacy-sse`.
    pub(crate) fn transport(&self) -> &'static str {
        match self.choice.as_ref().map(Choice::get) {
            None => "stdio",
            Some(Some(TransportKind::LegacySse)) => "legacy-sse",
            Some(_) => "streamable-http",
        }
    }

    /// Ends the session and stops the child (closing its stdin first).
    pub(crate) async fn close(self) {
        self.client.close().await;
        if let Some(child) = self.child
            && let Err(error) = child.shutdown().await
        {
            eprintln!("warning: stopping the server failed: {error}");
        }
    }
}

/// The revision `--protocol-version` pins, if any.
///
/// # Errors
///
/// A usage error for a revision that does not exist.
pub(crate) fn pinned_version(global: &GlobalOptions) -> CliResult<Option<ProtocolVersion>> {
    global
        .protocol_version
        .as_deref()
        .map(|name| {
            ProtocolVersion::parse(name).map_err(|_| {
                let known: Vec<String> = ProtocolVersion::ALL
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                CliError::usage(format!(
                    "unknown protocol revision {name:?} (known: {})",
                    known.join(", ")
                ))
            })
        })
        .transpose()
}

/// The client configuration the command line asks for: sampling and
/// elicitation offered, logs at `log_level` for stateless requests.
fn client_config(global: &GlobalOptions, log_level: LoggingLevel) -> CliResult<ClientConfig> {
    let capabilities: ClientCapabilities = serde_json::from_value(serde_json::json!({
        "sampling": {},
        "elicitation": {"form": {}, "url": {}}
    }))
    .map_err(CliError::connection)?;
    let info = Implementation::new("mcpwire-cli", env!("CARGO_PKG_VERSION"));
    let mut timeouts = Timeouts::default();
    timeouts.request = Duration::from_secs(global.timeout.max(1));
    timeouts.maximum = timeouts.maximum.max(timeouts.request);
    let mut config = ClientConfig::new(info, capabilities)
        .with_timeouts(timeouts)
        .with_log_level(log_level);
    config = mcpwire::client::with_skills_extension(config);
    if let Some(version) = pinned_version(global)? {
        config = config.pinned(version);
    }
    Ok(config)
}

/// Parses a "Name: value" header of the command line.
fn parse_header(text: &str) -> CliResult<(String, String)> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| CliError::usage(format!("a header is \"Name: value\", not {text:?}")))?;
    Ok((name.trim().to_owned(), value.trim().to_owned()))
}

/// The HTTP options for a URL target: its configured headers, then those
/// of `--header`.
///
/// # Errors
///
/// A usage error for a malformed header.
pub(crate) fn auto_options(
    target: &Target,
    global: &GlobalOptions,
    authorizer: Option<Arc<dyn Authorizer>>,
) -> CliResult<AutoOptions> {
    // OAuth applies to Streamable HTTP; the legacy transport (2024-11-05
    // servers) gets the headers only.
    let mut options = match authorizer {
        Some(authorizer) => {
            AutoOptions::new().streamable(ClientOptions::default().authorizer(authorizer))
        }
        None => AutoOptions::new(),
    };
    for (name, value) in url_headers(target, global)? {
        options = options.with_header(name, value);
    }
    Ok(options)
}

/// The headers for a URL target: its configured ones, then those of
/// `--header` (none for a command).
///
/// # Errors
///
/// A usage error for a malformed header.
pub(crate) fn url_headers(
    target: &Target,
    global: &GlobalOptions,
) -> CliResult<Vec<(HeaderName, HeaderValue)>> {
    let configured = match target {
        Target::Url { headers, .. } => headers.clone(),
        Target::Command { .. } => return Ok(Vec::new()),
    };
    let extra = global.headers.iter().map(|h| parse_header(h));
    configured
        .into_iter()
        .map(Ok)
        .chain(extra)
        .map(|header| {
            let (name, value) = header?;
            let name = HeaderName::try_from(name.as_str())
                .map_err(|error| CliError::usage(format!("header {name:?}: {error}")))?;
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|error| CliError::usage(format!("header {name}: {error}")))?;
            Ok((name, value))
        })
        .collect()
}

/// The failure to connect to `url`, with a hint to log in when the server
/// asked for authorization and no usable token was at hand.
fn connect_error(url: &str, error: &ConnectError, watch: &AuthWatch) -> CliError {
    match watch.refusal() {
        Some(why) if why.is_empty() => CliError::connection(format!(
            "{url}: the server requires authorization ({error}): run `mcpwire login {url}` first"
        )),
        Some(why) => CliError::connection(format!(
            "{url}: the server requires authorization and none could be obtained: {why}"
        )),
        None => CliError::connection(format!("{url}: {error}")),
    }
}

/// Connects to `target`, answering server requests with `handler`; a URL
/// target uses the OAuth tokens stored for it by `login`, if any.
///
/// # Errors
///
/// A usage error for bad headers or revisions; a connection error when the
/// server cannot be started or reached or the handshake fails.
pub(crate) async fn connect(
    target: &Target,
    global: &GlobalOptions,
    handler: impl ClientHandler,
    log_level: LoggingLevel,
) -> CliResult<Connection> {
    let authorizer = match target {
        Target::Url { url, .. } => auth::stored_authorizer(url, global)?,
        Target::Command { .. } => None,
    };
    connect_with(target, global, handler, log_level, authorizer).await
}

/// As [`connect`], with `authorizer` (instead of the stored tokens) for a
/// URL target.
///
/// # Errors
///
/// As [`connect`].
pub(crate) async fn connect_with(
    target: &Target,
    global: &GlobalOptions,
    handler: impl ClientHandler,
    log_level: LoggingLevel,
    authorizer: Option<Arc<OAuthAuthorizer>>,
) -> CliResult<Connection> {
    let config = client_config(global, log_level)?;
    let builder = Client::builder(config).handler(handler);
    match target {
        Target::Url { url, .. } => {
            let watch = Arc::new(AuthWatch::new(authorizer));
            let options = auto_options(target, global, Some(watch.clone()))?;
            let transport = connect_auto(url, options)
                .map_err(|error| CliError::usage(format!("cannot use {url:?}: {error}")))?;
            let choice = transport.choice();
            let client = builder
                .connect(transport)
                .await
                .map_err(|error| connect_error(url, &error, &watch))?;
            Ok(Connection {
                client,
                child: None,
                choice: Some(choice),
            })
        }
        Target::Command {
            program,
            args,
            env,
            cwd,
        } => {
            let mut command = StdioClient::new(program)
                .args(args)
                .envs(env)
                .stderr(StderrMode::Inherit);
            if let Some(cwd) = cwd {
                command = command.current_dir(cwd);
            }
            let (transport, child) = command.spawn().map_err(|error| {
                CliError::connection(format!("cannot start {program:?}: {error}"))
            })?;
            match builder.connect(transport).await {
                Ok(client) => Ok(Connection {
                    client,
                    child: Some(child),
                    choice: None,
                }),
                Err(error) => {
                    // Leave no process behind when the handshake failed.
                    let _ = child.shutdown().await;
                    Err(CliError::connection(format!("{program}: {error}")))
                }
            }
        }
    }
}
