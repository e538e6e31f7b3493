//! Structured tool results checked against the output schema the server
//! listed (TOOL-14, TOOL-15). A real server refuses to send bad output
//! itself, so a scripted peer plays a server that does.

use mcpwire_client::{Client, ClientError};
use mcpwire_types::methods::ServerNotification;
use serde_json::{Map, Value, json};

use crate::support::{ScriptedPeer, bounded, config, scripted_client};

fn weather_tools() -> Value {
    json!({"tools": [{
        "name": "weather",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "type": "object",
            "properties": {"temperature": {"type": "number"}},
            "required": ["temperature"]
        }
    }]})
}

/// Lists the tools, the peer answering with `tools`.
async fn list(client: &Client, peer: &mut ScriptedPeer, tools: Value) {
    let (listed, ()) = tokio::join!(client.list_tools(None), async {
        let request = peer.expect("tools/list").await;
        peer.answer(&request["id"], &tools);
    });
    listed.unwrap();
}

/// Calls `weather`, the peer answering with `result`.
async fn call(
    client: &Client,
    peer: &mut ScriptedPeer,
    result: Value,
) -> Result<mcpwire_types::CallToolResult, ClientError> {
    let (outcome, ()) = tokio::join!(client.call_tool("weather", Map::new()), async {
        let request = peer.expect("tools/call").await;
        peer.answer(&request["id"], &result);
    });
    outcome
}

#[tokio::test]
async fn structured_content_is_checked_against_the_listed_output_schema() {
    bounded(async {
        let (client, mut peer) = scripted_client(config()).await;
        list(&client, &mut peer, weather_tools()).await;
        let text = json!([{"type": "text", "text": "{}"}]);
        let cases = [
            // (answer, accepted)
            (
                json!({"content": text, "structuredContent": {"temperature": 21.5}}),
                true,
            ),
            (
                json!({"content": text, "structuredContent": {"temperature": "warm"}}),
                false,
            ),
            (json!({"content": text, "structuredContent": {}}), false),
            // A tool with an output schema must return structured content.
            (json!({"content": text}), false),
            // A failed call is not checked: it reports an error to the model.
            (json!({"content": text, "isError": true}), true),
        ];
        for (answer, accepted) in cases {
            let outcome = call(&client, &mut peer, answer.clone()).await;
            match outcome {
                Ok(_) => assert!(accepted, "accepted {answer}"),
                Err(ClientError::InvalidStructuredContent { tool, reason }) => {
                    assert!(!accepted, "refused {answer}: {reason}");
                    assert_eq!(tool, "weather");
                }
                Err(other) => panic!("unexpected error {other:?}"),
            }
        }
    })
    .await;
}

#[tokio::test]
async fn a_violation_names_the_offending_place() {
    bounded(async {
        let (client, mut peer) = scripted_client(config()).await;
        list(&client, &mut peer, weather_tools()).await;
        let answer = json!({"content": [], "structuredContent": {"temperature": "warm"}});
        let Err(ClientError::InvalidStructuredContent { reason, .. }) =
            call(&client, &mut peer, answer).await
        else {
            panic!("the violation was not caught");
        };
        assert!(reason.contains("/temperature"), "{reason}");
    })
    .await;
}

#[tokio::test]
async fn no_schema_is_assumed_for_a_tool_that_was_not_listed_or_whose_list_changed() {
    bounded(async {
        let (client, mut peer) = scripted_client(config()).await;
        let odd = json!({"content": [], "structuredContent": {"temperature": "warm"}});
        // Never listed: nothing to check against.
        call(&client, &mut peer, odd.clone()).await.unwrap();
        // Listed: checked.
        list(&client, &mut peer, weather_tools()).await;
        assert!(call(&client, &mut peer, odd.clone()).await.is_err());
        // The list changed: the old schema may be stale, so it is forgotten.
        let mut notifications = client.notifications();
        peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
        let notification = notifications.recv().await.unwrap();
        assert!(matches!(
            notification,
            ServerNotification::ToolListChanged(_)
        ));
        call(&client, &mut peer, odd).await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn an_unusable_output_schema_refuses_the_result_instead_of_passing_it() {
    bounded(async {
        let (client, mut peer) = scripted_client(config()).await;
        let tools = json!({"tools": [{
            "name": "weather",
            "inputSchema": {"type": "object"},
            "outputSchema": {"$schema": "https://example.com/private-dialect", "type": "object"}
        }]});
        // Listing still works: one odd schema does not spoil the list.
        list(&client, &mut peer, tools).await;
        let answer = json!({"content": [], "structuredContent": {}});
        let Err(ClientError::InvalidStructuredContent { reason, .. }) =
            call(&client, &mut peer, answer).await
        else {
            panic!("the unusable schema was ignored");
        };
        assert!(reason.contains("dialect"), "{reason}");
    })
    .await;
}
