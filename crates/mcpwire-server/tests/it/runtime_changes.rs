//! Runtime tests of catalog changes while serving: every add or remove
//! reaches each live, initialized session as the matching `list_changed`
//! notification (TOOL-02, RES-02, PROMPT-02, LIFE-06).

use crate::support;

use mcpwire_client::{Client, ClientConfig};
use mcpwire_server::{BuildError, Context, Server};
use mcpwire_types::methods::ServerNotification;
use mcpwire_types::{
    CallToolResult, ClientCapabilities, GetPromptResult, Implementation, Prompt, ProtocolVersion,
    ReadResourceResult, Resource, Tool,
};
use serde_json::{Value, json};
use support::{RawPeer, serve, stateless_meta, with_meta, within};

fn add_tool(server: &Server, name: &str) -> Result<(), BuildError> {
    server.add_tool(Tool::without_arguments(name), |_ctx: Context, _args| {
        std::future::ready(Ok(CallToolResult::text("ok")))
    })
}

fn add_prompt(server: &Server, name: &str) -> Result<(), BuildError> {
    server.add_prompt(Prompt::new(name), |_ctx: Context, _args| {
        std::future::ready(Ok(GetPromptResult::new(Vec::new())))
    })
}

fn add_resource(server: &Server, uri: &str) -> Result<(), BuildError> {
    server.add_resource(Resource::new(uri, "a resource"), |_ctx: Context, _uri| {
        std::future::ready(Ok(ReadResourceResult::new(Vec::new())))
    })
}

/// A server declaring tools, prompts and resources, with nothing in them.
fn empty_server() -> Server {
    Server::builder("changes", "1.0.0")
        .enable_tools()
        .enable_prompts()
        .enable_resources()
        .build()
        .unwrap()
}

fn listed(result: &Value, key: &str, field: &str) -> Vec<String> {
    result[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[field].as_str().unwrap().to_owned())
        .collect()
}

async fn expect_notification(peer: &mut RawPeer, method: &str) {
    let message = peer.recv().await;
    assert_eq!(message["method"], method, "{message}");
    assert!(message.get("id").is_none(), "{message}");
}

/// TOOL-02, PROMPT-02, RES-02: each kind of change is announced with its
/// own notification, in every handshake revision, to a client that
/// declared no capabilities at all (the server's `listChanged` is what counts).
#[tokio::test]
async fn each_change_while_serving_sends_the_matching_list_changed() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let server = empty_server();
        let (mut peer, _task) = serve(&server);
        let result = peer.initialize(version, json!({})).await;
        assert_eq!(result["capabilities"]["tools"]["listChanged"], true);

        add_tool(&server, "added").unwrap();
        expect_notification(&mut peer, "notifications/tools/list_changed").await;
        let tools = peer.result(1, "tools/list", json!({})).await;
        assert_eq!(listed(&tools, "tools", "name"), ["added"], "{version}");

        assert!(server.remove_tool("added"));
        expect_notification(&mut peer, "notifications/tools/list_changed").await;
        let tools = peer.result(2, "tools/list", json!({})).await;
        assert!(listed(&tools, "tools", "name").is_empty(), "{version}");

        add_prompt(&server, "greet").unwrap();
        expect_notification(&mut peer, "notifications/prompts/list_changed").await;
        let prompts = peer.result(3, "prompts/list", json!({})).await;
        assert_eq!(listed(&prompts, "prompts", "name"), ["greet"]);
        assert!(server.remove_prompt("greet"));
        expect_notification(&mut peer, "notifications/prompts/list_changed").await;

        add_resource(&server, "file:///a.txt").unwrap();
        expect_notification(&mut peer, "notifications/resources/list_changed").await;
        let resources = peer.result(4, "resources/list", json!({})).await;
        assert_eq!(listed(&resources, "resources", "uri"), ["file:///a.txt"]);
        assert!(server.remove_resource("file:///a.txt"));
        expect_notification(&mut peer, "notifications/resources/list_changed").await;

        peer.expect_silence().await;
    }
}

