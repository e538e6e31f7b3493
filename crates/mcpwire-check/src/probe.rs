//! A raw JSON-RPC session over any transport: requests sent exactly as
//! written, answers returned as they came, for the checks to judge.

use std::time::Duration;

use mcpwire_jsonrpc::{
    ErrorObject, ErrorResponse, Inbound, Message, Notification, Packet, Request, RequestId,
    Response, Transport, TransportReceiver, TransportSender,
};
use serde_json::Value;

/// The most messages read while waiting for one answer (notifications,
/// requests of the server), so that a chatty server cannot keep us forever.
const MAX_MESSAGES_PER_ANSWER: usize = 10_000;

/// What came back for one request.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// A result.
    Result(Value),
    /// An error response.
    Error(ErrorObject),
}

impl Answer {
    /// The answer as JSON, for a report.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            Self::Result(value) => serde_json::json!({"result": value}),
            Self::Error(error) => serde_json::to_value(error)
                .map(|error| serde_json::json!({"error": error}))
                .unwrap_or(Value::Null),
        }
    }
}

/// One connection, driven by hand.
pub(crate) struct Probe<T: Transport> {
    sender: T::Sender,
    receiver: T::Receiver,
    next_id: i64,
    timeout: Duration,
    /// Lines that were not JSON-RPC messages, as the transport reported them.
    pub(crate) garbage: Vec<String>,
}

impl<T: Transport> Probe<T> {
    pub(crate) fn new(transport: T, timeout: Duration) -> Self {
        let (sender, receiver) = transport.split();
        Self {
            sender,
            receiver,
            next_id: 0,
            timeout,
            garbage: Vec::new(),
        }
    }

    /// Sends a notification.
    pub(crate) async fn notify(&mut self, method: &str, params: &Value) -> Result<(), String> {
        let notification = Notification::new(method, params).map_err(|e| e.to_string())?;
        let packet = Packet::from(notification);
        self.sender.send(packet).await.map_err(|e| e.to_string())
    }

    /// Sends `method` with `params` and waits for its answer.
    pub(crate) async fn call(&mut self, method: &str, params: &Value) -> Result<Answer, String> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let request = Request::new(id.clone(), method, params).map_err(|e| e.to_string())?;
        (self.sender.send(Packet::from(request)).await).map_err(|e| format!("send failed: {e}"))?;
        let timeout = self.timeout;
        match tokio::time::timeout(timeout, self.answer(&id)).await {
            Ok(answer) => answer,
            Err(_) => Err(format!("no answer within {timeout:?}")),
        }
    }

    async fn answer(&mut self, id: &RequestId) -> Result<Answer, String> {
        for _ in 0..MAX_MESSAGES_PER_ANSWER {
            let inbound = match self.receiver.recv().await {
                Some(Ok(inbound)) => inbound,
                Some(Err(error)) => return Err(format!("the transport failed: {error}")),
                None => return Err("the server closed the connection".to_owned()),
            };
            let messages = match inbound {
                Inbound::Single(message) => vec![message],
                Inbound::Batch(items) => items.into_iter().filter_map(Result::ok).collect(),
                Inbound::Invalid(error) => {
                    self.garbage.push(error.message().to_owned());
                    continue;
                }
            };
            for message in messages {
                match message {
                    Message::Response(Response { id: got, result }) if &got == id => {
                        let value = serde_json::from_str(result.get()).unwrap_or(Value::Null);
                        return Ok(Answer::Result(value));
                    }
                    Message::Error(ErrorResponse { id: got, error })
                        if got.as_ref() == Some(id) =>
                    {
                        return Ok(Answer::Error(error));
                    }
                    // A request of the server (ping, roots, sampling): we
                    // offer nothing, so anything but ping is unknown.
                    Message::Request(request) => self.refuse(request).await?,
                    _ => {}
                }
            }
        }
        Err(format!(
            "no answer among {MAX_MESSAGES_PER_ANSWER} messages"
        ))
    }

    async fn refuse(&mut self, request: Request) -> Result<(), String> {
        let answer = match request.method.as_str() {
            "ping" => Response::new(request.id, &serde_json::json!({})).map(Message::from),
            method => Ok(ErrorResponse::new(
                Some(request.id),
                ErrorObject::method_not_found(method),
            )
            .into()),
        };
        let packet = Packet::from(answer.map_err(|e| e.to_string())?);
        self.sender.send(packet).await.map_err(|e| e.to_string())
    }

    /// Closes our sending side.
    pub(crate) async fn close(mut self) {
        let _ = self.sender.close().await;
    }
}
