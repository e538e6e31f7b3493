//! Shared pieces of the integration tests: real servers on 127.0.0.1 (the
//! legacy endpoints, the Streamable HTTP endpoint, both; over mcpwire-http's
//! `serve`, or over TLS), an `mcpwire_server::Server` behind them, and a
//! raw HTTP client that reads SSE incrementally. Every wait is bounded in
//! time.

pub(crate) mod tls;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use mcpwire_client::{Client, ClientConfig};
use mcpwire_http::server::body::SendBody;
use mcpwire_http::server::{Config as HttpConfig, StreamableHttp, serve};
use mcpwire_http::sse::{Decoder, Event};
use mcpwire_http_legacy::server::{Config, LegacySse, LegacyTransport};
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::methods::ServerRequest;
use mcpwire_types::{CallToolResult, ClientCapabilities, Implementation, ProtocolVersion, Tool};
use serde_json::{Map, Value, json};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How long any single step of a test may take.
pub(crate) const STEP: Duration = Duration::from_secs(10);

/// Runs `future`, failing the test if it takes longer than [`STEP`].
pub(crate) async fn within<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, future)
        .await
        .expect("a test step took too long")
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A server on a fresh 127.0.0.1 port; stops when dropped.
pub(crate) struct Listener {
    pub addr: SocketAddr,
    /// `http://127.0.0.1:port`, or `https://localhost:port` over TLS.
    pub base: String,
    task: JoinHandle<()>,
}

impl Listener {
    /// The base URL followed by `path`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `service` with mcpwire-http's `serve`, which inserts each
/// connection's `LocalAddr`.
pub(crate) async fn listen<S, B>(service: S) -> Listener
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: SendBody,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = serve(listener, service).await;
    });
    Listener {
        addr,
        base: format!("http://{addr}"),
        task,
    }
}

/// The tools every test server offers, in every revision.
pub(crate) fn runtime() -> Server {
    runtime_speaking(&ProtocolVersion::ALL)
}

/// The revisions of the handshake era, which an old server speaks.
pub(crate) const HANDSHAKE_ERA: [ProtocolVersion; 4] = [
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
];