/// LIFE-06: nothing but log messages before `notifications/initialized`.
#[tokio::test]
async fn no_list_changed_reaches_a_session_before_it_is_initialized() {
    let server = empty_server();
    let (mut peer, _task) = serve(&server);
    peer.initialize_only("2025-06-18", json!({})).await;
    add_tool(&server, "early").unwrap();
    peer.expect_silence().await;

    peer.notify("notifications/initialized", json!({})).await;
    peer.sync().await;
    add_tool(&server, "late").unwrap();
    expect_notification(&mut peer, "notifications/tools/list_changed").await;
    peer.expect_silence().await;
    let tools = peer.result(1, "tools/list", json!({})).await;
    assert_eq!(listed(&tools, "tools", "name"), ["early", "late"]);
}

#[tokio::test]
async fn changes_that_change_nothing_are_not_announced() {
    let server = empty_server();
    add_tool(&server, "taken").unwrap();
    let (mut peer, _task) = serve(&server);
    peer.initialize("2025-11-25", json!({})).await;

    assert!(!server.remove_tool("missing"));
    assert!(!server.remove_prompt("missing"));
    assert!(!server.remove_resource("file:///missing"));
    let duplicate = add_tool(&server, "taken");
    assert!(
        matches!(duplicate, Err(BuildError::Duplicate { kind: "tool", .. })),
        "{duplicate:?}"
    );
    let bad_name = add_tool(&server, "has spaces");
    assert!(
        matches!(bad_name, Err(BuildError::ToolName { .. })),
        "{bad_name:?}"
    );
    peer.expect_silence().await;
}

#[tokio::test]
async fn every_live_session_hears_each_change() {
    let server = empty_server();
    let (mut first, _first_task) = serve(&server);
    let (mut second, _second_task) = serve(&server);
    first.initialize("2025-06-18", json!({})).await;
    second
        .initialize("2025-11-25", json!({"roots": {"listChanged": true}}))
        .await;
    add_prompt(&server, "shared").unwrap();
    expect_notification(&mut first, "notifications/prompts/list_changed").await;
    expect_notification(&mut second, "notifications/prompts/list_changed").await;
}

/// A stateless (2026-07-28) peer has no session to announce changes on:
/// it learns of them through `subscriptions/listen` instead.
#[tokio::test]
async fn a_stateless_peer_gets_no_unsolicited_list_changed() {
    let server = empty_server();
    let (mut peer, _task) = serve(&server);
    let params = with_meta(json!({}), &stateless_meta(json!({})));
    peer.result(1, "tools/list", params).await;
    add_tool(&server, "added").unwrap();
    peer.expect_silence().await;
}

/// The real client runtime hears the change and sees the new tool.
#[tokio::test]
async fn the_client_runtime_receives_list_changed_and_calls_the_added_tool() {
    let server = empty_server();
    let (client_end, server_end) = mcpwire_jsonrpc::memory::pair(64);
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(server_end).await });
    let config = ClientConfig::new(
        Implementation::new("client", "1.0.0"),
        ClientCapabilities::default(),
    )
    .pinned(ProtocolVersion::V2025_06_18);
    let client = within("connect", Client::connect(client_end, config))
        .await
        .unwrap();
    let mut notifications = client.notifications();
    // The server reads in order: once the ping is answered it has also read
    // `notifications/initialized`, so the change below is announced.
    within("ping", client.ping()).await.unwrap();

    add_tool(&server, "late_tool").unwrap();
    let notification = within("list_changed", notifications.recv()).await.unwrap();
    assert!(
        matches!(notification, ServerNotification::ToolListChanged(_)),
        "{notification:?}"
    );
    let result = within("the call", client.call_tool("late_tool", ()))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("ok"));
    client.close().await;
}
