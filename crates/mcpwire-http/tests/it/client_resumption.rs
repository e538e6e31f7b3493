//! Broken response streams: resumed with GET and `Last-Event-ID` after the
//! server's `retry` in the handshake era (no loss, no duplicates), failed
//! in 2026-07-28 and when resumption is impossible or keeps failing.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use client_support::*;
use http::{Method, StatusCode};
use mcpwire_http::client::{ClientOptions, ReconnectPolicy, StreamableHttpClient, codes};
use mcpwire_http::sse::Event;
use mcpwire_jsonrpc::{Message, Notification, Packet};
use serde_json::{Value, json};

fn progress(step: u32) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress",
           "params": {"progressToken": "t", "progress": step}})
}

/// How the server ends the first stream of the tool call.
#[derive(Clone, Copy)]
enum Ending {
    /// Ends the body properly: SEP-1699 polling.
    Graceful,
    /// Breaks the connection.
    Cut,
}

/// A session whose `tools/call` stream stops after a priming event and
/// one progress event; a GET with `Last-Event-ID: p2` continues it.
async fn interrupted_server(ending: Ending, closed_at: Arc<Mutex<Option<Instant>>>) -> TestServer {
    serve(move |request: Recorded| {
        let closed_at = Arc::clone(&closed_at);
        async move {
            match (request.method.clone(), request.rpc_method().as_deref()) {
                (Method::POST, Some("initialize")) => {
                    let mut answer = json(
                        StatusCode::OK,
                        &result(&request.rpc_id(), json!({"protocolVersion": "2025-11-25"})),
                    );
                    answer
                        .headers_mut()
                        .insert("mcp-session-id", "abc".parse().unwrap());
                    answer
                }
                (Method::POST, Some("tools/call")) => {
                    let (writer, response) = sse(&[]);
                    tokio::spawn(async move {
                        writer
                            .event(
                                Event::new("")
                                    .with_id("p1")
                                    .with_retry(Duration::from_millis(300)),
                            )
                            .await;
                        writer
                            .event(message_event(&progress(1)).with_id("p2"))
                            .await;
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        *closed_at.lock().unwrap() = Some(Instant::now());
                        match ending {
                            Ending::Graceful => drop(writer),
                            Ending::Cut => writer.cut().await,
                        }
                    });
                    response
                }
                (Method::GET, _) if request.header("last-event-id") == Some("p2") => {
                    let (writer, response) = sse(&[]);
                    tokio::spawn(async move {
                        writer
                            .event(message_event(&progress(2)).with_id("p3"))
                            .await;
                        writer
                            .event(
                                message_event(&result(&json!(7), json!({"content": []})))
                                    .with_event("message")
                                    .with_id("p4"),
                            )
                            .await;
                        // Like the conformance mock, keep the stream open.
                        writer.closed().await;
                    });
                    response
                }
                (Method::GET, _) => empty(StatusCode::METHOD_NOT_ALLOWED),
                _ => empty(StatusCode::ACCEPTED),
            }
        }
    })
    .await
}

async fn initialized_client(url: &str, options: ClientOptions) -> StreamableHttpClient {
    let mut client = StreamableHttpClient::with_options(url, options).unwrap();
    client
        .send(request(1, "initialize", json!({})))
        .await
        .unwrap();
    next_message(&mut client).await;
    client
}

async fn resumes_without_loss_or_duplicates(ending: Ending) {
    let closed_at = Arc::new(Mutex::new(None));
    let server = interrupted_server(ending, Arc::clone(&closed_at)).await;
    let mut client = initialized_client(&server.url, ClientOptions::new()).await;
    client
        .send(request(7, "tools/call", json!({"name": "slow"})))
        .await
        .unwrap();

    let mut seen = Vec::new();
    loop {
        let message = next_message(&mut client).await;
        let done = matches!(message, Message::Response(_));
        seen.push(message);
        if done {
            break;
        }
    }
    let steps: Vec<_> = seen[..seen.len() - 1]
        .iter()
        .map(|message| {
            let params: Value = serde_json::from_str(message.params().unwrap().get()).unwrap();
            params["progress"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(steps, [1, 2], "every event once, in order");
    assert_eq!(seen.last().unwrap().id(), Some(&7.into()));

    let gets = server.requests_with(Method::GET);
    assert_eq!(gets.len(), 1, "one resumption, and no GET after it");
    assert_eq!(gets[0].header("last-event-id"), Some("p2"));
    assert_eq!(gets[0].header("mcp-session-id"), Some("abc"));
    assert_eq!(gets[0].header("mcp-protocol-version"), Some("2025-11-25"));
    let waited = gets[0].at - closed_at.lock().unwrap().unwrap();
    assert!(
        waited >= Duration::from_millis(290) && waited < Duration::from_millis(700),
        "the retry of 300 ms was honoured: waited {waited:?}"
    );

    // Nothing else arrives: no duplicate of the answer.
    let extra = tokio::time::timeout(Duration::from_millis(200), client.recv()).await;
    assert!(extra.is_err(), "unexpected {extra:?}");
}

#[tokio::test]
async fn a_stream_closed_early_is_polled_again_with_last_event_id() {
    bounded(resumes_without_loss_or_duplicates(Ending::Graceful)).await;
}

#[tokio::test]
async fn a_cut_stream_is_resumed_with_last_event_id() {
    bounded(resumes_without_loss_or_duplicates(Ending::Cut)).await;
}

fn error_code(message: &Message) -> i64 {
    match message {
        Message::Error(error) => error.error.code.0,
        other => panic!("expected an error response, got {other:?}"),
    }
}

#[tokio::test]
async fn a_2026_stream_that_breaks_fails_its_request_without_resuming() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            if request.method == Method::POST {
                sse_of(vec![Event::new("").with_id("x1")])
            } else {
                empty(StatusCode::METHOD_NOT_ALLOWED)
            }
        })
        .await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        client
            .send(request(
                3,
                "tools/call",
                json!({"name": "t", "_meta": meta}),
            ))
            .await
            .unwrap();
        let answer = next_message(&mut client).await;
        assert_eq!(answer.id(), Some(&3.into()));
        assert_eq!(error_code(&answer), codes::STREAM_LOST.0);
        assert!(server.requests_with(Method::GET).is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_stream_without_event_ids_fails_its_request_at_once() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            match request.rpc_method().as_deref() {
                Some("initialize") => json(
                    StatusCode::OK,
                    &result(&request.rpc_id(), json!({"protocolVersion": "2025-06-18"})),
                ),
                _ if request.method == Method::POST => sse_of(vec![message_event(&progress(1))]),
                _ => empty(StatusCode::METHOD_NOT_ALLOWED),
            }
        })
        .await;
        let mut client = initialized_client(&server.url, ClientOptions::new()).await;
        client
            .send(request(2, "tools/call", json!({})))
            .await
            .unwrap();
        assert_eq!(
            next_message(&mut client).await.method(),
            Some("notifications/progress")
        );
        let answer = next_message(&mut client).await;
        assert_eq!(error_code(&answer), codes::STREAM_LOST.0);
        assert!(server.requests_with(Method::GET).is_empty());
    })
    .await;
}

