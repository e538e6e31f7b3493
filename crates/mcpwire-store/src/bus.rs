//! The message bus between HTTP connections and session runtimes: the
//! envelopes of POSTed messages, the events of streams, and the
//! [`MessageBus`] trait that routes both (across instances when shared).

use core::fmt;
use core::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::Stream;
use mcpwire_jsonrpc::{ClassifyError, ErrorObject, ErrorResponse, Inbound, Message};

use crate::{RequestIdentity, ResponseForm, SessionId, StoreError, StoreFuture, StreamKey};

/// The messages clients POSTed to one session, in order, for its runtime.
pub type Inbox = Pin<Box<dyn Stream<Item = Envelope> + Send>>;

/// The events of one stream, for the HTTP connection attached to it.
pub type Subscription = Pin<Box<dyn Stream<Item = StreamEvent> + Send>>;

/// A message a client POSTed, on its way to the runtime of its session.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Envelope {
    /// The JSON text as received (a message or a batch).
    pub payload: Bytes,
    /// The stream that carries the answers to the requests in it (`None`
    /// when it holds only notifications and responses).
    pub stream: Option<u64>,
    /// Whether that stream is answered with plain JSON, so that only the
    /// answers may go on it; anything else the runtime sends about these
    /// requests then goes on the standalone stream.
    pub answers_only: bool,
    /// The POST's `http::Extensions` (e.g. the identity an authentication
    /// layer validated), handed to the runtime with the requests inside.
    /// A bus that carries the envelope to another process carries only
    /// their [`RequestIdentity`].
    pub extensions: PostExtensions,
    /// The decision between a JSON and an SSE answer on `stream`, shared
    /// with the HTTP response when the POST is in `Auto` mode (see
    /// [`ResponseForm`]). It never leaves the process: a bus that moves the
    /// envelope elsewhere drops it, and the runtime there logs every event.
    pub form: SharedForm,
    /// The payload as the receiving instance classified it, so that a
    /// runtime in the same process does not parse it a second time.
    classified: Classified,
}

impl Envelope {
    /// An envelope for `payload`, answered on `stream`.
    pub fn new(payload: Bytes, stream: Option<u64>, answers_only: bool) -> Self {
        Self {
            payload,
            stream,
            answers_only,
            extensions: PostExtensions::default(),
            form: SharedForm::default(),
            classified: Classified(None),
        }
    }

    /// An envelope for `payload`, which the caller has classified as
    /// `inbound`: a runtime in this process takes `inbound` as it is (the
    /// HTTP server classifies each POST once, where it arrives).
    pub fn classified(
        payload: Bytes,
        inbound: Inbound,
        stream: Option<u64>,
        answers_only: bool,
    ) -> Self {
        // Kept inline, not boxed: an envelope crosses the in-memory bus by
        // move (one allocation less per POST; the bus's queue holds no
        // buffer for one envelope in flight).
        let classified = Classified(Some((payload.clone(), inbound)));
        Self {
            classified,
            ..Self::new(payload, stream, answers_only)
        }
    }

    /// The payload as messages: the classification made where the POST
    /// arrived when the envelope still holds that very payload, otherwise
    /// (an envelope rebuilt by a bus, or one whose payload was replaced)
    /// a fresh one.
    pub fn take_inbound(&mut self) -> Inbound {
        match self.classified.0.take() {
            // Same buffer, same length: the same bytes (the clone kept in
            // `Classified` keeps the buffer alive, so its address cannot
            // have been reused for other bytes).
            Some((source, inbound))
                if source.as_ptr() == self.payload.as_ptr()
                    && source.len() == self.payload.len() =>
            {
                inbound
            }
            _ => Inbound::from_slice(&self.payload),
        }
    }

    /// The events that answer this envelope's messages when no runtime
    /// will take it (a bus that cannot hand it over publishes them on its
    /// stream, so that its POST is answered rather than held open): one
    /// JSON-RPC error per request (`error`, with the request's id) and per
    /// malformed element of a batch (what the runtime would have
    /// answered), in order, the last ending the stream. Empty when the
    /// envelope holds neither.
    pub fn refusals(mut self, error: &ErrorObject) -> Vec<StreamEvent> {
        let answers: Vec<ErrorResponse> = match self.take_inbound() {
            Inbound::Single(message) => refusal(Ok(message), error).into_iter().collect(),
            Inbound::Batch(items) => items
                .into_iter()
                .filter_map(|item| refusal(item, error))
                .collect(),
            Inbound::Invalid(invalid) => vec![invalid.to_error_response()],
        };
        let count = answers.len();
        answers
            .into_iter()
            .zip(1..)
            .map(|(answer, seq)| StreamEvent::Message {
                seq,
                data: Bytes::from(Message::from(answer).to_vec()),
                last: seq == count as u64,
            })
            .collect()
    }
}

