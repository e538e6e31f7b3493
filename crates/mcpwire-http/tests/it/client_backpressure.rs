//! When the caller stops calling `recv`, the client stops reading the
//! server: memory stays bounded and the server feels the back-pressure.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use client_support::*;
use mcpwire_http::client::{ClientOptions, StreamableHttpClient};
use mcpwire_http::sse::Event;
use serde_json::json;

/// The events the server would send if nothing held it back.
const OFFERED: usize = 2000;
/// Each event's padding: 64 KiB, so the whole stream would be 128 MiB.
const PADDING: usize = 64 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_that_stops_reading_stops_the_server() {
    bounded(async {
        let produced = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&produced);
        let server = serve(move |request: Recorded| {
            let counter = Arc::clone(&counter);
            async move {
                let (writer, response) = sse(&[]);
                let id = request.rpc_id();
                tokio::spawn(async move {
                    let padding = "x".repeat(PADDING);
                    for step in 0..OFFERED {
                        // Formatted by hand: building a 64 KiB JSON value
                        // each time would make the server the bottleneck.
                        let note = format!(
                            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","step":{step},"data":"{padding}"}}}}"#
                        );
                        if !writer.event(Event::new(note)).await {
                            return;
                        }
                        counter.fetch_add(1, Ordering::SeqCst);
                    }
                    writer.event(message_event(&result(&id, json!({})))).await;
                });
                response
            }
        })
        .await;
        let options = ClientOptions::new().inbound_capacity(4);
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        client.send(request(1, "tools/call", json!({}))).await.unwrap();

        // Let the server run while nobody reads, until it stalls.
        let mut last = usize::MAX;
        loop {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let now = produced.load(Ordering::SeqCst);
            if now == last {
                break;
            }
            last = now;
        }
        // Socket buffers and the small queues hold a few MiB at most.
        assert!(
            last < 600,
            "{last} events of 64 KiB were taken from the server without being read"
        );

        // Reading again lets the server go on, and nothing was lost.
        for step in 0..200 {
            let message = next_message(&mut client).await;
            let params: serde_json::Value =
                serde_json::from_str(message.params().unwrap().get()).unwrap();
            assert_eq!(params["step"], step);
        }
        while produced.load(Ordering::SeqCst) < last + 100 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}
