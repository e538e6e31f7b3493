//! The list-change triggers of the everything-server: each call adds or
//! removes its tool or prompt and the session hears `list_changed`.
//!
//! Not a transcript: the change notification and the call's answer travel
//! separately, so their order is not fixed.

use std::time::Duration;

use mcpwire_jsonrpc::Packet;
use mcpwire_jsonrpc::memory::{self, MemoryTransport};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

async fn send(client: &mut MemoryTransport, message: Value) {
    let packet = Packet::from_slice(&serde_json::to_vec(&message).unwrap()).unwrap();
    client.send(packet).await.unwrap();
}

async fn receive(client: &mut MemoryTransport) -> Value {
    let inbound = tokio::time::timeout(WAIT, client.recv())
        .await
        .expect("an answer in time")
        .unwrap()
        .unwrap();
    serde_json::from_slice(&inbound.into_packet().unwrap().to_vec()).unwrap()
}

/// Calls `tool` as request `id`; returns its result and the methods of
/// the notifications received until both the result and a notification
/// are in (a late or duplicate one shows up in the next call's list).
async fn call(client: &mut MemoryTransport, id: u64, tool: &str) -> (Value, Vec<String>) {
    let request =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}});
    send(client, request).await;
    let mut result = None;
    let mut notifications = Vec::new();
    while result.is_none() || notifications.is_empty() {
        let message = receive(client).await;
        match message.get("method").and_then(Value::as_str) {
            Some(method) => notifications.push(method.to_owned()),
            None => result = Some(message["result"].clone()),
        }
    }
    (result.unwrap(), notifications)
}

async fn names(client: &mut MemoryTransport, method: &str, key: &str) -> Vec<String> {
    send(
        client,
        json!({"jsonrpc": "2.0", "id": "list", "method": method}),
    )
    .await;
    let answer = receive(client).await;
    answer["result"][key]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn triggers_toggle_their_tool_and_prompt_and_announce_each_change() {
    let server = conformance::everything::server().unwrap();
    let (mut client, server_end) = memory::pair(64);
    let session = server.clone();
    let serving = tokio::spawn(async move { session.serve(server_end).await });
    send(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "list-changes", "version": "1.0.0"}}}),
    )
    .await;
    assert_eq!(
        receive(&mut client).await["result"]["protocolVersion"],
        "2025-11-25"
    );
    send(
        &mut client,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;

    for (round, present) in [(1, true), (2, false), (3, true)] {
        let (result, notifications) = call(&mut client, round, "test_trigger_tool_change").await;
        assert_eq!(result["isError"], Value::Null, "{result}");
        assert_eq!(notifications, ["notifications/tools/list_changed"]);
        let tools = names(&mut client, "tools/list", "tools").await;
        assert_eq!(
            tools.iter().any(|name| name == "test_dynamic_tool"),
            present,
            "round {round}"
        );
    }
    for (round, present) in [(11, false), (12, true)] {
        let (result, notifications) = call(&mut client, round, "test_trigger_prompt_change").await;
        assert_eq!(result["isError"], Value::Null, "{result}");
        assert_eq!(notifications, ["notifications/prompts/list_changed"]);
        let prompts = names(&mut client, "prompts/list", "prompts").await;
        assert_eq!(
            prompts.iter().any(|name| name == "test_dynamic_prompt"),
            present,
            "round {round}"
        );
    }

    client.close().await.unwrap();
    let rest = tokio::time::timeout(WAIT, client.recv()).await.unwrap();
    assert!(rest.is_none(), "nothing more was expected: {rest:?}");
    serving.await.unwrap().unwrap();
}
