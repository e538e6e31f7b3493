//! Errors: why connecting failed, and why a call has no result.

use mcpwire_jsonrpc::ErrorObject;
use mcpwire_session::{ResponseError, SendError};
use mcpwire_types::{InputRequiredResult, McpErrorCode, URLElicitationRequiredData};

/// Why [`Client::connect`](crate::Client::connect) did not produce a client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The engine gave up: no protocol revision in common, the server
    /// refused or did not answer `initialize`, or its answer was malformed
    /// (LIFE-12, LIFE-19).
    #[error("could not connect: {0}")]
    Failed(String),
    /// The transport ended before the connection was established.
    #[error("the transport closed before the connection was established")]
    TransportClosed,
    /// The transport failed.
    #[error("transport failed: {0}")]
    Transport(Box<dyn std::error::Error + Send + Sync>),
}

/// The error codes transports use for failures they report themselves, in
/// place of an answer the server can no longer give (mcpwire-http's
/// `client::codes`, -31000 to -31003). They lie outside the range JSON-RPC
/// reserves and no MCP revision allocates them, so an error with such a
/// code is a [`ClientError::Transport`], not a [`ClientError::Peer`].
pub const TRANSPORT_CODES: std::ops::RangeInclusive<i64> = -31099..=-31000;

/// Why a call to the server has no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The engine refused to send the request: the method does not exist in
    /// the revision spoken, the server did not declare the capability it
    /// needs (LIFE-14), or too many requests are in flight.
    #[error("request refused: {0}")]
    Refused(#[from] SendError),
    /// The server answered with a JSON-RPC error.
    #[error("the server answered with error {}: {}", .0.code, .0.message)]
    Peer(ErrorObject),
    /// The transport failed to carry this request or its answer (an HTTP
    /// exchange that failed, a response stream lost, an HTTP error status,
    /// an expired session): the server said nothing. The object is the one
    /// the transport made up, with a code in [`TRANSPORT_CODES`] (for
    /// Streamable HTTP, `mcpwire_http::client::codes`) and its details.
    #[error("the transport failed: {}", .0.message)]
    Transport(ErrorObject),
    /// The call's arguments could not be made into a JSON object.
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    /// The tool ran and reported an error (`isError: true`), as read by
    /// [`Client::call_tool_as`](crate::Client::call_tool_as).
    #[error("tool {tool:?} failed: {message}")]
    ToolFailed {
        /// The tool called.
        tool: String,
        /// The text of its result.
        message: String,
    },
    /// No answer came in time; `notifications/cancelled` was sent (LIFE-16).
    #[error("the request timed out")]
    TimedOut,
    /// The session ended (closed by the client, or the transport ended)
    /// before an answer came.
    #[error("the session is closed")]
    Closed,
    /// The answer could not be read as the result of the request, or was a
    /// result of another kind.
    #[error("the result could not be read: {0}")]
    InvalidResult(String),
    /// The server needs input from the client before it can answer
    /// (2026-07-28 multi round-trip requests): answer its input requests and
    /// send the request again with `inputResponses` and `requestState`.
    #[error("the server needs input before it can answer")]
    InputRequired(Box<InputRequiredResult>),
    /// A tool's `structuredContent` does not match the `outputSchema` the
    /// server listed for it (TOOL-15), or the schema cannot be used.
    #[error("structured content of tool {tool:?} is invalid: {reason}")]
    InvalidStructuredContent {
        /// The tool called.
        tool: String,
        /// What is wrong, one violation per line.
        reason: String,
    },
    /// Paging through a list did not end: the server kept returning a
    /// `nextCursor` (or returned the cursor it was given).
    #[error("{method} did not end after {pages} pages")]
    EndlessPagination {
        /// The list method.
        method: &'static str,
        /// How many pages were read.
        pages: usize,
    },
    /// A whole list (`list_all_*`, `list_skills`, `read_directory`) grew
    /// past the bound on what the client holds of it
    /// ([`ClientBuilder::max_listed_bytes`](crate::ClientBuilder::max_listed_bytes)):
    /// read it page by page instead, or raise the bound.
    #[error("{method} listed more than the {limit} bytes a whole list may take")]
    ListTooLarge {
        /// The list method.
        method: &'static str,
        /// The bound, in bytes.
        limit: usize,
    },
    /// A root is not one the client may expose: not a `file://` URI
    /// (ROOTS-03), or climbing out with `..`.
    #[error("invalid root: {0}")]
    InvalidRoot(String),
    /// The client's handler (or the runtime's checks around it) could not
    /// fulfil the input request `key` of an `input_required` answer.
    #[error("input request {key:?} could not be fulfilled: {}", .error.message)]
    InputFailed {
        /// The key of the input request.
        key: String,
        /// Why.
        error: ErrorObject,
    },
    /// The server needs the user to complete URL-mode elicitations first
    /// (-32042, 2025-11-25): show each URL to the user (never open it
    /// without consent), then retry.
    #[error("the server requires {} URL elicitation(s) first", .0.elicitations.len())]
    UrlElicitationRequired(Box<URLElicitationRequiredData>),
    /// The marker type names a method this client cannot send, or its
    /// params or result types are not the ones of that method.
    #[error("{0} is not a request this client can send")]
    UnknownMethod(&'static str),
    /// A skill file differs from the skill entry held (skills extension):
    /// the content was not used.
    #[error(transparent)]
    SkillVerification(Box<crate::skills::SkillVerificationError>),
}

impl From<ResponseError> for ClientError {
    fn from(error: ResponseError) -> Self {
        match error {
            ResponseError::Peer(object) => match URLElicitationRequiredData::from_error(&object) {
                Some(data) if object.code == McpErrorCode::UrlElicitationRequired.error_code() => {
                    Self::UrlElicitationRequired(Box::new(data))
                }
                _ if TRANSPORT_CODES.contains(&object.code.0) => Self::Transport(object),
                _ => Self::Peer(object),
            },
            ResponseError::TimedOut => Self::TimedOut,
            ResponseError::Closed => Self::Closed,
            ResponseError::InvalidResult(reason) => Self::InvalidResult(reason),
            // A failure this version of the client does not know by name.
            other => Self::InvalidResult(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_jsonrpc::ErrorCode;

    use super::*;

    #[test]
    fn an_error_the_transport_made_up_is_not_shown_as_the_servers_word() {
        // -31003: mcpwire-http's "the HTTP exchange failed".
        let local = ErrorObject::new(ErrorCode(-31003), "the HTTP exchange failed: reset");
        let error = ClientError::from(ResponseError::Peer(local.clone()));
        assert_eq!(error, ClientError::Transport(local));
        assert_eq!(
            error.to_string(),
            "the transport failed: the HTTP exchange failed: reset"
        );
        let servers = ErrorObject::new(ErrorCode(-32602), "bad");
        assert_eq!(
            ClientError::from(ResponseError::Peer(servers.clone())),
            ClientError::Peer(servers)
        );
    }
}
