//! `AutoTransport` against each kind of server: Streamable HTTP only,
//! legacy only, both on one listener, one that wants authorization, and
//! one that serves nothing; and both endpoints serving one runtime.

use crate::support;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use mcpwire_client::{Client, ConnectError};
use mcpwire_http::client::{StatusError, codes};
use mcpwire_http_legacy::auto::{AutoOptions, Error, TransportKind, connect_auto};
use mcpwire_http_legacy::client::{LegacyClientOptions, LegacySseClient};
use mcpwire_http_legacy::server::Config;
use mcpwire_jsonrpc::{
    Inbound, Message, Packet, Request as JsonRpcRequest, Transport, TransportReceiver,
    TransportSender,
};
use mcpwire_types::ProtocolVersion;
use support::{
    Counter, HANDSHAKE_ERA, client_config, exercise, fake, legacy, listen, runtime,
    runtime_speaking, sessions_settle_at, streamable, within,
};

#[tokio::test]
async fn a_streamable_http_server_keeps_streamable_http() {
    let server = listen(streamable(runtime())).await;
    for version in [None, Some(ProtocolVersion::V2025_06_18)] {
        let transport = connect_auto(&server.url("/mcp"), AutoOptions::new()).unwrap();
        let choice = transport.choice();
        assert_eq!(
            choice.get(),
            None,
            "nothing is decided before the first send"
        );
        let client = within(Client::connect(transport, client_config(version)))
            .await
            .unwrap();
        assert_eq!(choice.get(), Some(TransportKind::StreamableHttp));
        exercise(&client).await;
        within(client.close()).await;
    }
}

#[tokio::test]
async fn a_legacy_only_server_is_reached_through_the_fallback() {
    let old = runtime_speaking(&HANDSHAKE_ERA);
    let service = legacy(Config::default(), old);
    let server = listen(service.clone()).await;
    let cases = [
        (None, ProtocolVersion::V2025_11_25),
        (
            Some(ProtocolVersion::V2024_11_05),
            ProtocolVersion::V2024_11_05,
        ),
    ];
    for (pinned, spoken) in cases {
        let transport = connect_auto(&server.url("/sse"), AutoOptions::new()).unwrap();
        let choice = transport.choice();
        let client = within(Client::connect(transport, client_config(pinned)))
            .await
            .unwrap();
        assert_eq!(choice.get(), Some(TransportKind::LegacySse));
        assert_eq!(client.server().version, spoken);
        assert_eq!(service.session_count(), 1);
        exercise(&client).await;
        within(client.close()).await;
        sessions_settle_at(&service, 0).await;
    }
}

#[tokio::test]
async fn a_server_with_both_transports_keeps_streamable_http() {
    let runtime = runtime();
    let both = legacy(Config::default(), runtime.clone()).beside(streamable(runtime));
    let server = listen(both).await;
    let transport = connect_auto(&server.url("/mcp"), AutoOptions::new()).unwrap();
    let choice = transport.choice();
    let client = within(Client::connect(transport, client_config(None)))
        .await
        .unwrap();
    assert_eq!(choice.get(), Some(TransportKind::StreamableHttp));
    assert_eq!(client.server().version, ProtocolVersion::V2026_07_28);
    exercise(&client).await;
    within(client.close()).await;
}

#[tokio::test]
async fn an_authorization_refusal_surfaces_without_a_fallback() {
    let gets = Counter::default();
    let server = listen(fake(gets.clone(), |_request: &Request<Incoming>| {
        Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .header("www-authenticate", "Bearer realm=\"mcp\"")
            .body(Full::new(Bytes::new()))
            .unwrap()
    }))
    .await;

    let mut transport = connect_auto(&server.url("/mcp"), AutoOptions::new()).unwrap();
    let sent =
        within(transport.send(Packet::from(JsonRpcRequest::without_params(1, "ping")))).await;
    let Err(Error::Streamable(error)) = sent else {
        panic!("expected the refusal, got {sent:?}");
    };
    let status = error.status().unwrap();
    assert!(status.is_unauthorized());
    assert_eq!(status.www_authenticate(), Some("Bearer realm=\"mcp\""));
    assert_eq!(transport.chosen(), Some(TransportKind::StreamableHttp));

    let transport = connect_auto(&server.url("/mcp"), AutoOptions::new()).unwrap();
    let outcome = within(Client::connect(transport, client_config(None))).await;
    // The runtime sees the failed send, or (when the writer's end is
    // noticed after the reader's) only the transport closing.
    match outcome.expect_err("the client cannot connect") {
        ConnectError::Transport(error) => assert!(error.to_string().contains("401"), "{error}"),
        ConnectError::TransportClosed => {}
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(gets.get(), 0, "a 401 never leads to the legacy GET");
}

#[tokio::test]
async fn a_server_without_either_transport_keeps_streamable_http_and_answers_the_request() {
    let gets = Counter::default();
    let server = listen(fake(gets.clone(), |_request: &Request<Incoming>| {
        Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(Full::new(Bytes::new()))
            .unwrap()
    }))
    .await;
    let transport = connect_auto(&server.url("/nothing"), AutoOptions::new()).unwrap();
    let (mut sender, mut receiver) = transport.split();
    within(sender.send(Packet::from(JsonRpcRequest::without_params(5, "ping"))))
        .await
        .unwrap();
    assert_eq!(sender.chosen(), Some(TransportKind::StreamableHttp));
    assert_eq!(gets.get(), 1, "the fallback tried the GET once");
    let Some(Ok(Inbound::Single(Message::Error(answer)))) = within(receiver.recv()).await else {
        panic!("expected an error response for the request");
    };
    assert_eq!(answer.id, Some(5.into()));
    assert_eq!(answer.error.code, codes::HTTP_ERROR);
    let status = StatusError::from_error_object(&answer.error).unwrap();
    assert_eq!(status.status(), StatusCode::NOT_FOUND);
}

/// An empty response with `status`.
fn status(status: StatusCode) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .body(Full::new(Bytes::new()))
        .unwrap()
}

