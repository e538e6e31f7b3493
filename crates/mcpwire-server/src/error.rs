//! Errors: what a handler can fail with, what building a server can fail
//! with, and what serving a transport can end with.

use mcpwire_jsonrpc::{ErrorCode, ErrorObject};
use mcpwire_types::{ProtocolVersion, resource_not_found_code};

/// Why a handler could not produce its result.
///
/// For tools, [`HandlerError::Tool`] becomes a result with `isError: true`
/// that the model can read and react to; every other variant becomes a
/// JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// A tool ran and failed; the message goes to the model (`isError: true`).
    #[error("{0}")]
    Tool(String),
    /// The request's arguments are wrong (-32602).
    #[error("invalid params: {0}")]
    InvalidParams(String),
    /// The named resource, prompt or tool does not exist (-32002 for
    /// resources before 2026-07-28, -32602 otherwise).
    #[error("not found: {0}")]
    NotFound(String),
    /// Something went wrong inside the server (-32603).
    #[error("internal error: {0}")]
    Internal(String),
    /// A JSON-RPC error chosen by the handler.
    #[error("{}", .0.message)]
    Rpc(ErrorObject),
    /// The handler needs the client to fulfil requests first (multi
    /// round-trip requests): see [`InputRequired`](crate::InputRequired).
    /// Where the method or revision cannot carry that, it is -32603.
    #[error("the handler needs input from the client")]
    InputRequired(Box<crate::InputRequired>),
}

impl HandlerError {
    /// A tool execution error carrying `message` for the model.
    pub fn tool(message: impl Into<String>) -> Self {
        Self::Tool(message.into())
    }

    /// An internal error from any error value.
    pub fn internal(error: impl std::fmt::Display) -> Self {
        Self::Internal(error.to_string())
    }

    /// The JSON-RPC error this becomes in `version` when serving a resource
    /// (a tool error, outside a tool, is an internal error).
    pub fn to_error_object(&self, version: ProtocolVersion) -> ErrorObject {
        match self {
            Self::Tool(message) | Self::Internal(message) => {
                ErrorObject::internal_error(message.clone())
            }
            Self::InvalidParams(message) => ErrorObject::invalid_params(message.clone()),
            Self::NotFound(what) => ErrorObject::new(
                resource_not_found_code(version),
                format!("not found: {what}"),
            ),
            Self::Rpc(error) => error.clone(),
            Self::InputRequired(_) => ErrorObject::internal_error(format!(
                "the handler asked for input from the client, which this request cannot \
                 carry in {version} (only tools/call, prompts/get and resources/read in \
                 2026-07-28, or the handshake revisions' requests to the client)"
            )),
        }
    }

    /// The JSON-RPC error this becomes when serving anything but a resource:
    /// -32002 names a missing *resource* (RES-09), so a missing tool, prompt
    /// or completion target is -32602 in every revision (PROMPT-05, COMP-04).
    pub(crate) fn to_error_object_outside_resources(
        &self,
        version: ProtocolVersion,
    ) -> ErrorObject {
        match self {
            Self::NotFound(what) => invalid_params(format!("not found: {what}")),
            other => other.to_error_object(version),
        }
    }
}

impl From<ErrorObject> for HandlerError {
    fn from(error: ErrorObject) -> Self {
        Self::Rpc(error)
    }
}

impl From<serde_json::Error> for HandlerError {
    fn from(error: serde_json::Error) -> Self {
        Self::Internal(error.to_string())
    }
}

/// A lock a panicking handler left poisoned: `state.lock()?` in a handler.
impl<T> From<std::sync::PoisonError<T>> for HandlerError {
    fn from(_: std::sync::PoisonError<T>) -> Self {
        Self::Internal("a lock is poisoned: a handler panicked while holding it".to_owned())
    }
}

impl From<std::io::Error> for HandlerError {
    fn from(error: std::io::Error) -> Self {
        Self::Internal(error.to_string())
    }
}

/// Why a server could not be built from its builder.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A tool name breaks the 2025-11-25 naming rules.
    #[error("invalid tool name {name:?}: {reason}")]
    ToolName {
        /// The name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two tools, prompts, resources or templates share a name or URI.
    #[error("{kind} {name:?} is registered twice")]
    Duplicate {
        /// What kind of thing.
        kind: &'static str,
        /// Its name or URI.
        name: String,
    },
    /// A tool's input or output schema cannot be used.
    #[error("the {which} of tool {tool:?} is unusable: {reason}")]
    Schema {
        /// The tool.
        tool: String,
        /// `inputSchema` or `outputSchema`.
        which: &'static str,
        /// Why.
        reason: String,
    },
    /// A resource template is not a valid RFC 6570 template.
    #[error("invalid URI template {template:?}: {reason}")]
    Template {
        /// The template.
        template: String,
        /// Why.
        reason: String,
    },
    /// No key for sealing `requestState` could be made (the operating
    /// system's random source failed).
    #[error("no request state key: {0}")]
    StateKey(String),
    /// A completion names a prompt or template that is not registered.
    #[error("completion for unknown {kind} {name:?}")]
    UnknownCompletionTarget {
        /// `prompt` or `resource template`.
        kind: &'static str,
        /// Its name or URI template.
        name: String,
    },
}

/// Why serving a transport ended other than by the peer closing it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The transport failed.
    #[error("transport failed: {0}")]
    Transport(Box<dyn std::error::Error + Send + Sync>),
    /// No runtime could be set up to serve on (a blocking `run_*` host was
    /// called within a tokio runtime, or the runtime failed to build).
    #[error("no runtime to serve on: {0}")]
    Runtime(std::io::Error),
}

/// Why a request the server sent to its client has no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PeerRequestError {
    /// The engine refused to send it (capability, revision, initialization).
    #[error(transparent)]
    Refused(#[from] mcpwire_session::SendError),
    /// The client answered with an error, timed out, or the session closed.
    #[error(transparent)]
    Failed(#[from] mcpwire_session::ResponseError),
    /// The answer was of another kind than the request's result.
    #[error("the client answered with an unexpected result kind")]
    UnexpectedResult,
    /// The client accepted a form-mode elicitation with content that does
    /// not match the requested schema (ELIC-16).
    #[error("the elicitation answer does not match the requested schema: {0}")]
    InvalidElicitationContent(mcpwire_types::ElicitationMismatch),
    /// The messages of a sampling request break the ordering rules of
    /// `tool_use` and `tool_result` blocks (SAMP-07..10); nothing was sent.
    #[error("the sampling messages are not well ordered: {0}")]
    InvalidSamplingMessages(String),
}

pub(crate) fn invalid_params(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INVALID_PARAMS, message)
}
