//! The legacy client: against the legacy server with real runtimes on
//! both ends, and against fake servers that misbehave.

use crate::support;

use std::time::Duration;

use bytes::Bytes;
use http::{Request as HttpRequest, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use mcpwire_client::Client;
use mcpwire_http::client::BuildError;
use mcpwire_http_legacy::client::{Error, LegacyClientOptions, LegacySseClient};
use mcpwire_http_legacy::server::Config;
use mcpwire_jsonrpc::{Inbound, Message, Packet, Request};
use mcpwire_types::{CallToolResult, ProtocolVersion};
use serde_json::Map;
use support::{
    Counter, HANDSHAKE_ERA, client_config, exercise, fake, legacy, listen, runtime,
    runtime_speaking, sessions_settle_at, within,
};

#[tokio::test]
async fn a_2024_11_05_client_lists_and_calls_tools_over_the_legacy_transport() {
    let service = legacy(Config::default(), runtime());
    let server = listen(service.clone()).await;
    let transport = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await
    .unwrap();
    assert_eq!(transport.endpoint().path(), "/message");
    let client = within(Client::connect(
        transport,
        client_config(Some(ProtocolVersion::V2024_11_05)),
    ))
    .await
    .unwrap();
    assert_eq!(client.server().version, ProtocolVersion::V2024_11_05);
    exercise(&client).await;

    // A request from the server during a call travels on the stream, and
    // its answer is POSTed back.
    let result = within(client.call_tool("ask_client", Map::new()))
        .await
        .unwrap();
    assert_eq!(
        result.content,
        CallToolResult::text("the client answered").content
    );

    within(client.close()).await;
    sessions_settle_at(&service, 0).await;
}

#[tokio::test]
async fn an_automatic_client_falls_back_to_initialize_with_an_old_server() {
    // An old server: its `server/discover` probe fails, and the engine
    // falls back to `initialize` with the newest handshake revision.
    let server = listen(legacy(Config::default(), runtime_speaking(&HANDSHAKE_ERA))).await;
    let transport = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await
    .unwrap();
    let client = within(Client::connect(transport, client_config(None)))
        .await
        .unwrap();
    assert_eq!(client.server().version, ProtocolVersion::V2025_11_25);
    exercise(&client).await;
    within(client.close()).await;
}

#[tokio::test]
async fn an_automatic_client_of_a_server_speaking_every_revision_goes_stateless() {
    // The transport carries messages, not meaning: a server that answers
    // `server/discover` is spoken to in 2026-07-28 over it too.
    let server = listen(legacy(Config::default(), runtime())).await;
    let transport = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await
    .unwrap();
    let client = within(Client::connect(transport, client_config(None)))
        .await
        .unwrap();
    assert_eq!(client.server().version, ProtocolVersion::V2026_07_28);
    exercise(&client).await;
    within(client.close()).await;
}

#[tokio::test]
async fn the_transport_moves_packets_in_both_directions() {
    let server = listen(legacy(Config::default(), runtime())).await;
    let mut transport = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await
    .unwrap();
    let ping = Request::without_params(41, "ping");
    within(transport.send(Packet::from(ping))).await.unwrap();
    let Some(Ok(Inbound::Single(Message::Response(answer)))) = within(transport.recv()).await
    else {
        panic!("expected the answer to ping");
    };
    assert_eq!(answer.id, 41.into());
    within(transport.close()).await.unwrap();
    assert!(
        within(transport.recv()).await.is_none(),
        "recv ends once closed"
    );
    let again = transport
        .send(Packet::from(Request::without_params(42, "ping")))
        .await;
    assert!(matches!(again, Err(Error::Closed)));
}

#[tokio::test]
async fn sends_to_an_ended_session_fail_with_the_status() {
    let service = legacy(Config::default(), runtime());
    let server = listen(service.clone()).await;
    let mut transport = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await
    .unwrap();
    service.close_sessions();
    assert!(within(transport.recv()).await.is_none(), "the stream ended");
    let sent = within(transport.send(Packet::from(Request::without_params(1, "ping")))).await;
    assert!(
        matches!(
            sent,
            Err(Error::Status {
                status: StatusCode::NOT_FOUND,
                ..
            })
        ),
        "{sent:?}"
    );
}

/// A fake server whose GET answers an SSE body of `events`.
async fn sse_server(events: &'static str) -> support::Listener {
    listen(fake(
        Counter::default(),
        move |_request: &HttpRequest<Incoming>| {
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Full::new(Bytes::from_static(events.as_bytes())))
                .unwrap()
        },
    ))
    .await
}