#[tokio::test]
async fn a_refused_legacy_get_keeps_streamable_http() {
    let gets = Counter::default();
    let server = listen(fake(gets.clone(), |request: &Request<Incoming>| {
        if request.method() == Method::GET {
            status(StatusCode::FORBIDDEN)
        } else {
            status(StatusCode::METHOD_NOT_ALLOWED)
        }
    }))
    .await;
    let mut transport = connect_auto(&server.url("/sse"), AutoOptions::new()).unwrap();
    // 405 makes it try the GET, which is refused: Streamable HTTP stays,
    // and the request is answered with the refusal of its second POST.
    within(transport.send(Packet::from(JsonRpcRequest::without_params(1, "ping"))))
        .await
        .unwrap();
    assert_eq!(gets.get(), 1);
    assert_eq!(transport.chosen(), Some(TransportKind::StreamableHttp));
    let Some(Ok(Inbound::Single(Message::Error(answer)))) = within(transport.recv()).await else {
        panic!("expected an error response for the request");
    };
    assert_eq!(answer.error.code, codes::HTTP_ERROR);
}

#[tokio::test]
async fn the_fallback_get_and_posts_carry_the_configured_headers() {
    let gets = Counter::default();
    let posts = Counter::default();
    let server = listen(fake(gets.clone(), {
        let posts = posts.clone();
        move |request: &Request<Incoming>| {
            let authorized = request
                .headers()
                .get("authorization")
                .is_some_and(|value| value == "Bearer secret");
            match (request.method().clone(), request.uri().path()) {
                (_, _) if !authorized => status(StatusCode::UNAUTHORIZED),
                (Method::GET, "/sse") => Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(Full::new(Bytes::from_static(
                        b"event: endpoint\ndata: /message?sessionId=s\n\n",
                    )))
                    .unwrap(),
                (Method::POST, "/message") => {
                    posts.bump();
                    status(StatusCode::ACCEPTED)
                }
                _ => status(StatusCode::NOT_FOUND),
            }
        }
    }))
    .await;
    let options = AutoOptions::new().with_header(
        http::header::AUTHORIZATION,
        http::HeaderValue::from_static("Bearer secret"),
    );
    let mut transport = connect_auto(&server.url("/sse"), options).unwrap();
    within(transport.send(Packet::from(JsonRpcRequest::without_params(1, "ping"))))
        .await
        .unwrap();
    assert_eq!(transport.chosen(), Some(TransportKind::LegacySse));
    assert_eq!(
        (gets.get(), posts.get()),
        (1, 1),
        "the first packet went again, over the legacy transport"
    );
}

#[tokio::test]
async fn both_endpoints_on_one_listener_serve_one_runtime() {
    let runtime = runtime();
    let legacy_service = legacy(Config::default(), runtime.clone());
    let server = listen(legacy_service.clone().beside(streamable(runtime))).await;

    let legacy_transport = within(LegacySseClient::connect(
        &server.url("/sse"),
        LegacyClientOptions::new(),
    ))
    .await
    .unwrap();
    let old_client = within(Client::connect(
        legacy_transport,
        client_config(Some(ProtocolVersion::V2024_11_05)),
    ));
    let new_transport = connect_auto(&server.url("/mcp"), AutoOptions::new()).unwrap();
    let new_client = within(Client::connect(new_transport, client_config(None)));
    let (old_client, new_client) = tokio::join!(old_client, new_client);
    let (old_client, new_client) = (old_client.unwrap(), new_client.unwrap());
    assert_eq!(old_client.server().version, ProtocolVersion::V2024_11_05);
    assert_eq!(new_client.server().version, ProtocolVersion::V2026_07_28);
    assert_eq!(legacy_service.session_count(), 1);
    tokio::join!(exercise(&old_client), exercise(&new_client));
    within(old_client.close()).await;
    within(new_client.close()).await;
}
