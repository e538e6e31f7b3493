//! The pluggable state of the server: session records, the event log of
//! every stream, and the message bus between HTTP connections and the
//! runtimes serving sessions (see the module docs of `server` for the design).

use core::error::Error as StdError;
use core::fmt;
use core::future::Future;
use core::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use mcpwire_jsonrpc::Inbound;
use mcpwire_types::ProtocolVersion;

/// The future every store method returns: boxed, so that the traits are
/// object safe and an implementation may do network I/O (Redis, SQL, ...).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The messages clients POSTed to one session, in order, for its runtime.
pub type Inbox = Pin<Box<dyn Stream<Item = Envelope> + Send>>;

/// The events of one stream, for the HTTP connection attached to it.
pub type Subscription = Pin<Box<dyn Stream<Item = StreamEvent> + Send>>;

/// The failure of a store or bus (a lost connection to Redis, ...).
///
/// The in-memory defaults never fail.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct StoreError {
    message: String,
    #[source]
    source: Option<Box<dyn StdError + Send + Sync>>,
}

impl StoreError {
    /// An error explained by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }

    /// An error explained by `message`, caused by `source`.
    pub fn with_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn StdError + Send + Sync>>,
    ) -> Self {
        Self {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

/// The id of a handshake-era session, as sent in `Mcp-Session-Id`.
///
/// Generated ids are 32 bytes from the operating system's CSPRNG written
/// as 64 lowercase hex digits (HTTP-34, HTTP-35, SEC-09).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(Arc<str>);

impl SessionId {
    /// Reads an id (for example one a store kept): it must be 1 to 256
    /// visible ASCII characters (0x21 to 0x7E).
    pub fn parse(text: &str) -> Option<Self> {
        if text.is_empty() || text.len() > 256 {
            return None;
        }
        // A fold rather than `all`: without the early exit the check
        // compiles to a vector loop (this runs on every request).
        let visible = text
            .bytes()
            .fold(true, |visible, b| visible & b.is_ascii_graphic());
        visible.then(|| Self(Arc::from(text)))
    }

    /// A fresh random id: 32 bytes from the operating system's CSPRNG, in
    /// hex (64 characters). `None` when the operating system offers no
    /// randomness.
    pub fn generate() -> Option<Self> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).ok()?;
        let mut text = String::with_capacity(64);
        for byte in bytes {
            text.push(hex_digit(byte >> 4));
            text.push(hex_digit(byte & 0x0f));
        }
        Some(Self(Arc::from(text)))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn hex_digit(nibble: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(nibble & 0x0f)])
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A session id is a bearer secret for the session: keep it out of logs.
        let shown = self.0.get(..8).unwrap_or(&self.0);
        write!(f, "SessionId({shown}…)")
    }
}

/// What the server remembers of a session between requests.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The session.
    pub id: SessionId,
    /// The revision `initialize` negotiated, once the answer went out.
    pub version: Option<ProtocolVersion>,
    /// Who created the session, when its `initialize` carried a
    /// [`RequestIdentity`] ([`RequestIdentity::owner_key`]): only the same
    /// identity may use the session afterwards.
    pub owner: Option<String>,
}

impl SessionRecord {
    /// A record of `id` with the negotiated `version`, if known.
    pub fn new(id: SessionId, version: Option<ProtocolVersion>) -> Self {
        Self {
            id,
            version,
            owner: None,
        }
    }

    /// With the identity the session is bound to.
    #[must_use]
    pub fn owned_by(mut self, owner: Option<String>) -> Self {
        self.owner = owner;
        self
    }

    /// Whether a request carrying `caller` (its [`RequestIdentity::owner_key`])
    /// may use the session: anyone when the session is bound to nobody,
    /// otherwise only the identity that created it. A session id is not
    /// authentication (SEC-10): a leaked one is useless to another user.
    pub fn admits(&self, caller: Option<&str>) -> bool {
        self.owner.is_none() || self.owner.as_deref() == caller
    }
}

