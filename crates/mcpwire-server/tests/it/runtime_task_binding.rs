//! Tasks bound to their requestor (TASK-47): when the server can name who
//! asked (from the identity an authentication layer hands the transport),
//! a task is seen only by that requestor, from any session, in both eras.

use crate::support;

use std::time::Duration;

use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{Arguments, Context, HandlerError, Server};
use mcpwire_types::{CallToolResult, TaskSupport, Tool, ToolExecution};
use serde_json::{Value, json};
use support::{serve, serve_as, stateless_meta, with_meta};

const TASKS: &str = "io.modelcontextprotocol/tasks";

async fn slow(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Ok(CallToolResult::text("done"))
}

/// A server whose requestor is the label the transport gives each request.
fn server() -> Server {
    let mut tool = Tool::new("slow", json!({"type": "object"}));
    tool.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    let requestor = |transport: Option<&(dyn std::any::Any + Send + Sync)>| {
        transport
            .and_then(|context| context.downcast_ref::<String>())
            .cloned()
    };
    Server::builder("binding", "1")
        .tool(tool, slow)
        .tasks(TaskOptions::new().requestor(requestor))
        .build()
        .unwrap()
}

fn with_tasks(params: Value) -> Value {
    with_meta(params, &stateless_meta(json!({"extensions": {TASKS: {}}})))
}

#[tokio::test]
async fn a_2025_task_follows_its_requestor_across_sessions_and_hides_from_others() {
    let server = server();
    let (mut alice, _a) = serve_as(&server, "alice");
    let (mut alice_again, _b) = serve_as(&server, "alice");
    let (mut bob, _c) = serve_as(&server, "bob");
    for peer in [&mut alice, &mut alice_again, &mut bob] {
        peer.initialize("2025-11-25", json!({})).await;
    }
    let params = json!({"name": "slow", "arguments": {}, "task": {}});
    let created = alice.result(1, "tools/call", params).await;
    let task_id = created["task"]["taskId"].as_str().unwrap().to_owned();

    // Another session of the same requestor sees and lists it.
    let seen = alice_again
        .result(1, "tasks/get", json!({"taskId": task_id}))
        .await;
    assert!(seen["status"].is_string(), "{seen}");
    let listed = alice_again.result(2, "tasks/list", json!({})).await;
    assert_eq!(listed["tasks"][0]["taskId"], task_id.as_str());

    // Another requestor gets what an unknown id gets, and lists nothing.
    for (id, method) in [(1, "tasks/get"), (2, "tasks/result"), (3, "tasks/cancel")] {
        let error = bob.error(id, method, json!({"taskId": task_id})).await;
        assert_eq!(error["code"], -32602, "{method}");
    }
    let listed = bob.result(4, "tasks/list", json!({})).await;
    assert_eq!(listed["tasks"], json!([]));
}

#[tokio::test]
async fn a_2026_task_is_bound_to_its_requestor_and_unbound_without_one() {
    let server = server();
    let (mut alice, _a) = serve_as(&server, "alice");
    let (mut bob, _b) = serve_as(&server, "bob");
    let (mut anonymous, _c) = serve(&server);
    let call = with_tasks(json!({"name": "slow", "arguments": {}}));
    let created = alice.result(1, "tools/call", call.clone()).await;
    assert_eq!(created["resultType"], "task", "{created}");
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    let get = with_tasks(json!({"taskId": task_id}));

    let own = alice.result(2, "tasks/get", get.clone()).await;
    assert!(own["status"].is_string(), "{own}");
    for (id, method) in [(1, "tasks/get"), (2, "tasks/cancel")] {
        let error = bob.error(id, method, get.clone()).await;
        assert_eq!(error["code"], -32602, "{method} by another requestor");
        let error = anonymous.error(id, method, get.clone()).await;
        assert_eq!(error["code"], -32602, "{method} by an unnamed requestor");
    }

    // Without a named requestor the random id is the only capability (TASK-48).
    let created = anonymous.result(3, "tools/call", call).await;
    let unbound = created["taskId"].as_str().unwrap().to_owned();
    let seen = bob
        .result(3, "tasks/get", with_tasks(json!({"taskId": unbound})))
        .await;
    assert!(seen["status"].is_string(), "{seen}");
}
