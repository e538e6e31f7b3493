//! Why a command failed, and the exit code each cause maps to.

use std::fmt;
use std::process::ExitCode;

/// The exit code of a tool call whose result says `isError: true`.
pub(crate) const EXIT_TOOL_ERROR: u8 = 1;
/// The exit code of a command line that makes no sense.
pub(crate) const EXIT_USAGE: u8 = 2;
/// The exit code of a failure to connect or of a protocol error.
pub(crate) const EXIT_CONNECTION: u8 = 3;
/// The exit code after Ctrl-C (128 + SIGINT, as shells report it).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// A failed command: what to tell the user, and how to exit.
#[derive(Debug)]
pub(crate) enum CliError {
    /// The command line is wrong (exit 2).
    Usage(String),
    /// Connecting failed, the transport broke, or the server answered
    /// with an error or something unreadable (exit 3).
    Connection(String),
    /// The tool ran and reported a failure; its output was already shown
    /// (exit 1).
    ToolFailed,
    /// The user pressed Ctrl-C (exit 130).
    Interrupted,
}

impl CliError {
    /// A usage error.
    pub(crate) fn usage(message: impl fmt::Display) -> Self {
        Self::Usage(message.to_string())
    }

    /// A connection or protocol error.
    pub(crate) fn connection(message: impl fmt::Display) -> Self {
        Self::Connection(message.to_string())
    }

    /// The process exit code for this failure.
    pub(crate) fn exit_code(&self) -> ExitCode {
        ExitCode::from(match self {
            Self::Usage(_) => EXIT_USAGE,
            Self::Connection(_) => EXIT_CONNECTION,
            Self::ToolFailed => EXIT_TOOL_ERROR,
            Self::Interrupted => EXIT_INTERRUPTED,
        })
    }

    /// The message to print on stderr, if any.
    pub(crate) fn message(&self) -> Option<String> {
        match self {
            Self::Usage(message) => Some(format!("usage error: {message}")),
            Self::Connection(message) => Some(format!("error: {message}")),
            Self::ToolFailed => None,
            Self::Interrupted => Some("interrupted".to_owned()),
        }
    }
}

impl From<mcpwire::client::ClientError> for CliError {
    fn from(error: mcpwire::client::ClientError) -> Self {
        Self::connection(error)
    }
}

impl From<std::io::Error> for CliError {
    fn from(error: std::io::Error) -> Self {
        Self::connection(error)
    }
}

/// The result of a command.
pub(crate) type CliResult<T = ()> = Result<T, CliError>;
