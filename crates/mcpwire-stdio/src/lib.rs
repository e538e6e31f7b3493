//! The MCP stdio transport.
//!
//! On stdio, the client launches the server as a child process; the two
//! exchange newline-delimited JSON-RPC messages over the child's stdin and
//! stdout, and the server may log anything to its stderr. This crate
//! provides both ends as implementations of
//! [`mcpwire_jsonrpc::Transport`]:
//!
//! * [`StdioTransport`], the framing over any tokio byte reader and writer,
//!   using [`LineCodec`](mcpwire_jsonrpc::LineCodec) with a bounded line
//!   length, back-pressure on `send` and a cancel-safe `recv`;
//! * the server side, [`stdio`] (the process's own stdin and stdout; read
//!   its warning: **nothing else may write to stdout**, logs go to stderr);
//! * the client side, [`StdioClient`], which spawns a server and returns a
//!   [`ChildTransport`] and a [`ChildProcess`] handle; the handle's
//!   [`shutdown`](ChildProcess::shutdown) closes the server's stdin, then
//!   escalates to `SIGTERM` and `SIGKILL` after grace periods, and stderr
//!   lines are forwarded to `tracing` without ever being taken for errors.
//!
//! What it is not: it knows nothing of MCP beyond the framing. It does not
//! handshake, negotiate versions, route methods or restart a server that
//! died; a session engine or runtime drives the transport. It depends on
//! `mcpwire-jsonrpc` only, so it can be vendored on its own.
//!
//! # Example: a server on its own stdin and stdout
//!
//! ```no_run
//! use mcpwire_jsonrpc::{Inbound, Message, Packet, Response};
//! use mcpwire_stdio::ServerTransport;
//!
//! /// Answers each request with an empty object and each invalid line with
//! /// an error, until the client closes the server's stdin.
//! async fn serve(transport: &mut ServerTransport) -> Result<(), Box<dyn std::error::Error>> {
//!     while let Some(inbound) = transport.recv().await {
//!         let answer: Message = match inbound? {
//!             Inbound::Single(Message::Request(request)) => {
//!                 Response::new(request.id, &serde_json::json!({}))?.into()
//!             }
//!             Inbound::Invalid(error) => error.to_error_response().into(),
//!             _ => continue,
//!         };
//!         transport.send(Packet::from(answer)).await?;
//!     }
//!     transport.close().await?;
//!     Ok(())
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // From here on stdout carries protocol messages only: log with
//!     // `eprintln!` or a tracing subscriber that writes to stderr.
//!     eprintln!("serving on stdio");
//!     serve(&mut mcpwire_stdio::stdio()).await
//! }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

mod child;
mod child_input;
mod client;
mod error;
mod read_buffer;
mod server;
mod stderr;
mod transport;

pub use child::{ChildProcess, ShutdownOutcome};
pub use child_input::ChildInput;
pub use client::{ChildTransport, StderrMode, StdioClient};
pub use error::{ChildError, Error};
pub use server::{ServerInput, ServerOutput, ServerTransport, stdio};
pub use transport::{StdioReceiver, StdioSender, StdioTransport};

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
