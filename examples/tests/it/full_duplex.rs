//! Both peers write more than the pipes between them hold, at once: a
//! runtime that stopped reading while it writes would deadlock here. The
//! client and server runtimes read and write on separate tasks.

use std::future::Future;
use std::time::Duration;

use mcpwire::client::{Client, ClientConfig};
use mcpwire::server::{Context, HandlerError, Server};
use mcpwire::stdio::StdioTransport;
use mcpwire::types::{CallToolResult, ClientCapabilities, Implementation, Tool};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_large_calls_in_flight_over_small_pipes_all_complete() {
    let echo = Tool::new(
        "echo",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    );
    let server = Server::builder("echo", "1.0.0")
        .tool(echo, |_ctx: Context, args| async move {
            let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
            Ok::<_, HandlerError>(CallToolResult::text(text))
        })
        .build()
        .expect("server");
    // 16 KiB pipes each way, and 64 calls of 64 KiB each way: both sides
    // must read while their writes wait.
    let (client_io, server_io) = tokio::io::duplex(16 * 1024);
    let (server_read, server_write) = tokio::io::split(server_io);
    let (client_read, client_write) = tokio::io::split(client_io);
    let serving = tokio::spawn(async move {
        server
            .serve(StdioTransport::new(server_read, server_write))
            .await
    });
    let config = ClientConfig::new(Implementation::new("t", "1"), ClientCapabilities::default());
    let client = Client::connect(StdioTransport::new(client_read, client_write), config)
        .await
        .expect("connect");
    let text = "x".repeat(64 * 1024);
    let calls = (0..64).map(|_| {
        let client = client.clone();
        let text = text.clone();
        async move { client.call_tool("echo", json!({ "text": text })).await }
    });
    let results = tokio::time::timeout(Duration::from_secs(60), futures_join_all(calls))
        .await
        .expect("no deadlock: every call completes");
    for result in results {
        let result = result.expect("call");
        assert_eq!(result.content[0].as_text().map(str::len), Some(64 * 1024));
    }
    client.close().await;
    let _ = tokio::time::timeout(Duration::from_secs(10), serving).await;
}

/// Runs futures concurrently, each in its own task (no extra dependency).
async fn futures_join_all<F>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut outputs = Vec::with_capacity(handles.len());
    for handle in handles {
        outputs.push(handle.await.expect("task"));
    }
    outputs
}
