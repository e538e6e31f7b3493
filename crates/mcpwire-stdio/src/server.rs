//! The server side of stdio: a transport on the process's own stdin and stdout.

use mcpwire_jsonrpc::LineCodec;
use tokio::io::{Stdin, Stdout};

use crate::transport::StdioTransport;

/// The transport of a server launched by its client: it reads the
/// process's stdin and writes the process's stdout.
pub type ServerTransport = StdioTransport<Stdin, Stdout>;

/// A transport on this process's stdin and stdout, with the default maximum
/// line length; the same as [`StdioTransport::from_stdio`].
///
/// # Nothing else may write to stdout
///
/// **Once a server speaks MCP over stdio, stdout belongs to the transport.**
/// The protocol forbids a server to write anything there that is not a
/// valid MCP message (one stray `println!` from the program or from any
/// library it uses corrupts the stream and typically ends the session).
/// Logs, diagnostics and panics go to stderr, which the client may show,
/// record or ignore, and which never counts as an error.
///
/// This crate installs nothing: route your logs to stderr yourself, e.g.
/// with `tracing-subscriber` (a dependency of your binary, not of this crate):
///
/// ```
/// tracing_subscriber::fmt()
///     .with_writer(std::io::stderr)
///     .with_ansi(false)
///     .init();
/// ```
///
/// With plain std, use `eprintln!` and never `println!` (the workspace's
/// clippy settings deny `print_stdout`). Child processes the server starts
/// inherit its stdout unless told otherwise: give them
/// `Stdio::null()` or `Stdio::piped()` for stdout.
///
/// # Ending
///
/// When the client closes the server's stdin, [`recv`] returns `None`;
/// the server should then finish and exit promptly, which is the client's
/// primary way of shutting it down. [`close`] flushes stdout but does not
/// close the file descriptor; a server that wants to end the session itself
/// closes the transport and exits.
///
/// tokio reads stdin on a blocking thread that cannot be interrupted: a
/// server that exits while its stdin is still open should leave its runtime
/// with `Runtime::shutdown_timeout` or end the process, rather than wait
/// for that read.
///
/// [`recv`]: mcpwire_jsonrpc::TransportReceiver::recv
/// [`close`]: mcpwire_jsonrpc::TransportSender::close
pub fn stdio() -> ServerTransport {
    StdioTransport::from_stdio()
}

impl StdioTransport<Stdin, Stdout> {
    /// A transport on this process's stdin and stdout, with the default
    /// maximum line length. Read [`stdio`] first: nothing else may write to
    /// stdout.
    pub fn from_stdio() -> Self {
        Self::from_stdio_with_codec(LineCodec::new())
    }

    /// Like [`from_stdio`](Self::from_stdio), framing with `codec` (for
    /// example a smaller maximum line length).
    pub fn from_stdio_with_codec(codec: LineCodec) -> Self {
        Self::with_codec(tokio::io::stdin(), tokio::io::stdout(), codec)
    }
}
