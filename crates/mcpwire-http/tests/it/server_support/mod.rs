//! Shared pieces of the server tests: a real server on 127.0.0.1 with an
//! `mcpwire_server::Server` behind it, and a hand-written HTTP/1.1 client
//! that can send anything (bad hosts, half-read streams) and read SSE
//! incrementally. Every read is bounded in time.

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcpwire_http::server::{Config, SessionHandle, StreamableHttp, serve};
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::methods::ServerRequest;
use mcpwire_types::{CallToolResult, Tool};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex, oneshot};
use tokio::task::JoinHandle;

/// How long any single network step of a test may take.
pub const STEP: Duration = Duration::from_secs(10);

/// The revisions the tests speak.
pub const V2025_03_26: &str = "2025-03-26";
pub const V2025_06_18: &str = "2025-06-18";
pub const V2025_11_25: &str = "2025-11-25";
pub const V2026_07_28: &str = "2026-07-28";

/// Runs `future`, failing the test if it takes longer than [`STEP`].
pub async fn within<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, future)
        .await
        .expect("a test step took too long")
}

/// The handles of the sessions the server created, newest last.
pub type Handles = Arc<Mutex<Vec<SessionHandle>>>;

/// A server under test.
pub struct TestServer {
    pub addr: SocketAddr,
    pub service: StreamableHttp,
    pub handles: Handles,
    pub connects: Arc<AtomicUsize>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl TestServer {
    /// Serves `runtime` with `config` on a fresh 127.0.0.1 port.
    pub async fn start(config: Config, runtime: Server) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        Self::start_on(listener, config, runtime)
    }

    /// Serves `runtime` with `config` on `listener`, the service running
    /// each session's runtime (`StreamableHttp::with_runtime`, as the
    /// facade hosts a server: POSTs to idle sessions take the fast path).
    pub fn start_on(listener: TcpListener, config: Config, runtime: Server) -> Self {
        let handles: Handles = Arc::default();
        let connects = Arc::new(AtomicUsize::new(0));
        let service = {
            let handles = handles.clone();
            let connects = connects.clone();
            StreamableHttp::with_runtime(config, move |transport| {
                connects.fetch_add(1, Ordering::SeqCst);
                if !transport.is_stateless() {
                    let handle = transport.handle();
                    let handles = handles.clone();
                    tokio::spawn(async move { handles.lock().await.push(handle) });
                }
                runtime.run_session(transport)
            })
        };
        Self::hosting(listener, service, handles, connects)
    }

    /// Serves `runtime` with `config` on a fresh 127.0.0.1 port, each
    /// session's runtime spawned by the connect hook (`StreamableHttp::new`).
    pub async fn start_spawning(config: Config, runtime: Server) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let handles: Handles = Arc::default();
        let connects = Arc::new(AtomicUsize::new(0));
        let service = {
            let handles = handles.clone();
            let connects = connects.clone();
            StreamableHttp::new(config, move |transport| {
                connects.fetch_add(1, Ordering::SeqCst);
                if !transport.is_stateless() {
                    let handle = transport.handle();
                    let handles = handles.clone();
                    tokio::spawn(async move { handles.lock().await.push(handle) });
                }
                runtime.spawn_session(transport);
            })
        };
        Self::hosting(listener, service, handles, connects)
    }

    /// Serves `service` on `listener`.
    pub fn hosting(
        listener: TcpListener,
        service: StreamableHttp,
        handles: Handles,
        connects: Arc<AtomicUsize>,
    ) -> Self {
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(
            serve(listener, service.clone())
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .drain_timeout(Duration::from_secs(5))
                .into_future(),
        );
        Self {
            addr,
            service,
            handles,
            connects,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// A client of this server.
    pub fn client(&self) -> Client {
        Client::new(self.addr)
    }

    /// Shuts the server down gracefully and waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            within(task).await.unwrap().unwrap();
        }
    }

    /// Begins a graceful shutdown and returns the running server's task.
    pub fn begin_stop(&mut self) -> JoinHandle<std::io::Result<()>> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.task.take().unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

fn tool(name: &str, description: &str, schema: &Value) -> Tool {
    let mut tool = Tool::new(name, schema.clone());
    tool.description = Some(description.to_owned());
    tool
}