/// What answers one message of an envelope no runtime takes: `error` for
/// a request, the element's own error for a malformed one, nothing for a
/// notification or a response.
fn refusal(item: Result<Message, ClassifyError>, error: &ErrorObject) -> Option<ErrorResponse> {
    match item {
        Ok(Message::Request(request)) => Some(ErrorResponse::new(Some(request.id), error.clone())),
        Ok(_) => None,
        Err(invalid) => Some(invalid.to_error_response()),
    }
}

/// A classified payload and the bytes it was read from. It takes no part
/// in comparing envelopes (the payloads decide) and never leaves the
/// process: a bus that moves an envelope elsewhere sends `payload` only.
#[derive(Clone)]
struct Classified(Option<(Bytes, Inbound)>);

impl PartialEq for Classified {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Eq for Classified {}

impl fmt::Debug for Classified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Classified(..)"
        } else {
            "Classified(None)"
        })
    }
}

/// The [`ResponseForm`] an [`Envelope`] shares with its POST's response,
/// if any. It takes no part in comparing envelopes, which are equal when
/// their messages are.
#[derive(Clone, Debug, Default)]
pub struct SharedForm(pub Option<Arc<ResponseForm>>);

impl PartialEq for SharedForm {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Eq for SharedForm {}

/// The extensions of the HTTP request that carried an [`Envelope`].
///
/// They stay in this process: a store that moves envelopes to another one
/// cannot carry them (they are arbitrary values), except the
/// [`RequestIdentity`] among them, which it serializes and puts alone into
/// fresh extensions on arrival. They take no part in comparing envelopes,
/// which are equal when their messages are.
#[derive(Clone, Default)]
pub struct PostExtensions(pub Option<Arc<http::Extensions>>);

impl PartialEq for PostExtensions {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Eq for PostExtensions {}

impl PostExtensions {
    /// The [`RequestIdentity`] among the extensions, if any (what a bus
    /// carries to another instance).
    pub fn identity(&self) -> Option<&RequestIdentity> {
        self.0.as_ref()?.get::<RequestIdentity>()
    }

    /// Extensions holding `identity` alone: what a bus hands the runtime
    /// of another instance.
    pub fn from_identity(identity: RequestIdentity) -> Self {
        let mut extensions = http::Extensions::new();
        extensions.insert(identity);
        Self(Some(Arc::new(extensions)))
    }
}

impl fmt::Debug for PostExtensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "PostExtensions(..)"
        } else {
            "PostExtensions(None)"
        })
    }
}

/// What travels to the connection attached to a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// A message; `last` when it is the final answer that ends the stream.
    Message {
        /// Its position in the stream (see [`StoredEvent::seq`](crate::StoredEvent::seq)).
        seq: u64,
        /// The JSON text of the packet.
        data: Bytes,
        /// Whether the stream ends with it.
        last: bool,
    },
    /// The stream ended without a final message (its requests were
    /// cancelled).
    End,
    /// Close the connection but not the stream (SSE polling, SEP-1699): the
    /// client reconnects with `Last-Event-ID` after the retry interval.
    Pause,
}

impl StreamEvent {
    /// Whether the stream ends with this event (a `last` message or `End`):
    /// nothing follows it on the connection, which a bus detaches once it
    /// is delivered.
    pub fn is_final(&self) -> bool {
        matches!(self, Self::Message { last: true, .. } | Self::End)
    }
}

