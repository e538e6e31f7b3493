//! A transport-level relay of JSON-RPC messages between two transports,
//! as the bridge uses it: messages pass through unchanged, `initialize`
//! included, and each message from the server goes on the HTTP stream of
//! the client request it belongs to.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use mcpwire::jsonrpc::{
    Inbound, Message, Packet, RequestId, Transport, TransportReceiver, TransportSender,
};
use serde_json::Value;

/// How many client requests the relay remembers at once; past it the
/// oldest is forgotten. Remembering only routes the server's
/// notifications and requests to the right stream (an answer is routed by
/// its own id), so forgetting loses nothing but that guess.
const MAX_REMEMBERED: usize = 4096;

/// The longest request id or progress token (its JSON text) remembered:
/// the client picks them, and the table must stay small whatever it sends.
const MAX_KEY_BYTES: usize = 1024;

/// The client requests awaiting an answer, so that what the server sends
/// meanwhile can be put on the right stream. Bounded: an entry ends with
/// the request's answer or its cancellation, and there are at most
/// [`MAX_REMEMBERED`] of at most [`MAX_KEY_BYTES`] each.
#[derive(Default)]
struct InFlight {
    /// Request ids in the order they came.
    requests: VecDeque<RequestId>,
    /// Progress tokens (as JSON text) to the request that carried them.
    tokens: HashMap<String, RequestId>,
}

/// The `_meta.progressToken` of params, as JSON text.
fn progress_token(params: Option<&mcpwire::jsonrpc::RawJson>, at_top: bool) -> Option<String> {
    let params: Value = serde_json::from_str(params?.get()).ok()?;
    let token = if at_top {
        params.get("progressToken")
    } else {
        params
            .get("_meta")
            .and_then(|meta| meta.get("progressToken"))
    };
    token.map(ToString::to_string)
}

/// The `requestId` of `notifications/cancelled` params.
fn cancelled_request(params: Option<&mcpwire::jsonrpc::RawJson>) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct Cancelled {
        #[serde(rename = "requestId")]
        request_id: RequestId,
    }
    serde_json::from_str::<Cancelled>(params?.get())
        .ok()
        .map(|cancelled| cancelled.request_id)
}

impl InFlight {
    /// Notes a message going from the client to the server.
    fn outgoing(&mut self, message: &Message) {
        match message {
            Message::Request(request) => {
                if request
                    .id
                    .as_str()
                    .is_some_and(|id| id.len() > MAX_KEY_BYTES)
                {
                    return;
                }
                if self.requests.len() >= MAX_REMEMBERED
                    && let Some(oldest) = self.requests.pop_front()
                {
                    self.forget(&oldest);
                }
                self.requests.push_back(request.id.clone());
                if let Some(token) = progress_token(request.params.as_ref(), false)
                    .filter(|token| token.len() <= MAX_KEY_BYTES)
                {
                    self.tokens.insert(token, request.id.clone());
                }
            }
            // A cancelled request gets no answer (CANCEL-05): its entry
            // would otherwise stay for the whole session.
            Message::Notification(notification)
                if notification.method == "notifications/cancelled" =>
            {
                if let Some(id) = cancelled_request(notification.params.as_ref()) {
                    self.requests.retain(|pending| pending != &id);
                    self.forget(&id);
                }
            }
            _ => {}
        }
    }

    /// Drops the progress tokens of request `id`.
    fn forget(&mut self, id: &RequestId) {
        self.tokens.retain(|_, pending| pending != id);
    }

    /// The client request a message from the server belongs to; an answer
    /// also ends that request's entry.
    fn related(&mut self, message: &Message) -> Option<RequestId> {
        match message {
            Message::Response(_) | Message::Error(_) => {
                let id = message.id()?.clone();
                self.requests.retain(|pending| pending != &id);
                self.forget(&id);
                Some(id)
            }
            Message::Notification(notification)
                if notification.method == "notifications/progress" =>
            {
                progress_token(notification.params.as_ref(), true)
                    .and_then(|token| self.tokens.get(&token).cloned())
                    .or_else(|| self.requests.back().cloned())
            }
            // Log messages and server requests made while a request runs
            // belong to it; the latest is the best guess a relay can make.
            _ => self.requests.back().cloned(),
        }
    }
}

