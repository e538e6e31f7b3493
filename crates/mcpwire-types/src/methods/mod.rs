//! The method table: every request and notification of every revision, a
//! marker type per method for typed APIs, and routing enums that decode
//! params and results by the `method` string.
//!
//! Everything but this file is generated from the vendored schemas by
//! `cargo xtask codegen` (a test fails when the committed files are stale):
//!
//! - [`METHODS`] / [`method_info`]: name, kind, direction, Rust params and
//!   result types, and the revisions that exchange each method;
//! - a marker type per method implementing [`Request`] or [`Notification`]
//!   (e.g. [`CallTool`]), so that a typed API can be written as
//!   `client.request::<CallTool>(params)`;
//! - [`ClientRequest`], [`ServerRequest`], [`ClientNotification`] and
//!   [`ServerNotification`], which decode params by matching the method name
//!   (never by trying variants in turn) and tell an unknown method from
//!   invalid params ([`DecodeError`]);
//! - [`ServerResult`] and [`ClientResult`], which decode a result by the
//!   method of the request it answers.

mod markers;
mod notifications;
mod requests;
mod results;
mod table;

use std::borrow::Cow;
use std::fmt::Debug;

use mcpwire_jsonrpc::{ErrorCode, RawJson};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{ForRevision, ProtocolVersion};

pub use markers::*;
pub use notifications::{ClientNotification, ServerNotification};
pub use requests::{ClientRequest, ServerRequest};
pub use results::{ClientResult, ServerResult};
pub use table::METHODS;

/// Whether a method is a request (answered with a result or an error) or a
/// notification (never answered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MethodKind {
    /// A request.
    Request,
    /// A notification.
    Notification,
}

/// Which side sends a method, over every revision that has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Only the client sends it (`tools/call`).
    ClientToServer,
    /// Only the server sends it (`sampling/createMessage`).
    ServerToClient,
    /// Either side sends it (`ping`, `notifications/cancelled`).
    Both,
}

impl Direction {
    /// Whether a client sends it.
    pub const fn client_sends(self) -> bool {
        matches!(self, Self::ClientToServer | Self::Both)
    }

    /// Whether a server sends it.
    pub const fn server_sends(self) -> bool {
        matches!(self, Self::ServerToClient | Self::Both)
    }
}

/// What the schemas say about one method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MethodInfo {
    /// The wire name, e.g. `"tools/call"`.
    pub name: &'static str,
    /// Request or notification.
    pub kind: MethodKind,
    /// Who sends it.
    pub direction: Direction,
    /// The name of the Rust params type in this crate, e.g. `"CallToolRequestParams"`.
    pub params_type: &'static str,
    /// The name of the Rust result type of a request, e.g. `"CallToolResult"`.
    pub result_type: Option<&'static str>,
    /// The oldest revision that exchanges it as a JSON-RPC message.
    pub first: ProtocolVersion,
    /// The newest revision that exchanges it as a JSON-RPC message.
    pub last: ProtocolVersion,
    /// The first revision in which, instead of sending this request, the
    /// server asks for it inside an `InputRequiredResult` (multi round-trip
    /// requests, 2026-07-28 on: sampling, elicitation, roots).
    pub input_request_since: Option<ProtocolVersion>,
    /// The first revision in which the answer to this request may be an
    /// `InputRequiredResult` instead of its result.
    pub input_required_since: Option<ProtocolVersion>,
}

impl MethodInfo {
    /// Whether `version` exchanges this method as a JSON-RPC message.
    pub fn in_revision(&self, version: ProtocolVersion) -> bool {
        self.first <= version && version <= self.last
    }

    /// Whether, in `version`, a server asks for this request inside an
    /// `InputRequiredResult`.
    pub fn is_input_request_in(&self, version: ProtocolVersion) -> bool {
        self.input_request_since
            .is_some_and(|since| since <= version)
    }

    /// Whether, in `version`, the answer to this request may be an
    /// `InputRequiredResult`.
    pub fn may_require_input_in(&self, version: ProtocolVersion) -> bool {
        self.input_required_since
            .is_some_and(|since| since <= version)
    }
}

