//! Cancel-on-drop (CANCEL-01, CANCEL-06), timeouts (LIFE-16, LIFE-17) and
//! progress of a call (PROG-01..03).

use std::time::Duration;

use mcpwire_client::{ClientError, RequestOptions, Timeouts};
use mcpwire_types::methods::CallTool;
use mcpwire_types::{CallToolRequestParams, ProtocolVersion};
use serde_json::{Map, json};

use crate::support::{
    bounded, config, connect, everything, pinned, scripted_client, with_slow_tool,
};

#[tokio::test]
async fn dropping_a_pending_call_cancels_it_on_the_server() {
    bounded(async {
        let (builder, mut started) = with_slow_tool(everything());
        let server = builder.build().unwrap();
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let client = connect(&server, pinned(version)).await;
            let call = client.call_tool("slow", Map::new());
            // The call future is dropped as soon as the tool has started.
            let cancellation = tokio::select! {
                outcome = call => panic!("the slow tool answered: {outcome:?}"),
                cancellation = started.recv() => cancellation.unwrap(),
            };
            // Only notifications/cancelled (or the end of the session,
            // which did not happen) fires the tool's signal.
            cancellation.cancelled().await;
            assert!(!client.is_closed());
            let echoed = client
                .call_tool("echo", serde_json::json!({"text": "still here"}))
                .await
                .unwrap();
            assert_eq!(echoed.is_error, None);
        }
    })
    .await;
}

#[tokio::test]
async fn a_dropped_call_sends_cancelled_for_its_id_and_ignores_the_late_answer() {
    bounded(async {
        let (client, mut peer) = scripted_client(config()).await;
        let call = client.call_tool("slow", Map::new());
        let request = tokio::select! {
            outcome = call => panic!("answered without an answer: {outcome:?}"),
            request = peer.expect("tools/call") => request,
        };
        let cancelled = peer.expect("notifications/cancelled").await;
        assert_eq!(cancelled["params"]["requestId"], request["id"]);
        // CANCEL-06: a late answer is dropped; the next call gets its own.
        peer.answer(
            &request["id"],
            &json!({"content": [{"type": "text", "text": "late"}]}),
        );
        let (second, ()) = tokio::join!(client.call_tool("echo", Map::new()), async {
            let next = peer.expect("tools/call").await;
            assert_ne!(next["id"], request["id"]);
            peer.answer(
                &next["id"],
                &json!({"content": [{"type": "text", "text": "fresh"}]}),
            );
        });
        assert_eq!(
            second.unwrap().content,
            vec![mcpwire_types::ContentBlock::text("fresh")]
        );
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_call_times_out_after_its_timeout_and_is_cancelled() {
    let mut timeouts = Timeouts::default();
    timeouts.request = Duration::from_secs(5);
    let (client, mut peer) = scripted_client(config().with_timeouts(timeouts)).await;
    // The configured default, then a per-request override (LIFE-17).
    let cases = [
        (RequestOptions::default(), Duration::from_secs(5)),
        (
            RequestOptions::default().with_timeout(Duration::from_secs(2)),
            Duration::from_secs(2),
        ),
    ];
    for (options, expected) in cases {
        let started = tokio::time::Instant::now();
        let call = client.request::<CallTool>(CallToolRequestParams::new("slow"), options);
        let (outcome, request) = tokio::join!(call, peer.expect("tools/call"));
        assert_eq!(outcome.unwrap_err(), ClientError::TimedOut);
        let waited = started.elapsed();
        assert!(
            waited >= expected && waited < expected + Duration::from_millis(100),
            "waited {waited:?}, expected {expected:?}"
        );
        // LIFE-16: the expired request is cancelled on the wire.
        let cancelled = peer.expect("notifications/cancelled").await;
        assert_eq!(cancelled["params"]["requestId"], request["id"]);
    }
}

#[tokio::test]
async fn progress_of_a_call_arrives_on_its_receiver_in_order() {
    bounded(async {
        let server = everything().build().unwrap();
        let client = connect(&server, pinned(ProtocolVersion::V2025_11_25)).await;
        let (call, mut progress) = client.request_with_progress::<CallTool>(
            CallToolRequestParams::new("count"),
            RequestOptions::default(),
        );
        let result = call.await.unwrap();
        assert_eq!(
            result.content,
            vec![mcpwire_types::ContentBlock::text("counted")]
        );
        let mut seen = Vec::new();
        while let Some(report) = progress.recv().await {
            assert_eq!(report.total, Some(3.0));
            assert_eq!(report.message.as_deref(), Some("counting"));
            seen.push(report.progress);
        }
        assert_eq!(seen, [1.0, 2.0, 3.0]);
    })
    .await;
}

/// CANCEL-01: a call dropped right before `close` is still cancelled on the
/// wire: the driver sends pending cancellations before it closes. Repeated
/// so that, were the two raced, the close would win some rounds.
#[tokio::test]
async fn a_call_dropped_just_before_close_is_cancelled_before_the_session_ends() {
    bounded(async {
        for round in 0..40 {
            let (client, mut peer) = scripted_client(config()).await;
            let call = client.call_tool("slow", Map::new());
            let request = tokio::select! {
                outcome = call => panic!("answered without an answer: {outcome:?}"),
                request = peer.expect("tools/call") => request,
            };
            client.close().await;
            let mut cancelled = false;
            while let Some(message) = peer.next().await {
                cancelled |= message["method"] == "notifications/cancelled"
                    && message["params"]["requestId"] == request["id"];
            }
            assert!(cancelled, "round {round}: no notifications/cancelled");
        }
    })
    .await;
}
