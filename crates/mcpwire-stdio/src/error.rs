//! The errors of this crate: transport I/O failures and child-process supervision failures.

use std::io;

/// The failure of a [`StdioTransport`](crate::StdioTransport) itself.
///
/// Protocol errors (a line that is not JSON-RPC, too long or not UTF-8) are
/// not errors of the transport: they arrive from `recv` as
/// [`Inbound::Invalid`](mcpwire_jsonrpc::Inbound::Invalid). An `Error`
/// means the byte stream broke, and the transport should be closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading from the peer failed.
    #[error("reading from the peer failed")]
    Read(#[source] io::Error),
    /// Writing to the peer failed; the packet may be lost, partly or whole.
    #[error("writing to the peer failed")]
    Write(#[source] io::Error),
    /// The sending side was closed by [`close`](mcpwire_jsonrpc::TransportSender::close).
    #[error("the sending side of the transport is closed")]
    Closed,
}

/// A failure to start or supervise a server child process.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChildError {
    /// The process could not be started.
    #[error("could not start the server process `{program}`")]
    Spawn {
        /// The program as configured.
        program: String,
        /// Why the operating system refused.
        #[source]
        source: io::Error,
    },
    /// Waiting for the process to end failed.
    #[error("waiting for the server process failed")]
    Wait(#[source] io::Error),
    /// A signal could not be sent to the process.
    #[error("could not signal the server process")]
    Signal(#[source] io::Error),
}