/// Session records (handshake era).
///
/// Records expire when idle: every method that refreshes a record takes the
/// idle timeout, as a key-value store with per-key TTLs (Redis `EXPIRE`)
/// would. A record that expired or was removed is gone for good: the
/// server then answers 404 for its id (HTTP-39).
pub trait SessionStore: Send + Sync + 'static {
    /// Records a new session that expires after `idle` without a touch.
    fn create(&self, id: &SessionId, idle: Duration) -> StoreFuture<'_, ()>;

    /// The record of `id`, its idle deadline pushed to `idle` from now;
    /// `None` when unknown, expired or removed.
    fn touch(&self, id: &SessionId, idle: Duration) -> StoreFuture<'_, Option<SessionRecord>>;

    /// The record of `id` without refreshing it; `None` when unknown,
    /// expired or removed.
    fn get(&self, id: &SessionId) -> StoreFuture<'_, Option<SessionRecord>>;

    /// Records the revision `initialize` negotiated.
    fn set_version(&self, id: &SessionId, version: ProtocolVersion) -> StoreFuture<'_, ()>;

    /// Binds the session to the identity that created it, which its
    /// records then carry in [`SessionRecord::owner`]. The default keeps
    /// nothing, so that sessions of a store that does not implement it are
    /// bound to nobody (`docs/security.md` lists the stores that do).
    fn set_owner(&self, id: &SessionId, owner: &str) -> StoreFuture<'_, ()> {
        let _ = (id, owner);
        Box::pin(async { Ok(()) })
    }

    /// Allocates the number of a new stream of the session (1, 2, ...; 0 is
    /// the standalone GET stream); `None` when the session is gone. Numbers
    /// are never reused within a session, which keeps event ids unique
    /// across its streams (HTTP-31).
    fn next_stream(&self, id: &SessionId) -> StoreFuture<'_, Option<u64>>;

    /// Removes a session; `true` if it existed.
    fn remove(&self, id: &SessionId) -> StoreFuture<'_, bool>;

    /// Removes every session past its idle deadline and returns their ids,
    /// so that the caller frees what they held elsewhere. A store whose
    /// records vanish by themselves (native TTLs) may return nothing: the
    /// server also checks its own sessions with [`SessionStore::get`].
    fn take_expired(&self) -> StoreFuture<'_, Vec<SessionId>>;

    /// How many session records are held (live ones, and expired ones
    /// not yet swept).
    fn count(&self) -> StoreFuture<'_, usize>;
}

/// Names one stream of one session.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StreamKey {
    /// The session.
    pub session: SessionId,
    /// The stream: 0 for the standalone GET stream, 1 and up for the
    /// streams of POSTed requests.
    pub stream: u64,
}

impl StreamKey {
    /// Stream `stream` of `session`.
    pub fn new(session: SessionId, stream: u64) -> Self {
        Self { session, stream }
    }
}

/// One message sent on a stream, kept for replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its position in the stream: 1, 2, ... (0 is the priming event,
    /// which carries no message and is never stored).
    pub seq: u64,
    /// The JSON text of the packet.
    pub data: Bytes,
}

/// What a stream still holds after a given event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replay {
    /// The retained events after the given one, oldest first.
    pub events: Vec<StoredEvent>,
    /// Whether the stream has ended: after these events nothing follows.
    pub finished: bool,
}

/// The event log of every stream, for resumption with `Last-Event-ID`
/// (HTTP-30..33).
///
/// Retention is bounded (the in-memory default keeps a fixed number of
/// events per stream and per session and drops the oldest first), so a
/// client that resumes too late may find a gap; it never gets another
/// stream's events. Only [`EventStore::create_session`] brings a session
/// into being: every other method ignores sessions it does not know, so a
/// late write after the session ended cannot resurrect it.
pub trait EventStore: Send + Sync + 'static {
    /// Starts the log of a new session, with its standalone stream 0.
    fn create_session(&self, session: &SessionId) -> StoreFuture<'_, ()>;

    /// Starts the log of a stream.
    fn open(&self, key: &StreamKey) -> StoreFuture<'_, ()>;

    /// Appends an event to a stream.
    fn append(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()>;

    /// Marks a stream ended: its last event has been appended.
    fn finish(&self, key: &StreamKey) -> StoreFuture<'_, ()>;

    /// The events after `after`, or after the stream's delivery mark when
    /// `after` is `None`; `None` when the stream is unknown (never opened,
    /// forgotten, or its session is gone).
    fn replay(&self, key: &StreamKey, after: Option<u64>) -> StoreFuture<'_, Option<Replay>>;

    /// Records that the events up to `seq` were written to a connection
    /// (used for the standalone stream, so that a fresh GET gets what no
    /// connection was sent).
    fn mark_delivered(&self, key: &StreamKey, seq: u64) -> StoreFuture<'_, ()>;

    /// Drops a stream and its events (a stream answered as plain JSON).
    fn forget(&self, key: &StreamKey) -> StoreFuture<'_, ()>;

    /// Every event of a finished stream was written to a connection, so
    /// resumption is unlikely to need them. The default drops the stream
    /// ([`forget`](Self::forget)); a store may instead keep the latest few
    /// for a client whose connection broke just before the end
    /// ([`MemoryEventStore`](super::MemoryEventStore) keeps four per
    /// session).
    fn completed(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        self.forget(key)
    }

    /// Drops everything of a session.
    fn remove_session(&self, session: &SessionId) -> StoreFuture<'_, ()>;

    /// How many events are retained in all.
    fn count(&self) -> StoreFuture<'_, usize>;
}

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
            classified: Classified(None),
        }
    }

    /// An envelope for `payload`, which the caller has classified as
    /// `inbound`: a runtime in this process takes `inbound` as it is.
    pub(crate) fn classified(
        payload: Bytes,
        inbound: Inbound,
        stream: Option<u64>,
        answers_only: bool,
    ) -> Self {
        let classified = Classified(Some((payload.clone(), Box::new(inbound))));
        Self {
            classified,
            ..Self::new(payload, stream, answers_only)
        }
    }

    /// The payload as messages: the classification made where the POST
    /// arrived when the envelope still holds that very payload, otherwise
    /// (an envelope rebuilt by a bus, or one whose payload was replaced)
    /// a fresh one.
    pub(crate) fn take_inbound(&mut self) -> Inbound {
        match self.classified.0.take() {
            // Same buffer, same length: the same bytes (the clone kept in
            // `Classified` keeps the buffer alive, so its address cannot
            // have been reused for other bytes).
            Some((source, inbound))
                if source.as_ptr() == self.payload.as_ptr()
                    && source.len() == self.payload.len() =>
            {
                *inbound
            }
            _ => Inbound::from_slice(&self.payload),
        }
    }
}