#[tokio::test]
async fn an_endpoint_on_another_origin_is_refused() {
    for endpoint in [
        "http://evil.example.com/message?sessionId=1",
        "//evil.example.com/message",
        "https://127.0.0.1/message",
    ] {
        let events: &'static str = format!("event: endpoint\ndata: {endpoint}\n\n").leak();
        let server = sse_server(events).await;
        let outcome = within(LegacySseClient::connect(
            &server.url("/sse"),
            LegacyClientOptions::new(),
        ))
        .await;
        assert!(
            matches!(outcome, Err(Error::CrossOriginEndpoint(_))),
            "{endpoint}: {outcome:?}"
        );
    }
}

#[tokio::test]
async fn a_stream_that_does_not_start_with_an_endpoint_event_is_refused() {
    let server = sse_server("event: message\ndata: {}\n\n").await;
    let outcome = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await;
    assert!(matches!(outcome, Err(Error::NoEndpoint(_))), "{outcome:?}");

    let server = sse_server(": only a comment\n\n").await;
    let outcome = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await;
    assert!(matches!(outcome, Err(Error::NoEndpoint(_))), "{outcome:?}");
}

#[tokio::test]
async fn a_server_that_never_sends_the_endpoint_times_out() {
    let (service, _transports) = support::legacy_to_test(Config::default());
    // A legacy server at another path: `/sse` here answers 404...
    let server = listen(service).await;
    let outcome = within(LegacySseClient::connect(
        &server.url("/elsewhere"),
        LegacyClientOptions::new(),
    ))
    .await;
    assert!(
        matches!(
            outcome,
            Err(Error::Status {
                status: StatusCode::NOT_FOUND,
                ..
            })
        ),
        "{outcome:?}"
    );
    // ...and a stream that stays silent is given up after the timeout.
    let silent = listen(support::silent_sse()).await;
    let options = LegacyClientOptions::new().endpoint_timeout(Duration::from_millis(200));
    let outcome = within(LegacySseClient::connect(&silent.url("/sse"), options)).await;
    assert!(matches!(outcome, Err(Error::Timeout(_))), "{outcome:?}");
}

#[tokio::test]
async fn answers_that_are_not_event_streams_are_refused() {
    let server = listen(fake(
        Counter::default(),
        |_request: &HttpRequest<Incoming>| {
            Response::builder()
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from_static(b"{}")))
                .unwrap()
        },
    ))
    .await;
    let outcome = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await;
    assert!(
        matches!(outcome, Err(Error::NotEventStream(_))),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn only_absolute_http_and_https_urls_are_accepted() {
    let outcome =
        LegacySseClient::connect("ftp://127.0.0.1:1/sse", LegacyClientOptions::new()).await;
    assert!(
        matches!(
            outcome,
            Err(Error::Build(BuildError::UnsupportedScheme(ref scheme))) if scheme == "ftp"
        ),
        "{outcome:?}"
    );
    let outcome = LegacySseClient::connect("/sse", LegacyClientOptions::new()).await;
    assert!(
        matches!(outcome, Err(Error::Build(BuildError::InvalidUrl { .. }))),
        "{outcome:?}"
    );
}

#[test]
fn status_refusals_keep_their_details() {
    let error = Error::Status {
        status: StatusCode::UNAUTHORIZED,
        www_authenticate: Some("Bearer".to_owned()),
    };
    assert_eq!(
        error.to_string(),
        "the server answered HTTP 401 Unauthorized"
    );
}
