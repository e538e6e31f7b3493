//! A server that does not read what the client sends, over a real TCP
//! socket on 127.0.0.1 with small kernel buffers: the client keeps
//! reading, so the answers it owes pile up in its outbox; a server that
//! takes none of them for `Limits::max_backlog_wait` loses the session,
//! and one that reads slowly keeps it however long the backlog lasts.

use std::time::Duration;

use mcpwire_client::Client;
use mcpwire_stdio::StdioTransport;
use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpSocket, TcpStream};

use crate::support::{bounded, config, read_json_line, write_json_line};

/// Pings the server sends: their answers (about 40 bytes each) are far
/// more than the small socket buffers below hold and than the outbox's
/// 256 packets, so the outbox backs up when nobody reads.
const PINGS: usize = 5_000;

/// The backlog wait the tests set: short, so that the tests are quick.
const WAIT: Duration = Duration::from_millis(300);

/// Kernel buffer sizes asked for on both sockets (Linux doubles and
/// rounds them up; either way a few KiB instead of megabytes).
const SOCKET_BUFFER: u32 = 4096;

/// A client connected over TCP to a server end the test plays: the
/// server's reading half, buffered by lines, and its writing half.
async fn connected(
    max_backlog_wait: Duration,
) -> (Client, BufReader<OwnedReadHalf>, OwnedWriteHalf) {
    let listening = TcpSocket::new_v4().unwrap();
    listening.set_recv_buffer_size(SOCKET_BUFFER).unwrap();
    listening.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener: TcpListener = listening.listen(1).unwrap();
    let address = listener.local_addr().unwrap();
    let connecting = TcpSocket::new_v4().unwrap();
    connecting.set_send_buffer_size(SOCKET_BUFFER).unwrap();
    let (client_stream, accepted) = tokio::join!(connecting.connect(address), listener.accept());
    let client_stream: TcpStream = client_stream.unwrap();
    let (server_stream, _) = accepted.unwrap();
    let (server_read, mut server_write) = server_stream.into_split();
    let mut server_read = BufReader::new(server_read);
    let (client_read, client_write) = client_stream.into_split();

    let mut config = config().pinned(ProtocolVersion::V2025_06_18);
    config.limits.max_backlog_wait = max_backlog_wait;
    let connect = Client::connect(StdioTransport::new(client_read, client_write), config);
    let handshake = async {
        let initialize = read_json_line(&mut server_read).await.unwrap();
        assert_eq!(initialize["method"], "initialize");
        write_json_line(
            &mut server_write,
            &json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "serverInfo": {"name": "deaf", "version": "1"}
            }}),
        )
        .await;
        assert_eq!(
            read_json_line(&mut server_read).await.unwrap()["method"],
            "notifications/initialized"
        );
    };
    let (client, ()) = tokio::join!(connect, handshake);
    (client.unwrap(), server_read, server_write)
}

/// Sends [`PINGS`] pings in one write.
async fn send_pings(write: &mut OwnedWriteHalf) {
    let mut lines = String::new();
    for id in 0..PINGS {
        lines.push_str(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string());
        lines.push('\n');
    }
    write.write_all(lines.as_bytes()).await.unwrap();
}

#[tokio::test]
async fn a_server_that_takes_none_of_its_answers_loses_the_session_after_the_backlog_wait() {
    bounded(async {
        let (client, _server_read, mut server_write) = connected(WAIT).await;
        let pending = {
            let client = client.clone();
            tokio::spawn(async move { client.ping().await })
        };
        send_pings(&mut server_write).await;
        // The server never reads again. 30 s (the whole test's bound) is
        // generous against a 300 ms wait: a slow CI machine still fits.
        client.closed().await;
        assert!(client.is_closed());
        assert!(
            pending.await.unwrap().is_err(),
            "a call waiting when the session fails fails with it"
        );
    })
    .await;
}

#[tokio::test]
async fn a_server_that_reads_slowly_keeps_the_session_and_gets_every_answer() {
    bounded(async {
        let (client, mut server_read, mut server_write) = connected(WAIT).await;
        send_pings(&mut server_write).await;
        // Read the answers a few KiB at a time with pauses: the whole
        // read lasts several backlog waits, but the server takes some of
        // the backlog within each.
        let mut answers = 0;
        let mut text = Vec::new();
        let mut chunk = vec![0u8; 2048];
        let mut reads = 0;
        while answers < PINGS {
            reads += 1;
            assert!(reads < 100_000, "the answers never all arrived");
            let read = server_read.read(&mut chunk).await.unwrap();
            assert!(read > 0, "the client closed the connection");
            text.extend_from_slice(&chunk[..read]);
            answers = text.iter().filter(|&&byte| byte == b'\n').count();
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!client.is_closed());
        let ids: Vec<u64> = text
            .split(|&byte| byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| {
                let answer: Value = serde_json::from_slice(line).unwrap();
                assert_eq!(answer["result"], json!({}));
                answer["id"].as_u64().unwrap()
            })
            .collect();
        assert_eq!(ids, (0..PINGS as u64).collect::<Vec<_>>());
    })
    .await;
}