/// What the schemas say about the method called `name`, if any revision has it.
pub fn method_info(name: &str) -> Option<&'static MethodInfo> {
    let index = METHODS.binary_search_by(|info| info.name.cmp(name)).ok()?;
    METHODS.get(index)
}

/// A request method, named by a marker type such as [`CallTool`].
pub trait Request {
    /// The wire name.
    const METHOD: &'static str;
    /// The params the request carries.
    type Params: Serialize + DeserializeOwned + ForRevision + Debug + Clone + Send + Sync + 'static;
    /// The result that answers it.
    type Result: Serialize + DeserializeOwned + ForRevision + Debug + Clone + Send + Sync + 'static;
}

/// A request a client sends in some revision: how its params become a
/// [`ClientRequest`] and how its result comes out of a [`ServerResult`]
/// (generated for every such marker, so a typed call moves values across
/// without a downcast, and a marker of another direction does not compile).
pub trait ClientMethod: Request {
    /// The routing variant holding `params`.
    fn into_request(params: Self::Params) -> ClientRequest;
    /// The typed result, or the result back when it is of another kind.
    ///
    /// # Errors
    ///
    /// `result` itself when it answers another method.
    fn from_result(result: ServerResult) -> Result<Self::Result, ServerResult>;
}

/// A notification method, named by a marker type such as [`Progress`].
pub trait Notification {
    /// The wire name.
    const METHOD: &'static str;
    /// The params the notification carries.
    type Params: Serialize + DeserializeOwned + ForRevision + Debug + Clone + Send + Sync + 'static;
}

/// Why a method's params or result could not be decoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// No revision lets the sender send this method; a request is answered
    /// with -32601 (method not found).
    #[error("method not found: {0:?}")]
    UnknownMethod(String),
    /// The params do not fit the method's params type; a request is
    /// answered with -32602 (invalid params).
    #[error("invalid params for {method}: {source}")]
    InvalidParams {
        /// The method whose params were read.
        method: &'static str,
        /// What serde found wrong, naming the field.
        source: serde_json::Error,
    },
    /// The result does not fit the result type of the request it answers.
    #[error("invalid result for {method}: {source}")]
    InvalidResult {
        /// The method of the request the result answers.
        method: &'static str,
        /// What serde found wrong, naming the field.
        source: serde_json::Error,
    },
}

impl DecodeError {
    /// The JSON-RPC error a receiver answers a request with
    /// ([`ErrorCode::METHOD_NOT_FOUND`] or [`ErrorCode::INVALID_PARAMS`]), or
    /// `None` for a result, which is never answered.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            Self::UnknownMethod(_) => Some(ErrorCode::METHOD_NOT_FOUND),
            Self::InvalidParams { .. } => Some(ErrorCode::INVALID_PARAMS),
            Self::InvalidResult { .. } => None,
        }
    }
}

/// Reads the params of `method`; absent params read as `{}`, so that params
/// whose fields are all optional decode and missing required fields are
/// named in the error.
fn decode_params<T: DeserializeOwned>(
    method: &'static str,
    params: Option<&RawJson>,
) -> Result<T, DecodeError> {
    let text = params.map_or("{}", RawJson::get);
    serde_json::from_str(text).map_err(|source| DecodeError::InvalidParams { method, source })
}

/// Reads the result of a `method` request.
fn decode_result<T: DeserializeOwned>(
    method: &'static str,
    result: &RawJson,
) -> Result<T, DecodeError> {
    serde_json::from_str(result.get())
        .map_err(|source| DecodeError::InvalidResult { method, source })
}

/// Serializes a params or result value to raw JSON.
fn encode<T: Serialize>(value: &T) -> Result<RawJson, serde_json::Error> {
    RawJson::from_serialize(value)
}

/// Whether a result says `"resultType": "input_required"` (2026-07-28).
fn is_input_required(result: &RawJson) -> bool {
    /// Only the one field; serde skips the others without building them.
    #[derive(Deserialize)]
    struct ResultTypeOnly<'a> {
        #[serde(rename = "resultType", borrow, default)]
        result_type: Option<Cow<'a, str>>,
    }
    serde_json::from_str::<ResultTypeOnly<'_>>(result.get())
        .is_ok_and(|peek| peek.result_type.as_deref() == Some("input_required"))
}
