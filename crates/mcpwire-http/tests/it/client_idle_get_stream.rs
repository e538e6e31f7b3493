//! The standalone GET stream is reopened when it stays silent past
//! `ClientOptions::get_stream_idle_timeout`: a raw TCP server on 127.0.0.1
//! answers the GET with SSE headers and one event, then says nothing, as a
//! half-open connection would; the client drops that connection and opens
//! the stream again, resuming with `Last-Event-ID`. Keep-alive comments
//! count as bytes: they keep a quiet stream open.

#![cfg(feature = "client")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcpwire_http::client::{ClientOptions, StreamableHttpClient};
use mcpwire_jsonrpc::{Inbound, Notification, Packet, Request};
use mcpwire_test::raw_http::{SSE_HEAD, hold_until_closed, keep_alives, read_request, write_chunk};
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// The idle timeout the tests set: short, so that they are quick, yet 16
/// times the keep-alive spacing, so that a loaded machine stalling the
/// keep-alive writer for a while does not read as silence.
const IDLE: Duration = Duration::from_millis(800);

/// How long a whole test may take: generous against the sub-second waits
/// it expects, for a loaded 2-core machine, and what turns a client that
/// never reopens the stream (no idle timeout) into a failure, not a hang.
const TEST_BOUND: Duration = Duration::from_secs(20);

/// What the first GET stream carries after its headers.
#[derive(Clone, Copy)]
enum Carrying {
    /// One event with an id, then nothing at all.
    Silence,
    /// One event with an id, then a keep-alive comment every
    /// [`KEEP_ALIVE_EVERY`] for [`KEEP_ALIVE_FOR`], then nothing.
    KeepAlives,
}

/// How often [`Carrying::KeepAlives`] sends a comment.
const KEEP_ALIVE_EVERY: Duration = Duration::from_millis(50);

/// How long [`Carrying::KeepAlives`] keeps the stream alive: several idle
/// timeouts.
const KEEP_ALIVE_FOR: Duration = Duration::from_millis(2400);

/// What the server saw.
#[derive(Debug)]
enum Seen {
    /// A GET on connection `connection`, with its `Last-Event-ID`.
    Get {
        connection: usize,
        last_event_id: Option<String>,
        at: Instant,
    },
    /// The client closed connection `connection`.
    Closed { connection: usize },
}

/// Serves one connection: answers `initialize`, takes notifications with
/// 202, and answers the first GET of the server with an SSE stream
/// carrying `carrying`, every later one with 405 (no more streams, so the
/// client stops asking).
async fn connection(
    stream: TcpStream,
    connection: usize,
    carrying: Carrying,
    first_get: &AtomicBool,
    seen: mpsc::UnboundedSender<Seen>,
) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    while let Some(request) = read_request(&mut read).await {
        if request.method == "POST" {
            let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            if body["method"] == "initialize" {
                let answer = json!({"jsonrpc": "2.0", "id": body["id"], "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "serverInfo": {"name": "silent", "version": "1"}
                }})
                .to_string();
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                    answer.len()
                );
                write.write_all(response.as_bytes()).await.unwrap();
            } else {
                write
                    .write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
                    .await
                    .unwrap();
            }
            continue;
        }
        let _ = seen.send(Seen::Get {
            connection,
            last_event_id: request.header("last-event-id").map(str::to_owned),
            at: Instant::now(),
        });
        if !first_get.swap(false, Ordering::SeqCst) {
            write
                .write_all(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
                .await
                .unwrap();
            continue;
        }
        write.write_all(SSE_HEAD).await.unwrap();
        // An event with an id (and a short `retry`, so that the client
        // reconnects after the shortest wait its policy allows, 50 ms,
        // rather than the default second).
        write_chunk(&mut write, b"id: ev-1\nretry: 10\ndata:\n\n")
            .await
            .unwrap();
        if let Carrying::KeepAlives = carrying {
            keep_alives(&mut write, KEEP_ALIVE_EVERY, KEEP_ALIVE_FOR).await;
        }
        // Silence: nothing more is written, and the connection is held
        // until the client closes it.
        hold_until_closed(&mut read).await;
        let _ = seen.send(Seen::Closed { connection });
        return;
    }
}

