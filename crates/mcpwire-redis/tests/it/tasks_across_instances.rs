//! Tasks across instances (2026-07-28, extension
//! `io.modelcontextprotocol/tasks`): three instances on one Redis, each
//! with the Redis task store, behind the round-robin proxy. Every request
//! is stateless and lands on the next instance: a task created on one is
//! polled and cancelled through the others (TASK-18, TASK-42).

use std::collections::BTreeSet;
use std::time::Duration;

use crate::support::RedisServer;
use crate::support::cluster::Instance;
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::Config;
use mcpwire_jsonrpc::{Inbound, Packet};
use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{Arguments, Context, HandlerError, Server};
use mcpwire_test::proxy::RoundRobinProxy as Proxy;
use mcpwire_types::{CallToolResult, TaskSupport, Tool, ToolExecution};
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

async fn endless(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    Ok(CallToolResult::text("never"))
}

fn tasked_server(stores: Option<&mcpwire_redis::RedisStores>) -> Server {
    let mut tool = Tool::without_arguments("endless");
    tool.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    let mut options = TaskOptions::new().poll_interval(Duration::from_millis(20));
    if let Some(stores) = stores {
        options = options.store(stores.tasks.clone());
    }
    Server::builder("tasked", "1.0.0")
        .tool(tool, endless)
        .tasks(options)
        .build()
        .unwrap()
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}
    })
}

/// Sends one stateless request through the proxy; its result.
async fn request(url: &str, id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut client = StreamableHttpClient::new(url).unwrap();
    client
        .send(Packet::from_slice(body.to_string().as_bytes()).unwrap())
        .await
        .unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(10), client.recv())
        .await
        .expect("answered within 10 s")
        .expect("an answer")
        .unwrap();
    let Inbound::Single(message) = answer else {
        panic!("not a single message: {answer:?}");
    };
    let json = serde_json::to_value(&message).unwrap();
    assert!(json.get("error").is_none(), "{method}: {json}");
    json["result"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_created_on_one_instance_is_polled_and_cancelled_through_the_others() {
    let redis = RedisServer::start();
    let instances: Vec<Instance> = (0..3)
        .map(|_| Instance::start_with(Some(redis.config()), tasked_server, Config::default()))
        .collect();
    let proxy = Proxy::start(
        crate::support::PROXY_LISTEN,
        instances.iter().map(|instance| instance.addr).collect(),
    )
    .await
    .unwrap();
    let created = request(
        &proxy.url("/mcp"),
        1,
        "tools/call",
        json!({"name": "endless"}),
    )
    .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    for id in 2..=4 {
        let task = request(
            &proxy.url("/mcp"),
            id,
            "tasks/get",
            json!({"taskId": task_id}),
        )
        .await;
        assert_eq!(task["status"], "working", "{task}");
    }
    let ack = request(
        &proxy.url("/mcp"),
        5,
        "tasks/cancel",
        json!({"taskId": task_id}),
    )
    .await;
    assert_eq!(ack["resultType"], "complete", "{ack}");
    for id in 6..=8 {
        let task = request(
            &proxy.url("/mcp"),
            id,
            "tasks/get",
            json!({"taskId": task_id}),
        )
        .await;
        assert_eq!(task["status"], "cancelled", "{task}");
    }
    // Every instance answered some of these requests.
    let served: BTreeSet<usize> = proxy.log().iter().map(|routed| routed.backend).collect();
    assert_eq!(served.len(), 3);
}
