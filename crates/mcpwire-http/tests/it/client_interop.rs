//! The client against this crate's own server half, with an
//! `mcpwire_server` runtime behind it: both eras, JSON and SSE answers,
//! and SSE polling that forces the client to resume.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::future::IntoFuture;
use std::time::Duration;

use client_support::{bounded, next_message, request, result_of};
use mcpwire_http::client::{ClientOptions, StreamableHttpClient};
use mcpwire_http::server::{Config, ResponseMode, StreamableHttp, serve};
use mcpwire_jsonrpc::{Message, Notification, Packet};
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::{CallToolResult, Tool};
use serde_json::{Value, json};
use tokio::net::TcpListener;

fn tool(name: &str, schema: &Value) -> Tool {
    Tool::new(name, schema.clone())
}

/// A runtime with a tool that reports progress slowly and one whose
/// argument travels in a header.
fn runtime() -> Server {
    let count_schema = json!({"type": "object", "properties": {
        "count": {"type": "integer"}, "pause_ms": {"type": "integer"}}});
    let region_schema = json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}}});
    Server::builder("interop", "1.0.0")
        .tool(
            tool("count", &count_schema),
            |ctx: Context, args| async move {
                let count = args.get("count").and_then(Value::as_u64).unwrap_or(3);
                let pause = args.get("pause_ms").and_then(Value::as_u64).unwrap_or(0);
                for step in 1..=count {
                    #[allow(clippy::cast_precision_loss, reason = "small counts")]
                    ctx.progress(step as f64, None, None).await;
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                }
                Ok::<_, HandlerError>(CallToolResult::text(format!("counted {count}")))
            },
        )
        .tool(
            tool("regional", &region_schema),
            |_ctx: Context, args| async move {
                let region = args.get("region").and_then(Value::as_str).unwrap_or("");
                Ok::<_, HandlerError>(CallToolResult::text(format!("ran in {region}")))
            },
        )
        .build()
        .unwrap()
}

/// Serves the runtime on 127.0.0.1; returns the endpoint URL.
async fn start(config: Config) -> String {
    let runtime = runtime();
    let service = StreamableHttp::new(config, move |transport| {
        let runtime = runtime.clone();
        tokio::spawn(async move {
            let _ = runtime.serve(transport).await;
        });
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(serve(listener, service).into_future());
    url
}

async fn initialize(client: &mut StreamableHttpClient, version: &str) {
    let params = json!({"protocolVersion": version, "capabilities": {},
                        "clientInfo": {"name": "interop-client", "version": "1"}});
    client.send(request(1, "initialize", params)).await.unwrap();
    let answer = next_message(client).await;
    assert_eq!(result_of(&answer)["protocolVersion"], version);
    client
        .send(Packet::from(Notification::without_params(
            "notifications/initialized",
        )))
        .await
        .unwrap();
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_polled_stream_is_resumed_until_the_answer() {
    bounded(async {
        let config = Config::new()
            .response_mode(ResponseMode::Sse)
            .retry_interval(Duration::from_millis(50))
            .poll_after(Some(Duration::from_millis(100)));
        let url = start(config).await;
        let options = ClientOptions::new().open_get_stream(false);
        let mut client = StreamableHttpClient::with_options(&url, options).unwrap();
        initialize(&mut client, "2025-11-25").await;
        assert!(client.session_id().is_some());

        let params = json!({"name": "count", "arguments": {"count": 6, "pause_ms": 60},
                            "_meta": {"progressToken": "p"}});
        client.send(request(2, "tools/call", params)).await.unwrap();
        let mut steps = Vec::new();
        let answer = loop {
            match next_message(&mut client).await {
                Message::Notification(progress) => {
                    let params: Value =
                        serde_json::from_str(progress.params.unwrap().get()).unwrap();
                    steps.push(params["progress"].as_f64().unwrap());
                }
                answer => break answer,
            }
        };
        assert_eq!(
            steps,
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            "no loss, no duplicates"
        );
        assert_eq!(text_of(&result_of(&answer)), "counted 6");
        client.close().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_json_session_works_until_close() {
    bounded(async {
        let url = start(Config::new().response_mode(ResponseMode::Json)).await;
        let mut client = StreamableHttpClient::new(&url).unwrap();
        initialize(&mut client, "2025-06-18").await;
        let params = json!({"name": "regional", "arguments": {"region": "eu"}});
        client.send(request(2, "tools/call", params)).await.unwrap();
        assert_eq!(
            text_of(&result_of(&next_message(&mut client).await)),
            "ran in eu"
        );
        client.close().await.unwrap();
        assert!(client.recv().await.is_none());
    })
    .await;
}

#[tokio::test]
async fn stateless_calls_carry_the_headers_the_server_checks() {
    bounded(async {
        let url = start(Config::new()).await;
        let mut client = StreamableHttpClient::new(&url).unwrap();
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {},
                          "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}});
        client
            .send(request(1, "tools/list", json!({"_meta": meta})))
            .await
            .unwrap();
        let listed = result_of(&next_message(&mut client).await);
        assert_eq!(listed["tools"].as_array().unwrap().len(), 2);

        for (id, region) in [(2, "us-west1"), (3, "Zürich ")] {
            let params = json!({"name": "regional", "arguments": {"region": region},
                                "_meta": meta});
            client
                .send(request(id, "tools/call", params))
                .await
                .unwrap();
            let answer = next_message(&mut client).await;
            assert_eq!(
                text_of(&result_of(&answer)),
                format!("ran in {region}"),
                "{answer:?}"
            );
        }
        assert_eq!(client.session_id(), None, "no sessions in 2026-07-28");
    })
    .await;
}
