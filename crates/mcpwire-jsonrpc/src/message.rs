//! The four JSON-RPC messages, the `Message` enum over them and `Packet`.

use serde::Serialize;

use crate::error::ErrorObject;
use crate::id::RequestId;
use crate::raw::RawJson;

/// A call that expects an answer: it has an `id`.
///
/// `params` stays raw JSON until a handler parses it; when present it is an
/// object or an array (classification guarantees this for received requests).
/// Equality compares the raw text as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The id the answer will carry.
    pub id: RequestId,
    /// The method to call.
    pub method: String,
    /// The parameters as raw JSON, if the request has any.
    pub params: Option<RawJson>,
}

impl Request {
    /// A request whose `params` are `params` serialized to JSON.
    ///
    /// Fails only when `params` cannot be serialized (for example a map with
    /// non-string keys).
    pub fn new(
        id: impl Into<RequestId>,
        method: impl Into<String>,
        params: &impl Serialize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            id: id.into(),
            method: method.into(),
            params: Some(RawJson::from_serialize(params)?),
        })
    }

    /// A request without `params`.
    pub fn without_params(id: impl Into<RequestId>, method: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            method: method.into(),
            params: None,
        }
    }
}

/// A call that expects no answer: it has no `id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// The method to call.
    pub method: String,
    /// The parameters as raw JSON, if the notification has any.
    pub params: Option<RawJson>,
}

impl Notification {
    /// A notification whose `params` are `params` serialized to JSON.
    pub fn new(
        method: impl Into<String>,
        params: &impl Serialize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            method: method.into(),
            params: Some(RawJson::from_serialize(params)?),
        })
    }

    /// A notification without `params`.
    pub fn without_params(method: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            params: None,
        }
    }
}

/// The successful answer to a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result as raw JSON.
    pub result: RawJson,
}

impl Response {
    /// A response whose `result` is `result` serialized to JSON.
    pub fn new(
        id: impl Into<RequestId>,
        result: &impl Serialize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            id: id.into(),
            result: RawJson::from_serialize(result)?,
        })
    }
}

/// The failed answer to a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorResponse {
    /// The id of the request this answers, or `None` (written as `null`)
    /// when that id could not be read.
    pub id: Option<RequestId>,
    /// What went wrong.
    pub error: ErrorObject,
}

impl ErrorResponse {
    /// An error response for the request `id` (`None` when it is unknown).
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self { id, error }
    }
}

/// Any one JSON-RPC 2.0 message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// A call with an id.
    Request(Request),
    /// A call without an id.
    Notification(Notification),
    /// A successful answer.
    Response(Response),
    /// A failed answer.
    Error(ErrorResponse),
}

impl Message {
    /// The id of a request, a response or an error response; `None` for a
    /// notification and for an error response whose id was unreadable.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Self::Request(request) => Some(&request.id),
            Self::Notification(_) => None,
            Self::Response(response) => Some(&response.id),
            Self::Error(error) => error.id.as_ref(),
        }
    }

    /// The method of a request or a notification; `None` for answers.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Request(request) => Some(&request.method),
            Self::Notification(notification) => Some(&notification.method),
            Self::Response(_) | Self::Error(_) => None,
        }
    }

    /// The raw `params` of a request or a notification, if present.
    pub fn params(&self) -> Option<&RawJson> {
        match self {
            Self::Request(request) => request.params.as_ref(),
            Self::Notification(notification) => notification.params.as_ref(),
            Self::Response(_) | Self::Error(_) => None,
        }
    }

    /// Whether this is a response or an error response, that is, an answer
    /// to a request this side sent.
    pub fn is_answer(&self) -> bool {
        matches!(self, Self::Response(_) | Self::Error(_))
    }
}

impl From<Request> for Message {
    fn from(request: Request) -> Self {
        Self::Request(request)
    }
}

impl From<Notification> for Message {
    fn from(notification: Notification) -> Self {
        Self::Notification(notification)
    }
}

impl From<Response> for Message {
    fn from(response: Response) -> Self {
        Self::Response(response)
    }
}

impl From<ErrorResponse> for Message {
    fn from(error: ErrorResponse) -> Self {
        Self::Error(error)
    }
}

/// One unit on the wire: a single message or a batch of them.
///
/// Batches exist only in protocol revision 2025-03-26; which revisions may
/// send or accept them is for the layers above to decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Packet {
    /// One message.
    Single(Message),
    /// A JSON array of messages. An empty batch is invalid on the wire.
    Batch(Vec<Message>),
}

impl Packet {
    /// The messages of the packet, in order.
    pub fn messages(&self) -> &[Message] {
        match self {
            Self::Single(message) => core::slice::from_ref(message),
            Self::Batch(messages) => messages,
        }
    }

    /// The messages of the packet, in order, by value.
    pub fn into_messages(self) -> Vec<Message> {
        match self {
            Self::Single(message) => vec![message],
            Self::Batch(messages) => messages,
        }
    }
}

impl<T: Into<Message>> From<T> for Packet {
    fn from(message: T) -> Self {
        Self::Single(message.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_hint_covers_the_encoded_packet_and_grows_with_its_payload() {
        let small = Packet::from(Response::new(7, &"ok").unwrap());
        let large = Packet::from(Response::new(7, &"x".repeat(64 * 1024)).unwrap());
        let batch = Packet::Batch(vec![
            Message::from(Request::without_params(1, "ping")),
            Message::from(Notification::without_params("notifications/initialized")),
        ]);
        for packet in [&small, &large, &batch] {
            let encoded = packet.to_vec();
            assert!(packet.size_hint() >= encoded.len(), "{packet:?}");
            assert!(packet.size_hint() <= encoded.len() + 160, "{packet:?}");
        }
    }

    #[test]
    fn accessors_report_id_and_method_by_kind() {
        let request = Message::from(Request::without_params(1, "a"));
        let notification = Message::from(Notification::without_params("b"));
        let response = Message::from(Response::new("r", &true).unwrap());
        let unknown = Message::from(ErrorResponse::new(None, ErrorObject::parse_error("x")));
        assert_eq!(request.id(), Some(&RequestId::Number(1)));
        assert_eq!(request.method(), Some("a"));
        assert_eq!(notification.id(), None);
        assert_eq!(notification.method(), Some("b"));
        assert_eq!(response.id(), Some(&RequestId::from("r")));
        assert_eq!(response.method(), None);
        assert_eq!(unknown.id(), None);
        assert!(response.is_answer() && unknown.is_answer() && !request.is_answer());
    }

    #[test]
    fn equality_compares_raw_params_text() {
        let a = Request::new(1, "m", &[1, 2]).unwrap();
        let b = Request::new(1, "m", &[1, 2]).unwrap();
        let c = Request::new(1, "m", &[2, 1]).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, Request::without_params(1, "m"));
    }

    #[test]
    fn packet_messages_lists_single_and_batch() {
        let single = Packet::from(Notification::without_params("n"));
        assert_eq!(single.messages().len(), 1);
        let batch = Packet::Batch(vec![single.messages()[0].clone(); 3]);
        assert_eq!(batch.clone().into_messages().len(), 3);
        assert_eq!(batch.messages().len(), 3);
    }
}
