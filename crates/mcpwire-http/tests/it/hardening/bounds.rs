//! Bounds on what one session may hold (issue 17 item 5): resource
//! subscriptions and `subscriptions/listen` requests, and tasks per
//! requestor, each refused past its cap with a JSON-RPC error naming it.

use mcpwire_http::server::Config;
use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_session::Limits;
use mcpwire_types::{
    CallToolResult, ReadResourceResult, ResourceContents, ResourceTemplate, TaskSupport, Tool,
    ToolExecution,
};
use serde_json::json;

use crate::server_support::*;

/// A server whose template matches any `note://` URI, with a slow tool
/// that may run as a task; at most 3 subscriptions and 2 tasks.
fn bounded_runtime() -> Server {
    let mut limits = Limits::default();
    limits.max_subscriptions = 3;
    let mut slow = Tool::new(
        "slow",
        json!({"type": "object"}).as_object().cloned().unwrap(),
    );
    slow.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    Server::builder("bounded", "1")
        .limits(limits)
        .resource_template(
            ResourceTemplate::new("note://{id}", "a note"),
            |_ctx: Context, uri: String, _vars| async move {
                Ok::<_, HandlerError>(ReadResourceResult::new(vec![ResourceContents::text(
                    uri,
                    "text/plain",
                    "note",
                )]))
            },
        )
        .tool(slow, |_ctx: Context, _args| async move {
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            Ok::<_, HandlerError>(CallToolResult::text("done"))
        })
        .tasks(TaskOptions::new().max_tasks_per_requestor(2))
        .build()
        .unwrap()
}

#[tokio::test]
async fn subscriptions_past_the_cap_are_refused_with_the_limit() {
    let server = TestServer::start(Config::default(), bounded_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    for n in 0..3 {
        let reply = client
            .post(&request(
                n,
                "resources/subscribe",
                json!({"uri": format!("note://{n}")}),
            ))
            .await;
        assert!(
            reply.messages()[0]["result"].is_object(),
            "{n}: {:?}",
            reply.messages()
        );
    }
    // Subscribing again to a held URI is no new subscription.
    let again = client
        .post(&request(
            10,
            "resources/subscribe",
            json!({"uri": "note://0"}),
        ))
        .await;
    assert!(again.messages()[0]["result"].is_object());
    let refused = client
        .post(&request(
            11,
            "resources/subscribe",
            json!({"uri": "note://99"}),
        ))
        .await;
    let error = &refused.messages()[0]["error"];
    assert_eq!(error["code"], -32600, "{error}");
    assert_eq!(error["data"]["limit"], 3, "{error}");
    // Unsubscribing makes room.
    client
        .post(&request(
            12,
            "resources/unsubscribe",
            json!({"uri": "note://1"}),
        ))
        .await;
    let room = client
        .post(&request(
            13,
            "resources/subscribe",
            json!({"uri": "note://99"}),
        ))
        .await;
    assert!(
        room.messages()[0]["result"].is_object(),
        "{:?}",
        room.messages()
    );
}

#[tokio::test]
async fn tasks_past_the_cap_per_requestor_are_refused_with_the_limit() {
    let server = TestServer::start(Config::default(), bounded_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let call = |id: i64| {
        request(
            id,
            "tools/call",
            json!({"name": "slow", "arguments": {}, "task": {"ttl": 60_000}}),
        )
    };
    for id in 1..=2 {
        let reply = within(client.post(&call(id))).await;
        let answer = &reply.messages()[0];
        assert!(answer["result"]["task"]["taskId"].is_string(), "{answer}");
    }
    let reply = within(client.post(&call(3))).await;
    let error = &reply.messages()[0]["error"];
    assert_eq!(error["code"], -32600, "{error}");
    assert_eq!(error["data"]["limit"], 2, "{error}");
    // Another session is another requestor.
    let other = Client::connect(server.addr, V2025_11_25).await;
    let reply = within(other.post(&call(1))).await;
    assert!(reply.messages()[0]["result"]["task"]["taskId"].is_string());
}