/// The runtime every test serves: a few tools that exercise the transport.
pub fn test_runtime() -> Server {
    let empty = json!({"type": "object"});
    let echo_schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let region_schema = json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "query": {"type": "string"}}});
    let counting_schema = json!({"type": "object", "properties": {
        "count": {"type": "integer"}, "pause_ms": {"type": "integer"}, "bytes": {"type": "integer"}}});
    Server::builder("http-test-server", "1.0.0")
        .tool(
            tool("echo", "Echoes its text.", &echo_schema),
            |_ctx: Context, args| async move {
                let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(
            tool(
                "regional",
                "Runs in a region named by a header.",
                &region_schema,
            ),
            |_ctx: Context, args| async move {
                let region = args.get("region").and_then(Value::as_str).unwrap_or("");
                Ok::<_, HandlerError>(CallToolResult::text(format!("ran in {region}")))
            },
        )
        .tool(
            tool(
                "count",
                "Reports progress `count` times, then answers.",
                &counting_schema,
            ),
            |ctx: Context, args| async move {
                let count = args.get("count").and_then(Value::as_u64).unwrap_or(3);
                let pause = args.get("pause_ms").and_then(Value::as_u64).unwrap_or(0);
                let bytes = args.get("bytes").and_then(Value::as_u64).unwrap_or(0);
                let padding = "x".repeat(usize::try_from(bytes).unwrap_or(0));
                for step in 1..=count {
                    #[allow(clippy::cast_precision_loss)]
                    let progress = step as f64;
                    ctx.progress(progress, None, Some(&padding)).await;
                    if pause > 0 {
                        tokio::time::sleep(Duration::from_millis(pause)).await;
                    }
                }
                Ok::<_, HandlerError>(CallToolResult::text(format!("counted {count}")))
            },
        )
        .tool(
            tool("ask_client", "Pings the client during the call.", &empty),
            |ctx: Context, _args| async move {
                let ping = ServerRequest::decode("ping", None).unwrap();
                let outcome = ctx.request(ping, Default::default()).await;
                let text = match outcome {
                    Ok(_) => "the client answered".to_owned(),
                    Err(error) => format!("no answer: {error}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(
            tool("wait", "Sleeps `pause_ms`, then answers.", &counting_schema),
            |_ctx: Context, args| async move {
                let pause = args.get("pause_ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(pause)).await;
                Ok::<_, HandlerError>(CallToolResult::text("waited"))
            },
        )
        .tool(
            tool(
                "close_then_answer",
                "Closes its SSE stream (SEP-1699), then answers after `pause_ms` with whether it was closed.",
                &counting_schema,
            ),
            |ctx: Context, args| async move {
                let closed = ctx.close_sse_stream().await;
                let pause = args.get("pause_ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(pause)).await;
                Ok::<_, HandlerError>(CallToolResult::text(format!("closed: {closed}")))
            },
        )
        .build()
        .unwrap()
}

/// The `_meta` of a 2026-07-28 request.
pub fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V2026_07_28,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1.0.0"},
    })
}

/// A JSON-RPC request as text.
pub fn request(id: i64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A JSON-RPC notification as text.
pub fn notification(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// An `initialize` request asking for `version`.
pub fn initialize(version: &str) -> String {
    request(
        0,
        "initialize",
        json!({"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1.0.0"}}),
    )
}

/// An HTTP response head.
#[derive(Debug, Clone)]
pub struct Head {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The first value of a header (name compared without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn is_sse(&self) -> bool {
        self.header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
    }
}

/// A whole response.
#[derive(Debug, Clone)]
pub struct Reply {
    pub head: Head,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn status(&self) -> u16 {
        self.head.status
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The JSON-RPC messages of the body, whether JSON or SSE.
    pub fn messages(&self) -> Vec<Value> {
        if self.head.is_sse() {
            parse_events(&String::from_utf8_lossy(&self.body))
                .into_iter()
                .filter(|e| !e.data.is_empty())
                .map(|e| serde_json::from_str(&e.data).unwrap())
                .collect()
        } else if self.body.is_empty() {
            Vec::new()
        } else {
            vec![self.json()]
        }
    }
}

/// One SSE event (comments excluded).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Event {
    pub id: Option<String>,
    pub data: String,
    pub retry: Option<u64>,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

/// Parses complete SSE text into events (comment-only blocks dropped).
pub fn parse_events(text: &str) -> Vec<Event> {
    text.split("\n\n").filter_map(parse_block).collect()
}

fn parse_block(block: &str) -> Option<Event> {
    let mut event = Event::default();
    let mut seen = false;
    let mut data = Vec::new();
    for line in block.lines() {
        if line.starts_with(':') || line.is_empty() {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        seen = true;
        match field {
            "id" => event.id = Some(value.to_owned()),
            "data" => data.push(value.to_owned()),
            "retry" => event.retry = value.parse().ok(),
            _ => {}
        }
    }
    event.data = data.join("\n");
    seen.then_some(event)
}

/// One HTTP/1.1 connection to the server.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

/// How the body of the current response is framed.
enum Framing {
    Length(usize),
    Chunked,
    UntilClose,
    None,
}

impl Conn {
    pub async fn open(addr: SocketAddr) -> Self {
        Self {
            stream: within(TcpStream::connect(addr)).await.unwrap(),
            buf: Vec::new(),
        }
    }

    pub async fn send(&mut self, method: &str, headers: &[(String, String)], body: &[u8]) {
        let mut text = format!("{method} /mcp HTTP/1.1\r\n");
        for (name, value) in headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        if !body.is_empty() || method == "POST" {
            text.push_str(&format!("content-length: {}\r\n", body.len()));
        }
        text.push_str("\r\n");
        let mut bytes = text.into_bytes();
        bytes.extend_from_slice(body);
        within(self.stream.write_all(&bytes)).await.unwrap();
    }

    /// The socket itself, for tests that read or write raw bytes.
    pub fn into_stream(self) -> TcpStream {
        self.stream
    }

    async fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        let read = within(self.stream.read(&mut chunk)).await.unwrap_or(0);
        self.buf.extend_from_slice(&chunk[..read]);
        read > 0
    }

    pub async fn head(&mut self) -> Head {
        loop {
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                let text = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                self.buf.drain(..end + 4);
                let mut lines = text.lines();
                let status = lines
                    .next()
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|s| s.parse().ok())
                    .unwrap();
                let headers = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                return Head { status, headers };
            }
            assert!(
                self.fill().await,
                "connection closed before a response head"
            );
        }
    }

    fn framing(head: &Head) -> Framing {
        if matches!(head.status, 204 | 304) || (100..200).contains(&head.status) {
            return Framing::None;
        }
        if head
            .header("transfer-encoding")
            .is_some_and(|t| t.contains("chunked"))
        {
            return Framing::Chunked;
        }
        match head.header("content-length").and_then(|l| l.parse().ok()) {
            Some(length) => Framing::Length(length),
            None => Framing::UntilClose,
        }
    }

    /// Reads the next piece of the body; `None` at its end.
    async fn next_piece(&mut self, framing: &mut Framing) -> Option<Vec<u8>> {
        match framing {
            Framing::None | Framing::Length(0) => None,
            Framing::Length(left) => {
                if self.buf.is_empty() && !self.fill().await {
                    return None;
                }
                let take = (*left).min(self.buf.len());
                *left -= take;
                Some(self.buf.drain(..take).collect())
            }
            Framing::UntilClose => {
                if self.buf.is_empty() && !self.fill().await {
                    return None;
                }
                Some(std::mem::take(&mut self.buf))
            }
            Framing::Chunked => loop {
                if let Some(end) = find(&self.buf, b"\r\n") {
                    let size_text = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                    let size =
                        usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
                    if self.buf.len() >= end + 2 + size + 2 {
                        let piece: Vec<u8> = self.buf[end + 2..end + 2 + size].to_vec();
                        self.buf.drain(..end + 2 + size + 2);
                        if size == 0 {
                            *framing = Framing::None;
                            return None;
                        }
                        return Some(piece);
                    }
                }
                if !self.fill().await {
                    return None;
                }
            },
        }
    }

    /// Reads a whole response.
    pub async fn reply(&mut self) -> Reply {
        let head = self.head().await;
        let mut framing = Self::framing(&head);
        let mut body = Vec::new();
        while let Some(piece) = self.next_piece(&mut framing).await {
            body.extend_from_slice(&piece);
        }
        Reply { head, body }
    }

    /// Reads a response head and returns an SSE reader over its body.
    pub async fn stream(mut self) -> (Head, SseReader) {
        let head = self.head().await;
        let framing = Self::framing(&head);
        (
            head,
            SseReader {
                conn: self,
                framing,
                text: String::new(),
                comments: 0,
            },
        )
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads SSE events one at a time from a streaming response.
pub struct SseReader {
    conn: Conn,
    framing: Framing,
    text: String,
    comments: usize,
}

impl SseReader {
    /// The next event (comments skipped), or `None` when the body ends.
    pub async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.text.find("\n\n") {
                let block: String = self.text.drain(..end + 2).collect();
                match parse_block(&block) {
                    Some(event) => return Some(event),
                    None => self.comments += 1,
                }
                continue;
            }
            let piece = self.conn.next_piece(&mut self.framing).await?;
            self.text.push_str(&String::from_utf8_lossy(&piece));
        }
    }

    /// Every remaining event until the body ends.
    pub async fn rest(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next_event().await {
            events.push(event);
        }
        events
    }

    /// How many comment-only blocks (keep-alives) were read so far.
    pub fn comments(&self) -> usize {
        self.comments
    }
}

/// A client speaking raw HTTP with the usual MCP headers.
#[derive(Clone, Debug)]
pub struct Client {
    pub addr: SocketAddr,
    pub session: Option<String>,
    pub version: Option<String>,
}

impl Client {
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            session: None,
            version: None,
        }
    }

    /// The headers of a POST: host, JSON body, both media types accepted,
    /// and the session and version headers when set.
    pub fn post_headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![
            ("host".to_owned(), format!("127.0.0.1:{}", self.addr.port())),
            ("content-type".to_owned(), "application/json".to_owned()),
            (
                "accept".to_owned(),
                "application/json, text/event-stream".to_owned(),
            ),
        ];
        self.session_headers(&mut headers);
        headers
    }

    pub fn get_headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![
            ("host".to_owned(), format!("127.0.0.1:{}", self.addr.port())),
            ("accept".to_owned(), "text/event-stream".to_owned()),
        ];
        self.session_headers(&mut headers);
        headers
    }

    fn session_headers(&self, headers: &mut Vec<(String, String)>) {
        if let Some(session) = &self.session {
            headers.push(("mcp-session-id".to_owned(), session.clone()));
        }
        if let Some(version) = &self.version {
            headers.push(("mcp-protocol-version".to_owned(), version.clone()));
        }
    }

    /// Sends a raw request on a new connection and reads the whole answer.
    pub async fn raw(&self, method: &str, headers: &[(String, String)], body: &str) -> Reply {
        let mut conn = Conn::open(self.addr).await;
        conn.send(method, headers, body.as_bytes()).await;
        conn.reply().await
    }

    /// POSTs `body` and reads the whole answer.
    pub async fn post(&self, body: &str) -> Reply {
        self.raw("POST", &self.post_headers(), body).await
    }

    /// POSTs `body` with extra headers and reads the whole answer.
    pub async fn post_with(&self, body: &str, extra: &[(&str, &str)]) -> Reply {
        let mut headers = self.post_headers();
        for (name, value) in extra {
            headers.push(((*name).to_owned(), (*value).to_owned()));
        }
        self.raw("POST", &headers, body).await
    }

    /// POSTs `body` and returns the head and an SSE reader.
    pub async fn post_stream(&self, body: &str) -> (Head, SseReader) {
        let mut conn = Conn::open(self.addr).await;
        conn.send("POST", &self.post_headers(), body.as_bytes())
            .await;
        conn.stream().await
    }

    /// GETs the standalone stream, or resumes after `last_event_id`.
    pub async fn get_stream(&self, last_event_id: Option<&str>) -> (Head, SseReader) {
        let mut headers = self.get_headers();
        if let Some(id) = last_event_id {
            headers.push(("last-event-id".to_owned(), id.to_owned()));
        }
        let mut conn = Conn::open(self.addr).await;
        conn.send("GET", &headers, b"").await;
        conn.stream().await
    }

    /// Initializes a session at `version` and sends `initialized`.
    pub async fn connect(addr: SocketAddr, version: &str) -> Self {
        let mut client = Self::new(addr);
        let reply = client.post(&initialize(version)).await;
        assert_eq!(
            reply.status(),
            200,
            "{:?}",
            String::from_utf8_lossy(&reply.body)
        );
        client.session = Some(reply.head.header("mcp-session-id").unwrap().to_owned());
        let answer = &reply.messages()[0];
        client.version = Some(
            answer["result"]["protocolVersion"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
        let done = client
            .post(&notification("notifications/initialized", json!({})))
            .await;
        assert_eq!(done.status(), 202);
        client
    }

    /// POSTs a 2026-07-28 request with conformant headers.
    pub async fn post_2026(
        &self,
        id: i64,
        method: &str,
        params: Value,
        extra: &[(&str, &str)],
    ) -> Reply {
        let mut params = params;
        params["_meta"] = meta_2026();
        let mut headers: Vec<(&str, &str)> = vec![
            ("mcp-protocol-version", V2026_07_28),
            ("mcp-method", method),
        ];
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(name) = &name {
            headers.push(("mcp-name", name));
        }
        headers.extend_from_slice(extra);
        self.post_with(&request(id, method, params), &headers).await
    }
}