/// Starts the server; returns its URL and what it sees.
async fn serve(carrying: Carrying) -> (String, mpsc::UnboundedReceiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (seen, receiver) = mpsc::unbounded_channel();
    let first_get = Arc::new(AtomicBool::new(true));
    tokio::spawn(async move {
        for number in 0.. {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (seen, first_get) = (seen.clone(), first_get.clone());
            tokio::spawn(async move {
                connection(stream, number, carrying, &first_get, seen).await;
            });
        }
    });
    (url, receiver)
}

/// A client of the server at `url` with the idle timeout [`IDLE`], through
/// the handshake (which opens the GET stream).
async fn initialized_client(url: &str) -> StreamableHttpClient {
    let options = ClientOptions::new().get_stream_idle_timeout(IDLE);
    let mut client = StreamableHttpClient::with_options(url, options).unwrap();
    let initialize = Request::new(1, "initialize", &json!({"protocolVersion": "2025-06-18"}));
    client
        .send(Packet::from(initialize.unwrap()))
        .await
        .unwrap();
    assert!(matches!(client.recv().await, Some(Ok(Inbound::Single(_)))));
    let initialized = Notification::new("notifications/initialized", &json!({})).unwrap();
    client.send(Packet::from(initialized)).await.unwrap();
    client
}

/// The GETs the server saw (and whether the first GET's connection was
/// closed by the client), until the second GET and that close both came.
async fn two_gets(seen: &mut mpsc::UnboundedReceiver<Seen>) -> (Seen, Seen) {
    let mut gets = Vec::new();
    let mut first_closed = false;
    while gets.len() < 2 || !first_closed {
        match seen.recv().await.unwrap() {
            get @ Seen::Get { .. } => gets.push(get),
            Seen::Closed { connection } => {
                let Some(Seen::Get {
                    connection: first, ..
                }) = gets.first()
                else {
                    panic!("a connection closed before the first GET");
                };
                assert_eq!(connection, *first, "only the stream's connection is closed");
                first_closed = true;
            }
        }
    }
    let second = gets.pop().unwrap();
    (gets.pop().unwrap(), second)
}

#[tokio::test]
async fn a_silent_get_stream_is_dropped_and_reopened_with_last_event_id() {
    tokio::time::timeout(TEST_BOUND, async {
        let (url, mut seen) = serve(Carrying::Silence).await;
        let mut client = initialized_client(&url).await;
        let (first, second) = two_gets(&mut seen).await;
        let (
            Seen::Get {
                last_event_id: None,
                at: first_at,
                ..
            },
            Seen::Get {
                last_event_id: Some(resumed),
                at: second_at,
                ..
            },
        ) = (first, second)
        else {
            panic!("expected a fresh GET, then a resumed one");
        };
        assert_eq!(resumed, "ev-1");
        // Reopened for the silence, not for anything sooner.
        assert!(second_at - first_at >= IDLE, "{:?}", second_at - first_at);
        client.close().await.unwrap();
    })
    .await
    .expect("the GET stream was not reopened in time");
}

#[tokio::test]
async fn keep_alive_comments_keep_a_quiet_get_stream_open() {
    tokio::time::timeout(TEST_BOUND, async {
        let (url, mut seen) = serve(Carrying::KeepAlives).await;
        let mut client = initialized_client(&url).await;
        let (first, second) = two_gets(&mut seen).await;
        let (Seen::Get { at: first_at, .. }, Seen::Get { at: second_at, .. }) = (first, second)
        else {
            unreachable!("two_gets returns GETs");
        };
        // Comments every 50 ms kept it open for three idle timeouts; the
        // silence after them closed it.
        assert!(
            second_at - first_at >= KEEP_ALIVE_FOR,
            "{:?}",
            second_at - first_at
        );
        client.close().await.unwrap();
    })
    .await
    .expect("the GET stream was not reopened in time");
}
