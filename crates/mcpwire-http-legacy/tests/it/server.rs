//! The legacy server on the wire: the `endpoint` event, POSTs fed to the
//! session, the statuses of everything else, security, and the ways a
//! session ends. Driven by a raw HTTP client.

use crate::support;

use std::future::IntoFuture;
use std::time::Duration;

use http::{Method, StatusCode};
use mcpwire_http::server::serve;
use mcpwire_http_legacy::server::{Config, TransportError};
use mcpwire_jsonrpc::{Inbound, Message, Notification, Packet};
use serde_json::json;
use support::{
    SseReader, initialize_2024, legacy, legacy_to_test, listen, open_session, post_json, raw,
    runtime, streamable, within,
};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

#[tokio::test]
async fn a_get_opens_a_stream_whose_first_event_names_the_post_uri() {
    let server = listen(legacy(Config::default(), runtime())).await;
    let mut stream = SseReader::open(&server.url("/sse"), &[]).await;
    assert_eq!(stream.status, StatusCode::OK);
    assert_eq!(stream.headers["content-type"], "text/event-stream");
    assert_eq!(stream.headers["cache-control"], "no-cache");
    let endpoint = stream.next_event().await.unwrap();
    assert_eq!(endpoint.event_type(), "endpoint");
    let id = endpoint.data.strip_prefix("/message?sessionId=").unwrap();
    assert_eq!(id.len(), 64);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));

    let (_other, other_endpoint) = open_session(&server.url("")).await;
    assert!(!other_endpoint.ends_with(id), "every GET is a new session");
}

#[tokio::test]
async fn posts_are_accepted_and_answers_arrive_as_message_events() {
    let server = listen(legacy(Config::default(), runtime())).await;
    let (mut stream, endpoint) = open_session(&server.url("")).await;
    assert_eq!(
        post_json(&endpoint, &initialize_2024()).await,
        StatusCode::ACCEPTED
    );
    let event = stream.next_event().await.unwrap();
    assert_eq!(event.event.as_deref(), Some("message"));
    let answer: serde_json::Value = serde_json::from_str(&event.data).unwrap();
    assert_eq!(answer["id"], 0);
    assert_eq!(answer["result"]["protocolVersion"], "2024-11-05");

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        post_json(&endpoint, &initialized.to_string()).await,
        StatusCode::ACCEPTED
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    assert_eq!(
        post_json(&endpoint, &list.to_string()).await,
        StatusCode::ACCEPTED
    );
    let answer = stream.next_message().await;
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["tools"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn text_that_is_not_json_rpc_is_accepted_and_answered_on_the_stream() {
    let server = listen(legacy(Config::default(), runtime())).await;
    let (mut stream, endpoint) = open_session(&server.url("")).await;
    assert_eq!(post_json(&endpoint, "not json").await, StatusCode::ACCEPTED);
    let answer = stream.next_message().await;
    assert_eq!(answer["error"]["code"], -32700);
    let wrong_version = json!({"jsonrpc": "1.0", "id": 7, "method": "ping"});
    assert_eq!(
        post_json(&endpoint, &wrong_version.to_string()).await,
        StatusCode::ACCEPTED
    );
    let answer = stream.next_message().await;
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!(7), json!(-32600))
    );
}

