//! A scripted HTTP/1.1 server on 127.0.0.1 for the client tests: it
//! records every request and answers with whatever the test's handler says.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcpwire_http::sse::Event;
use mcpwire_jsonrpc::{Inbound, Message, Packet, Request as RpcRequest};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The body every scripted answer has.
pub type Body = BoxBody<Bytes, io::Error>;

/// One request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: Method,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub at: Instant,
}

impl Recorded {
    /// A header's value as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The JSON body.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The JSON-RPC method of a POST.
    pub fn rpc_method(&self) -> Option<String> {
        self.json()["method"].as_str().map(str::to_owned)
    }

    /// The JSON-RPC id of a POST.
    pub fn rpc_id(&self) -> Value {
        self.json()["id"].clone()
    }
}

type Handler =
    Arc<dyn Fn(Recorded) -> Pin<Box<dyn Future<Output = Response<Body>> + Send>> + Send + Sync>;

/// A running test server.
pub struct TestServer {
    pub url: String,
    log: Arc<Mutex<Vec<Recorded>>>,
    accept: JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl TestServer {
    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }

    /// The requests with this HTTP method.
    pub fn requests_with(&self, method: Method) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|request| request.method == method)
            .collect()
    }

    /// The POSTs of this JSON-RPC method.
    pub fn posts_of(&self, rpc_method: &str) -> Vec<Recorded> {
        self.requests_with(Method::POST)
            .into_iter()
            .filter(|request| request.rpc_method().as_deref() == Some(rpc_method))
            .collect()
    }
}

/// Starts a server whose answers come from `handler`.
pub async fn serve<F, Fut>(handler: F) -> TestServer
where
    F: Fn(Recorded) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response<Body>> + Send + 'static,
{
    let handler: Handler = Arc::new(move |request| Box::pin(handler(request)));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let accept_log = Arc::clone(&log);
    let accept = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let handler = Arc::clone(&handler);
            let log = Arc::clone(&accept_log);
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let handler = Arc::clone(&handler);
                    let log = Arc::clone(&log);
                    async move {
                        let (parts, body) = request.into_parts();
                        let body = body
                            .collect()
                            .await
                            .map(http_body_util::Collected::to_bytes)
                            .unwrap_or_default();
                        let recorded = Recorded {
                            method: parts.method,
                            headers: parts.headers,
                            body,
                            at: Instant::now(),
                        };
                        log.lock().unwrap().push(recorded.clone());
                        Ok::<_, Infallible>(handler(recorded).await)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    TestServer { url, log, accept }
}

/// An answer with a JSON body.
pub fn json(status: StatusCode, value: &Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(full(serde_json::to_vec(value).unwrap()))
        .unwrap()
}

/// An answer without a body.
pub fn empty(status: StatusCode) -> Response<Body> {
    Response::builder()
        .status(status)
        .body(full(Vec::new()))
        .unwrap()
}

/// A JSON-RPC result for request `id`.
pub fn result(id: &Value, result: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn full(bytes: Vec<u8>) -> Body {
    Full::new(Bytes::from(bytes))
        .map_err(|never| match never {})
        .boxed()
}

/// The writing end of a live SSE answer.
pub struct SseWriter(mpsc::Sender<Result<Frame<Bytes>, io::Error>>);

impl SseWriter {
    /// Sends one event; false once the client is gone.
    pub async fn event(&self, event: Event) -> bool {
        self.0
            .send(Ok(Frame::data(event.to_bytes().unwrap())))
            .await
            .is_ok()
    }

    /// Sends raw bytes.
    pub async fn raw(&self, bytes: &'static [u8]) -> bool {
        self.0
            .send(Ok(Frame::data(Bytes::from_static(bytes))))
            .await
            .is_ok()
    }

    /// Breaks the connection abruptly (no end of the chunked body).
    pub async fn cut(self) {
        let _ = self.0.send(Err(io::Error::other("cut"))).await;
    }

    /// Waits until the client has gone away.
    pub async fn closed(&self) {
        self.0.closed().await;
    }
}

/// An SSE answer fed through the returned writer; dropping the writer ends
/// the stream gracefully.
pub fn sse(extra: &[(&str, &str)]) -> (SseWriter, Response<Body>) {
    let (sender, mut receiver) = mpsc::channel(16);
    let stream = futures_util::stream::poll_fn(move |cx| receiver.poll_recv(cx));
    let mut builder = Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "text/event-stream");
    for (name, value) in extra {
        builder = builder.header(*name, *value);
    }
    let response = builder.body(StreamBody::new(stream).boxed()).unwrap();
    (SseWriter(sender), response)
}

/// An SSE answer with these events, then the end of the stream.
pub fn sse_of(events: Vec<Event>) -> Response<Body> {
    let (writer, response) = sse(&[]);
    tokio::spawn(async move {
        for event in events {
            writer.event(event).await;
        }
    });
    response
}

/// An SSE `message` event carrying `value`.
pub fn message_event(value: &Value) -> Event {
    Event::new(value.to_string())
}

/// Runs a test body with a deadline, so that a hang is a failure.
pub async fn bounded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(20), future)
        .await
        .expect("the test did not finish in time")
}

/// A request packet.
pub fn request(id: i64, method: &str, params: Value) -> Packet {
    Packet::from(RpcRequest::new(id, method, &params).unwrap())
}

/// The next message from `transport`, which must be a single message.
pub async fn next_message(transport: &mut mcpwire_http::client::StreamableHttpClient) -> Message {
    match transport.recv().await {
        Some(Ok(Inbound::Single(message))) => message,
        other => panic!("expected a message, got {other:?}"),
    }
}

/// The result of a response message, as JSON.
pub fn result_of(message: &Message) -> Value {
    match message {
        Message::Response(response) => serde_json::from_str(response.result.get()).unwrap(),
        other => panic!("expected a response, got {other:?}"),
    }
}
