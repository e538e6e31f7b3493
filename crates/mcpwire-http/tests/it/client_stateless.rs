//! 2026-07-28 requests: the request metadata headers (`Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*` from `x-mcp-header`), tools with invalid
//! annotations dropped from `tools/list`, and cancellation by closing the
//! response stream.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use client_support::*;
use http::{Method, StatusCode};
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::sse::Event;
use mcpwire_jsonrpc::{Notification, Packet};
use serde_json::{Value, json};

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

fn with_meta(mut params: Value) -> Value {
    params["_meta"] = meta();
    params
}

fn tools() -> Value {
    json!({"tools": [
        {"name": "execute_sql", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "greeting": {"type": "string", "x-mcp-header": "Greeting"},
            "verbose": {"type": ["boolean", "null"], "x-mcp-header": "Verbose"},
            "method_val": {"type": "string", "x-mcp-header": "Method"},
            "options": {"type": "object", "properties": {
                "tenant": {"type": "string", "x-mcp-header": "Tenant"}}},
            "query": {"type": "string"}
        }}},
        {"name": "invalid_number_header", "inputSchema": {"type": "object", "properties": {
            "f": {"type": "number", "x-mcp-header": "F"}}}},
        {"name": "plain", "inputSchema": {"type": "object"}}
    ]})
}

async fn stateless_server() -> TestServer {
    serve(|request: Recorded| async move {
        if request.method != Method::POST {
            return empty(StatusCode::METHOD_NOT_ALLOWED);
        }
        let answer = match request.rpc_method().as_deref() {
            Some("tools/list") => tools(),
            _ => json!({}),
        };
        json(StatusCode::OK, &result(&request.rpc_id(), answer))
    })
    .await
}

#[tokio::test]
async fn stateless_requests_mirror_method_name_and_parameters_into_headers() {
    bounded(async {
        let server = stateless_server().await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();

        client
            .send(request(1, "tools/list", with_meta(json!({}))))
            .await
            .unwrap();
        let listed = result_of(&next_message(&mut client).await);
        let names: Vec<_> = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["execute_sql", "plain"],
            "the invalid tool is dropped"
        );

        let arguments = json!({"region": "us-west1", "priority": 42, "greeting": "Hello, 世界",
                               "verbose": null, "method_val": "test-method",
                               "options": {"tenant": " t "}, "query": "SELECT 1"});
        client
            .send(request(
                2,
                "tools/call",
                with_meta(json!({"name": "execute_sql", "arguments": arguments})),
            ))
            .await
            .unwrap();
        next_message(&mut client).await;
        let call = &server.posts_of("tools/call")[0];
        let expected = [
            ("mcp-protocol-version", Some("2026-07-28")),
            ("mcp-method", Some("tools/call")),
            ("mcp-name", Some("execute_sql")),
            ("mcp-param-region", Some("us-west1")),
            ("mcp-param-priority", Some("42")),
            (
                "mcp-param-greeting",
                Some("=?base64?SGVsbG8sIOS4lueVjA==?="),
            ),
            ("mcp-param-verbose", None),
            ("mcp-param-method", Some("test-method")),
            ("mcp-param-tenant", Some("=?base64?IHQg?=")),
            ("mcp-param-query", None),
            ("mcp-session-id", None),
        ];
        for (name, value) in expected {
            assert_eq!(call.header(name), value, "{name}");
        }

        let list = &server.posts_of("tools/list")[0];
        assert_eq!(list.header("mcp-method"), Some("tools/list"));
        assert_eq!(list.header("mcp-name"), None);
    })
    .await;
}

#[tokio::test]
async fn resources_and_prompts_are_named_in_mcp_name() {
    bounded(async {
        let server = stateless_server().await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        let uris = [
            "file:///path/to/file%20name.txt",
            "https://example.com/resource?id=123",
        ];
        for (id, uri) in (1..).zip(uris) {
            client
                .send(request(
                    id,
                    "resources/read",
                    with_meta(json!({"uri": uri})),
                ))
                .await
                .unwrap();
            next_message(&mut client).await;
        }
        client
            .send(request(
                9,
                "prompts/get",
                with_meta(json!({"name": "test_prompt"})),
            ))
            .await
            .unwrap();
        next_message(&mut client).await;

        let reads = server.posts_of("resources/read");
        for (read, uri) in reads.iter().zip(uris) {
            assert_eq!(read.header("mcp-name"), Some(uri));
            assert_eq!(read.header("mcp-method"), Some("resources/read"));
        }
        let prompt = &server.posts_of("prompts/get")[0];
        assert_eq!(prompt.header("mcp-name"), Some("test_prompt"));
    })
    .await;
}

#[tokio::test]
async fn cancelling_a_stateless_request_closes_its_stream_instead_of_posting() {
    bounded(async {
        let stream_closed = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stream_closed);
        let server = serve(move |request: Recorded| {
            let flag = Arc::clone(&flag);
            async move {
                let (writer, response) = sse(&[]);
                if request.rpc_method().as_deref() == Some("tools/call") {
                    tokio::spawn(async move {
                        writer.event(Event::new("").with_id("only")).await;
                        writer.closed().await;
                        flag.store(true, Ordering::SeqCst);
                    });
                }
                response
            }
        })
        .await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        client
            .send(request(1, "tools/call", with_meta(json!({"name": "slow"}))))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!stream_closed.load(Ordering::SeqCst));
        let cancel = Notification::new(
            "notifications/cancelled",
            &json!({"requestId": 1, "reason": "user"}),
        )
        .unwrap();
        client.send(Packet::from(cancel)).await.unwrap();
        while !stream_closed.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Cancelling what is no longer in flight posts nothing either.
        let again = Notification::new("notifications/cancelled", &json!({"requestId": 1})).unwrap();
        client.send(Packet::from(again)).await.unwrap();
        assert!(server.posts_of("notifications/cancelled").is_empty());
        // The cancelled request is not answered by the transport either.
        let extra = tokio::time::timeout(Duration::from_millis(100), client.recv()).await;
        assert!(extra.is_err(), "unexpected {extra:?}");
    })
    .await;
}
