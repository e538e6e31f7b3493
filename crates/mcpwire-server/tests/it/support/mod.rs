//! Shared fixtures of the runtime tests: a scripted raw-JSON peer on the far
//! end of an in-memory transport, handshake and stateless helpers, and
//! bounds on how long any wait may take.

use std::future::Future;
use std::time::Duration;

use mcpwire_jsonrpc::memory::{self, MemoryTransport};
use mcpwire_jsonrpc::{Inbound, Packet, RequestId, Transport, TransportContext, TransportReceiver};
use mcpwire_server::{ServeError, Server};
use serde_json::{Map, Value, json};
use tokio::task::JoinHandle;

/// The longest any single wait for a message may take before the test fails.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// How long "nothing arrives" is watched for.
pub(crate) const QUIET: Duration = Duration::from_millis(150);

/// The capacity of each direction of the memory pair: large enough that
/// neither side ever waits on the other under the load tests (a driver
/// blocked in `send` does not read).
const CAPACITY: usize = 4096;

/// Runs `future`, failing the test when it takes longer than [`WAIT`].
pub(crate) async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(WAIT, future).await {
        Ok(value) => value,
        Err(_) => panic!("timed out waiting for {what}"),
    }
}

/// The `_meta` of a 2026-07-28 stateless request declaring `capabilities`.
pub(crate) fn stateless_meta(capabilities: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw-peer", "version": "0"}
    });
    meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    meta
}

/// `params` with `meta` merged into its `_meta` object.
pub(crate) fn with_meta(mut params: Value, meta: &Value) -> Value {
    let Value::Object(params_map) = &mut params else {
        panic!("params must be an object: {params}");
    };
    let entry = params_map
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    let (Value::Object(target), Value::Object(extra)) = (entry, meta) else {
        panic!("_meta must be objects");
    };
    for (key, value) in extra {
        target.insert(key.clone(), value.clone());
    }
    params
}

/// Serves `server` on one end of a memory pair; the peer gets the other.
pub(crate) fn serve(server: &Server) -> (RawPeer, JoinHandle<Result<(), ServeError>>) {
    serve_with_capacity(server, CAPACITY)
}

/// [`serve`] on a memory pair that holds `capacity` packets each way: a
/// peer that does not read fills it after that many.
pub(crate) fn serve_with_capacity(
    server: &Server,
    capacity: usize,
) -> (RawPeer, JoinHandle<Result<(), ServeError>>) {
    let (peer_end, server_end) = memory::pair(capacity);
    let server = server.clone();
    let task = tokio::spawn(async move { server.serve(server_end).await });
    (RawPeer::new(peer_end), task)
}

/// Serves `server` on a memory pair whose server end gives every request
/// the transport context `label`, as an authentication layer gives the
/// identity it validated; the peer gets the other end.
pub(crate) fn serve_as(
    server: &Server,
    label: &str,
) -> (RawPeer, JoinHandle<Result<(), ServeError>>) {
    let (peer_end, server_end) = memory::pair(CAPACITY);
    let labeled = Labeled {
        inner: server_end,
        label: label.to_owned(),
    };
    let server = server.clone();
    let task = tokio::spawn(async move { server.serve(labeled).await });
    (RawPeer::new(peer_end), task)
}

/// A memory transport whose requests all carry one label as their context.
struct Labeled {
    inner: MemoryTransport,
    label: String,
}

struct LabeledReceiver {
    inner: memory::MemoryReceiver,
    label: String,
}

impl Transport for Labeled {
    type Error = memory::MemoryError;
    type Sender = memory::MemorySender;
    type Receiver = LabeledReceiver;

    fn split(self) -> (memory::MemorySender, LabeledReceiver) {
        let (sender, inner) = self.inner.split();
        (
            sender,
            LabeledReceiver {
                inner,
                label: self.label,
            },
        )
    }
}

impl TransportReceiver for LabeledReceiver {
    type Error = memory::MemoryError;

    async fn recv(&mut self) -> Option<Result<Inbound, memory::MemoryError>> {
        self.inner.recv().await
    }

    fn request_context(&mut self, _id: &RequestId) -> Option<TransportContext> {
        Some(std::sync::Arc::new(self.label.clone()))
    }
}

/// What a request brought back: the messages before its answer, and the answer.
#[derive(Debug)]
pub(crate) struct Exchange {
    /// Notifications and requests the server sent before answering.
    pub(crate) before: Vec<Value>,
    /// The response or error response.
    pub(crate) response: Value,
}

/// A client written by hand: it sends JSON values and reads JSON values.
pub(crate) struct RawPeer {
    transport: MemoryTransport,
}

impl RawPeer {
    fn new(transport: MemoryTransport) -> Self {
        Self { transport }
    }

    /// The peer's end of the pair, for a test that sends and receives
    /// from two tasks.
    pub(crate) fn into_transport(self) -> MemoryTransport {
        self.transport
    }

    /// Sends one JSON-RPC message (or batch) given as JSON.
    pub(crate) async fn send(&mut self, message: Value) {
        let bytes = serde_json::to_vec(&message).unwrap();
        let packet = Packet::from_slice(&bytes).unwrap();
        within("the server to take a message", self.transport.send(packet))
            .await
            .unwrap();
    }

