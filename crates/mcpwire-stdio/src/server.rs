//! The server side of stdio: a transport on the process's own stdin and stdout.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::pin::Pin;
use std::task::{Context, Poll};

use mcpwire_jsonrpc::LineCodec;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf, Stdin, Stdout};
use tokio::net::unix::pipe;

use crate::transport::StdioTransport;

/// The transport of a server launched by its client: it reads the
/// process's stdin and writes the process's stdout.
pub type ServerTransport = StdioTransport<ServerInput, ServerOutput>;

/// The process's stdin as the transport reads it.
///
/// When stdin is a pipe (how clients launch servers) it is read through
/// the runtime's reactor, without a thread hand-off per read; otherwise
/// (a terminal, a file, a socket) through tokio's blocking [`Stdin`].
#[derive(Debug)]
pub struct ServerInput(Input);

#[derive(Debug)]
enum Input {
    Pipe(pipe::Receiver),
    Blocking(Stdin),
}

/// The process's stdout as the transport writes it: a pipe driven by the
/// runtime's reactor when it is one, tokio's blocking [`Stdout`] otherwise.
#[derive(Debug)]
pub struct ServerOutput(Output);

#[derive(Debug)]
enum Output {
    Pipe(pipe::Sender),
    Blocking(Stdout),
}

impl ServerInput {
    /// The process's stdin. Must be called within a tokio runtime with IO
    /// enabled when stdin is a pipe; falls back to the blocking path when
    /// registering the pipe fails.
    fn open() -> Self {
        let pipe = in_runtime()
            .and_then(|()| io::stdin().as_fd().try_clone_to_owned())
            .and_then(|fd| pipe::Receiver::from_file(File::from(fd)));
        match pipe {
            Ok(receiver) => Self(Input::Pipe(receiver)),
            Err(error) => {
                tracing::debug!(%error, "stdin is not a pipe: reading it on blocking threads");
                Self(Input::Blocking(tokio::io::stdin()))
            }
        }
    }

    /// Whether stdin is read through the reactor (it is a pipe) rather
    /// than on tokio's blocking threads.
    pub fn is_pipe(&self) -> bool {
        matches!(self.0, Input::Pipe(_))
    }
}

impl ServerOutput {
    /// The process's stdout; see [`ServerInput::open`].
    fn open() -> Self {
        let pipe = in_runtime()
            .and_then(|()| io::stdout().as_fd().try_clone_to_owned())
            .and_then(|fd| pipe::Sender::from_file(File::from(fd)));
        match pipe {
            Ok(sender) => Self(Output::Pipe(sender)),
            Err(error) => {
                tracing::debug!(%error, "stdout is not a pipe: writing it on blocking threads");
                Self(Output::Blocking(tokio::io::stdout()))
            }
        }
    }

    /// Whether stdout is written through the reactor (it is a pipe) rather
    /// than on tokio's blocking threads.
    pub fn is_pipe(&self) -> bool {
        matches!(self.0, Output::Pipe(_))
    }
}

/// `Ok` within a tokio runtime, where a pipe can be registered with the
/// reactor (registering outside one would panic).
fn in_runtime() -> io::Result<()> {
    tokio::runtime::Handle::try_current()
        .map(drop)
        .map_err(|_| io::Error::other("not within a tokio runtime"))
}

impl AsyncRead for ServerInput {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Input::Pipe(receiver) => Pin::new(receiver).poll_read(context, buffer),
            Input::Blocking(stdin) => Pin::new(stdin).poll_read(context, buffer),
        }
    }
}

impl AsyncWrite for ServerOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            Output::Pipe(sender) => Pin::new(sender).poll_write(context, bytes),
            Output::Blocking(stdout) => Pin::new(stdout).poll_write(context, bytes),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            Output::Pipe(sender) => Pin::new(sender).poll_write_vectored(context, buffers),
            Output::Blocking(stdout) => Pin::new(stdout).poll_write_vectored(context, buffers),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.0 {
            Output::Pipe(sender) => sender.is_write_vectored(),
            Output::Blocking(stdout) => stdout.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Output::Pipe(sender) => Pin::new(sender).poll_flush(context),
            Output::Blocking(stdout) => Pin::new(stdout).poll_flush(context),
        }
    }

    /// Flushes but leaves the descriptor open: the process's stdout is not
    /// the transport's to close.
    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(context)
    }
}

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
/// # Pipes are made non-blocking
///
/// When stdin or stdout is a pipe (the usual case: the client launched
/// the server), the transport switches it to non-blocking mode and drives
/// it through the runtime's reactor, with no thread hand-off per read or
/// write. The mode belongs to the pipe, not to this process's descriptor:
/// a child process that inherits the same stdin or stdout, or stderr
/// redirected into the same pipe (`2>&1`), sees it non-blocking too. When
/// stdin or stdout is anything else (a terminal, a file), tokio's blocking
/// [`Stdin`] and [`Stdout`] are used instead. Call this within a tokio
/// runtime with IO enabled (`enable_io`, or `enable_all`); without one the
/// pipes cannot be registered and the blocking path is used.
///
/// # Ending
///
/// When the client closes the server's stdin, [`recv`] returns `None`;
/// the server should then finish and exit promptly, which is the client's
/// primary way of shutting it down. [`close`] flushes stdout but does not
/// close the file descriptor; a server that wants to end the session itself
/// closes the transport and exits.
///
/// On the blocking path tokio reads stdin on a thread that cannot be
/// interrupted: a server that exits while its stdin is still open should
/// leave its runtime with `Runtime::shutdown_timeout` or end the process,
/// rather than wait for that read.
///
/// [`recv`]: mcpwire_jsonrpc::TransportReceiver::recv
/// [`close`]: mcpwire_jsonrpc::TransportSender::close
pub fn stdio() -> ServerTransport {
    StdioTransport::from_stdio()
}

impl StdioTransport<ServerInput, ServerOutput> {
    /// A transport on this process's stdin and stdout, with the default
    /// maximum line length. Read [`stdio`] first: nothing else may write to
    /// stdout.
    pub fn from_stdio() -> Self {
        Self::from_stdio_with_codec(LineCodec::new())
    }

    /// Like [`from_stdio`](Self::from_stdio), framing with `codec` (for
    /// example a smaller maximum line length).
    pub fn from_stdio_with_codec(codec: LineCodec) -> Self {
        Self::with_codec(ServerInput::open(), ServerOutput::open(), codec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_runtime_stdio_falls_back_to_the_blocking_path_instead_of_panicking() {
        // Registering a pipe needs a reactor; without one, whatever stdin
        // and stdout are, the transport must still be constructible.
        let transport = StdioTransport::from_stdio();
        let (sender, receiver) = mcpwire_jsonrpc::Transport::split(transport);
        assert!(!format!("{receiver:?}").contains("Pipe"), "{receiver:?}");
        assert!(!format!("{sender:?}").contains("Pipe"), "{sender:?}");
        assert!(!ServerInput::open().is_pipe());
        assert!(!ServerOutput::open().is_pipe());
    }
}
