//! POST answer streams nobody waits on any more end promptly: a request
//! that timed out in the engine, was cancelled, or was answered on another
//! stream, or a `server/discover` probe the engine gave up on, does not
//! leave its SSE connection and reader task behind, however the server
//! keeps that stream open (comments only, or silence). A batch stream still
//! carrying another request stays open for it.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use client_support::*;
use http::{Method, StatusCode};
use mcpwire_http::client::{ClientOptions, StreamableHttpClient};
use mcpwire_jsonrpc::{Notification, Packet, Request as RpcRequest, RequestId};
use mcpwire_session::{
    ClientConfig, ClientEvent, ClientSession, Event, RequestOptions, ResponseError,
};
use mcpwire_types::methods::ClientRequest;
use mcpwire_types::{CallToolRequestParams, ProtocolVersion};
use serde_json::json;

/// How long the server keeps a `tools/call` stream open at most: longer
/// than any wait below, so that only the client can close it in time.
const SERVER_STREAM_LIFE: Duration = Duration::from_secs(30);
/// The pause between the server's keep-alive comments.
const COMMENT_EVERY: Duration = Duration::from_millis(50);
/// How long the client may take to close an abandoned stream. The fix
/// closes it at once (the cancellation aborts its reader); the margin
/// covers a loaded 2-core machine running other builds and tests, and the
/// server noticing the closed connection at its next write.
const CLOSE_BOUND: Duration = Duration::from_secs(10);

/// What the server's `tools/call` answer streams carry.
#[derive(Clone, Copy)]
enum Carrying {
    /// An SSE comment every [`COMMENT_EVERY`], never an answer.
    Comments,
    /// Nothing at all after the headers.
    Silence,
}

/// A 2025-11-25 server whose `tools/call` answers are SSE streams that
/// never answer, counting how many were opened and how many the client
/// closed. The test can write on them, and on the standalone GET stream.
struct StreamingServer {
    server: TestServer,
    opened: Arc<AtomicUsize>,
    closed_by_client: Arc<AtomicUsize>,
    posts: Arc<Mutex<Vec<Arc<SseWriter>>>>,
    get: Arc<Mutex<Option<Arc<SseWriter>>>>,
}

impl StreamingServer {
    async fn start(carrying: Carrying) -> Self {
        let opened = Arc::new(AtomicUsize::new(0));
        let closed_by_client = Arc::new(AtomicUsize::new(0));
        let posts = Arc::new(Mutex::new(Vec::new()));
        let get = Arc::new(Mutex::new(None));
        let counters = (
            Arc::clone(&opened),
            Arc::clone(&closed_by_client),
            Arc::clone(&posts),
            Arc::clone(&get),
        );
        let server = serve(move |request: Recorded| {
            let (opened, closed, posts, get) = (
                Arc::clone(&counters.0),
                Arc::clone(&counters.1),
                Arc::clone(&counters.2),
                Arc::clone(&counters.3),
            );
            async move {
                // A batch is the one POST without a method of its own.
                let streamed = request.method == Method::POST
                    && (matches!(
                        request.rpc_method().as_deref(),
                        Some("tools/call" | "server/discover")
                    ) || request.json().is_array());
                if streamed {
                    let (writer, response) = sse(&[]);
                    let writer = Arc::new(writer);
                    posts.lock().unwrap().push(Arc::clone(&writer));
                    opened.fetch_add(1, Ordering::SeqCst);
                    tokio::spawn(hold_open(writer, carrying, closed));
                    return response;
                }
                match (request.method.clone(), request.rpc_method().as_deref()) {
                    (Method::POST, Some("initialize")) => {
                        let mut answer = json(
                            StatusCode::OK,
                            &result(
                                &request.rpc_id(),
                                json!({"protocolVersion": "2025-11-25",
                                       "capabilities": {"tools": {}},
                                       "serverInfo": {"name": "s", "version": "1"}}),
                            ),
                        );
                        answer
                            .headers_mut()
                            .insert("mcp-session-id", "sess-1".parse().unwrap());
                        answer
                    }
                    (Method::POST, _) => empty(StatusCode::ACCEPTED),
                    (Method::GET, _) => {
                        let (writer, response) = sse(&[]);
                        *get.lock().unwrap() = Some(Arc::new(writer));
                        response
                    }
                    (Method::DELETE, _) => empty(StatusCode::OK),
                    _ => empty(StatusCode::BAD_REQUEST),
                }
            }
        })
        .await;
        Self {
            server,
            opened,
            closed_by_client,
            posts,
            get,
        }
    }

