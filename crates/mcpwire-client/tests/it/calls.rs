//! Every convenience call against a real server, in both eras; pagination
//! (PAGE-01..04); refusals the engine makes before sending (LIFE-14).

use std::collections::BTreeMap;

use mcpwire_client::{ClientError, RequestOptions};
use mcpwire_jsonrpc::ErrorCode;
use mcpwire_session::SendError;
use mcpwire_types::methods::{CallTool, ListTools};
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, CompleteArgument, CompletionReference, ContentBlock,
    LoggingLevel, PaginatedRequestParams, ProtocolVersion, ResourceContents, Tool,
};
use serde_json::json;

use crate::support::{bounded, config, connect, everything, is_peer_error, pinned};

fn text_of(contents: &[ResourceContents]) -> Vec<String> {
    contents
        .iter()
        .map(|contents| match contents {
            ResourceContents::Text(text) => text.text.clone(),
            ResourceContents::Blob(_) => "<blob>".to_owned(),
        })
        .collect()
}

#[tokio::test]
async fn every_convenience_call_works_in_a_handshake_revision() {
    bounded(async {
        let server = everything().page_size(2).build().unwrap();
        let client = connect(&server, pinned(ProtocolVersion::V2025_11_25)).await;
        client.ping().await.unwrap();
        client.set_log_level(LoggingLevel::Debug).await.unwrap();

        let first = client.list_tools(None).await.unwrap();
        assert_eq!(first.tools.len(), 2);
        let second = client.list_tools(first.next_cursor.clone()).await.unwrap();
        assert_ne!(first.tools[0].name, second.tools[0].name);
        let names: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|tool| tool.name)
            .collect();
        assert_eq!(names, server.tool_names());

        let echoed = client
            .call_tool("echo", json!({"text": "hello"}))
            .await
            .unwrap();
        assert_eq!(echoed.content, vec![ContentBlock::text("hello")]);
        let sum = client
            .call_tool("sum", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(sum.structured_content, Some(json!({"sum": 5.0})));

        let resources = client.list_resources(None).await.unwrap();
        assert_eq!(resources.resources[0].uri, "mem://readme");
        assert_eq!(client.list_all_resources().await.unwrap().len(), 1);
        let templates = client.list_resource_templates(None).await.unwrap();
        assert_eq!(
            templates.resource_templates[0].uri_template,
            "mem://items/{id}"
        );
        assert_eq!(client.list_all_resource_templates().await.unwrap().len(), 1);
        let readme = client.read_resource("mem://readme").await.unwrap();
        assert_eq!(text_of(&readme.contents), ["read me"]);
        let item = client.read_resource("mem://items/42").await.unwrap();
        assert_eq!(text_of(&item.contents), ["item 42"]);
        client.subscribe("mem://readme").await.unwrap();
        client.unsubscribe("mem://readme").await.unwrap();

        let prompts = client.list_prompts(None).await.unwrap();
        assert_eq!(prompts.prompts[0].name, "greet");
        assert_eq!(client.list_all_prompts().await.unwrap().len(), 1);
        let arguments = BTreeMap::from([("name".to_owned(), "Ada".to_owned())]);
        let greeting = client.get_prompt("greet", arguments).await.unwrap();
        assert_eq!(greeting.messages.len(), 1);
        let completion = client
            .complete(
                CompletionReference::prompt("greet"),
                CompleteArgument::new("name", "al"),
            )
            .await
            .unwrap();
        assert_eq!(completion.completion.values, ["alice", "albert"]);

        // server/discover belongs to 2026-07-28 only.
        let refused = client.discover().await.unwrap_err();
        assert!(
            matches!(
                refused,
                ClientError::Refused(SendError::NotInRevision { .. })
            ),
            "{refused:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn the_stateless_revision_discovers_and_refuses_what_it_lacks() {
    bounded(async {
        let server = everything().build().unwrap();
        let client = connect(&server, config()).await;
        assert_eq!(client.server().version, ProtocolVersion::V2026_07_28);
        let discovered = client.discover().await.unwrap();
        assert!(discovered.capabilities.tools.is_some());
        let readme = client.read_resource("mem://readme").await.unwrap();
        assert_eq!(text_of(&readme.contents), ["read me"]);
        let greeting = client
            .get_prompt(
                "greet",
                BTreeMap::from([("name".to_owned(), "Ada".to_owned())]),
            )
            .await
            .unwrap();
        assert_eq!(greeting.messages.len(), 1);
        // ping, logging/setLevel and resources/subscribe end with 2025-11-25.
        for refused in [
            client.ping().await.unwrap_err(),
            client.set_log_level(LoggingLevel::Info).await.unwrap_err(),
            client.subscribe("mem://readme").await.unwrap_err(),
        ] {
            assert!(
                matches!(
                    refused,
                    ClientError::Refused(SendError::NotInRevision { .. })
                ),
                "{refused:?}"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn list_all_tools_follows_cursors_to_the_end_in_order() {
    bounded(async {
        let mut builder = mcpwire_server::Server::builder("paged", "1.0.0").page_size(2);
        for index in 0..5 {
            builder = builder.tool(
                Tool::without_arguments(format!("tool-{index}")),
                |_ctx, _args| async { Ok(CallToolResult::text("ok")) },
            );
        }
        let server = builder.build().unwrap();
        for version in [ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28] {
            let client = connect(&server, pinned(version)).await;
            let names: Vec<String> = client
                .list_all_tools()
                .await
                .unwrap()
                .into_iter()
                .map(|tool| tool.name)
                .collect();
            assert_eq!(names, ["tool-0", "tool-1", "tool-2", "tool-3", "tool-4"]);
            // The generic call reads one page, cursor included.
            let page = client
                .request::<ListTools>(PaginatedRequestParams::default(), RequestOptions::default())
                .await
                .unwrap();
            assert_eq!(page.tools.len(), 2);
            assert!(page.next_cursor.is_some());
        }
    })
    .await;
}

#[tokio::test]
async fn server_errors_arrive_as_peer_errors_with_their_codes() {
    bounded(async {
        let server = everything().build().unwrap();
        let client = connect(&server, pinned(ProtocolVersion::V2025_11_25)).await;
        let unknown_tool = client
            .request::<CallTool>(
                CallToolRequestParams::new("nope"),
                RequestOptions::default(),
            )
            .await
            .unwrap_err();
        assert!(
            is_peer_error(&unknown_tool, ErrorCode::INVALID_PARAMS.code()),
            "{unknown_tool:?}"
        );
        // RES-09: a missing resource is -32002 before 2026-07-28.
        let missing = client.read_resource("mem://missing").await.unwrap_err();
        assert!(is_peer_error(&missing, -32002), "{missing:?}");
        // Bad arguments are a tool execution error from 2025-11-25 (TOOL-16).
        let bad = client.call_tool("echo", json!({})).await.unwrap();
        assert_eq!(bad.is_error, Some(true));
    })
    .await;
}

#[tokio::test]
async fn a_capability_the_server_did_not_declare_is_refused_before_sending() {
    bounded(async {
        // Tools only: no prompts, no resources, no completions.
        let server = mcpwire_server::Server::builder("tools-only", "1.0.0")
            .tool(Tool::without_arguments("t"), |_ctx, _args| async {
                Ok(CallToolResult::text("ok"))
            })
            .build()
            .unwrap();
        let client = connect(&server, pinned(ProtocolVersion::V2025_11_25)).await;
        let refusals = [
            client.list_prompts(None).await.unwrap_err(),
            client.read_resource("mem://x").await.unwrap_err(),
            client
                .complete(
                    CompletionReference::prompt("p"),
                    CompleteArgument::new("a", ""),
                )
                .await
                .unwrap_err(),
        ];
        for refused in refusals {
            assert!(
                matches!(
                    refused,
                    ClientError::Refused(SendError::PeerLacksCapability { .. })
                ),
                "{refused:?}"
            );
        }
        // The session is still fine.
        client.ping().await.unwrap();
    })
    .await;
}
