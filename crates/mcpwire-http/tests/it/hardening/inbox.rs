//! A session whose runtime stopped taking messages: a POST waits for room
//! in the session's full inbox (`Config::inbox_capacity`) for at most
//! `Config::send_timeout`, then is answered 503, instead of holding its
//! connection for as long as the runtime does not read.

use std::time::Duration;

use mcpwire_http::server::{Config, StreamableHttp};
use mcpwire_jsonrpc::{Inbound, Message, Packet, Response};
use serde_json::json;
use tokio::net::TcpListener;

use crate::server_support::*;

#[tokio::test]
async fn a_post_to_a_session_that_takes_nothing_is_refused_after_the_send_timeout() {
    let config = Config::default()
        .inbox_capacity(1)
        .send_timeout(Duration::from_millis(300));
    // A runtime that answers `initialize`, takes `initialized`, then
    // never reads again (its transport stays open).
    let service = StreamableHttp::new(config, |mut transport| {
        tokio::spawn(async move {
            let Some(Ok(Inbound::Single(Message::Request(initialize)))) = transport.recv().await
            else {
                return;
            };
            let result = json!({"protocolVersion": V2025_06_18, "capabilities": {},
                                "serverInfo": {"name": "deaf", "version": "1"}});
            let answer = Response::new(initialize.id.clone(), &result).unwrap();
            let _ = transport.send(Packet::from(answer)).await;
            let _ = transport.recv().await;
            std::future::pending::<()>().await;
        });
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = TestServer::hosting(listener, service, Default::default(), Default::default());
    let client = Client::connect(server.addr, V2025_06_18).await;
    // The first fills the inbox; the second finds no room and waits. The
    // 300 ms wait is well inside `within`'s bound on each exchange.
    let first = client
        .post(&notification(
            "notifications/progress",
            json!({"progressToken": 1, "progress": 1}),
        ))
        .await;
    assert_eq!(first.status(), 202);
    let second = client
        .post(&notification(
            "notifications/progress",
            json!({"progressToken": 1, "progress": 2}),
        ))
        .await;
    assert_eq!(
        second.status(),
        503,
        "{}",
        String::from_utf8_lossy(&second.body)
    );
}
