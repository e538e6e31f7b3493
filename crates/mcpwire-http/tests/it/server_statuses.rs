//! Every HTTP status the server answers with, on a real server on
//! 127.0.0.1 (HTTP-07, HTTP-09, HTTP-11, HTTP-25, HTTP-38, HTTP-39,
//! HTTP-41, HTTP-45, and the server's own limits).

use crate::server_support;

use std::time::Duration;

use mcpwire_http::server::{Config, ResponseMode};
use serde_json::json;
use server_support::*;

async fn server(config: Config) -> TestServer {
    TestServer::start(config, test_runtime()).await
}

fn call(id: i64, tool: &str, arguments: &serde_json::Value) -> String {
    request(
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
}

#[tokio::test]
async fn http_07_a_post_must_accept_json_and_sse_or_gets_406() {
    let server = server(Config::default()).await;
    let client = server.client();
    for accept in ["application/json", "text/event-stream", "text/html"] {
        let mut headers = client.post_headers();
        headers.retain(|(name, _)| name != "accept");
        headers.push(("accept".to_owned(), accept.to_owned()));
        let reply = client.raw("POST", &headers, &initialize(V2025_11_25)).await;
        assert_eq!(reply.status(), 406, "Accept: {accept}");
    }
    let reply = client
        .raw("POST", &client.post_headers(), &initialize(V2025_11_25))
        .await;
    assert_eq!(reply.status(), 200);
}

#[tokio::test]
async fn a_get_must_accept_sse_or_gets_406() {
    let server = server(Config::default()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let mut headers = client.get_headers();
    headers.retain(|(name, _)| name != "accept");
    headers.push(("accept".to_owned(), "application/json".to_owned()));
    assert_eq!(client.raw("GET", &headers, "").await.status(), 406);
}

#[tokio::test]
async fn a_post_that_is_not_json_gets_415() {
    let server = server(Config::default()).await;
    let client = server.client();
    let mut headers = client.post_headers();
    headers.retain(|(name, _)| name != "content-type");
    headers.push(("content-type".to_owned(), "text/plain".to_owned()));
    assert_eq!(
        client
            .raw("POST", &headers, &initialize(V2025_11_25))
            .await
            .status(),
        415
    );
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let server = server(Config::default().max_body_bytes(1024)).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let big = call(1, "echo", &json!({"text": "x".repeat(2048)}));
    assert_eq!(client.post(&big).await.status(), 413);
    let small = call(2, "echo", &json!({"text": "x".repeat(100)}));
    assert_eq!(client.post(&small).await.status(), 200);
}

#[tokio::test]
async fn a_body_that_is_not_json_rpc_gets_400_with_the_error() {
    let server = server(Config::default()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let reply = client.post("{not json").await;
    assert_eq!(reply.status(), 400);
    assert_eq!(reply.json()["error"]["code"], -32700);
    let reply = client
        .post(r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#)
        .await;
    assert_eq!(reply.status(), 400);
    assert_eq!(reply.json()["id"], 4);
}

#[tokio::test]
async fn http_38_a_request_without_a_session_id_gets_400() {
    let server = server(Config::default()).await;
    let client = server.client();
    assert_eq!(
        client
            .post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        400
    );
    let connected = Client::connect(server.addr, V2025_11_25).await;
    let mut headers = connected.get_headers();
    headers.retain(|(name, _)| name != "mcp-session-id");
    assert_eq!(client.raw("GET", &headers, "").await.status(), 400);
}

#[tokio::test]
async fn http_39_an_unknown_session_gets_404() {
    let server = server(Config::default()).await;
    let mut client = Client::connect(server.addr, V2025_11_25).await;
    client.session = Some("0".repeat(64));
    assert_eq!(
        client
            .post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        404
    );
    client.session = Some("not visible ascii ü".to_owned());
    assert_eq!(
        client
            .post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        404
    );
}

#[tokio::test]
async fn http_45_an_unsupported_protocol_version_header_gets_400() {
    let server = server(Config::default()).await;
    let mut client = Client::connect(server.addr, V2025_11_25).await;
    client.version = Some("1999-01-01".to_owned());
    let reply = client.post(&request(1, "tools/list", json!({}))).await;
    assert_eq!(reply.status(), 400);
    let mut fresh = server.client();
    fresh.version = Some("1999-01-01".to_owned());
    assert_eq!(fresh.post(&initialize(V2025_11_25)).await.status(), 400);
}

#[tokio::test]
async fn any_supported_protocol_version_is_accepted_on_a_session() {
    // The 0.1.16 conformance runner sends 2025-03-26 on a 2025-11-25 session.
    let server = server(Config::default()).await;
    let mut client = Client::connect(server.addr, V2025_11_25).await;
    client.version = Some(V2025_03_26.to_owned());
    assert_eq!(
        client
            .post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        200
    );
    client.version = None;
    assert_eq!(
        client
            .post(&request(2, "tools/list", json!({})))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn http_09_notifications_and_responses_get_202_without_a_body() {
    let server = server(Config::default()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let reply = client
        .post(&notification(
            "notifications/cancelled",
            json!({"requestId": 99}),
        ))
        .await;
    assert_eq!(reply.status(), 202);
    assert!(reply.body.is_empty());
    let response = json!({"jsonrpc": "2.0", "id": 12345, "result": {}}).to_string();
    let reply = client.post(&response).await;
    assert_eq!(reply.status(), 202);
    assert!(reply.body.is_empty());
}

#[tokio::test]
async fn http_11_requests_are_answered_with_json_or_sse_by_mode() {
    for (mode, sse) in [
        (ResponseMode::Json, false),
        (ResponseMode::Sse, true),
        (ResponseMode::Auto, false),
    ] {
        let server = server(Config::default().response_mode(mode)).await;
        let client = Client::connect(server.addr, V2025_11_25).await;
        let reply = client.post(&call(1, "echo", &json!({"text": "hi"}))).await;
        assert_eq!(reply.status(), 200);
        assert_eq!(reply.head.is_sse(), sse, "{mode:?}");
        let messages = reply.messages();
        let answer = messages.last().unwrap();
        assert_eq!(answer["result"]["content"][0]["text"], "hi", "{mode:?}");
    }
}

#[tokio::test]
async fn http_25_a_get_gets_405_when_the_standalone_stream_is_off() {
    let server = server(Config::default().standalone_stream(false)).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (head, _) = client.get_stream(None).await;
    assert_eq!(head.status, 405);
    let reply = client.raw("PUT", &client.post_headers(), "{}").await;
    assert_eq!(reply.status(), 405);
    assert!(reply.head.header("allow").is_some());
}

#[tokio::test]
async fn http_41_delete_ends_the_session_and_its_runtime() {
    let server = server(Config::default()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    assert_eq!(server.service.stats().await.live_transports, 1);
    let reply = client.raw("DELETE", &client.get_headers(), "").await;
    assert_eq!(reply.status(), 200);
    assert_eq!(
        client
            .post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        404
    );
    assert_eq!(
        client
            .raw("DELETE", &client.get_headers(), "")
            .await
            .status(),
        404
    );
    // The runtime saw `recv` return None and dropped its transport.
    within(async {
        while server.service.stats().await.live_transports > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert_eq!(server.service.stats().await.sessions, 0);
}

#[tokio::test]
async fn http_41_delete_gets_405_when_disabled() {
    let server = server(Config::default().session_delete(false)).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    assert_eq!(
        client
            .raw("DELETE", &client.get_headers(), "")
            .await
            .status(),
        405
    );
    assert_eq!(
        client
            .post(&request(1, "tools/list", json!({})))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn the_session_limit_gives_503_with_retry_after() {
    let server = server(Config::default().max_sessions(2)).await;
    Client::connect(server.addr, V2025_11_25).await;
    Client::connect(server.addr, V2025_11_25).await;
    let reply = server.client().post(&initialize(V2025_11_25)).await;
    assert_eq!(reply.status(), 503);
    assert!(reply.head.header("retry-after").is_some());
}

#[tokio::test]
async fn the_stream_limit_of_a_session_gives_429() {
    let server = server(Config::default().max_streams_per_session(1)).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (head, _standalone) = client.get_stream(None).await;
    assert_eq!(head.status, 200);
    let reply = client.post(&call(1, "echo", &json!({"text": "x"}))).await;
    assert_eq!(reply.status(), 429);
    // Notifications open no stream.
    let reply = client
        .post(&notification("notifications/progress", json!({})))
        .await;
    assert_eq!(reply.status(), 202);
}

#[tokio::test]
async fn resuming_a_stream_nothing_is_known_of_gives_204() {
    let server = server(Config::default()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (head, _) = client.get_stream(Some("99-3")).await;
    assert_eq!(head.status, 204);
}

#[tokio::test]
async fn the_initialize_answer_carries_a_visible_ascii_session_id() {
    let server = server(Config::default()).await;
    let reply = server.client().post(&initialize(V2025_11_25)).await;
    assert_eq!(reply.status(), 200);
    let id = reply.head.header("mcp-session-id").unwrap();
    assert_eq!(id.len(), 64);
    assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    assert_eq!(reply.json()["result"]["protocolVersion"], V2025_11_25);
}

#[tokio::test]
async fn a_failed_initialize_creates_no_session() {
    let runtime = mcpwire_server::Server::builder("stateless-only", "1.0.0")
        .versions([mcpwire_types::ProtocolVersion::V2026_07_28])
        .build()
        .unwrap();
    let server = TestServer::start(Config::default(), runtime).await;
    let reply = server.client().post(&initialize(V2025_11_25)).await;
    assert_eq!(reply.status(), 200);
    assert!(reply.json()["error"].is_object());
    assert!(reply.head.header("mcp-session-id").is_none());
    within(async {
        while server.service.stats().await.sessions > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}
