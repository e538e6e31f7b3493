//! Notifications from the server: list changes (TOOL-02), resource
//! updates (RES-03) and log messages (LOG-02).

use mcpwire_server::{Context, HandlerError};
use mcpwire_types::methods::ServerNotification;
use mcpwire_types::{CallToolResult, LoggingLevel, ProtocolVersion, Tool};
use serde_json::{Map, Value};
use tokio::sync::broadcast;

use crate::support::{bounded, connect, everything, pinned};

/// The next notification that is not a log message.
async fn next_change(receiver: &mut broadcast::Receiver<ServerNotification>) -> ServerNotification {
    loop {
        match receiver.recv().await.unwrap() {
            ServerNotification::LoggingMessage(_) => {}
            other => return other,
        }
    }
}

#[tokio::test]
async fn a_tool_added_while_serving_is_announced_and_listed() {
    bounded(async {
        let server = everything().build().unwrap();
        let client = connect(&server, pinned(ProtocolVersion::V2025_11_25)).await;
        let mut notifications = client.notifications();
        let before = client.list_all_tools().await.unwrap().len();
        server
            .add_tool(
                Tool::without_arguments("late"),
                |_ctx: Context, _args| async {
                    Ok::<_, HandlerError>(CallToolResult::text("late"))
                },
            )
            .unwrap();
        let notification = next_change(&mut notifications).await;
        assert!(
            matches!(notification, ServerNotification::ToolListChanged(_)),
            "{notification:?}"
        );
        let after = client.list_all_tools().await.unwrap();
        assert_eq!(after.len(), before + 1);
        assert!(after.iter().any(|tool| tool.name == "late"));
    })
    .await;
}

#[tokio::test]
async fn a_subscribed_resource_update_and_a_log_message_reach_every_receiver() {
    bounded(async {
        let server = everything().build().unwrap();
        let client = connect(&server, pinned(ProtocolVersion::V2025_06_18)).await;
        let mut first = client.notifications();
        let mut second = client.clone().notifications();
        client.subscribe("mem://readme").await.unwrap();
        server.resource_updated("mem://readme");
        for receiver in [&mut first, &mut second] {
            match next_change(receiver).await {
                ServerNotification::ResourceUpdated(params) => {
                    assert_eq!(params.uri, "mem://readme");
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        client.set_log_level(LoggingLevel::Info).await.unwrap();
        client.call_tool("chatty", Map::new()).await.unwrap();
        loop {
            if let ServerNotification::LoggingMessage(params) = first.recv().await.unwrap() {
                assert_eq!(params.level, LoggingLevel::Warning);
                assert_eq!(params.logger.as_deref(), Some("chatty"));
                assert_eq!(params.data, Value::from("careful"));
                break;
            }
        }
    })
    .await;
}
