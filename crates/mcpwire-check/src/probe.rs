//! A raw JSON-RPC session over any transport: requests sent exactly as
//! written, answers returned as they came, for the checks to judge.

use std::time::{Duration, Instant};

use mcpwire_jsonrpc::{
    ErrorObject, ErrorResponse, Inbound, Message, Notification, Packet, Request, RequestId,
    Response, Transport, TransportReceiver, TransportSender,
};
use serde_json::Value;
use std::collections::HashMap;

/// The most messages read while waiting for one answer (notifications,
/// requests of the server), so that a chatty server cannot keep us forever.
const MAX_MESSAGES_PER_ANSWER: usize = 10_000;

/// The most notifications kept for the checks to read.
const MAX_NOTIFICATIONS: usize = 1_000;

/// The most lines that were not JSON-RPC kept for the report.
const MAX_GARBAGE: usize = 100;

/// The most answers kept that arrived while another was awaited.
const MAX_EARLY_ANSWERS: usize = 100;

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

/// A notification of the server, as received.
#[derive(Debug, Clone)]
pub(crate) struct Note {
    /// Its method.
    pub(crate) method: String,
    /// Its params (`null` when it had none).
    pub(crate) params: Value,
    /// When it arrived.
    pub(crate) at: Instant,
}

/// One connection, driven by hand.
pub(crate) struct Probe<T: Transport> {
    sender: T::Sender,
    receiver: T::Receiver,
    next_id: i64,
    timeout: Duration,
    /// Lines that were not JSON-RPC messages, as the transport reported them.
    pub(crate) garbage: Vec<String>,
    /// Notifications received, in order, at most [`MAX_NOTIFICATIONS`].
    pub(crate) notifications: Vec<Note>,
    /// Answers that arrived while another one was awaited.
    early: HashMap<RequestId, Answer>,
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
            notifications: Vec::new(),
            early: HashMap::new(),
        }
    }

    /// Sends a notification.
    pub(crate) async fn notify(&mut self, method: &str, params: &Value) -> Result<(), String> {
        let notification = Notification::new(method, params).map_err(|e| e.to_string())?;
        let packet = Packet::from(notification);
        let timeout = self.timeout;
        // A server that never takes a message must not hang the check.
        match tokio::time::timeout(timeout, self.sender.send(packet)).await {
            Ok(sent) => sent.map_err(|e| e.to_string()),
            Err(_) => Err(format!("the server took no message within {timeout:?}")),
        }
    }

    /// Sends `method` with `params` and waits for its answer.
    pub(crate) async fn call(&mut self, method: &str, params: &Value) -> Result<Answer, String> {
        let id = self.send(method, params).await?;
        self.wait(&id, self.timeout).await
    }

    /// Sends `method` with `params` without waiting; its id.
    pub(crate) async fn send(&mut self, method: &str, params: &Value) -> Result<RequestId, String> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let request = Request::new(id.clone(), method, params).map_err(|e| e.to_string())?;
        let timeout = self.timeout;
        match tokio::time::timeout(timeout, self.sender.send(Packet::from(request))).await {
            Ok(sent) => sent.map_err(|e| format!("send failed: {e}"))?,
            Err(_) => return Err(format!("send failed: nothing taken within {timeout:?}")),
        }
        Ok(id)
    }

    /// Waits at most `timeout` for the answer to `id`.
    pub(crate) async fn wait(
        &mut self,
        id: &RequestId,
        timeout: Duration,
    ) -> Result<Answer, String> {
        match tokio::time::timeout(timeout, self.answer(id)).await {
            Ok(answer) => answer,
            Err(_) => Err(format!("no answer within {timeout:?}")),
        }
    }

    /// Waits at most `timeout` for a notification after the first `seen`
    /// ones that `wanted` accepts; whether one came.
    pub(crate) async fn wait_notification(
        &mut self,
        seen: usize,
        wanted: impl Fn(&str, &Value) -> bool,
        timeout: Duration,
    ) -> bool {
        let found = |probe: &Self| {
            probe
                .notifications
                .iter()
                .skip(seen)
                .any(|note| wanted(&note.method, &note.params))
        };
        let wait = async {
            for _ in 0..MAX_MESSAGES_PER_ANSWER {
                if found(self) {
                    return true;
                }
                if self.pump().await.is_err() {
                    return false;
                }
            }
            false
        };
        tokio::time::timeout(timeout, wait).await.unwrap_or(false)
    }

    async fn answer(&mut self, id: &RequestId) -> Result<Answer, String> {
        for _ in 0..MAX_MESSAGES_PER_ANSWER {
            if let Some(answer) = self.early.remove(id) {
                return Ok(answer);
            }
            self.pump().await?;
        }
        Err(format!(
            "no answer among {MAX_MESSAGES_PER_ANSWER} messages"
        ))
    }

    /// Reads one inbound unit and files what it holds.
    async fn pump(&mut self) -> Result<(), String> {
        let inbound = match self.receiver.recv().await {
            Some(Ok(inbound)) => inbound,
            Some(Err(error)) => return Err(format!("the transport failed: {error}")),
            None => return Err("the server closed the connection".to_owned()),
        };
        let messages = match inbound {
            Inbound::Single(message) => vec![message],
            Inbound::Batch(items) => items.into_iter().filter_map(Result::ok).collect(),
            Inbound::Invalid(error) => {
                if self.garbage.len() < MAX_GARBAGE {
                    self.garbage.push(error.message().to_owned());
                }
                return Ok(());
            }
        };
        for message in messages {
            match message {
                Message::Response(Response { id, result }) => {
                    let value = serde_json::from_str(result.get()).unwrap_or(Value::Null);
                    self.file(id, Answer::Result(value));
                }
                Message::Error(ErrorResponse {
                    id: Some(id),
                    error,
                }) => self.file(id, Answer::Error(error)),
                Message::Error(_) => {}
                Message::Notification(Notification { method, params }) => {
                    if self.notifications.len() < MAX_NOTIFICATIONS {
                        let params = params
                            .and_then(|raw| serde_json::from_str(raw.get()).ok())
                            .unwrap_or(Value::Null);
                        let at = Instant::now();
                        self.notifications.push(Note { method, params, at });
                    }
                }
                // A request of the server (ping, roots, sampling): we
                // offer nothing, so anything but ping is unknown.
                Message::Request(request) => self.refuse(request).await?,
            }
        }
        Ok(())
    }

    fn file(&mut self, id: RequestId, answer: Answer) {
        if self.early.len() < MAX_EARLY_ANSWERS || self.early.contains_key(&id) {
            self.early.insert(id, answer);
        }
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