    /// Sends a notification.
    pub(crate) async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request without waiting for its answer.
    pub(crate) async fn send_request(&mut self, id: i64, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
    }

    /// The next message, or `None` when the server ended the transport.
    pub(crate) async fn next(&mut self) -> Option<Value> {
        let inbound = within("a message from the server", self.transport.recv()).await?;
        Some(to_json(inbound.unwrap()))
    }

    /// The next message; the transport must still be open.
    pub(crate) async fn recv(&mut self) -> Value {
        match self.next().await {
            Some(message) => message,
            None => panic!("the server closed the transport"),
        }
    }

    /// The next message if one arrives within `wait`.
    pub(crate) async fn recv_within(&mut self, wait: Duration) -> Option<Value> {
        let inbound = tokio::time::timeout(wait, self.transport.recv())
            .await
            .ok()??;
        Some(to_json(inbound.unwrap()))
    }

    /// Fails when anything arrives within [`QUIET`].
    pub(crate) async fn expect_silence(&mut self) {
        if let Some(message) = self.recv_within(QUIET).await {
            panic!("expected nothing, got {message}");
        }
    }

    /// Sends request `id` and reads until its answer.
    pub(crate) async fn exchange(&mut self, id: i64, method: &str, params: Value) -> Exchange {
        self.send_request(id, method, params).await;
        self.answer_to(id).await
    }

    /// Reads until the answer to `id`, keeping what came before it.
    pub(crate) async fn answer_to(&mut self, id: i64) -> Exchange {
        let mut before = Vec::new();
        loop {
            let message = self.recv().await;
            let is_answer = message.get("method").is_none() && message["id"] == json!(id);
            if is_answer {
                return Exchange {
                    before,
                    response: message,
                };
            }
            before.push(message);
        }
    }

    /// Sends request `id` and returns its answer, which must be the next
    /// message.
    pub(crate) async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        let exchange = self.exchange(id, method, params).await;
        assert!(
            exchange.before.is_empty(),
            "unexpected messages before the answer to {method}: {:?}",
            exchange.before
        );
        exchange.response
    }

    /// Sends request `id` and returns its `result`, failing on an error.
    pub(crate) async fn result(&mut self, id: i64, method: &str, params: Value) -> Value {
        let response = self.request(id, method, params).await;
        match response.get("result") {
            Some(result) => result.clone(),
            None => panic!("{method} failed: {response}"),
        }
    }

    /// Sends request `id` and returns its `error`, failing on a result.
    pub(crate) async fn error(&mut self, id: i64, method: &str, params: Value) -> Value {
        let response = self.request(id, method, params).await;
        match response.get("error") {
            Some(error) => error.clone(),
            None => panic!("{method} unexpectedly succeeded: {response}"),
        }
    }

    /// Performs the handshake in `version` declaring `capabilities`, without
    /// `notifications/initialized`; returns the `initialize` result.
    pub(crate) async fn initialize_only(&mut self, version: &str, capabilities: Value) -> Value {
        let params = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "raw-peer", "version": "0"}
        });
        let result = self.result(0, "initialize", params).await;
        assert_eq!(result["protocolVersion"], json!(version));
        result
    }

    /// Performs the whole handshake in `version` declaring `capabilities`.
    pub(crate) async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let result = self.initialize_only(version, capabilities).await;
        self.notify("notifications/initialized", json!({})).await;
        self.sync().await;
        result
    }

    /// Returns once the server has read everything sent so far: it reads
    /// its input in order, so the answer to a ping comes after that.
    pub(crate) async fn sync(&mut self) {
        self.send(json!({"jsonrpc": "2.0", "id": "sync", "method": "ping"}))
            .await;
        let answer = self.recv().await;
        assert_eq!(answer["id"], "sync", "expected the ping's answer: {answer}");
    }

    /// Stops sending: the server sees the end of its input.
    pub(crate) async fn close(&mut self) {
        self.transport.close().await.unwrap();
    }
}

/// A received packet as JSON (a batch as an array).
pub(crate) fn to_json(inbound: Inbound) -> Value {
    let packet = match inbound.into_packet() {
        Ok(packet) => packet,
        Err(error) => panic!("the server sent something invalid: {error}"),
    };
    serde_json::to_value(&packet).unwrap()
}

/// The texts of a tool result's text blocks.
pub(crate) fn texts(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|block| block["text"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Fires a oneshot when dropped: proves a handler's future was dropped
/// (its task stopped) even when the handler never returns.
pub(crate) struct DropSignal(Option<tokio::sync::oneshot::Sender<()>>);

impl DropSignal {
    /// A signal and the receiver that hears it.
    pub(crate) fn new() -> (Self, tokio::sync::oneshot::Receiver<()>) {
        let (sender, receiver) = tokio::sync::oneshot::channel();
        (Self(Some(sender)), receiver)
    }
}

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(sender) = self.0.take() {
            let _ = sender.send(());
        }
    }
}