/// The test tools, in `versions` only.
pub(crate) fn runtime_speaking(versions: &[ProtocolVersion]) -> Server {
    let echo_schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let count_schema = json!({"type": "object", "properties": {"count": {"type": "integer"}}});
    let tool = |name: &str, schema: &Value| Tool::new(name, schema.clone());
    Server::builder("legacy-test-server", "1.0.0")
        .versions(versions.iter().copied())
        .tool(
            tool("echo", &echo_schema),
            |_ctx: Context, args| async move {
                let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .tool(
            tool("count", &count_schema),
            |ctx: Context, args| async move {
                let count = args.get("count").and_then(Value::as_u64).unwrap_or(3);
                for step in 1..=count {
                    #[allow(clippy::cast_precision_loss, reason = "small counts")]
                    ctx.progress(step as f64, None, None).await;
                }
                Ok::<_, HandlerError>(CallToolResult::text(format!("counted {count}")))
            },
        )
        .tool(
            tool("ask_client", &json!({"type": "object"})),
            |ctx: Context, _args| async move {
                let ping = ServerRequest::decode("ping", None).unwrap();
                let text = match ctx.request(ping, Default::default()).await {
                    Ok(_) => "the client answered".to_owned(),
                    Err(error) => format!("no answer: {error}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .build()
        .unwrap()
}

/// A legacy server whose sessions `runtime` serves.
pub(crate) fn legacy(config: Config, runtime: Server) -> LegacySse {
    LegacySse::new(config, move |transport| {
        let runtime = runtime.clone();
        tokio::spawn(async move {
            let _ = runtime.serve(transport).await;
        });
    })
}

/// A legacy server that hands its sessions' transports to the test.
pub(crate) fn legacy_to_test(
    config: Config,
) -> (LegacySse, mpsc::UnboundedReceiver<LegacyTransport>) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let service = LegacySse::new(config, move |transport| {
        let _ = sender.send(transport);
    });
    (service, receiver)
}

/// Waits until `service` holds `count` sessions (ends are noticed
/// asynchronously, when hyper drops a closed stream).
pub(crate) async fn sessions_settle_at(service: &LegacySse, count: usize) {
    within(async {
        while service.session_count() != count {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
}

/// A Streamable HTTP server whose sessions `runtime` serves.
pub(crate) fn streamable(runtime: Server) -> StreamableHttp {
    StreamableHttp::new(HttpConfig::default(), move |transport| {
        let runtime = runtime.clone();
        tokio::spawn(async move {
            let _ = runtime.serve(transport).await;
        });
    })
}

/// A client configuration, pinned to `version` or choosing automatically.
pub(crate) fn client_config(version: Option<ProtocolVersion>) -> ClientConfig {
    let config = ClientConfig::new(
        Implementation::new("legacy-test-client", "1.0.0"),
        ClientCapabilities::default(),
    )
    .with_probe_timeout(Duration::from_secs(5));
    match version {
        Some(version) => config.pinned(version),
        None => config,
    }
}

/// Lists the tools and calls `echo` and `count`, checking the answers.
pub(crate) async fn exercise(client: &Client) {
    let mut names: Vec<String> = within(client.list_all_tools())
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    names.sort();
    assert_eq!(names, ["ask_client", "count", "echo"]);
    let mut arguments = Map::new();
    arguments.insert("text".to_owned(), json!("hello over HTTP"));
    let result = within(client.call_tool("echo", arguments)).await.unwrap();
    assert_eq!(
        result.content,
        CallToolResult::text("hello over HTTP").content
    );
    let mut arguments = Map::new();
    arguments.insert("count".to_owned(), json!(3));
    let result = within(client.call_tool("count", arguments)).await.unwrap();
    assert_eq!(result.content, CallToolResult::text("counted 3").content);
}

/// A plain HTTP client for requests the transports would never send.
pub(crate) fn raw_client() -> HyperClient<HttpConnector, Full<Bytes>> {
    HyperClient::builder(TokioExecutor::new()).build(HttpConnector::new())
}

/// Sends one request with `headers` and `body`.
pub(crate) async fn raw(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Response<Incoming> {
    let mut request = Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_owned())))
        .unwrap();
    within(raw_client().request(request)).await.unwrap()
}

/// POSTs JSON text to `url` and returns the status.
pub(crate) async fn post_json(url: &str, body: &str) -> StatusCode {
    let response = raw(
        Method::POST,
        url,
        &[("content-type", "application/json")],
        body,
    )
    .await;
    let status = response.status();
    let _ = within(response.into_body().collect()).await;
    status
}

/// An SSE response being read event by event.
pub(crate) struct SseReader {
    pub status: StatusCode,
    pub headers: HeaderMap,
    body: Incoming,
    decoder: Decoder,
}

impl SseReader {
    /// GETs `url` with `headers`.
    pub(crate) async fn open(url: &str, headers: &[(&str, &str)]) -> Self {
        let response = raw(Method::GET, url, headers, "").await;
        let (parts, body) = response.into_parts();
        Self {
            status: parts.status,
            headers: parts.headers,
            body,
            decoder: Decoder::new(),
        }
    }

    /// The next event; `None` when the stream ended.
    pub(crate) async fn next_event(&mut self) -> Option<Event> {
        within(async {
            loop {
                if let Some(event) = self.decoder.next_event() {
                    return Some(event.unwrap());
                }
                match self.body.frame().await {
                    None | Some(Err(_)) => return None,
                    Some(Ok(frame)) => {
                        if let Ok(data) = frame.into_data() {
                            self.decoder.feed(&data);
                        }
                    }
                }
            }
        })
        .await
    }

    /// The next raw chunk of the body, as text; `None` at its end.
    pub(crate) async fn next_chunk(&mut self) -> Option<String> {
        within(async {
            loop {
                match self.body.frame().await {
                    None | Some(Err(_)) => return None,
                    Some(Ok(frame)) => {
                        if let Ok(data) = frame.into_data() {
                            return Some(String::from_utf8_lossy(&data).into_owned());
                        }
                    }
                }
            }
        })
        .await
    }

    /// The next `message` event's data, as JSON.
    pub(crate) async fn next_message(&mut self) -> Value {
        loop {
            let event = self.next_event().await.expect("the stream ended");
            if event.event_type() == "message" {
                return serde_json::from_str(&event.data).unwrap();
            }
        }
    }
}

/// Opens a legacy session on `base` (`http://host:port`): returns the
/// stream, already past its `endpoint` event, and the POST URL.
pub(crate) async fn open_session(base: &str) -> (SseReader, String) {
    let mut stream = SseReader::open(&format!("{base}/sse"), &[]).await;
    assert_eq!(stream.status, StatusCode::OK);
    let endpoint = stream.next_event().await.unwrap();
    assert_eq!(endpoint.event_type(), "endpoint");
    (stream, format!("{base}{}", endpoint.data))
}

/// The `initialize` request of a 2024-11-05 client.
pub(crate) fn initialize_2024() -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "1.0.0"}}})
    .to_string()
}

/// Counts the requests of each method a service answers.
#[derive(Clone, Default)]
pub(crate) struct Counter(Arc<AtomicUsize>);

impl Counter {
    pub(crate) fn bump(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// A service that answers every request with `respond`, counting GETs.
/// (`respond` sees the request's head; its body is never read.)
pub(crate) fn fake<F>(gets: Counter, respond: F) -> FakeService<F>
where
    F: Fn(&Request<Incoming>) -> Response<Full<Bytes>> + Clone + Send + Sync + 'static,
{
    FakeService { gets, respond }
}

/// See [`fake`].
#[derive(Clone)]
pub(crate) struct FakeService<F> {
    gets: Counter,
    respond: F,
}

impl<F> tower_service::Service<Request<Incoming>> for FakeService<F>
where
    F: Fn(&Request<Incoming>) -> Response<Full<Bytes>>,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response<Full<Bytes>>, Infallible>>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        if request.method() == Method::GET {
            self.gets.bump();
        }
        std::future::ready(Ok((self.respond)(&request)))
    }
}

/// A service whose GET opens an SSE stream that never sends anything.
pub(crate) fn silent_sse() -> SilentService {
    SilentService
}

/// See [`silent_sse`].
#[derive(Clone)]
pub(crate) struct SilentService;

/// A body that never yields a frame.
pub(crate) struct SilentBody;

impl http_body::Body for SilentBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        std::task::Poll::Pending
    }
}

impl tower_service::Service<Request<Incoming>> for SilentService {
    type Response = Response<SilentBody>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response<SilentBody>, Infallible>>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, _request: Request<Incoming>) -> Self::Future {
        let response = Response::builder()
            .header("content-type", "text/event-stream")
            .body(SilentBody)
            .unwrap();
        std::future::ready(Ok(response))
    }
}
