//! Many calls in flight at once on one session.

use mcpwire_types::{ContentBlock, ProtocolVersion};
use serde_json::json;
use tokio::task::JoinSet;

use crate::support::{bounded, connect, everything, pinned};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_all_get_their_own_answers() {
    bounded(async {
        let server = everything().build().unwrap();
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let client = connect(&server, pinned(version)).await;
            let mut calls = JoinSet::new();
            for index in 0..1000 {
                let client = client.clone();
                calls.spawn(async move {
                    let text = format!("call {index}");
                    let arguments = json!({"text": text});
                    let result = client.call_tool("echo", arguments).await.unwrap();
                    assert_eq!(result.content, vec![ContentBlock::text(text)]);
                });
            }
            let mut finished = 0;
            while let Some(outcome) = calls.join_next().await {
                outcome.unwrap();
                finished += 1;
            }
            assert_eq!(finished, 1000);
        }
    })
    .await;
}