/// A classified payload and the bytes it was read from. It takes no part
/// in comparing envelopes (the payloads decide) and never leaves the
/// process: a bus that moves an envelope elsewhere sends `payload` only.
#[derive(Clone)]
struct Classified(Option<(Bytes, Box<Inbound>)>);

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

/// Who sent a request, as the application's authentication established
/// it: the one request extension that crosses instances.
///
/// A POST's `http::Extensions` reach the handlers of its requests
/// (`Context::transport_context` in `mcpwire-server`, an
/// `http::Extensions`) on the instance that received it. When the session's
/// runtime runs on another instance, the message bus carries the POST there
/// without them, except this value, serialized as JSON: insert one into
/// the request's extensions (a small layer after the authentication layer,
/// mapping its verified claims) and handlers, and task binding
/// (`TaskOptions::requestor`), see it wherever the runtime runs. Opt-in:
/// without it nothing about the requester leaves the receiving instance.
/// Keep it small (it travels with every message) and put no secrets in it
/// (it passes through the bus's Redis).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct RequestIdentity {
    /// Whom the credentials name (a token's `sub`).
    pub subject: String,
    /// The client the credentials were issued to, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The scopes granted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Any other claims the application wants carried.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub claims: serde_json::Map<String, serde_json::Value>,
}

impl RequestIdentity {
    /// What a session created with this identity is bound to: the subject
    /// and the client, so that neither another user nor another client of
    /// the same user can take the session over.
    pub fn owner_key(&self) -> String {
        match &self.client_id {
            Some(client) => format!("{}\n{client}", self.subject),
            None => self.subject.clone(),
        }
    }

    /// The identity of `subject`, with no client, scopes or claims.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            ..Self::default()
        }
    }

    /// With the client the credentials were issued to.
    #[must_use]
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// With the scopes granted.
    #[must_use]
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// With one more claim.
    #[must_use]
    pub fn claim(mut self, name: impl Into<String>, value: serde_json::Value) -> Self {
        self.claims.insert(name.into(), value);
        self
    }

    /// The identity among a request's transport context (the
    /// `http::Extensions` of its POST), for handlers and
    /// `TaskOptions::requestor`.
    pub fn of(context: Option<&(dyn std::any::Any + Send + Sync)>) -> Option<&Self> {
        context?.downcast_ref::<http::Extensions>()?.get::<Self>()
    }
}

impl std::fmt::Debug for PostExtensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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
        /// Its position in the stream (see [`StoredEvent::seq`]).
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

    /// Offers an event to the connection attached to a stream, waiting
    /// while that connection's buffer is full (back-pressure); `false` when
    /// no connection is attached. A final event (a `last` message or
    /// `End`) also detaches the connection once delivered.
    fn publish(&self, key: &StreamKey, event: StreamEvent) -> StoreFuture<'_, bool>;

    /// Ends the connection attached to a stream, if any; the stream itself
    /// goes on (its events are still logged).
    fn detach(&self, key: &StreamKey) -> StoreFuture<'_, ()>;

    /// Ends the session's inbox and every connection attached to its streams.
    fn close(&self, session: &SessionId) -> StoreFuture<'_, ()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_session_ids_are_64_visible_hex_characters_and_differ() {
        let a = SessionId::generate().unwrap();
        let b = SessionId::generate().unwrap();
        assert_eq!(a.as_str().len(), 64);
        assert!(a.as_str().bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(SessionId::parse(a.as_str()), Some(a));
    }

    #[test]
    fn parse_refuses_invisible_and_empty_ids() {
        for bad in ["", "a b", "tab\t", "é", "\u{7f}"] {
            assert_eq!(SessionId::parse(bad), None, "{bad:?}");
        }
        assert!(SessionId::parse("!~").is_some());
    }

    #[test]
    fn debug_output_hides_most_of_the_id() {
        let id = SessionId::parse("0123456789abcdef").unwrap();
        assert_eq!(format!("{id:?}"), "SessionId(01234567…)");
    }
}
