//! Test fixtures: a real server with something of everything, a
//! line-based transport whose far end a test scripts by hand, a raw TCP
//! peer's reads and writes of JSON lines, and bounds on how long a test may
//! run.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use mcpwire_client::{Client, ClientConfig};
use mcpwire_jsonrpc::memory::{self, MemoryTransport};
use mcpwire_jsonrpc::{Inbound, Packet, Transport, TransportReceiver, TransportSender};
use mcpwire_server::{Cancellation, Context, HandlerError, Server, ServerBuilder};
use mcpwire_types::{
    CallToolResult, ClientCapabilities, GetPromptResult, Implementation, LoggingLevel, Prompt,
    PromptArgument, PromptMessage, ProtocolVersion, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, Tool,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// Runs `test`, failing it if it takes longer than 30 seconds of real time.
pub(crate) async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), test)
        .await
        .expect("the test took more than 30 seconds")
}

/// A client configuration choosing its revision automatically.
pub(crate) fn config() -> ClientConfig {
    ClientConfig::new(
        Implementation::new("test-client", "0.1.0"),
        ClientCapabilities::default(),
    )
}

/// A client configuration pinned to `version`.
pub(crate) fn pinned(version: ProtocolVersion) -> ClientConfig {
    config().pinned(version)
}

/// Serves `server` over one end of a memory pair; returns the other end.
pub(crate) fn serve(server: &Server) -> MemoryTransport {
    // Large enough that neither direction ever fills up under the load
    // test: a driver blocked in `send` does not read, so two drivers whose
    // channels are both full could wait on each other.
    let (client_end, server_end) = memory::pair(4096);
    let server = server.clone();
    tokio::spawn(async move { server.serve(server_end).await });
    client_end
}

/// Connects a client with `config` to `server`.
pub(crate) async fn connect(server: &Server, config: ClientConfig) -> Client {
    Client::connect(serve(server), config)
        .await
        .expect("the client connects")
}

