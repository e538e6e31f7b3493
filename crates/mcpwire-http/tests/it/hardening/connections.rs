//! Connection-level limits (issue 17 item 1): a deadline for the first
//! bytes and for every request head, a body-read deadline, a cap on
//! connections, and a bound on how long a client may stop reading.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mcpwire_http::server::Config;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::server_support::*;

/// Waits until the server closes `stream` (a read returns 0 or fails),
/// for at most `limit`; returns how long it took, or `None` if it stayed
/// open. Whatever the server sends meanwhile is returned too.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> (Option<Duration>, Vec<u8>) {
    let start = Instant::now();
    let mut received = Vec::new();
    let mut buffer = [0_u8; 4096];
    while start.elapsed() < limit {
        let left = limit.saturating_sub(start.elapsed());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return (Some(start.elapsed()), received),
            Ok(Ok(read)) => received.extend_from_slice(&buffer[..read]),
            Err(_) => break,
        }
    }
    (None, received)
}

/// POSTs `initialize` on `conn` and checks that it is answered with 200.
async fn initialize_on(conn: &mut Conn, headers: &[(String, String)]) {
    conn.send("POST", headers, initialize(V2025_11_25).as_bytes())
        .await;
    assert_eq!(conn.reply().await.status(), 200);
}

fn short_heads() -> Config {
    Config::default().header_read_timeout(Duration::from_millis(400))
}

/// A connection that never sends a byte is closed at the header read
/// timeout (the sniffing of its first bytes had no deadline).
#[tokio::test]
async fn a_silent_connection_is_closed_at_the_header_read_timeout() {
    let server = TestServer::start(short_heads(), test_runtime()).await;
    let mut stream = within(TcpStream::connect(server.addr)).await.unwrap();
    // Generous: the deadline is 0.4 s; 5 s covers a loaded 2-core machine.
    let (closed, _) = closed_within(&mut stream, Duration::from_secs(5)).await;
    assert!(closed.is_some(), "a silent connection stayed open");
}

/// A client that trickles its request head one byte at a time is cut off
/// at the header read timeout instead of holding its connection forever.
#[tokio::test]
async fn a_trickling_request_head_is_cut_off_at_the_header_read_timeout() {
    let server = TestServer::start(short_heads(), test_runtime()).await;
    let mut stream = within(TcpStream::connect(server.addr)).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{}\r\nx-padding: {}",
        server.addr.port(),
        "a".repeat(200)
    );
    let start = Instant::now();
    let mut cut = false;
    // One byte every 20 ms: the whole head would take 5 s; bounded by count.
    for byte in head.bytes() {
        if stream.write_all(&[byte]).await.is_err() {
            cut = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut probe = [0_u8; 512];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(1), stream.read(&mut probe)).await
        {
            cut = true;
            break;
        }
    }
    assert!(cut, "the trickling head was read to its end");
    // Generous: 0.4 s deadline, allowing for scheduling on a loaded machine.
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
}

/// An idle keep-alive connection is closed after the header read timeout
/// once its response is sent.
#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let server = TestServer::start(short_heads(), test_runtime()).await;
    let client = server.client();
    let mut conn = Conn::open(server.addr).await;
    initialize_on(&mut conn, &client.post_headers()).await;
    let mut stream = conn.into_stream();
    let (closed, _) = closed_within(&mut stream, Duration::from_secs(5)).await;
    assert!(
        closed.is_some(),
        "an idle keep-alive connection stayed open"
    );
}

