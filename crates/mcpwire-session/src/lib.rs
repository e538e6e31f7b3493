//! The sans-IO MCP protocol engine.
//!
//! A session is a state machine that turns what a transport received into
//! events for a runtime, and what the runtime decides into packets for the
//! transport. It performs no I/O, spawns nothing and never reads the clock:
//! time comes in as `now` arguments and deadlines go out through
//! `poll_timeout`, as in `quinn-proto` or `rustls`.
//!
//! - [`ServerSession`] serves both eras on one instance, choosing per
//!   request: a request carrying `io.modelcontextprotocol/protocolVersion`
//!   in `_meta` is served statelessly (2026-07-28), anything else belongs
//!   to the session's `initialize` handshake (2024-11-05 to 2025-11-25).
//! - [`ClientSession`] connects either way: it probes with `server/discover`
//!   and falls back to `initialize`, or speaks a pinned revision.
//!
//! Both keep the in-flight tables (ids never reused, duplicate ids refused,
//! cancellation both ways, late answers dropped), progress tokens (unique,
//! strictly growing, stopped at completion), per-request timeouts with an
//! absolute maximum (on expiry the engine sends `notifications/cancelled`),
//! capability gating both ways, and JSON-RPC batches (answered as a batch
//! under 2025-03-26 only).
//!
//! Ordering invariant: events come out in the order their messages came
//! in; a runtime applies notifications in that order and may run requests
//! concurrently.
//!
//! Two runtime-free pieces both runtimes share sit beside the engine: the
//! [`Outbox`] that batches its packets onto a transport's sending half (it
//! polls the transport's futures and nothing else), and the
//! [`Cancellation`] signal handed to handlers.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod budget;
mod cancellation;
mod client;
mod error;
mod event;
mod gating;
mod log;
mod options;
mod outbox;
mod peer;
mod server;
mod transmit;

pub use cancellation::{CancelHandle, Cancellation};
pub use client::{ClientConfig, ClientEvent, ClientSession, EraChoice};
pub use error::SendError;
pub use event::{
    ClientView, Event, IncomingRequest, RequestContext, ResponseError, ServerView, TraceContext,
};
pub use options::{Limits, RequestOptions, Timeouts};
pub use outbox::{Outbox, SendFailure};
pub use peer::ProcessKeyed;
pub use server::{
    ClientCall, ExtensionCall, ExtensionMethod, ServerConfig, ServerEvent, ServerSession,
};
pub use transmit::Transmit;

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
