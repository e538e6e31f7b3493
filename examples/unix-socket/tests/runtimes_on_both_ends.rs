//! The one-page Unix socket transport between mcpwire's own server and
//! client runtimes: both eras, several clients on one socket, a large
//! result, a line that is not JSON, and the end of a session.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use mcpwire::client::{Client, ClientConfig};
use mcpwire::jsonrpc::LineCodec;
use mcpwire::server::{Context, HandlerError, Server};
use mcpwire::types::{CallToolResult, ClientCapabilities, Implementation, ProtocolVersion, Tool};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;
use tokio::time::timeout;
use unix_socket_transport::UnixTransport;

/// Generous: each exchange takes microseconds; a CI machine with two cores
/// shared by several builds can still stall a task for seconds.
const DEADLINE: Duration = Duration::from_secs(60);

/// A fresh socket path under the temporary directory (short enough for
/// the 108-byte limit of `sun_path`).
fn socket_path() -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("mcpwire-uds-{}-{n}.sock", std::process::id()))
}

fn echo_server() -> Server {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let echo = Tool::new("echo", schema.as_object().cloned().unwrap());
    Server::builder("uds-server", "1.0.0")
        .tool(echo, |_ctx: Context, args| async move {
            let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
            Ok::<_, HandlerError>(CallToolResult::text(text))
        })
        .build()
        .unwrap()
}

/// Listens at a fresh path and serves each connection in its own task;
/// the accept task yields the result of every session it served once
/// `sessions` connections have come and gone.
fn listen(sessions: usize) -> (PathBuf, JoinHandle<Vec<bool>>) {
    let path = socket_path();
    let listener = UnixListener::bind(&path).unwrap();
    let server = echo_server();
    let accept = tokio::spawn(async move {
        let mut served = Vec::new();
        for _ in 0..sessions {
            let (stream, _) = listener.accept().await.unwrap();
            let server = server.clone();
            let transport = UnixTransport(stream, LineCodec::new());
            served.push(tokio::spawn(async move { server.serve(transport).await }));
        }
        let mut outcomes = Vec::new();
        for session in served {
            outcomes.push(session.await.unwrap().is_ok());
        }
        outcomes
    });
    (path, accept)
}

async fn connect(path: &PathBuf, pinned: Option<ProtocolVersion>) -> Client {
    let stream = UnixStream::connect(path).await.unwrap();
    let info = Implementation::new("uds-client", "1.0.0");
    let mut config = ClientConfig::new(info, ClientCapabilities::default());
    if let Some(version) = pinned {
        config = config.pinned(version);
    }
    Client::connect(UnixTransport(stream, LineCodec::new()), config)
        .await
        .unwrap()
}

async fn echo(client: &Client, text: &str) -> String {
    let mut args = Map::new();
    args.insert("text".into(), Value::from(text));
    let result = client.call_tool("echo", args).await.unwrap();
    result.content[0].as_text().unwrap().to_owned()
}

#[tokio::test]
async fn both_eras_are_spoken_over_the_socket_and_sessions_end_cleanly() {
    let run = async {
        let (path, accept) = listen(2);
        let eras = [
            (None, ProtocolVersion::V2026_07_28),
            (
                Some(ProtocolVersion::V2025_11_25),
                ProtocolVersion::V2025_11_25,
            ),
        ];
        for (pinned, expected) in eras {
            let client = connect(&path, pinned).await;
            assert_eq!(client.server().version, expected);
            let tools = client.list_all_tools().await.unwrap();
            assert_eq!(tools[0].name, "echo");
            assert_eq!(
                echo(&client, "over a unix socket").await,
                "over a unix socket"
            );
            client.close().await;
        }
        // Each `serve` returned `Ok` once its client closed the socket.
        assert_eq!(accept.await.unwrap(), [true, true]);
        std::fs::remove_file(path).unwrap();
    };
    timeout(DEADLINE, run)
        .await
        .expect("the sessions finished in time");
}

#[tokio::test]
async fn several_clients_share_one_socket_at_once() {
    let run = async {
        let (path, accept) = listen(4);
        let mut calls = Vec::new();
        for n in 0..4 {
            let path = path.clone();
            calls.push(tokio::spawn(async move {
                let client = connect(&path, None).await;
                let mut answers = Vec::new();
                for i in 0..20 {
                    answers.push(echo(&client, &format!("{n}-{i}")).await);
                }
                client.close().await;
                answers
            }));
        }
        for (n, call) in calls.into_iter().enumerate() {
            let expected: Vec<String> = (0..20).map(|i| format!("{n}-{i}")).collect();
            assert_eq!(call.await.unwrap(), expected);
        }
        assert_eq!(accept.await.unwrap(), [true; 4]);
        std::fs::remove_file(path).unwrap();
    };
    timeout(DEADLINE, run)
        .await
        .expect("the clients finished in time");
}

#[tokio::test]
async fn a_result_of_two_mebibytes_crosses_whole() {
    let run = async {
        let (path, accept) = listen(1);
        let client = connect(&path, None).await;
        // Larger than any socket buffer: the writes must go on in pieces,
        // and the payload is queued without a copy (LineQueue).
        let text = "é".repeat(1024 * 1024);
        assert_eq!(echo(&client, &text).await, text);
        client.close().await;
        assert_eq!(accept.await.unwrap(), [true]);
        std::fs::remove_file(path).unwrap();
    };
    timeout(DEADLINE, run)
        .await
        .expect("the call finished in time");
}

#[tokio::test]
async fn a_line_that_is_not_json_is_answered_and_the_session_goes_on() {
    let run = async {
        let (path, accept) = listen(1);
        let stream = UnixStream::connect(&path).await.unwrap();
        let (reader, mut writer) = stream.into_split();
        let mut lines = BufReader::new(reader).lines();
        // BASE-20: -32700 with a null id; then ping, allowed before
        // initialize (LIFE-05), is still answered on the same connection.
        writer
            .write_all(b"not json\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
            .await
            .unwrap();
        let first: Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(first["error"]["code"], -32700);
        assert_eq!(first["id"], Value::Null);
        let second: Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(second, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
        writer.shutdown().await.unwrap();
        assert_eq!(
            lines.next_line().await.unwrap(),
            None,
            "the server closes after our end"
        );
        assert_eq!(accept.await.unwrap(), [true]);
        std::fs::remove_file(path).unwrap();
    };
    timeout(DEADLINE, run)
        .await
        .expect("the exchange finished in time");
}

#[test]
fn the_page_shows_this_transport_byte_for_byte_in_at_most_100_lines() {
    let page = include_str!("../../../docs/custom-transport.md");
    let source = include_str!("../src/lib.rs");
    let shown = page
        .split("```rust\n")
        .find(|block| block.starts_with("//! MCP over a Unix domain socket"))
        .and_then(|block| block.split("\n```\n").next())
        .expect("docs/custom-transport.md shows the transport in a rust block");
    assert_eq!(
        format!("{shown}\n"),
        source,
        "the page and src/lib.rs differ"
    );
    assert!(
        source.lines().count() <= 100,
        "the transport grew past one page"
    );
}
