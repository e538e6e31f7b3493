//! A session the server lost (404): every request in flight on it is
//! answered with an error, never left hanging, and the next `initialize`
//! starts a new session without the old id (HTTP-40).

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use client_support::*;
use http::{Method, StatusCode};
use mcpwire_http::client::{ClientOptions, Error, StreamableHttpClient, codes};
use mcpwire_http::sse::Event;
use mcpwire_jsonrpc::{Message, Notification, Packet, RequestId};
use serde_json::json;

/// A server that hands out sessions `s1`, `s2`, ... and forgets the
/// current one when told to; `tools/call` streams forever.
struct Forgetful {
    server: TestServer,
    lost: Arc<AtomicBool>,
}

async fn forgetful_server() -> Forgetful {
    let sessions = Arc::new(AtomicU32::new(0));
    let lost = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&lost);
    let server = serve(move |request: Recorded| {
        let sessions = Arc::clone(&sessions);
        let lost = Arc::clone(&flag);
        async move {
            if request.rpc_method().as_deref() == Some("initialize") {
                lost.store(false, Ordering::SeqCst);
                let number = sessions.fetch_add(1, Ordering::SeqCst) + 1;
                let mut answer = json(
                    StatusCode::OK,
                    &result(&request.rpc_id(), json!({"protocolVersion": "2025-11-25"})),
                );
                answer
                    .headers_mut()
                    .insert("mcp-session-id", format!("s{number}").parse().unwrap());
                return answer;
            }
            if lost.load(Ordering::SeqCst) && request.header("mcp-session-id").is_some() {
                return empty(StatusCode::NOT_FOUND);
            }
            match (request.method.clone(), request.rpc_method().as_deref()) {
                (Method::POST, Some("tools/call")) => {
                    let (writer, response) = sse(&[]);
                    tokio::spawn(async move {
                        writer.event(Event::new("").with_id("c1")).await;
                        writer.closed().await;
                    });
                    response
                }
                (Method::POST, Some("ping")) => {
                    json(StatusCode::OK, &result(&request.rpc_id(), json!({})))
                }
                _ => empty(StatusCode::ACCEPTED),
            }
        }
    })
    .await;
    Forgetful { server, lost }
}

async fn initialize(client: &mut StreamableHttpClient, id: i64) {
    client
        .send(request(id, "initialize", json!({})))
        .await
        .unwrap();
    next_message(client).await;
}

#[tokio::test]
async fn requests_in_flight_on_a_lost_session_get_errors_and_a_new_session_starts() {
    bounded(async {
        let Forgetful { server, lost } = forgetful_server().await;
        let options = ClientOptions::new().open_get_stream(false);
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        initialize(&mut client, 1).await;
        assert_eq!(client.session_id().as_deref(), Some("s1"));

        // A long call is in flight when the server forgets the session.
        client
            .send(request(2, "tools/call", json!({"name": "slow"})))
            .await
            .unwrap();
        while server.posts_of("tools/call").is_empty() {
            tokio::task::yield_now().await;
        }
        lost.store(true, Ordering::SeqCst);
        client.send(request(3, "ping", json!({}))).await.unwrap();

        let mut failed = BTreeSet::new();
        for _ in 0..2 {
            let Message::Error(error) = next_message(&mut client).await else {
                panic!("expected error responses");
            };
            assert_eq!(error.error.code, codes::SESSION_EXPIRED);
            assert!(
                error.error.message.contains("404"),
                "{}",
                error.error.message
            );
            failed.insert(error.id.unwrap());
        }
        assert_eq!(
            failed,
            BTreeSet::from([RequestId::from(2), RequestId::from(3)])
        );
        assert_eq!(client.session_id(), None);

        initialize(&mut client, 4).await;
        assert_eq!(client.session_id().as_deref(), Some("s2"));
        client.send(request(5, "ping", json!({}))).await.unwrap();
        assert_eq!(next_message(&mut client).await.id(), Some(&5.into()));

        let inits = server.posts_of("initialize");
        assert_eq!(
            inits[1].header("mcp-session-id"),
            None,
            "a new initialize carries no session"
        );
        assert_eq!(
            server.posts_of("ping")[1].header("mcp-session-id"),
            Some("s2")
        );
    })
    .await;
}

#[tokio::test]
async fn a_notification_on_a_lost_session_reports_the_expiry() {
    bounded(async {
        let Forgetful { server, lost } = forgetful_server().await;
        let options = ClientOptions::new().open_get_stream(false);
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        initialize(&mut client, 1).await;
        lost.store(true, Ordering::SeqCst);
        let outcome = client
            .send(Packet::from(Notification::without_params(
                "notifications/roots/list_changed",
            )))
            .await;
        assert!(matches!(outcome, Err(Error::SessionExpired)), "{outcome:?}");
        assert_eq!(client.session_id(), None);
    })
    .await;
}

#[tokio::test]
async fn a_404_without_a_session_is_not_an_expiry() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            json(
                StatusCode::NOT_FOUND,
                &json!({"jsonrpc": "2.0", "id": request.rpc_id(),
                        "error": {"code": -32601, "message": "Method not found"}}),
            )
        })
        .await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        client
            .send(request(1, "unknown/method", json!({})))
            .await
            .unwrap();
        let Message::Error(error) = next_message(&mut client).await else {
            panic!("expected the server's error");
        };
        assert_eq!(
            error.error.code.0, -32601,
            "the server's own error is delivered"
        );
        assert_eq!(error.id, Some(1.into()));
    })
    .await;
}
