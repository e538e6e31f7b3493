//! Shared helpers for the session tests: configurations built from JSON,
//! feeding real JSON-RPC bytes in, reading transmitted packets out as JSON,
//! and an in-memory link that pumps one session's packets into the other.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]
#![allow(
    clippy::needless_pass_by_value,
    reason = "helpers take JSON by value so that call sites read like the messages on the wire"
)]

use std::sync::Arc;
use std::time::Instant;

use mcpwire_jsonrpc::{Inbound, RawJson, RequestId};
use mcpwire_session::{
    ClientConfig, ClientEvent, ClientSession, Event, IncomingRequest, ServerConfig, ServerEvent,
    ServerSession, Transmit,
};
use mcpwire_types::methods::{ClientRequest, ClientResult, ServerRequest, ServerResult};
use mcpwire_types::{Implementation, ProtocolVersion, meta_keys};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Every handshake revision, oldest first.
pub(crate) const HANDSHAKE_VERSIONS: [ProtocolVersion; 4] = [
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
];

/// Reads a model type from JSON (capabilities, params, results).
pub(crate) fn from_json<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).unwrap()
}

/// Raw JSON text of `value`.
pub(crate) fn raw(value: &Value) -> RawJson {
    RawJson::from_serialize(value).unwrap()
}

/// The identity every test server uses.
pub(crate) fn server_info() -> Implementation {
    Implementation::new("test-server", "1.0.0")
}

/// The identity every test client uses.
pub(crate) fn client_info() -> Implementation {
    Implementation::new("test-client", "2.0.0")
}

/// A server configuration speaking every revision, offering `capabilities`.
pub(crate) fn server_config(capabilities: Value) -> ServerConfig {
    ServerConfig::new(server_info(), from_json(capabilities))
}

/// A server session of `config`.
pub(crate) fn server_with(config: ServerConfig) -> ServerSession {
    ServerSession::new(Arc::new(config))
}

/// A server session speaking every revision, offering `capabilities`.
pub(crate) fn server(capabilities: Value) -> ServerSession {
    server_with(server_config(capabilities))
}

/// A client configuration in `Auto` mode declaring `capabilities`.
pub(crate) fn client_config(capabilities: Value) -> ClientConfig {
    ClientConfig::new(client_info(), from_json(capabilities))
}

/// A client session of `config`, started at `now` (its first packet is queued).
pub(crate) fn client_with(config: ClientConfig, now: Instant) -> ClientSession {
    ClientSession::new(Arc::new(config), now)
}

/// What the tests need of either session, so that one set of helpers
/// drives both.
pub(crate) trait Engine {
    /// The session's event type.
    type Event;
    /// Takes in one received JSON text.
    fn take_in(&mut self, inbound: Inbound, now: Instant);
    /// The next packet to send.
    fn next_transmit(&mut self) -> Option<Transmit>;
    /// The next event.
    fn next_event(&mut self) -> Option<Self::Event>;
}

impl Engine for ServerSession {
    type Event = ServerEvent;
    fn take_in(&mut self, inbound: Inbound, now: Instant) {
        self.handle_inbound(inbound, now);
    }
    fn next_transmit(&mut self) -> Option<Transmit> {
        self.poll_transmit()
    }
    fn next_event(&mut self) -> Option<ServerEvent> {
        self.poll_event()
    }
}

impl Engine for ClientSession {
    type Event = ClientEvent;
    fn take_in(&mut self, inbound: Inbound, now: Instant) {
        self.handle_inbound(inbound, now);
    }
    fn next_transmit(&mut self) -> Option<Transmit> {
        self.poll_transmit()
    }
    fn next_event(&mut self) -> Option<ClientEvent> {
        self.poll_event()
    }
}

/// Feeds raw bytes, exactly as a transport would have received them.
pub(crate) fn feed_bytes<E: Engine>(engine: &mut E, bytes: &[u8], now: Instant) {
    engine.take_in(Inbound::from_slice(bytes), now);
}

/// Feeds one JSON text (a message or a batch array).
pub(crate) fn feed<E: Engine>(engine: &mut E, message: &Value, now: Instant) {
    feed_bytes(engine, &serde_json::to_vec(message).unwrap(), now);
}

/// Every queued transmit, in order.
pub(crate) fn transmits<E: Engine>(engine: &mut E) -> Vec<Transmit> {
    std::iter::from_fn(|| engine.next_transmit()).collect()
}

/// A packet as the JSON the encoder writes for it.
pub(crate) fn packet_json(transmit: &Transmit) -> Value {
    serde_json::from_slice(&transmit.packet.to_vec()).unwrap()
}

/// Every queued packet, encoded and read back as JSON.
pub(crate) fn sent<E: Engine>(engine: &mut E) -> Vec<Value> {
    transmits(engine).iter().map(packet_json).collect()
}

/// The single packet queued; fails if there are none or several.
pub(crate) fn sent_one<E: Engine>(engine: &mut E) -> Value {
    let mut packets = sent(engine);
    assert_eq!(
        packets.len(),
        1,
        "expected exactly one packet, got {packets:#?}"
    );
    packets.remove(0)
}