/// A server with something of everything: tools (one with an output
/// schema, one reporting progress, one logging), a resource, a
/// template, and a prompt whose argument completes.
pub(crate) fn everything() -> ServerBuilder {
    let echo_schema = json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    });
    let mut sum = Tool::new(
        "sum",
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"]
        }),
    );
    sum = sum.output_schema(json!({
        "type": "object",
        "properties": {"sum": {"type": "number"}},
        "required": ["sum"]
    }));
    let mut greet = Prompt::new("greet");
    let mut name = PromptArgument::new("name");
    name.required = Some(true);
    greet.arguments = Some(vec![name]);
    Server::builder("everything", "1.0.0")
        .instructions("Use the tools.")
        .tool(
            Tool::new("echo", echo_schema),
            |_ctx: Context, args| async move {
                let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(sum, |_ctx: Context, args| async move {
            let number = |key: &str| args.get(key).and_then(Value::as_f64).unwrap_or_default();
            Ok(CallToolResult::structured(
                json!({"sum": number("a") + number("b")}),
            ))
        })
        .tool(
            Tool::without_arguments("count"),
            |ctx: Context, _args| async move {
                for step in 1..=3 {
                    ctx.progress(f64::from(step), Some(3.0), Some("counting"))
                        .await;
                }
                Ok(CallToolResult::text("counted"))
            },
        )
        .tool(
            Tool::without_arguments("chatty"),
            |ctx: Context, _args| async move {
                ctx.log(LoggingLevel::Warning, Some("chatty"), "careful")
                    .await;
                Ok(CallToolResult::text("said it"))
            },
        )
        .resource(
            Resource::new("mem://readme", "readme"),
            |_ctx: Context, uri| async move {
                let contents = ResourceContents::text(uri, "text/plain", "read me");
                Ok::<_, HandlerError>(ReadResourceResult::new(vec![contents]))
            },
        )
        .resource_template(
            ResourceTemplate::new("mem://items/{id}", "item"),
            |_ctx: Context, uri, vars: BTreeMap<String, String>| async move {
                let id = vars.get("id").cloned().unwrap_or_default();
                let contents = ResourceContents::text(uri, "text/plain", format!("item {id}"));
                Ok::<_, HandlerError>(ReadResourceResult::new(vec![contents]))
            },
        )
        .prompt(greet, |_ctx: Context, args| async move {
            let name = args.get("name").cloned().unwrap_or_default();
            let message = PromptMessage::user_text(format!("Hello, {name}!"));
            Ok::<_, HandlerError>(GetPromptResult::new(vec![message]))
        })
        .prompt_completion(
            "greet",
            "name",
            |_ctx: Context, typed: String, _others| async move {
                let names = ["alice", "albert", "bob"];
                Ok::<_, HandlerError>(
                    names
                        .iter()
                        .filter(|name| name.starts_with(&typed))
                        .map(|name| (*name).to_owned())
                        .collect(),
                )
            },
        )
}

/// Adds the tool `slow`, which runs until cancelled; each call hands its
/// cancellation signal to the returned receiver when it starts.
pub(crate) fn with_slow_tool(
    builder: ServerBuilder,
) -> (ServerBuilder, mpsc::UnboundedReceiver<Cancellation>) {
    let (started, receiver) = mpsc::unbounded_channel();
    let builder = builder.tool(
        Tool::without_arguments("slow"),
        move |ctx: Context, _args| {
            let _ = started.send(ctx.cancellation().clone());
            async move {
                ctx.cancellation().cancelled().await;
                Ok::<_, HandlerError>(CallToolResult::text("cancelled"))
            }
        },
    );
    (builder, receiver)
}

/// Whether `error` is a JSON-RPC error from the server with `code`.
pub(crate) fn is_peer_error(error: &mcpwire_client::ClientError, code: i64) -> bool {
    matches!(error, mcpwire_client::ClientError::Peer(object) if object.code.code() == code)
}

/// The failure of a [`LineTransport`]: the other end is gone.
#[derive(Debug, thiserror::Error)]
#[error("the scripted peer is gone")]
pub(crate) struct PeerGone;

/// A transport carrying newline-free JSON texts as bytes, so that a
/// scripted peer can send anything, garbage included.
pub(crate) struct LineTransport {
    sender: LineSender,
    receiver: LineReceiver,
}

/// The sending half of a [`LineTransport`].
pub(crate) struct LineSender {
    outgoing: Option<mpsc::UnboundedSender<Vec<u8>>>,
}

/// The receiving half of a [`LineTransport`].
pub(crate) struct LineReceiver {
    incoming: mpsc::UnboundedReceiver<Vec<u8>>,
}

impl Transport for LineTransport {
    type Error = PeerGone;
    type Sender = LineSender;
    type Receiver = LineReceiver;

    fn split(self) -> (LineSender, LineReceiver) {
        (self.sender, self.receiver)
    }
}

impl TransportSender for LineSender {
    type Error = PeerGone;

    async fn send(&mut self, packet: Packet) -> Result<(), PeerGone> {
        let outgoing = self.outgoing.as_ref().ok_or(PeerGone)?;
        outgoing.send(packet.to_vec()).map_err(|_| PeerGone)
    }

    async fn close(&mut self) -> Result<(), PeerGone> {
        self.outgoing = None;
        Ok(())
    }
}

impl TransportReceiver for LineReceiver {
    type Error = PeerGone;

    async fn recv(&mut self) -> Option<Result<Inbound, PeerGone>> {
        let line = self.incoming.recv().await?;
        Some(Ok(Inbound::from_slice(&line)))
    }
}

/// The far end of a [`LineTransport`], played by the test.
pub(crate) struct ScriptedPeer {
    /// `None` once the peer hung up.
    to_client: Option<mpsc::UnboundedSender<Vec<u8>>>,
    from_client: mpsc::UnboundedReceiver<Vec<u8>>,
}

/// A transport for the client and the peer that scripts its other end.
pub(crate) fn scripted() -> (LineTransport, ScriptedPeer) {
    let (to_client, client_rx) = mpsc::unbounded_channel();
    let (client_tx, from_client) = mpsc::unbounded_channel();
    let transport = LineTransport {
        sender: LineSender {
            outgoing: Some(client_tx),
        },
        receiver: LineReceiver {
            incoming: client_rx,
        },
    };
    let peer = ScriptedPeer {
        to_client: Some(to_client),
        from_client,
    };
    (transport, peer)
}

impl ScriptedPeer {
    /// Sends one line as is.
    pub(crate) fn send_line(&self, line: &str) {
        let to_client = self.to_client.as_ref().expect("the peer has not hung up");
        to_client.send(line.as_bytes().to_vec()).unwrap();
    }

    /// Stops sending: the client's transport then ends.
    pub(crate) fn hang_up(&mut self) {
        self.to_client = None;
    }

    /// Sends a JSON value.
    pub(crate) fn send(&self, value: &Value) {
        self.send_line(&value.to_string());
    }

    /// Answers request `id` with `result`.
    pub(crate) fn answer(&self, id: &Value, result: &Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// The next message from the client; `None` once it closed its end.
    pub(crate) async fn next(&mut self) -> Option<Value> {
        let line = self.from_client.recv().await?;
        Some(serde_json::from_slice(&line).expect("the client sends JSON"))
    }

    /// The next message whose method is `method`, skipping error responses
    /// (the client's answers to garbage) and nothing else.
    pub(crate) async fn expect(&mut self, method: &str) -> Value {
        loop {
            let message = self.next().await.expect("the client is still there");
            if message.get("error").is_some() && message.get("method").is_none() {
                continue;
            }
            assert_eq!(message["method"], method, "unexpected message {message}");
            return message;
        }
    }

    /// Plays a server through the `initialize` handshake at `version` with
    /// `capabilities`.
    pub(crate) async fn handshake(&mut self, version: &str, capabilities: Value) {
        let initialize = self.expect("initialize").await;
        assert_eq!(initialize["params"]["protocolVersion"], version);
        self.answer(
            &initialize["id"],
            &json!({
                "protocolVersion": version,
                "capabilities": capabilities,
                "serverInfo": {"name": "scripted", "version": "0.0.1"}
            }),
        );
        self.expect("notifications/initialized").await;
    }
}

/// A client pinned to 2025-06-18 over a scripted peer that offers tools.
pub(crate) async fn scripted_client(config: ClientConfig) -> (Client, ScriptedPeer) {
    let (transport, mut peer) = scripted();
    let script = async move {
        peer.handshake("2025-06-18", json!({"tools": {"listChanged": true}}))
            .await;
        peer
    };
    let connect = Client::connect(transport, config.pinned(ProtocolVersion::V2025_06_18));
    let (client, peer) = tokio::join!(connect, script);
    (client.expect("the client connects"), peer)
}

/// Both ends of a TCP connection on 127.0.0.1: the client's, the server's.
pub(crate) async fn loopback() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (client, accepted) = tokio::join!(TcpStream::connect(address), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

/// The next line a raw peer reads, as JSON; `None` once the other end hung
/// up.
pub(crate) async fn read_json_line(read: &mut BufReader<OwnedReadHalf>) -> Option<Value> {
    let mut line = String::new();
    match read.read_line(&mut line).await.unwrap() {
        0 => None,
        _ => Some(serde_json::from_str(&line).unwrap()),
    }
}

/// Writes `message` as one line, as a raw peer.
pub(crate) async fn write_json_line(write: &mut OwnedWriteHalf, message: &Value) {
    let mut line = message.to_string();
    line.push('\n');
    write.write_all(line.as_bytes()).await.unwrap();
}

/// A scripted 2025-06-18 server over `stream` listing `pages` pages of
/// one tool each, `tool(n)` on page `n` (counted from 1), with a cursor on
/// every page but the last, and answering every `tools/call` with `call`
/// when given; other requests get no answer. Returns how many pages were asked for,
/// once the client hangs up.
pub(crate) async fn tool_pages_server(
    stream: TcpStream,
    pages: usize,
    mut tool: impl FnMut(usize) -> Value,
    call: Option<Value>,
) -> usize {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut asked = 0;
    while let Some(message) = read_json_line(&mut read).await {
        let result = match message["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "tool-pages", "version": "1"}
            }),
            Some("tools/list") => {
                asked += 1;
                let mut page = json!({"tools": [tool(asked)]});
                if asked < pages {
                    page["nextCursor"] = json!(asked.to_string());
                }
                page
            }
            Some("tools/call") => match &call {
                Some(answer) => answer.clone(),
                None => continue,
            },
            _ => continue,
        };
        let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
        write_json_line(&mut write, &answer).await;
    }
    asked
}