#[tokio::test]
async fn resumption_gives_up_after_the_bound_of_failures() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            match (request.method.clone(), request.rpc_method().as_deref()) {
                (Method::POST, Some("initialize")) => json(
                    StatusCode::OK,
                    &result(&request.rpc_id(), json!({"protocolVersion": "2025-11-25"})),
                ),
                (Method::POST, _) => sse_of(vec![Event::new("").with_id("only")]),
                _ => empty(StatusCode::SERVICE_UNAVAILABLE),
            }
        })
        .await;
        let policy = ReconnectPolicy::new()
            .min_delay(Duration::from_millis(5))
            .default_delay(Duration::from_millis(5))
            .max_delay(Duration::from_millis(40))
            .max_failures(3);
        let options = ClientOptions::new()
            .reconnect(policy)
            .open_get_stream(false);
        let mut client = initialized_client(&server.url, options).await;
        client
            .send(request(2, "tools/call", json!({})))
            .await
            .unwrap();
        let answer = next_message(&mut client).await;
        assert_eq!(error_code(&answer), codes::STREAM_LOST.0);
        assert_eq!(
            server.requests_with(Method::GET).len(),
            4,
            "three failures are tolerated"
        );
        for get in server.requests_with(Method::GET) {
            assert_eq!(get.header("last-event-id"), Some("only"));
        }
    })
    .await;
}

#[tokio::test]
async fn a_refused_resumption_fails_the_request() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            match (request.method.clone(), request.rpc_method().as_deref()) {
                (Method::POST, Some("initialize")) => json(
                    StatusCode::OK,
                    &result(&request.rpc_id(), json!({"protocolVersion": "2025-11-25"})),
                ),
                (Method::POST, _) => sse_of(vec![
                    Event::new("")
                        .with_id("r1")
                        .with_retry(Duration::from_millis(10)),
                ]),
                _ => empty(StatusCode::METHOD_NOT_ALLOWED),
            }
        })
        .await;
        let options = ClientOptions::new().open_get_stream(false);
        let mut client = initialized_client(&server.url, options).await;
        client
            .send(request(2, "tools/call", json!({})))
            .await
            .unwrap();
        let answer = next_message(&mut client).await;
        assert_eq!(error_code(&answer), codes::STREAM_LOST.0);
        assert_eq!(
            server.requests_with(Method::GET).len(),
            1,
            "a 4xx is not retried"
        );
    })
    .await;
}

#[tokio::test]
async fn a_cancelled_request_is_not_resumed() {
    bounded(async {
        let closed_at = Arc::new(Mutex::new(None));
        let server = interrupted_server(Ending::Graceful, Arc::clone(&closed_at)).await;
        let mut client = initialized_client(&server.url, ClientOptions::new()).await;
        client
            .send(request(7, "tools/call", json!({"name": "slow"})))
            .await
            .unwrap();
        assert_eq!(
            next_message(&mut client).await.method(),
            Some("notifications/progress")
        );
        while closed_at.lock().unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Within the server's retry delay of 300 ms, the caller gives up.
        let cancel =
            Notification::new("notifications/cancelled", &json!({"requestId": 7})).unwrap();
        client.send(Packet::from(cancel)).await.unwrap();
        assert_eq!(server.posts_of("notifications/cancelled").len(), 1);
        let extra = tokio::time::timeout(Duration::from_millis(600), client.recv()).await;
        assert!(extra.is_err(), "unexpected {extra:?}");
        assert!(
            server.requests_with(Method::GET).is_empty(),
            "no resumption"
        );
    })
    .await;
}
