//! The client against a handshake-era server: JSON and SSE answers, the
//! session id and version headers, the standalone GET stream, and close.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::time::Duration;

use client_support::*;
use http::{Method, StatusCode};
use mcpwire_http::client::{Error, StreamableHttpClient};
use mcpwire_jsonrpc::{Message, Notification, Packet, Response as RpcResponse};
use serde_json::json;

/// A 2025-11-25 server: a session on `initialize`, JSON or SSE answers,
/// and a standalone GET stream that sends one server request.
async fn handshake_server(get_stream: bool) -> TestServer {
    serve(move |request: Recorded| async move {
        match (request.method.clone(), request.rpc_method().as_deref()) {
            (Method::POST, Some("initialize")) => {
                let mut answer = json(
                    StatusCode::OK,
                    &result(
                        &request.rpc_id(),
                        json!({"protocolVersion": "2025-11-25", "capabilities": {},
                               "serverInfo": {"name": "s", "version": "1"}}),
                    ),
                );
                answer
                    .headers_mut()
                    .insert("mcp-session-id", "sess-1".parse().unwrap());
                answer
            }
            (Method::POST, Some("tools/list")) => sse_of(vec![
                mcpwire_http::sse::Event::new("").with_id("e1"),
                message_event(&json!({"jsonrpc": "2.0", "method": "notifications/message",
                                      "params": {"level": "info", "data": "listing"}}))
                .with_id("e2"),
                message_event(&result(&request.rpc_id(), json!({"tools": []}))).with_id("e3"),
            ]),
            (Method::POST, Some("ping")) => {
                json(StatusCode::OK, &result(&request.rpc_id(), json!({})))
            }
            (Method::POST, _) => empty(StatusCode::ACCEPTED),
            (Method::GET, _) if get_stream => {
                let (writer, response) = sse(&[]);
                tokio::spawn(async move {
                    writer
                        .event(
                            message_event(&json!({"jsonrpc": "2.0", "id": "s1",
                                                  "method": "roots/list"}))
                            .with_id("g1"),
                        )
                        .await;
                    // Keep the stream open until the client leaves.
                    writer.closed().await;
                });
                response
            }
            (Method::GET, _) => empty(StatusCode::METHOD_NOT_ALLOWED),
            (Method::DELETE, _) => empty(StatusCode::OK),
            _ => empty(StatusCode::BAD_REQUEST),
        }
    })
    .await
}

async fn initialize(client: &mut StreamableHttpClient) {
    client
        .send(request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "c", "version": "1"}}),
        ))
        .await
        .unwrap();
    let answer = next_message(client).await;
    assert_eq!(result_of(&answer)["protocolVersion"], "2025-11-25");
    client
        .send(Packet::from(Notification::without_params(
            "notifications/initialized",
        )))
        .await
        .unwrap();
}

