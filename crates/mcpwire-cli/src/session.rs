//! Running a command against a server: connect, show the server's log
//! messages and progress on stderr, stop cleanly on Ctrl-C.

use std::future::Future;
use std::io::{IsTerminal, Write};

use mcpwire::client::Client;
use mcpwire::types::methods::ServerNotification;
use mcpwire::types::{LoggingLevel, ProgressNotificationParams};
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;

use crate::cli::GlobalOptions;
use crate::error::{CliError, CliResult};
use crate::interact::Interactive;
use crate::target::{self, Target};

/// How long an interrupted command waits for its cancellation to be sent
/// before it closes the connection.
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// Reads a logging level's name.
///
/// # Errors
///
/// A usage error for a name that is not a level.
pub(crate) fn parse_level(name: &str) -> CliResult<LoggingLevel> {
    serde_json::from_value(Value::String(name.to_lowercase())).map_err(|_| {
        CliError::usage(format!(
            "unknown log level {name:?} (debug, info, notice, warning, error, critical, alert, emergency)"
        ))
    })
}

/// A level's name.
pub(crate) fn level_name(level: LoggingLevel) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// One log message as a line: `[level] logger: data`.
pub(crate) fn log_line(level: LoggingLevel, logger: Option<&str>, data: &Value) -> String {
    let data = match data {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match logger {
        Some(logger) => format!("[{}] {logger}: {data}", level_name(level)),
        None => format!("[{}] {data}", level_name(level)),
    }
}

/// Connects to `target`, runs `body` (given the client and the name of the
/// transport spoken), and closes the connection (and stops
/// the child) whatever happened; Ctrl-C drops `body`, which cancels its
/// request in flight (`notifications/cancelled`), and exits 130.
///
/// The server's log messages go to stderr while `body` runs, unless
/// `show_logs` is false (the `logs` command prints them itself).
///
/// # Errors
///
/// Those of connecting and of `body`; [`CliError::Interrupted`] on Ctrl-C.
pub(crate) async fn run<F, Fut, T>(
    target: &Target,
    global: &GlobalOptions,
    log_level: LoggingLevel,
    show_logs: bool,
    body: F,
) -> CliResult<T>
where
    F: FnOnce(Client, &'static str) -> Fut,
    Fut: Future<Output = CliResult<T>>,
{
    run_with_interrupt(target, global, log_level, show_logs, false, body).await
}

/// As [`run`]; when `body_handles_interrupt`, Ctrl-C during `body` is left
/// to `body` (which must watch for it itself), so that it can finish what
/// it started, e.g. cancel a task, before it returns.
///
/// # Errors
///
/// As [`run`].
pub(crate) async fn run_with_interrupt<F, Fut, T>(
    target: &Target,
    global: &GlobalOptions,
    log_level: LoggingLevel,
    show_logs: bool,
    body_handles_interrupt: bool,
    body: F,
) -> CliResult<T>
where
    F: FnOnce(Client, &'static str) -> Fut,
    Fut: Future<Output = CliResult<T>>,
{
    let connecting = target::connect(target, global, Interactive::new(), log_level);
    let connection = tokio::select! {
        connection = connecting => connection?,
        _ = tokio::signal::ctrl_c() => return Err(CliError::Interrupted),
    };
    let client = connection.client.clone();
    let logger = show_logs.then(|| tokio::spawn(print_logs(client.clone())));
    if client.server().version.has_handshake()
        && client.server().capabilities.logging.is_some()
        && let Err(error) = client.set_log_level(log_level).await
    {
        eprintln!("warning: could not set the log level: {error}");
    }
    let running = body(client, connection.transport());
    let outcome = if body_handles_interrupt {
        running.await
    } else {
        tokio::select! {
            outcome = running => outcome,
            _ = tokio::signal::ctrl_c() => Err(CliError::Interrupted),
        }
    };
    if matches!(outcome, Err(CliError::Interrupted)) {
        // Dropping `body` queued `notifications/cancelled` for its call; the
        // client runtime does not order that before a close sent right
        // after, so give it a moment to go out first.
        tokio::time::sleep(CANCEL_GRACE).await;
    }
    connection.close().await;
    // The channel ends with the session: let the logger print what is
    // still queued (messages sent just before the answer), briefly.
    if let Some(logger) = logger {
        let _ = tokio::time::timeout(std::time::Duration::from_millis(500), logger).await;
    }
    outcome
}

/// Prints the server's log messages on stderr until the session ends.
async fn print_logs(client: Client) {
    let mut notifications = client.notifications();
    loop {
        match notifications.recv().await {
            Ok(ServerNotification::LoggingMessage(message)) => {
                eprintln!(
                    "{}",
                    log_line(message.level, message.logger.as_deref(), &message.data)
                );
            }
            Ok(_) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => return,
        }
    }
}

/// Shows progress of a call on stderr: one line redrawn in place on a
/// terminal, plain lines otherwise.
pub(crate) struct ProgressDisplay {
    terminal: bool,
    drawn: bool,
}

impl ProgressDisplay {
    /// A display for this process's stderr.
    pub(crate) fn new() -> Self {
        Self {
            terminal: std::io::stderr().is_terminal(),
            drawn: false,
        }
    }

    /// Shows one report.
    pub(crate) fn show(&mut self, report: &ProgressNotificationParams) {
        let amount = match report.total {
            Some(total) if total > 0.0 => {
                format!(
                    "{}/{} ({:.0}%)",
                    report.progress,
                    total,
                    100.0 * report.progress / total
                )
            }
            _ => format!("{}", report.progress),
        };
        let text = match &report.message {
            Some(message) => format!("progress {amount} {message}"),
            None => format!("progress {amount}"),
        };
        let mut stderr = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(stderr, "\r\x1b[2K{text}");
            let _ = stderr.flush();
            self.drawn = true;
        } else {
            let _ = writeln!(stderr, "{text}");
        }
    }

    /// Ends the redrawn line, if one was drawn.
    pub(crate) fn finish(&mut self) {
        if self.drawn {
            eprintln!();
            self.drawn = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn log_levels_read_and_print_by_their_protocol_names() {
        assert_eq!(parse_level("Warning").unwrap(), LoggingLevel::Warning);
        assert!(matches!(parse_level("loud"), Err(CliError::Usage(_))));
        assert_eq!(
            log_line(LoggingLevel::Info, Some("notes"), &json!("added")),
            "[info] notes: added"
        );
        assert_eq!(
            log_line(LoggingLevel::Error, None, &json!({"a": 1})),
            "[error] {\"a\":1}"
        );
    }
}