/// Relays messages between `client_side` (where the MCP client is) and
/// `server_side` (where the MCP server is) until either side ends; then
/// closes both. Text that is not JSON-RPC is answered with the error the
/// sender must get, as the server would.
pub(crate) async fn relay<C: Transport, S: Transport>(client_side: C, server_side: S) {
    let (client_tx, mut client_rx) = client_side.split();
    let (mut server_tx, mut server_rx) = server_side.split();
    let client_tx = Arc::new(tokio::sync::Mutex::new(client_tx));
    let in_flight = Arc::new(Mutex::new(InFlight::default()));

    let upstream = {
        let client_tx = client_tx.clone();
        let in_flight = in_flight.clone();
        async move {
            while let Some(Ok(inbound)) = client_rx.recv().await {
                let mut messages = Vec::new();
                let mut errors = Vec::new();
                let batch = matches!(inbound, Inbound::Batch(_));
                match inbound {
                    Inbound::Single(message) => messages.push(message),
                    Inbound::Batch(items) => {
                        for item in items {
                            match item {
                                Ok(message) => messages.push(message),
                                Err(error) => errors.push(error),
                            }
                        }
                    }
                    Inbound::Invalid(error) => errors.push(error),
                }
                for error in errors {
                    let answer = Packet::from(error.to_error_response());
                    let _ = client_tx.lock().await.send(answer).await;
                }
                if messages.is_empty() {
                    continue;
                }
                {
                    let mut in_flight = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
                    messages
                        .iter()
                        .for_each(|message| in_flight.outgoing(message));
                }
                let packet = if batch {
                    Packet::Batch(messages)
                } else {
                    Packet::from(messages.remove(0))
                };
                if server_tx.send(packet).await.is_err() {
                    break;
                }
            }
            let _ = server_tx.close().await;
        }
    };

    let downstream = {
        let client_tx = client_tx.clone();
        async move {
            while let Some(Ok(inbound)) = server_rx.recv().await {
                // The server's output is already valid JSON-RPC or it is
                // dropped: there is nobody to tell on the server's behalf.
                let Ok(packet) = inbound.into_packet() else {
                    continue;
                };
                for message in packet.into_messages() {
                    let related = in_flight
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .related(&message);
                    let sent = client_tx
                        .lock()
                        .await
                        .send_related(Packet::from(message), related.as_ref())
                        .await;
                    if sent.is_err() {
                        return;
                    }
                }
            }
        }
    };

    tokio::select! {
        () = upstream => {}
        () = downstream => {}
    }
    let _ = client_tx.lock().await.close().await;
}

#[cfg(test)]
mod tests {
    use mcpwire::jsonrpc::{Notification, Request, Response};
    use serde_json::json;

    use super::*;

    #[test]
    fn server_messages_follow_the_request_they_belong_to() {
        let mut in_flight = InFlight::default();
        let first =
            Request::new(1, "tools/call", &json!({"_meta": {"progressToken": "t1"}})).unwrap();
        let second = Request::new(2, "tools/call", &json!({})).unwrap();
        in_flight.outgoing(&first.into());
        in_flight.outgoing(&second.into());
        let progress = Notification::new(
            "notifications/progress",
            &json!({"progressToken": "t1", "progress": 1}),
        )
        .unwrap();
        assert_eq!(
            in_flight.related(&progress.into()),
            Some(RequestId::from(1))
        );
        let log = Notification::new(
            "notifications/message",
            &json!({"level": "info", "data": "x"}),
        )
        .unwrap();
        assert_eq!(
            in_flight.related(&log.clone().into()),
            Some(RequestId::from(2))
        );
        let answer = Response::new(2, &json!({})).unwrap();
        assert_eq!(in_flight.related(&answer.into()), Some(RequestId::from(2)));
        assert_eq!(
            in_flight.related(&log.clone().into()),
            Some(RequestId::from(1))
        );
        let answer = Response::new(1, &json!({})).unwrap();
        assert_eq!(in_flight.related(&answer.into()), Some(RequestId::from(1)));
        assert_eq!(in_flight.related(&log.into()), None);
        assert!(in_flight.tokens.is_empty());
    }

    #[test]
    fn a_cancelled_request_is_forgotten_although_it_gets_no_answer() {
        let mut in_flight = InFlight::default();
        let call = Request::new(
            "c1",
            "tools/call",
            &json!({"_meta": {"progressToken": "t"}}),
        )
        .unwrap();
        in_flight.outgoing(&call.into());
        let cancel = Notification::new(
            "notifications/cancelled",
            &json!({"requestId": "c1", "reason": "timed out"}),
        )
        .unwrap();
        in_flight.outgoing(&cancel.into());
        assert!(in_flight.requests.is_empty());
        assert!(in_flight.tokens.is_empty());
    }

    #[test]
    fn the_table_stays_bounded_whatever_the_client_sends() {
        let mut in_flight = InFlight::default();
        for n in 0..MAX_REMEMBERED * 2 {
            let token = format!("t{n}");
            let call = Request::new(
                n as i64,
                "tools/call",
                &json!({"_meta": {"progressToken": token}}),
            )
            .unwrap();
            in_flight.outgoing(&call.into());
        }
        assert_eq!(in_flight.requests.len(), MAX_REMEMBERED);
        assert_eq!(in_flight.tokens.len(), MAX_REMEMBERED);
        // The newest are the ones kept.
        assert_eq!(
            in_flight.requests.back(),
            Some(&RequestId::from((MAX_REMEMBERED * 2 - 1) as i64))
        );
        let long_id = "x".repeat(MAX_KEY_BYTES + 1);
        let call = Request::new(long_id.as_str(), "tools/call", &json!({})).unwrap();
        in_flight.outgoing(&call.into());
        assert_eq!(in_flight.requests.len(), MAX_REMEMBERED);
    }
}
