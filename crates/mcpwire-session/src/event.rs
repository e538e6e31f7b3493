//! What the engine tells the runtime: requests to handle, notifications,
//! answers to our own requests, cancellations and progress.

use std::sync::Arc;

use mcpwire_jsonrpc::{ErrorObject, RequestId};
use mcpwire_types::methods::DecodeError;
use mcpwire_types::{
    ClientCapabilities, Implementation, LoggingLevel, Meta, ProgressNotificationParams,
    ProgressToken, ProtocolVersion, ServerCapabilities, meta_keys,
};

/// Something the runtime must act on, in the order it happened.
///
/// The runtime applies notifications in order and may hand requests to
/// concurrent handlers: that is the ordering invariant of the engine.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event<Req, Notif, Res, Peer> {
    /// The peer finished the handshake (server: `notifications/initialized`
    /// arrived; client: `initialize` or `server/discover` answered).
    Established(Peer),
    /// A request to handle; answer it with the session's `respond`.
    Request(IncomingRequest<Req>),
    /// A request of a method an extension adds (server side), its params
    /// still raw; answer it with `respond_raw`.
    ExtensionRequest(IncomingRequest<crate::ExtensionCall>),
    /// A notification from the peer (cancellation and progress are
    /// reported as their own events instead).
    Notification(Notif),
    /// The peer cancelled a request it sent us; its answer will be dropped,
    /// so the handler should stop. The runtime still calls `respond` for it
    /// (with any outcome): that frees its entry in the in-flight table.
    Cancelled {
        /// The cancelled request.
        id: RequestId,
        /// Why, if the peer said.
        reason: Option<String>,
    },
    /// The answer to a request we sent.
    Response {
        /// The request it answers.
        id: RequestId,
        /// The result, or why there is none.
        result: Result<Res, ResponseError>,
    },
    /// The answer to a request of a method an extension adds (client side),
    /// its result as untyped JSON. A timeout or the end of the session comes as
    /// [`Event::Response`] instead, like for any request.
    ExtensionResponse {
        /// The request it answers.
        id: RequestId,
        /// The result, or the error the peer answered with.
        result: Result<serde_json::Value, ResponseError>,
    },
    /// The session cannot go on (a client found no revision in common with
    /// its server, or the handshake failed); the runtime closes the transport.
    Failed(String),
    /// Progress on a request we sent with [`RequestOptions::progress`](crate::RequestOptions).
    Progress {
        /// The request it reports on.
        id: RequestId,
        /// The notification's params.
        progress: ProgressNotificationParams,
    },
}

/// What a server learns about its client when the handshake completes.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientView {
    /// The negotiated revision.
    pub version: ProtocolVersion,
    /// What the client declared.
    pub capabilities: Arc<ClientCapabilities>,
    /// Who the client is.
    pub info: Arc<Implementation>,
}

/// What a client learns about its server when it connects.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerView {
    /// The revision the session speaks.
    pub version: ProtocolVersion,
    /// What the server declared.
    pub capabilities: Arc<ServerCapabilities>,
    /// Who the server is (`None` when a stateless server did not say).
    pub info: Option<Arc<Implementation>>,
    /// The server's instructions for the model, if any.
    pub instructions: Option<String>,
}

/// A request from the peer, decoded, with what its handler needs to know.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingRequest<R> {
    /// Its id; pass it back to `respond`.
    pub id: RequestId,
    /// The request, routed by method.
    pub request: R,
    /// The revision, capabilities and metadata it came with.
    pub context: RequestContext,
}

/// The circumstances of one request: which revision it speaks, who sent it,
/// and its protocol metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestContext {
    /// The revision of this request: the session's in the handshake era,
    /// the request's own `_meta` one in the stateless era.
    pub version: ProtocolVersion,
    /// The client's capabilities (server side only).
    pub client_capabilities: Option<Arc<ClientCapabilities>>,
    /// The client's identity (server side only, when known).
    pub client_info: Option<Arc<Implementation>>,
    /// The token progress notifications for this request must carry.
    pub progress_token: Option<ProgressToken>,
    /// The minimum level of log messages the client wants while this
    /// request runs (server side: the session level, or the request's own
    /// `io.modelcontextprotocol/logLevel` in 2026-07-28). `None` in
    /// 2026-07-28 means: send no log messages for this request.
    pub log_level: Option<LoggingLevel>,
    /// W3C trace context carried in `_meta` (SEP-414).
    pub trace: TraceContext,
}

/// W3C trace context and baggage from a request's `_meta` (SEP-414), so that
/// a host's trace continues into the handler.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceContext {
    /// `traceparent`.
    pub traceparent: Option<String>,
    /// `tracestate`.
    pub tracestate: Option<String>,
    /// `baggage`.
    pub baggage: Option<String>,
}

impl TraceContext {
    /// Reads the three keys from `meta`; absent or non-string values are `None`.
    pub fn from_meta(meta: Option<&Meta>) -> Self {
        let read = |key| meta.and_then(|m| m.get_str(key)).map(str::to_owned);
        Self {
            traceparent: read(meta_keys::TRACEPARENT),
            tracestate: read(meta_keys::TRACESTATE),
            baggage: read(meta_keys::BAGGAGE),
        }
    }

    /// Whether no key was present.
    pub fn is_empty(&self) -> bool {
        self.traceparent.is_none() && self.tracestate.is_none() && self.baggage.is_none()
    }

    /// Writes the present keys into `meta`, for a request we send.
    pub fn write_to(&self, meta: &mut Meta) {
        let pairs = [
            (meta_keys::TRACEPARENT, &self.traceparent),
            (meta_keys::TRACESTATE, &self.tracestate),
            (meta_keys::BAGGAGE, &self.baggage),
        ];
        for (key, value) in pairs {
            if let Some(value) = value {
                meta.insert(key, value.clone());
            }
        }
    }
}

/// Why a request we sent has no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// The peer answered with a JSON-RPC error.
    #[error("the peer answered with error {}: {}", .0.code, .0.message)]
    Peer(ErrorObject),
    /// No answer came before the timeout; `notifications/cancelled` was sent.
    #[error("the request timed out")]
    TimedOut,
    /// The answer did not fit the result type of the request.
    #[error("the result could not be read: {0}")]
    InvalidResult(String),
    /// The session ended before an answer came.
    #[error("the session closed before the answer came")]
    Closed,
}

impl From<DecodeError> for ResponseError {
    fn from(error: DecodeError) -> Self {
        Self::InvalidResult(error.to_string())
    }
}
