//! JSON-RPC 2.0 for MCP: messages, classification, framing, transports.
//!
//! This crate is the bottom layer of mcpwire and the whole of what someone
//! who "embeds only the codec" needs:
//!
//! * the message model: [`Request`], [`Notification`], [`Response`],
//!   [`ErrorResponse`], the [`Message`] enum over them and [`Packet`] (a
//!   message or a batch), with [`RequestId`], [`ErrorCode`] and
//!   [`ErrorObject`];
//! * classification of received bytes ([`Inbound::from_slice`],
//!   [`Packet::from_slice`], [`Message::from_slice`]): one pass of our own
//!   validating scanner over the text, with `params`, `result` and
//!   `error.data` checked and kept as their JSON text ([`RawJson`]) so that
//!   no JSON tree of a payload is ever built, and a precise
//!   [`ClassifyError`] (code -32700 for text that is not JSON anywhere,
//!   payloads included; -32600, with the id when it could be read, for JSON
//!   that is not a valid message);
//! * compact encoding (`to_vec`, and `Serialize` for embedding in other
//!   serde output) that always writes `"jsonrpc":"2.0"` first, and whose
//!   `to_vec` form never holds a line break;
//! * [`LineCodec`], the newline-delimited framing of the stdio transport,
//!   over `bytes::BytesMut` with a bounded line length, and [`LineQueue`],
//!   lines waiting to be written, whose large payloads are written from
//!   where they are rather than copied;
//! * the same framing over blocking `std::io` for a program without an
//!   async runtime: [`LineReader`] and [`write_line`];
//! * the message-level [`Transport`] trait and an in-memory pair
//!   ([`memory::pair`]).
//!
//! What it is not: it knows nothing of MCP (no method names, no protocol
//! versions, no sessions) and it has no async runtime. The `Transport`
//! trait uses only `core::future`; nothing here spawns tasks, reads the
//! clock or performs I/O.
//!
//! # Example
//!
//! ```
//! use bytes::BytesMut;
//! use mcpwire_jsonrpc::{ErrorCode, Inbound, LineCodec, Message, Packet, Request};
//!
//! let mut codec = LineCodec::new();
//! let mut wire = BytesMut::new();
//!
//! // Encode a request as one line.
//! let request = Request::new(1, "tools/call", &serde_json::json!({"name": "echo"}))?;
//! codec.encode(&Packet::from(request.clone()), &mut wire);
//! // A peer also sent a line that is JSON but not JSON-RPC.
//! wire.extend_from_slice(b"{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"x\"}\n");
//!
//! // The first line decodes to the request, params untouched.
//! let Some(Ok(Inbound::Single(Message::Request(decoded)))) = codec.decode(&mut wire) else {
//!     panic!("expected a request");
//! };
//! assert_eq!(decoded, request);
//! assert_eq!(decoded.params.as_ref().map(|raw| raw.get()), Some(r#"{"name":"echo"}"#));
//!
//! // The second is an invalid request whose id could still be read.
//! let Some(Ok(Inbound::Invalid(error))) = codec.decode(&mut wire) else {
//!     panic!("expected an invalid request");
//! };
//! assert_eq!(error.code(), ErrorCode::INVALID_REQUEST);
//! let answer = Message::from(error.to_error_response());
//! assert_eq!(
//!     String::from_utf8(answer.to_vec())?,
//!     r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"\"jsonrpc\" must be \"2.0\", found \"1.0\""}}"#
//! );
//! assert!(codec.decode(&mut wire).is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

mod blocking;
mod classify;
mod codec;
mod decode;
mod encode;
mod error;
mod id;
mod line_queue;
#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub mod memory;
mod message;
mod raw;
mod recycle;
mod shape;
mod syntax;
mod transport;

// The JSON engine (feature `fast-json`, on by default): vectorized string
// and byte scans, the UTF-8 check and the JSON writer. Without it, the
// portable stand-ins answer the same on `core` and `serde_json` alone.
#[cfg(feature = "fast-json")]
mod json_key;
#[cfg(feature = "fast-json")]
mod json_writer;
#[cfg(not(feature = "fast-json"))]
mod portable;
#[cfg(feature = "fast-json")]
mod scan;
#[cfg(feature = "fast-json")]
mod string_end;
#[cfg(feature = "fast-json")]
mod utf8;
#[cfg(not(feature = "fast-json"))]
use portable as scan;
#[cfg(not(feature = "fast-json"))]
use portable as string_end;
#[cfg(not(feature = "fast-json"))]
use portable as utf8;

pub use blocking::{LineReader, write_line};
/// The `bytes` crate: [`LineCodec`] reads from its `BytesMut` and
/// [`LineQueue`] is its `Buf`. Re-exported so that a transport built on
/// them needs no `bytes` dependency of its own, at a matching version.
pub use bytes;
pub use classify::{ClassifyError, Inbound};
pub use codec::{LineCodec, LineError};
pub use error::{ErrorCode, ErrorObject};
pub use id::RequestId;
#[cfg(feature = "fast-json")]
pub use json_writer::{to_json_string, to_json_vec};
pub use line_queue::LineQueue;
pub use message::{ErrorResponse, Message, Notification, Packet, Request, Response};
#[cfg(not(feature = "fast-json"))]
pub use portable::{to_json_string, to_json_vec};
pub use raw::{InvalidJson, RawJson};
pub use transport::{BoxFuture, Transport, TransportContext, TransportReceiver, TransportSender};

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