/// Every queued event, in order.
pub(crate) fn events<E: Engine>(engine: &mut E) -> Vec<E::Event> {
    std::iter::from_fn(|| engine.next_event()).collect()
}

/// A JSON-RPC request.
pub(crate) fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

/// A JSON-RPC notification.
pub(crate) fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A JSON-RPC success response.
pub(crate) fn response(id: impl Into<Value>, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "result": result})
}

/// A JSON-RPC error response.
pub(crate) fn error_response(id: impl Into<Value>, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "error": {"code": code, "message": message}})
}

/// `initialize` params asking for `version`, declaring `capabilities`.
pub(crate) fn initialize_params(version: &str, capabilities: Value) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "test-client", "version": "2.0.0"},
    })
}

/// The error code of an error response, failing on anything else.
pub(crate) fn error_code(packet: &Value) -> i64 {
    packet["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error response, got {packet:#}"))
}

/// Runs the handshake on `server` (initialize answered, then
/// `notifications/initialized`), discarding its packets and events.
pub(crate) fn initialize(
    server: &mut ServerSession,
    version: &str,
    capabilities: Value,
    now: Instant,
) {
    let params = initialize_params(version, capabilities);
    feed(server, &request("init", "initialize", params), now);
    let answer = sent_one(server);
    assert!(
        answer.get("result").is_some(),
        "initialize failed: {answer:#}"
    );
    feed(
        server,
        &notification("notifications/initialized", json!({})),
        now,
    );
    events(server);
}

/// The `_meta` of a 2026-07-28 request declaring `capabilities`.
pub(crate) fn stateless_meta(capabilities: Value) -> Value {
    json!({
        meta_keys::PROTOCOL_VERSION: "2026-07-28",
        meta_keys::CLIENT_CAPABILITIES: capabilities,
        meta_keys::CLIENT_INFO: {"name": "modern-client", "version": "3.0.0"},
    })
}

/// A 2026-07-28 request: `params` with the per-request `_meta` added.
pub(crate) fn stateless_request(id: impl Into<Value>, method: &str, mut params: Value) -> Value {
    params["_meta"] = stateless_meta(json!({}));
    request(id, method, params)
}

/// The requests among `events`, failing on any other event.
pub(crate) fn only_requests<
    R: std::fmt::Debug,
    N: std::fmt::Debug,
    S: std::fmt::Debug,
    P: std::fmt::Debug,
>(
    events: Vec<Event<R, N, S, P>>,
) -> Vec<IncomingRequest<R>> {
    events
        .into_iter()
        .map(|event| match event {
            Event::Request(request) => request,
            other => panic!("expected a request event, got {other:?}"),
        })
        .collect()
}

/// The only request among `events`.
pub(crate) fn only_request<
    R: std::fmt::Debug,
    N: std::fmt::Debug,
    S: std::fmt::Debug,
    P: std::fmt::Debug,
>(
    events: Vec<Event<R, N, S, P>>,
) -> IncomingRequest<R> {
    let mut requests = only_requests(events);
    assert_eq!(requests.len(), 1);
    requests.remove(0)
}

/// A `tools/call` result with one text block.
pub(crate) fn tool_result(text: &str) -> ServerResult {
    ServerResult::decode(
        "tools/call",
        &raw(&json!({"content": [{"type": "text", "text": text}]})),
    )
    .unwrap()
}

/// A `roots/list` result naming one root.
pub(crate) fn roots_result() -> ClientResult {
    ClientResult::decode(
        "roots/list",
        &raw(&json!({"roots": [{"uri": "file:///work"}]})),
    )
    .unwrap()
}

/// A client request decoded from `method` and `params`.
pub(crate) fn client_request(method: &str, params: Value) -> ClientRequest {
    ClientRequest::decode(method, Some(&raw(&params))).unwrap()
}

/// A server request decoded from `method` and `params`.
pub(crate) fn server_request(method: &str, params: Value) -> ServerRequest {
    ServerRequest::decode(method, Some(&raw(&params))).unwrap()
}

/// Moves every queued packet of `client` to `server` and back, as bytes,
/// until neither has anything left to send; returns how many moved.
pub(crate) fn pump(client: &mut ClientSession, server: &mut ServerSession, now: Instant) -> usize {
    let mut moved = 0;
    loop {
        let mut quiet = true;
        while let Some(transmit) = client.poll_transmit() {
            server.handle_inbound(Inbound::from_slice(&transmit.packet.to_vec()), now);
            moved += 1;
            quiet = false;
        }
        while let Some(transmit) = server.poll_transmit() {
            client.handle_inbound(Inbound::from_slice(&transmit.packet.to_vec()), now);
            moved += 1;
            quiet = false;
        }
        if quiet {
            return moved;
        }
    }
}

/// Connects `client` to `server` in memory, discarding both sides' events;
/// fails unless the client is established.
pub(crate) fn connect(client: &mut ClientSession, server: &mut ServerSession, now: Instant) {
    pump(client, server, now);
    let established = events(client)
        .into_iter()
        .any(|event| matches!(event, Event::Established(_)));
    assert!(
        established,
        "the client did not connect: {:?}",
        client.failure()
    );
    events(server);
}

/// A request id as the engine hands it out.
pub(crate) fn id(n: i64) -> RequestId {
    RequestId::Number(n)
}