/// Carries messages between HTTP connections and session runtimes.
///
/// With several server instances behind a load balancer, a session's
/// runtime runs on the instance that received its `initialize`, while its
/// later requests and streams may land anywhere: a bus built on a shared
/// broker (Redis pub/sub or streams) delivers each POSTed message to the
/// runtime's instance and each event of a stream to the instance holding
/// that stream's connection. The in-memory default connects the two within
/// one process.
pub trait MessageBus: Send + Sync + 'static {
    /// Registers the runtime of `session` on this instance: what clients
    /// POST to it arrives in the returned inbox, which ends when the
    /// session is closed.
    fn register(&self, session: &SessionId, capacity: usize) -> StoreFuture<'_, Inbox>;

    /// Delivers a POSTed message to the runtime of `session`, waiting while
    /// its inbox is full; `false` when no runtime serves the session.
    fn deliver(&self, session: &SessionId, envelope: Envelope) -> StoreFuture<'_, bool>;

    /// Attaches a connection to a stream, replacing (and so ending) any
    /// connection attached before; the subscription ends when it is
    /// replaced or detached, or the session is closed.
    fn subscribe(&self, key: &StreamKey, capacity: usize) -> StoreFuture<'_, Subscription>;

    /// [`MessageBus::subscribe`] for a bus that can attach a connection at
    /// once, without a future (an in-memory bus): `None` when it cannot,
    /// and the caller then calls `subscribe`. The default is `None`.
    fn subscribe_now(&self, key: &StreamKey, capacity: usize) -> Option<Subscription> {
        let _ = (key, capacity);
        None
    }

    /// [`MessageBus::subscribe_now`] for a stream that no other instance
    /// needs to reach yet: the stream of a POST whose response has sent no
    /// event id, on the instance that runs the session's runtime. Only that
    /// runtime writes to the stream, and a client can resume it elsewhere
    /// only with an event id, so a bus across instances may attach the
    /// connection here alone (no route written to the shared broker) until
    /// [`MessageBus::announce`], which the response calls before it sends
    /// an event id; an answer sent as plain JSON then costs the broker
    /// nothing. `None` when the bus cannot (the runtime runs elsewhere, or
    /// the bus never attaches at once): the caller then calls `subscribe`.
    /// The default is [`MessageBus::subscribe_now`].
    fn subscribe_here_now(&self, key: &StreamKey, capacity: usize) -> Option<Subscription> {
        self.subscribe_now(key, capacity)
    }

    /// Makes a connection attached by [`MessageBus::subscribe_here_now`]
    /// reachable from every instance, as `subscribe` does (ending a
    /// connection attached to the stream elsewhere); nothing when it
    /// already is, or when no connection of this instance is attached to
    /// the stream. The default does nothing: every connection of a bus
    /// that does not defer is reachable at once.
    fn announce(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        let _ = key;
        crate::done()
    }

    /// Offers an event to the connection attached to a stream, waiting
    /// while that connection's buffer is full (back-pressure); `false` when
    /// no connection is attached. A final event (a `last` message or
    /// `End`) also detaches the connection once delivered.
    fn publish(&self, key: &StreamKey, event: StreamEvent) -> StoreFuture<'_, bool>;

    /// [`MessageBus::publish`] for a bus that can offer the event without
    /// a future (an in-memory bus whose connection has room in its
    /// buffer): `Ok` with what `publish` would answer, or `Err` with the
    /// event when it cannot, and the caller then calls `publish`. A
    /// session then sends an answer with no future to box. The default
    /// cannot.
    ///
    /// # Errors
    ///
    /// `Err(event)` when the event cannot be offered at once.
    fn publish_now(
        &self,
        key: &StreamKey,
        event: StreamEvent,
    ) -> Result<Result<bool, StoreError>, StreamEvent> {
        let _ = key;
        Err(event)
    }

    /// Ends the connection attached to a stream, if any; the stream itself
    /// goes on (its events are still logged).
    fn detach(&self, key: &StreamKey) -> StoreFuture<'_, ()>;

    /// Ends the session's inbox and every connection attached to its streams.
    fn close(&self, session: &SessionId) -> StoreFuture<'_, ()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(events: Vec<StreamEvent>) -> Vec<(u64, serde_json::Value, bool)> {
        events
            .into_iter()
            .map(|event| match event {
                StreamEvent::Message { seq, data, last } => {
                    (seq, serde_json::from_slice(&data).unwrap(), last)
                }
                other => panic!("not a message: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn refusals_answer_each_request_and_malformed_element_in_order_the_last_ending_the_stream() {
        let error = ErrorObject::internal_error("the session is not taking messages");
        let single = Envelope::new(
            Bytes::from_static(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
            Some(1),
            false,
        );
        let [(seq, answer, last)] = answers(single.refusals(&error)).try_into().unwrap();
        assert_eq!((seq, last), (1, true));
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["error"]["code"], -32603);
        let batch = Envelope::new(
            Bytes::from_static(
                br#"[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"x":1},{"jsonrpc":"2.0","id":"b","method":"ping"}]"#,
            ),
            Some(2),
            false,
        );
        let answered = answers(batch.refusals(&error));
        let ids: Vec<_> = answered
            .iter()
            .map(|(_, answer, _)| answer["id"].clone())
            .collect();
        assert_eq!(
            ids,
            [
                serde_json::json!("a"),
                serde_json::Value::Null,
                serde_json::json!("b")
            ]
        );
        let steps: Vec<_> = answered
            .iter()
            .map(|(seq, _, last)| (*seq, *last))
            .collect();
        assert_eq!(steps, [(1, false), (2, false), (3, true)]);
        let notification = Envelope::new(
            Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None,
            false,
        );
        assert!(notification.refusals(&error).is_empty());
    }
}
