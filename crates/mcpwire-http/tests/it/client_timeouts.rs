//! What the Streamable HTTP client waits for is bounded in time by
//! default: the status of a POST that carries no request (everything sent
//! after it waits for it), and the TLS handshake of a connection.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::time::Duration;

use client_support::*;
use http::{Method, StatusCode};
use mcpwire_http::client::{ClientOptions, Error, StreamableHttpClient};
use mcpwire_jsonrpc::{Notification, Packet};
use serde_json::json;

/// The bounds the tests set: short, so that the tests are quick.
const BOUND: Duration = Duration::from_millis(300);

#[tokio::test]
async fn a_notification_whose_status_never_comes_fails_after_the_status_timeout() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            match (request.method.clone(), request.rpc_method().as_deref()) {
                (Method::POST, Some("initialize")) => json(
                    StatusCode::OK,
                    &result(
                        &request.rpc_id(),
                        json!({"protocolVersion": "2025-06-18", "capabilities": {},
                               "serverInfo": {"name": "s", "version": "1"}}),
                    ),
                ),
                // Takes the notification and never answers it.
                (Method::POST, _) => std::future::pending().await,
                _ => empty(StatusCode::METHOD_NOT_ALLOWED),
            }
        })
        .await;
        let options = ClientOptions::new().status_timeout(BOUND);
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        client
            .send(request(
                1,
                "initialize",
                json!({"protocolVersion": "2025-06-18"}),
            ))
            .await
            .unwrap();
        next_message(&mut client).await;
        let initialized = Notification::new("notifications/initialized", &json!({})).unwrap();
        // The whole test is bounded at 20 s against a 300 ms bound: room
        // for a loaded machine, and a hang without the bound.
        let sent = client.send(Packet::from(initialized)).await;
        assert!(matches!(sent, Err(Error::Timeout(_))), "{sent:?}");
    })
    .await;
}

#[tokio::test]
async fn a_server_that_stalls_the_tls_handshake_fails_the_send_after_the_connect_timeout() {
    bounded(async {
        // Takes connections and says nothing: no TLS server hello ever.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let held = tokio::spawn(async move {
            let mut connections = Vec::new();
            while let Ok((stream, _)) = listener.accept().await {
                connections.push(stream);
            }
        });
        let url = format!("https://{address}/mcp");
        let options = ClientOptions::new().connect_timeout(BOUND);
        let mut client = StreamableHttpClient::with_options(&url, options).unwrap();
        let sent = client
            .send(request(
                1,
                "initialize",
                json!({"protocolVersion": "2025-06-18"}),
            ))
            .await;
        let error = sent.expect_err("the handshake never completes");
        // The cause is a few sources down (the request, hyper's connect).
        let mut chain = Vec::new();
        let mut source: Option<&dyn std::error::Error> = Some(&error);
        while let Some(cause) = source {
            chain.push(cause.to_string());
            source = cause.source();
        }
        assert!(
            chain.iter().any(|cause| cause.contains("TLS handshake")),
            "{chain:?}"
        );
        held.abort();
    })
    .await;
}
