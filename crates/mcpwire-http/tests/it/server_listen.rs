//! A long-lived stateless stream (`subscriptions/listen`, 2026-07-28),
//! served by a hand-written runtime over `SessionTransport`: the stream
//! stays open, carries notifications and keep-alives, and closing it is
//! the cancellation the runtime receives.

use crate::server_support;

use std::future::IntoFuture;
use std::time::Duration;

use mcpwire_http::server::{Config, StreamableHttp, serve};
use mcpwire_jsonrpc::{Inbound, Message, Notification};
use serde_json::json;
use server_support::*;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// What the runtime saw after the stream opened.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Cancelled(serde_json::Value),
    End,
}

#[tokio::test]
async fn a_listen_stream_stays_open_and_closing_it_cancels_the_request() {
    let (seen_tx, mut seen) = mpsc::unbounded_channel();
    let config = Config::default().keep_alive(Some(Duration::from_millis(50)));
    let service = StreamableHttp::new(config, move |mut transport| {
        let seen = seen_tx.clone();
        tokio::spawn(async move {
            let Some(Ok(Inbound::Single(Message::Request(listen)))) = transport.recv().await else {
                return;
            };
            for method in [
                "notifications/subscriptions/acknowledged",
                "notifications/tools/list_changed",
            ] {
                let params =
                    json!({"_meta": {"io.modelcontextprotocol/subscriptionId": listen.id}});
                let note = Notification::new(method, &params).unwrap();
                transport
                    .send_related(note.into(), Some(&listen.id))
                    .await
                    .unwrap();
            }
            // No answer: the stream lives until the client leaves.
            while let Some(Ok(inbound)) = transport.recv().await {
                if let Inbound::Single(Message::Notification(note)) = inbound {
                    let params = note.params.map(|p| serde_json::from_str(p.get()).unwrap());
                    let _ = seen.send(Seen::Cancelled(params.unwrap_or_default()));
                }
            }
            let _ = seen.send(Seen::End);
        });
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(serve(listener, service.clone()).into_future());
    let client = Client::new(addr);
    let mut params = json!({"notifications": {"toolsListChanged": true}});
    params["_meta"] = meta_2026();
    let mut headers = client.post_headers();
    headers.push(("mcp-protocol-version".to_owned(), V2026_07_28.to_owned()));
    headers.push(("mcp-method".to_owned(), "subscriptions/listen".to_owned()));
    let mut conn = Conn::open(addr).await;
    conn.send(
        "POST",
        &headers,
        request(5, "subscriptions/listen", params).as_bytes(),
    )
    .await;
    let (head, mut stream) = conn.stream().await;
    assert!(head.is_sse());
    let ack = within(stream.next_event()).await.unwrap();
    assert_eq!(
        ack.json()["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(ack.id, None, "stateless streams have no event ids");
    let change = within(stream.next_event()).await.unwrap();
    assert_eq!(
        change.json()["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        5
    );
    // Quiet, but open: only keep-alive comments.
    let quiet = tokio::time::timeout(Duration::from_millis(300), stream.next_event()).await;
    assert!(quiet.is_err());
    assert!(stream.comments() >= 2);
    drop(stream);
    let cancelled = within(seen.recv()).await.unwrap();
    assert_eq!(
        cancelled,
        Seen::Cancelled(
            json!({"requestId": 5, "reason": "the client closed the HTTP response stream"})
        )
    );
    assert_eq!(within(seen.recv()).await, Some(Seen::End));
    assert_eq!(service.stats().await.open_streams, 0);
    server.abort();
}
