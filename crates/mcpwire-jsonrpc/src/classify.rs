//! Classification of received bytes into messages, and the errors a peer must be answered with.

use crate::decode;
use crate::error::{ErrorCode, ErrorObject};
use crate::id::RequestId;
use crate::message::{ErrorResponse, Message, Packet};
use crate::utf8::checked_text;

/// Why received JSON text is not a usable JSON-RPC 2.0 message.
///
/// It carries what the answer needs: the code (-32700 for text that is not
/// JSON, -32600 for JSON that is not a JSON-RPC 2.0 message), a sentence for
/// a human, and the id of the offending message when it could be read, so
/// that the error response can name it. [`ClassifyError::to_error_response`]
/// builds that answer.
///
/// Whether to send the answer is the caller's decision: JSON-RPC never
/// answers notifications, and a malformed *response* from a peer may be
/// better logged than answered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ClassifyError {
    code: ErrorCode,
    message: String,
    id: Option<RequestId>,
    /// Whether the offending message looked like an answer (`result` or
    /// `error` without `method`).
    answer_like: bool,
}

impl ClassifyError {
    /// An error with the given code, description and recovered id.
    ///
    /// Transports use this for failures they detect themselves, such as an
    /// oversized or non-UTF-8 frame.
    pub fn new(code: ErrorCode, message: impl Into<String>, id: Option<RequestId>) -> Self {
        Self {
            code,
            message: message.into(),
            id,
            answer_like: false,
        }
    }

    /// Marks the offending message as one that looked like an answer.
    pub(crate) fn answer_like(mut self) -> Self {
        self.answer_like = true;
        self
    }

    /// Whether the offending message looked like an answer (it had `result`
    /// or `error` and no `method`). Such a message must not be answered: its
    /// id names a request of the receiver's own, and an error response with
    /// that id would be taken as the answer to that request.
    pub fn is_answer_like(&self) -> bool {
        self.answer_like
    }

    /// A parse error (-32700): the text is not JSON. Its id is never known.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message, None)
    }

    /// An invalid request error (-32600) for the message with id `id`.
    pub fn invalid_request(message: impl Into<String>, id: Option<RequestId>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message, id)
    }

    /// The JSON-RPC error code to answer with.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// What is wrong, as a sentence for a human.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The id of the offending message, when it could be read.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The error response that answers the offending message.
    pub fn to_error_response(&self) -> ErrorResponse {
        ErrorResponse::new(
            self.id.clone(),
            ErrorObject::new(self.code, self.message.clone()),
        )
    }
}

impl From<ClassifyError> for ErrorResponse {
    fn from(error: ClassifyError) -> Self {
        ErrorResponse::new(error.id, ErrorObject::new(error.code, error.message))
    }
}

/// One JSON text received from a peer, classified.
///
/// This is what a [`Transport`](crate::Transport) hands to the engine. A
/// batch keeps its elements in order, each classified on its own, so one
/// bad element does not lose the good ones: the engine handles the `Ok`
/// elements and answers the `Err` elements inside its batch response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inbound {
    /// A single well-formed message.
    Single(Message),
    /// A non-empty batch, element by element.
    Batch(Vec<Result<Message, ClassifyError>>),
    /// Text that could not be read as a message or a batch at all: not
    /// JSON, not an object or array, an empty array, a malformed single
    /// message, or a frame the transport refused. It is answered with one
    /// error response (never wrapped in an array).
    Invalid(ClassifyError),
}

impl Inbound {
    /// Classifies one JSON text.
    ///
    /// Never panics, whatever the input. After a UTF-8 check the text is
    /// parsed in one pass, and payloads (`params`, `result`, `error.data`)
    /// are kept as raw JSON: no JSON tree is built for them.
    pub fn from_slice(bytes: &[u8]) -> Self {
        match checked_text(bytes) {
            Ok(text) => decode::classify_str(text),
            Err(valid_up_to) => Self::Invalid(invalid_utf8(valid_up_to)),
        }
    }

    /// The packet, if everything in it was well formed; otherwise the first
    /// error (for a batch, that of its first bad element).
    pub fn into_packet(self) -> Result<Packet, ClassifyError> {
        match self {
            Self::Single(message) => Ok(Packet::Single(message)),
            Self::Batch(items) => items
                .into_iter()
                .collect::<Result<Vec<_>, _>>()
                .map(Packet::Batch),
            Self::Invalid(error) => Err(error),
        }
    }
}

impl From<Packet> for Inbound {
    fn from(packet: Packet) -> Self {
        match packet {
            Packet::Single(message) => Self::Single(message),
            Packet::Batch(messages) => Self::Batch(messages.into_iter().map(Ok).collect()),
        }
    }
}

impl From<Message> for Inbound {
    fn from(message: Message) -> Self {
        Self::Single(message)
    }
}

impl From<ClassifyError> for Inbound {
    fn from(error: ClassifyError) -> Self {
        Self::Invalid(error)
    }
}

impl Packet {
    /// Classifies one JSON text strictly: any bad batch element makes the
    /// whole packet an error. Use [`Inbound::from_slice`] to keep the good
    /// elements of a batch.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, ClassifyError> {
        Inbound::from_slice(bytes).into_packet()
    }
}

impl Message {
    /// Classifies one JSON text that must hold a single message; a batch is
    /// an invalid request here.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, ClassifyError> {
        match Inbound::from_slice(bytes) {
            Inbound::Single(message) => Ok(message),
            Inbound::Batch(_) => Err(ClassifyError::invalid_request(
                "expected a single message, found a batch",
                None,
            )),
            Inbound::Invalid(error) => Err(error),
        }
    }
}

/// The error for text that is not UTF-8, which JSON text must be.
pub(crate) fn invalid_utf8(valid_up_to: usize) -> ClassifyError {
    ClassifyError::parse_error(format!("invalid JSON: invalid UTF-8 at byte {valid_up_to}"))
}