/// A keep-alive connection whose heads each come in time is never cut
/// off, however long it lives: each head has its own deadline, even
/// though the connection keeps one timer for all of them.
#[tokio::test]
async fn a_keep_alive_connection_with_timely_heads_outlives_the_header_read_timeout() {
    let server = TestServer::start(short_heads(), test_runtime()).await;
    let client = server.client();
    let mut conn = Conn::open(server.addr).await;
    let start = Instant::now();
    // Ten requests 150 ms apart: 1.5 s, nearly four header read timeouts
    // (0.4 s), each head well within its own.
    for _ in 0..10 {
        initialize_on(&mut conn, &client.post_headers()).await;
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    assert!(start.elapsed() > Duration::from_millis(1200));
}

/// A body that does not arrive within the body read timeout gets 408 and
/// the connection closes.
#[tokio::test]
async fn a_trickling_body_gets_408() {
    let config = Config::default().body_read_timeout(Duration::from_millis(400));
    let server = TestServer::start(config, test_runtime()).await;
    let mut stream = within(TcpStream::connect(server.addr)).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n{{\"jsonrpc\"",
        server.addr.port()
    );
    within(stream.write_all(head.as_bytes())).await.unwrap();
    let (closed, received) = closed_within(&mut stream, Duration::from_secs(5)).await;
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(closed.is_some(), "the connection stayed open after 408");
}

/// Past `max_connections`, a new connection is not served until one of the
/// open ones closes.
#[tokio::test]
async fn connections_past_the_cap_wait_for_a_free_slot() {
    let config = Config::default()
        .max_connections(2)
        .header_read_timeout(Duration::from_secs(30));
    let server = TestServer::start(config, test_runtime()).await;
    let first = within(TcpStream::connect(server.addr)).await.unwrap();
    let _second = within(TcpStream::connect(server.addr)).await.unwrap();
    // The third connects (the kernel's backlog takes it) but is not served.
    let client = server.client();
    let waiting = tokio::spawn(async move { client.post(&initialize(V2025_11_25)).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !waiting.is_finished(),
        "a connection past the cap was served"
    );
    drop(first);
    let reply = within(waiting).await.unwrap();
    assert_eq!(reply.status(), 200);
}

/// Opens a connection whose receive buffer is small, so that the server's
/// writes back up quickly when it is not read.
async fn slow_reader(addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    within(socket.connect(addr)).await.unwrap()
}

/// A client that stops reading its SSE stream has its connection closed
/// after the write-stall timeout, which frees the stream, so that the
/// session, idle at last, expires. Before, the stream stayed open and the
/// sweeper kept refreshing the session forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_disconnected_and_its_session_expires() {
    let config = Config::default()
        .write_stall_timeout(Duration::from_millis(500))
        .idle_timeout(Duration::from_secs(1))
        .sweep_interval(Duration::from_millis(100));
    let server = TestServer::start(config, test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    // 24 progress events of 256 KiB (6 MiB, more than the socket buffers
    // and hyper's write buffer take), fewer than the stream buffer's 64
    // events, so the runtime never waits on a full stream.
    let body = request(
        1,
        "tools/call",
        json!({"name": "count", "arguments": {"count": 24, "bytes": 256 * 1024},
            "_meta": {"progressToken": "p"}}),
    );
    let mut stream = slow_reader(server.addr).await;
    let mut text = String::from("POST /mcp HTTP/1.1\r\n");
    for (name, value) in client.post_headers() {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    within(stream.write_all(text.as_bytes())).await.unwrap();
    // Generous bounds (0.5 s stall limit, 1 s idle timeout): a loaded
    // 2-core machine may take seconds to produce 6 MiB of events.
    let start = Instant::now();
    loop {
        let stats = server.service.stats().await;
        if stats.open_streams == 0 && stats.sessions == 0 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the stalled stream or its session is still held: {stats:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(stream);
}

/// An HTTP/2 connection that answers the server's pings but never starts
/// a request is told to go away after the idle bound (the header read
/// timeout, as for an idle HTTP/1.1 connection) instead of holding one of
/// the `max_connections` slots for ever.
#[cfg(feature = "client")]
#[tokio::test]
async fn an_idle_http2_connection_that_answers_pings_is_closed() {
    let server = TestServer::start(short_heads(), test_runtime()).await;
    let stream = within(TcpStream::connect(server.addr)).await.unwrap();
    // hyper's client answers every ping; its connection future ends only
    // when the server closes the connection.
    let (sender, connection) =
        hyper::client::conn::http2::handshake::<_, _, http_body_util::Empty<bytes::Bytes>>(
            hyper_util::rt::TokioExecutor::new(),
            hyper_util::rt::TokioIo::new(stream),
        )
        .await
        .unwrap();
    // Generous: the bound is 0.4 s and pings go every 3 s; 10 s covers a
    // loaded two-core machine.
    let ended = tokio::time::timeout(Duration::from_secs(10), connection).await;
    assert!(ended.is_ok(), "an idle HTTP/2 connection stayed open");
    drop(sender);
}
