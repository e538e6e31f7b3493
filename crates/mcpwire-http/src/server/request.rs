//! The runtime's side of one stateless (2026-07-28) request: yields the one
//! POSTed message, streams whatever the runtime sends onto that POST's
//! response, and ends once the request is answered or its client left.

use std::sync::Arc;

use bytes::Bytes;
use mcpwire_jsonrpc::{Inbound, Message, Notification, Packet, RequestId};

use super::params::observe_tools_list;
use super::pipe::PipeSender;
use super::service::Shared;
use super::stream_response::AnswerStatus;
use super::transport::{CancelSignal, LiveTransport, TransportError};
use mcpwire_store::StreamEvent;

/// The runtime's end of a stateless request, as two halves: the outbox
/// streams onto the POST's response, the inbox yields the POSTed message
/// and then, if the client leaves before the answer, a cancellation.
pub(crate) fn request_halves(
    shared: &Arc<Shared>,
    message: Message,
    cancel: Arc<CancelSignal>,
    outbound: PipeSender<StreamEvent>,
    answers_only: bool,
    extensions: http::Extensions,
    answer_status: Arc<AnswerStatus>,
) -> (RequestOutbox, RequestInbox) {
    let request = match &message {
        Message::Request(request) => Some((request.id.clone(), request.method.clone())),
        _ => None,
    };
    // Fired by the outbox once the answer is sent (or it is closed), so
    // that the inbox ends and the runtime lets the request go.
    let answered = Arc::new(CancelSignal::default());
    let outbox = RequestOutbox {
        live: LiveTransport::new(shared),
        request: request.clone(),
        answered: answered.clone(),
        outbound: Some(outbound),
        answers_only,
        next_seq: 1,
        answer_status,
    };
    let inbox = RequestInbox {
        message: Some(Inbound::Single(message)),
        context: Some(Arc::new(extensions)),
        request_id: request.map(|(id, _)| id),
        cancel,
        answered,
        done: false,
    };
    (outbox, inbox)
}

/// The receiving half of a stateless request's transport.
pub(crate) struct RequestInbox {
    message: Option<Inbound>,
    /// The POST's extensions, until the runtime asks for them.
    context: Option<mcpwire_jsonrpc::TransportContext>,
    /// The request's id; `None` for a notification.
    request_id: Option<RequestId>,
    cancel: Arc<CancelSignal>,
    answered: Arc<CancelSignal>,
    done: bool,
}

/// The sending half of a stateless request's transport.
pub(crate) struct RequestOutbox {
    live: LiveTransport,
    /// The request's id and method; `None` for a notification.
    request: Option<(RequestId, String)>,
    answered: Arc<CancelSignal>,
    outbound: Option<PipeSender<StreamEvent>>,
    answers_only: bool,
    next_seq: u64,
    /// Where the answer's HTTP status is recorded for the HTTP side.
    answer_status: Arc<AnswerStatus>,
}

impl RequestInbox {
    /// The POST's extensions, once, for its request `id`.
    pub(crate) fn take_context(
        &mut self,
        id: &RequestId,
    ) -> Option<mcpwire_jsonrpc::TransportContext> {
        if self.request_id.as_ref() == Some(id) {
            self.context.take()
        } else {
            None
        }
    }

    /// The POSTed message, then (for a request) a cancellation if the client
    /// closes the stream before the answer, then `None`.
    pub(crate) async fn recv(&mut self) -> Option<Inbound> {
        if let Some(message) = self.message.take() {
            return Some(message);
        }
        let id = self.request_id.as_ref()?;
        if self.done {
            return None;
        }
        // Both waits are cancel safe: a firing is kept until it is seen.
        tokio::select! {
            biased;
            () = self.answered.fired() => {
                self.done = true;
                None
            }
            () = self.cancel.fired() => {
                self.done = true;
                // Closing the response stream is the cancellation
                // (2026-07-28): the runtime learns it as the notification
                // stdio would carry.
                let params = serde_json::json!({
                    "requestId": id,
                    "reason": "the client closed the HTTP response stream",
                });
                let notification = Notification::new("notifications/cancelled", &params).ok()?;
                Some(Inbound::Single(Message::Notification(notification)))
            }
        }
    }
}

impl RequestOutbox {
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
        if last {
            // Recorded before the answer is queued, so the HTTP side sees it.
            self.answer_status.record(&packet);
        }
        let event = StreamEvent::Message {
            seq: self.next_seq,
            data: Bytes::from(packet.to_vec()),
            last,
        };
        self.next_seq += 1;
        let timeout = self.live.shared().config.send_timeout;
        let sent = {
            let mut send = core::pin::pin!(outbound.send(event));
            // An event usually finds room at once: the send timeout's timer
            // is set only for one that has to wait.
            match futures_util::FutureExt::now_or_never(send.as_mut()) {
                Some(sent) => Ok(sent),
                None => tokio::time::timeout(timeout, send).await,
            }
        };
        if last {
            self.close();
        }
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(TransportError::Closed),
            Err(_) => Err(TransportError::Stalled),
        }
    }

    pub(crate) fn close(&mut self) {
        self.outbound = None;
        self.answered.fire();
    }
}