async fn wait_for(server: &TestServer, method: Method) -> Recorded {
    loop {
        if let Some(found) = server.requests_with(method.clone()).into_iter().next() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_session_carries_its_id_and_version_after_initialize() {
    bounded(async {
        let server = handshake_server(false).await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        initialize(&mut client).await;
        assert_eq!(client.session_id().as_deref(), Some("sess-1"));
        assert_eq!(client.protocol_version().as_deref(), Some("2025-11-25"));

        client.send(request(2, "ping", json!({}))).await.unwrap();
        let pong = next_message(&mut client).await;
        assert_eq!(pong.id(), Some(&2.into()));

        let init = &server.posts_of("initialize")[0];
        assert_eq!(
            init.header("accept"),
            Some("application/json, text/event-stream")
        );
        assert_eq!(init.header("content-type"), Some("application/json"));
        assert_eq!(init.header("mcp-session-id"), None);
        assert_eq!(init.header("mcp-protocol-version"), None);
        for later in [
            &server.posts_of("notifications/initialized")[0],
            &server.posts_of("ping")[0],
        ] {
            assert_eq!(later.header("mcp-session-id"), Some("sess-1"));
            assert_eq!(later.header("mcp-protocol-version"), Some("2025-11-25"));
            assert_eq!(
                later.header("mcp-method"),
                None,
                "handshake era has no Mcp-Method"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn an_sse_answer_delivers_notifications_then_the_response() {
    bounded(async {
        let server = handshake_server(false).await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        initialize(&mut client).await;
        client
            .send(request(2, "tools/list", json!({})))
            .await
            .unwrap();
        let log = next_message(&mut client).await;
        assert_eq!(log.method(), Some("notifications/message"));
        let list = next_message(&mut client).await;
        assert_eq!(result_of(&list), json!({"tools": []}));
    })
    .await;
}

#[tokio::test]
async fn a_405_to_the_get_stream_is_fine() {
    bounded(async {
        let server = handshake_server(false).await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        initialize(&mut client).await;
        let get = wait_for(&server, Method::GET).await;
        assert_eq!(get.header("accept"), Some("text/event-stream"));
        assert_eq!(get.header("mcp-session-id"), Some("sess-1"));
        assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));
        // The session goes on over POST.
        client.send(request(2, "ping", json!({}))).await.unwrap();
        assert_eq!(next_message(&mut client).await.id(), Some(&2.into()));
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(
            server.requests_with(Method::GET).len(),
            1,
            "a 405 is not retried"
        );
    })
    .await;
}

#[tokio::test]
async fn the_get_stream_delivers_server_requests_and_answers_go_back_by_post() {
    bounded(async {
        let server = handshake_server(true).await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        initialize(&mut client).await;
        let Message::Request(roots) = next_message(&mut client).await else {
            panic!("expected the server's request");
        };
        assert_eq!(roots.method, "roots/list");
        let answer = RpcResponse::new(roots.id, &json!({"roots": []})).unwrap();
        client.send(Packet::from(answer)).await.unwrap();
        let posted = server
            .requests_with(Method::POST)
            .into_iter()
            .find(|post| post.json()["id"] == "s1")
            .unwrap();
        assert_eq!(posted.json()["result"], json!({"roots": []}));
        assert_eq!(posted.header("mcp-session-id"), Some("sess-1"));
    })
    .await;
}

#[tokio::test]
async fn close_deletes_the_session_and_ends_recv() {
    bounded(async {
        let server = handshake_server(true).await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        initialize(&mut client).await;
        wait_for(&server, Method::GET).await;
        client.close().await.unwrap();
        let deletes = server.requests_with(Method::DELETE);
        assert_eq!(deletes.len(), 1);
        assert_eq!(deletes[0].header("mcp-session-id"), Some("sess-1"));
        // The server's request may already be queued; then the end.
        loop {
            match client.recv().await {
                Some(Ok(_)) => {}
                None => break,
                Some(Err(error)) => panic!("{error}"),
            }
        }
        assert!(client.recv().await.is_none());
        assert!(matches!(
            client.send(request(9, "ping", json!({}))).await,
            Err(Error::Closed)
        ));
        client.close().await.unwrap();
        assert_eq!(
            server.requests_with(Method::DELETE).len(),
            1,
            "closing twice sends one DELETE"
        );
    })
    .await;
}

#[tokio::test]
async fn a_405_to_delete_is_fine() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            match (request.method.clone(), request.rpc_method().as_deref()) {
                (Method::POST, Some("initialize")) => {
                    let mut answer = json(
                        StatusCode::OK,
                        &result(&request.rpc_id(), json!({"protocolVersion": "2025-06-18"})),
                    );
                    answer
                        .headers_mut()
                        .insert("mcp-session-id", "s".parse().unwrap());
                    answer
                }
                _ => empty(StatusCode::METHOD_NOT_ALLOWED),
            }
        })
        .await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        client
            .send(request(1, "initialize", json!({})))
            .await
            .unwrap();
        next_message(&mut client).await;
        client.close().await.unwrap();
        assert_eq!(server.requests_with(Method::DELETE).len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_refused_connection_fails_send() {
    bounded(async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        drop(listener);
        let mut client = StreamableHttpClient::new(&url).unwrap();
        let outcome = client.send(request(1, "ping", json!({}))).await;
        assert!(matches!(outcome, Err(Error::Request(_))), "{outcome:?}");
    })
    .await;
}

#[tokio::test]
async fn urls_that_are_not_http_are_refused() {
    assert!(StreamableHttpClient::new("ftp://example.com/mcp").is_err());
    assert!(StreamableHttpClient::new("/relative").is_err());
    assert!(StreamableHttpClient::new("not a url").is_err());
}