#[tokio::test]
async fn posts_to_unknown_or_missing_sessions_are_refused() {
    let server = listen(legacy(Config::default(), runtime())).await;
    let unknown = server.url("/message?sessionId=0123456789abcdef");
    assert_eq!(
        post_json(&unknown, &initialize_2024()).await,
        StatusCode::NOT_FOUND
    );
    let missing = server.url("/message");
    assert_eq!(
        post_json(&missing, &initialize_2024()).await,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn posts_outside_the_limits_get_413_and_415() {
    let server = listen(legacy(Config::default().max_body_bytes(64), runtime())).await;
    let (_stream, endpoint) = open_session(&server.url("")).await;
    let response = raw(
        Method::POST,
        &endpoint,
        &[("content-type", "text/plain")],
        "{}",
    )
    .await;
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let large = format!("{{\"padding\":\"{}\"}}", "x".repeat(100));
    assert_eq!(
        post_json(&endpoint, &large).await,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    // Without Content-Length the limit still holds while reading.
    let chunked = raw(
        Method::POST,
        &endpoint,
        &[
            ("content-type", "application/json"),
            ("transfer-encoding", "chunked"),
        ],
        &large,
    )
    .await;
    assert_eq!(chunked.status(), StatusCode::PAYLOAD_TOO_LARGE);
}

/// Issue 17 item 1: a client that trickles its body gets 408 at the body
/// read timeout instead of holding the request forever.
#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_gets_408() {
    let config = Config::default().body_read_timeout(Duration::from_millis(300));
    let server = listen(legacy(config, runtime())).await;
    let (_stream, endpoint) = open_session(&server.url("")).await;
    let path = endpoint.trim_start_matches(&server.base);
    let mut socket = within(TcpStream::connect(server.addr)).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1:{}\r\ncontent-type: application/json\r\n\
         content-length: 100\r\n\r\n{{\"jsonrpc\"",
        server.addr.port()
    );
    within(socket.write_all(head.as_bytes())).await.unwrap();
    let mut answer = vec![0_u8; 1024];
    let read = within(tokio::io::AsyncReadExt::read(&mut socket, &mut answer))
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&answer[..read]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
}

#[tokio::test]
async fn other_methods_get_405_and_other_paths_404() {
    let server = listen(legacy(Config::default(), runtime())).await;
    let post_sse = raw(Method::POST, &server.url("/sse"), &[], "{}").await;
    assert_eq!(post_sse.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post_sse.headers()["allow"], "GET");
    let get_message = raw(Method::GET, &server.url("/message"), &[], "").await;
    assert_eq!(get_message.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(get_message.headers()["allow"], "POST");
    let elsewhere = raw(Method::GET, &server.url("/mcp"), &[], "").await;
    assert_eq!(elsewhere.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn paths_are_configurable() {
    let config = Config::default()
        .sse_path("/events")
        .message_path("/events");
    let server = listen(legacy(config, runtime())).await;
    let mut stream = SseReader::open(&server.url("/events"), &[]).await;
    let endpoint = stream.next_event().await.unwrap();
    assert!(endpoint.data.starts_with("/events?sessionId="));
    let endpoint = server.url(&endpoint.data);
    assert_eq!(
        post_json(&endpoint, &initialize_2024()).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(stream.next_message().await["id"], 0);
    assert_eq!(
        SseReader::open(&server.url("/sse"), &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused_with_403() {
    let server = listen(legacy(Config::default(), runtime())).await;
    let evil_host = SseReader::open(&server.url("/sse"), &[("host", "evil.example.com")]).await;
    assert_eq!(evil_host.status, StatusCode::FORBIDDEN);
    let evil_origin = SseReader::open(
        &server.url("/sse"),
        &[("origin", "http://evil.example.com")],
    )
    .await;
    assert_eq!(evil_origin.status, StatusCode::FORBIDDEN);
    let local_origin =
        SseReader::open(&server.url("/sse"), &[("origin", "http://localhost:8080")]).await;
    assert_eq!(local_origin.status, StatusCode::OK);

    let (_stream, endpoint) = open_session(&server.url("")).await;
    let response = raw(
        Method::POST,
        &endpoint,
        &[
            ("content-type", "application/json"),
            ("origin", "http://evil.example.com"),
        ],
        &initialize_2024(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn closing_the_stream_ends_the_session() {
    // Without keep-alive writes: hyper notices the closed connection itself.
    let config = Config::default().keep_alive(None);
    let (service, mut transports) = legacy_to_test(config);
    let server = listen(service.clone()).await;
    let (stream, endpoint) = open_session(&server.url("")).await;
    let mut transport = within(transports.recv()).await.unwrap();
    assert!(endpoint.ends_with(transport.session_id()));
    assert_eq!(service.session_count(), 1);

    drop(stream);
    assert!(
        within(transport.recv()).await.is_none(),
        "recv ends with the stream"
    );
    assert!(transport.is_ended());
    assert_eq!(service.session_count(), 0);
    assert_eq!(
        post_json(&endpoint, &initialize_2024()).await,
        StatusCode::NOT_FOUND
    );
    let ping = Packet::from(Message::from(Notification::without_params("ping")));
    assert!(matches!(
        transport.send(ping).await,
        Err(TransportError::Closed)
    ));
}

#[tokio::test]
async fn messages_accepted_before_the_end_are_still_received() {
    let (service, mut transports) = legacy_to_test(Config::default());
    let server = listen(service.clone()).await;
    let (_stream, endpoint) = open_session(&server.url("")).await;
    let mut transport = within(transports.recv()).await.unwrap();
    assert_eq!(
        post_json(&endpoint, &initialize_2024()).await,
        StatusCode::ACCEPTED
    );
    service.close_sessions();
    let Some(Ok(Inbound::Single(Message::Request(request)))) = within(transport.recv()).await
    else {
        panic!("the accepted request comes first");
    };
    assert_eq!(request.method, "initialize");
    assert!(within(transport.recv()).await.is_none());
}

#[tokio::test]
async fn the_runtime_closing_its_transport_ends_the_stream_after_what_it_sent() {
    let (service, mut transports) = legacy_to_test(Config::default());
    let server = listen(service.clone()).await;
    let (mut stream, _endpoint) = open_session(&server.url("")).await;
    let mut transport = within(transports.recv()).await.unwrap();
    let note = Packet::from(Message::from(Notification::without_params(
        "notifications/tools/list_changed",
    )));
    transport.send(note).await.unwrap();
    transport.close().await.unwrap();
    assert_eq!(
        stream.next_message().await["method"],
        "notifications/tools/list_changed"
    );
    assert!(
        stream.next_event().await.is_none(),
        "the stream ends after it"
    );
    assert!(within(transport.recv()).await.is_none());
    assert_eq!(service.session_count(), 0);
}

#[tokio::test]
async fn idle_sessions_expire() {
    let config = Config::default().idle_timeout(Some(Duration::from_millis(200)));
    let (service, mut transports) = legacy_to_test(config);
    let server = listen(service.clone()).await;
    let (mut stream, endpoint) = open_session(&server.url("")).await;
    let mut transport = within(transports.recv()).await.unwrap();
    assert!(stream.next_event().await.is_none(), "the stream ends");
    assert!(within(transport.recv()).await.is_none());
    assert_eq!(
        post_json(&endpoint, &initialize_2024()).await,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn idle_streams_carry_keep_alive_comments() {
    let config = Config::default().keep_alive(Some(Duration::from_millis(50)));
    let server = listen(legacy(config, runtime())).await;
    let (mut stream, _endpoint) = open_session(&server.url("")).await;
    assert_eq!(stream.next_chunk().await.unwrap(), ": keep-alive\n");
}

#[tokio::test]
async fn a_client_that_does_not_read_its_stream_loses_its_session() {
    let config = Config::default()
        .stream_buffer(1)
        .send_timeout(Duration::from_millis(300))
        .keep_alive(None);
    let (service, mut transports) = legacy_to_test(config);
    let server = listen(service.clone()).await;
    // A client that sends the GET and then never reads a byte.
    let mut socket = TcpStream::connect(server.addr).await.unwrap();
    let get = format!("GET /sse HTTP/1.1\r\nhost: {}\r\n\r\n", server.addr);
    socket.write_all(get.as_bytes()).await.unwrap();
    let mut transport = within(transports.recv()).await.unwrap();
    let padding = "x".repeat(1024 * 1024);
    let outcome = within(async {
        loop {
            let note = Notification::new(
                "notifications/message",
                &json!({"level": "info", "data": padding}),
            )
            .unwrap();
            if let Err(error) = transport.send(Packet::from(Message::from(note))).await {
                return error;
            }
        }
    })
    .await;
    assert!(matches!(outcome, TransportError::Stalled), "{outcome:?}");
    assert_eq!(service.session_count(), 0);
    assert!(within(transport.recv()).await.is_none());
    drop(socket);
}

#[tokio::test]
async fn sessions_beyond_the_maximum_get_503() {
    let server = listen(legacy(Config::default().max_sessions(1), runtime())).await;
    let (_first, _endpoint) = open_session(&server.url("")).await;
    let second = SseReader::open(&server.url("/sse"), &[]).await;
    assert_eq!(second.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(second.headers.contains_key("retry-after"));
}

#[tokio::test]
async fn a_graceful_shutdown_of_both_endpoints_ends_legacy_sessions_without_waiting_out_the_drain()
{
    let legacy_service = legacy(Config::default(), runtime());
    let both = legacy_service.clone().beside(streamable(runtime()));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    // A drain timeout longer than any test step: only ending the legacy
    // streams lets the server stop in time.
    let server = tokio::spawn(
        serve(listener, both)
            .drain_timeout(Duration::from_secs(60))
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
    );
    let (mut stream, endpoint) = open_session(&base).await;
    assert_eq!(
        post_json(&endpoint, &initialize_2024()).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(stream.next_message().await["id"], 0);
    assert_eq!(legacy_service.session_count(), 1);
    stop.send(()).unwrap();
    assert!(
        stream.next_event().await.is_none(),
        "the session's stream ends"
    );
    within(server).await.unwrap().unwrap();
    assert_eq!(legacy_service.session_count(), 0);
}
