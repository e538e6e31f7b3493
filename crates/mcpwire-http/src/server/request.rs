//! The runtime's side of one stateless (2026-07-28) request: yields the one
//! POSTed message, streams whatever the runtime sends onto that POST's
//! response, and ends once the request is answered or its client left.

use std::sync::Arc;

use bytes::Bytes;
use mcpwire_jsonrpc::{Inbound, Message, Notification, Packet, RequestId};
use tokio::sync::mpsc;

use super::params::observe_tools_list;
use super::service::Shared;
use super::store::StreamEvent;
use super::transport::{CancelSignal, LiveTransport, TransportError};

/// The runtime's end of a stateless request.
pub(crate) struct RequestWriter {
    live: LiveTransport,
    message: Option<Inbound>,
    /// The request's id and method; `None` for a notification.
    request: Option<(RequestId, String)>,
    cancel: Arc<CancelSignal>,
    cancel_delivered: bool,
    outbound: Option<mpsc::Sender<StreamEvent>>,
    answers_only: bool,
    next_seq: u64,
}

impl RequestWriter {
    pub(crate) fn new(
        shared: &Arc<Shared>,
        message: Message,
        cancel: Arc<CancelSignal>,
        outbound: mpsc::Sender<StreamEvent>,
        answers_only: bool,
    ) -> Self {
        let request = match &message {
            Message::Request(request) => Some((request.id.clone(), request.method.clone())),
            _ => None,
        };
        Self {
            live: LiveTransport::new(shared),
            message: Some(Inbound::Single(message)),
            request,
            cancel,
            cancel_delivered: false,
            outbound: Some(outbound),
            answers_only,
            next_seq: 1,
        }
    }

    /// The POSTed message, then (for a request) a cancellation if the client
    /// closes the stream before the answer, then `None`.
    pub(crate) async fn recv(&mut self) -> Option<Inbound> {
        if let Some(message) = self.message.take() {
            return Some(message);
        }
        let (id, _) = self.request.as_ref()?;
        if self.outbound.is_none() || self.cancel_delivered {
            return None;
        }
        self.cancel.fired().await;
        self.cancel_delivered = true;
        // Closing the response stream is the cancellation (2026-07-28): the
        // runtime learns it as the notification stdio would carry.
        let params = serde_json::json!({
            "requestId": id,
            "reason": "the client closed the HTTP response stream",
        });
        let notification = Notification::new("notifications/cancelled", &params).ok()?;
        Some(Inbound::Single(Message::Notification(notification)))
    }

    pub(crate) async fn send(&mut self, packet: Packet) -> Result<(), TransportError> {
        let Some(outbound) = self.outbound.as_ref() else {
            tracing::debug!("dropping a message sent after the request was answered");
            return Ok(());
        };
        let answer = self.request.as_ref().and_then(|(id, method)| {
            packet
                .messages()
                .iter()
                .find(|m| m.is_answer() && m.id() == Some(id))
                .map(|m| (m, method))
        });
        let last = answer.is_some();
        if !last && self.answers_only {
            tracing::debug!("JSON response mode: dropping a message that is not the answer");
            return Ok(());
        }
        if let Some((Message::Response(response), method)) = answer
            && method == "tools/list"
            && let Ok(result) = serde_json::from_str(response.result.get())
        {
            observe_tools_list(&*self.live.shared().config.param_headers, &result);
        }
        let event = StreamEvent::Message {
            seq: self.next_seq,
            data: Bytes::from(packet.to_vec()),
            last,
        };
        self.next_seq += 1;
        let timeout = self.live.shared().config.send_timeout;
        let sent = tokio::time::timeout(timeout, outbound.send(event)).await;
        if last {
            self.outbound = None;
        }
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(TransportError::Closed),
            Err(_) => Err(TransportError::Stalled),
        }
    }

    pub(crate) fn close(&mut self) {
        self.outbound = None;
    }
}