    /// Waits (at most [`CLOSE_BOUND`]) until the client closed `count`
    /// streams; returns how many it closed.
    async fn wait_for_closes(&self, count: usize) -> usize {
        let deadline = Instant::now() + CLOSE_BOUND;
        while Instant::now() < deadline {
            let closed = self.closed_by_client.load(Ordering::SeqCst);
            if closed >= count {
                return closed;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.closed_by_client.load(Ordering::SeqCst)
    }
}

/// Keeps one answer stream open for [`SERVER_STREAM_LIFE`] at most,
/// counting it in `closed` if the client goes away first.
async fn hold_open(writer: Arc<SseWriter>, carrying: Carrying, closed: Arc<AtomicUsize>) {
    let gone = match carrying {
        Carrying::Comments => {
            let mut gone = false;
            let rounds = SERVER_STREAM_LIFE.as_millis() / COMMENT_EVERY.as_millis();
            for _ in 0..rounds {
                if !writer.raw(b": keep-alive\n\n").await {
                    gone = true;
                    break;
                }
                tokio::time::sleep(COMMENT_EVERY).await;
            }
            gone
        }
        Carrying::Silence => tokio::time::timeout(SERVER_STREAM_LIFE, writer.closed())
            .await
            .is_ok(),
    };
    if gone {
        closed.fetch_add(1, Ordering::SeqCst);
    }
}

/// The session engine over the HTTP client, driven by hand the way a
/// runtime drives it: what it wants sent is sent, what arrives is handed
/// in, and its deadlines fire.
struct Driven {
    session: ClientSession,
    transport: StreamableHttpClient,
}

impl Driven {
    async fn connect(url: &str) -> Self {
        Self::connect_with(
            url,
            ClientConfig::named("c", "1").pinned(ProtocolVersion::V2025_11_25),
        )
        .await
    }

    /// Connects choosing the revision automatically: a `server/discover`
    /// probe first, given up on after `probe_timeout`, then `initialize`.
    async fn connect_probing(url: &str, probe_timeout: Duration) -> Self {
        Self::connect_with(
            url,
            ClientConfig::named("c", "1").with_probe_timeout(probe_timeout),
        )
        .await
    }

    async fn connect_with(url: &str, config: ClientConfig) -> Self {
        let mut driven = Self {
            session: ClientSession::new(Arc::new(config), Instant::now()),
            transport: StreamableHttpClient::with_options(url, ClientOptions::new()).unwrap(),
        };
        driven
            .pump(|event| matches!(event, Event::Established(_)).then_some(()))
            .await;
        driven
    }

    /// Calls tool `name` with `timeout`; its outcome.
    async fn call(&mut self, name: &str, timeout: Duration) -> Result<(), ResponseError> {
        let request = ClientRequest::CallTool(Box::new(CallToolRequestParams::new(name)));
        let options = RequestOptions::default().with_timeout(timeout);
        let id = self
            .session
            .send_request(request, options, Instant::now())
            .unwrap();
        self.pump(|event| match event {
            Event::Response {
                id: answered,
                result,
            } if answered == id => Some(result.map(|_| ())),
            _ => None,
        })
        .await
    }

    /// Runs the engine until `wanted` picks an event (at most 1,000
    /// rounds; the caller's `bounded` bounds the time).
    async fn pump<T>(&mut self, mut wanted: impl FnMut(ClientEvent) -> Option<T>) -> T {
        for _ in 0..1_000 {
            while let Some(transmit) = self.session.poll_transmit() {
                self.transport.send(transmit.packet).await.unwrap();
            }
            while let Some(event) = self.session.poll_event() {
                if let Some(found) = wanted(event) {
                    return found;
                }
            }
            let deadline = self
                .session
                .poll_timeout()
                .unwrap_or_else(|| Instant::now() + Duration::from_secs(60));
            tokio::select! {
                inbound = self.transport.recv() => match inbound {
                    Some(Ok(inbound)) => self.session.handle_inbound(inbound, Instant::now()),
                    other => panic!("the transport ended: {other:?}"),
                },
                () = tokio::time::sleep_until(deadline.into()) => {
                    self.session.handle_timeout(Instant::now());
                }
            }
        }
        panic!("the engine never produced the awaited event");
    }
}

/// A raw transport through the handshake and `notifications/initialized`.
async fn initialized(url: &str) -> StreamableHttpClient {
    let mut client = StreamableHttpClient::new(url).unwrap();
    client
        .send(request(1, "initialize", json!({})))
        .await
        .unwrap();
    next_message(&mut client).await;
    client
        .send(Packet::from(Notification::without_params(
            "notifications/initialized",
        )))
        .await
        .unwrap();
    client
}

fn cancel(id: i64) -> Packet {
    Packet::from(Notification::new("notifications/cancelled", &json!({"requestId": id})).unwrap())
}

#[tokio::test]
async fn streams_of_comments_are_closed_when_their_requests_time_out() {
    bounded(async {
        let server = StreamingServer::start(Carrying::Comments).await;
        let mut client = Driven::connect(&server.server.url).await;
        let calls = 3;
        for _ in 0..calls {
            let outcome = client.call("slow", Duration::from_millis(200)).await;
            assert_eq!(outcome, Err(ResponseError::TimedOut));
        }
        assert_eq!(
            server.server.posts_of("notifications/cancelled").len(),
            calls
        );
        assert_eq!(server.opened.load(Ordering::SeqCst), calls);
        assert_eq!(
            server.wait_for_closes(calls).await,
            calls,
            "every abandoned stream is closed by the client"
        );
    })
    .await;
}

#[tokio::test]
async fn a_silent_probe_stream_is_closed_once_the_client_falls_back_to_initialize() {
    bounded(async {
        let server = StreamingServer::start(Carrying::Silence).await;
        // The probe goes unanswered (LIFE-05: no cancellation follows it),
        // so only the fallback to `initialize` can tell the transport that
        // its stream is not awaited any more.
        let _client = Driven::connect_probing(&server.server.url, Duration::from_millis(300)).await;
        assert_eq!(server.server.posts_of("server/discover").len(), 1);
        assert_eq!(server.opened.load(Ordering::SeqCst), 1);
        assert_eq!(
            server.wait_for_closes(1).await,
            1,
            "the abandoned probe's stream is closed by the client"
        );
    })
    .await;
}

#[tokio::test]
async fn a_silent_stream_is_closed_when_its_request_is_cancelled() {
    bounded(async {
        let server = StreamingServer::start(Carrying::Silence).await;
        let mut client = initialized(&server.server.url).await;
        client
            .send(request(7, "tools/call", json!({"name": "slow"})))
            .await
            .unwrap();
        client.send(cancel(7)).await.unwrap();
        assert_eq!(server.wait_for_closes(1).await, 1);
    })
    .await;
}

#[tokio::test]
async fn a_silent_stream_is_closed_when_its_request_is_answered_on_another_stream() {
    bounded(async {
        let server = StreamingServer::start(Carrying::Silence).await;
        let mut client = initialized(&server.server.url).await;
        client
            .send(request(7, "tools/call", json!({"name": "slow"})))
            .await
            .unwrap();
        let get = server.get.lock().unwrap().clone().expect("the GET stream");
        get.event(message_event(&result(&json!(7), json!({"content": []}))))
            .await;
        let answer = next_message(&mut client).await;
        assert_eq!(answer.id(), Some(&RequestId::from(7)));
        assert_eq!(server.wait_for_closes(1).await, 1);
    })
    .await;
}

#[tokio::test]
async fn a_batch_stream_stays_open_for_its_request_still_in_flight() {
    bounded(async {
        let server = StreamingServer::start(Carrying::Silence).await;
        let mut client = initialized(&server.server.url).await;
        let batch = Packet::Batch(vec![
            RpcRequest::new(7, "tools/call", &json!({"name": "a"}))
                .unwrap()
                .into(),
            RpcRequest::new(8, "tools/call", &json!({"name": "b"}))
                .unwrap()
                .into(),
        ]);
        client.send(batch).await.unwrap();
        client.send(cancel(7)).await.unwrap();
        // Long enough for a wrong close to reach the server.
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(server.closed_by_client.load(Ordering::SeqCst), 0);
        let stream = server.posts.lock().unwrap()[0].clone();
        stream
            .event(message_event(&result(&json!(8), json!({"content": []}))))
            .await;
        let answer = next_message(&mut client).await;
        assert_eq!(answer.id(), Some(&RequestId::from(8)));
    })
    .await;
}
