//! Tasks through the runtime, in both eras: 2025-11-25 task-augmented
//! calls (TASK-*) and the 2026-07-28 extension `io.modelcontextprotocol/tasks`
//! (SEP-2663), served from the same tool handlers.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{Arguments, Context, HandlerError, Server};
use mcpwire_types::{
    BooleanSchema, CallToolResult, ElicitRequestParams, ElicitValue, PrimitiveSchemaDefinition,
    RequestedSchema, TaskSupport, Tool, ToolExecution,
};
use serde_json::{Value, json};
use support::{DropSignal, RawPeer, serve, stateless_meta, texts, with_meta};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// How long the slow tool works.
const WORK: Duration = Duration::from_millis(300);

/// The most polls any test makes before giving up.
const MAX_POLLS: usize = 200;

fn tool(name: &str, support: Option<TaskSupport>) -> Tool {
    let mut tool = Tool::new(name, json!({"type": "object"}));
    tool.execution = support.map(|support| ToolExecution {
        task_support: Some(support),
        ..ToolExecution::default()
    });
    tool
}

async fn slow(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(WORK).await;
    Ok(CallToolResult::text("slow done"))
}

async fn instant(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    Ok(CallToolResult::text("instant"))
}

async fn failing(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    Err(HandlerError::tool("it broke"))
}

/// Asks whether to go on after a first step, then finishes.
async fn confirm(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    let answer = ctx
        .elicit_response("go")
        .and_then(|a| a.content.as_ref())
        .and_then(|c| c.get("go").cloned());
    match answer {
        Some(ElicitValue::Boolean(true)) => Ok(CallToolResult::text("went on")),
        Some(_) => Ok(CallToolResult::text("stopped")),
        None => {
            let schema = RequestedSchema::default().with_property(
                "go",
                PrimitiveSchemaDefinition::Boolean(BooleanSchema::default()),
                true,
            );
            let form = ElicitRequestParams::form("Go on?", schema);
            Err(ctx.input_required().elicit("go", form).into())
        }
    }
}

/// Asks whether to go on after a first step, then finishes with the
/// arguments of that run: what a run after an input round was given.
async fn recall(ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    if ctx.elicit_response("go").is_some() {
        return Ok(CallToolResult::text(serde_json::to_string(&args).unwrap()));
    }
    let form = ElicitRequestParams::form("Go on?", RequestedSchema::default());
    Err(ctx.input_required().elicit("go", form).into())
}

/// Arguments with what a second decoding could get wrong: escapes, non-ASCII
/// text, numbers of each kind, nesting, `null`.
fn tricky_arguments() -> Value {
    json!({
        "text": "a \"quoted\" line\nand \u{e9} \u{2713} \\ end",
        "numbers": [1, -2, 2.5, 18446744073709551615_u64],
        "nested": {"deep": [null, true, {"k": ""}]}
    })
}

/// A server whose `endless` tool never finishes on its own and counts how
/// many of its runs were dropped.
fn server(dropped: &Arc<AtomicUsize>, ttl: Duration) -> Server {
    let counter = Arc::clone(dropped);
    Server::builder("tasks", "1")
        .tool(tool("slow", Some(TaskSupport::Optional)), slow)
        .tool(tool("instant", Some(TaskSupport::Optional)), instant)
        .tool(tool("plain", None), instant)
        .tool(tool("must_task", Some(TaskSupport::Required)), failing)
        .tool(tool("confirm", Some(TaskSupport::Optional)), confirm)
        .tool(tool("recall", Some(TaskSupport::Optional)), recall)
        .tool(
            tool("endless", Some(TaskSupport::Optional)),
            move |_ctx: Context, _args| {
                let counter = Arc::clone(&counter);
                async move {
                    let (signal, dropped) = DropSignal::new();
                    tokio::spawn(async move {
                        if dropped.await.is_ok() {
                            counter.fetch_add(1, Ordering::SeqCst);
                        }
                    });
                    let _held = signal;
                    std::future::pending::<()>().await;
                    Ok(CallToolResult::text("never"))
                }
            },
        )
        .tasks(
            TaskOptions::new()
                .default_ttl(ttl)
                .poll_interval(Duration::from_millis(20)),
        )
        .build()
        .unwrap()
}

fn with_tasks() -> Value {
    stateless_meta(json!({"elicitation": {}, "extensions": {TASKS: {}}}))
}

fn without_tasks() -> Value {
    stateless_meta(json!({"elicitation": {}}))
}

fn call(name: &str, meta: &Value) -> Value {
    with_meta(json!({"name": name, "arguments": {}}), meta)
}

fn task_params(task_id: &str, meta: &Value) -> Value {
    with_meta(json!({"taskId": task_id}), meta)
}

/// Polls 2026 `tasks/get` until the status is `status`.
async fn poll_until(peer: &mut RawPeer, id: &mut i64, task_id: &str, status: &str) -> Value {
    for _ in 0..MAX_POLLS {
        *id += 1;
        let task = peer
            .result(*id, "tasks/get", task_params(task_id, &with_tasks()))
            .await;
        if task["status"] == status {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} never reached {status}");
}

#[tokio::test]
async fn a_2026_task_is_created_polled_and_its_result_inlined() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let created = peer
        .result(1, "tools/call", call("slow", &with_tasks()))
        .await;
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert!(created.get("task").is_none() && created.get("requestState").is_none());
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    // Strongly consistent: readable right after creation.
    let first = peer
        .result(2, "tasks/get", task_params(&task_id, &with_tasks()))
        .await;
    assert_eq!(
        (first["status"].as_str(), first["resultType"].as_str()),
        (Some("working"), Some("complete"))
    );
    let mut id = 2;
    let done = poll_until(&mut peer, &mut id, &task_id, "completed").await;
    assert_eq!(texts(&done["result"]), ["slow done"]);
    assert!(done["result"]["_meta"]["io.modelcontextprotocol/related-task"].is_null());
}

#[tokio::test]
async fn a_2026_handler_that_finishes_at_once_answers_synchronously() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let result = peer
        .result(1, "tools/call", call("instant", &with_tasks()))
        .await;
    assert_eq!(result["resultType"], "complete");
    assert_eq!(texts(&result), ["instant"]);
}

#[tokio::test]
async fn without_the_extension_calls_are_synchronous_and_task_methods_refused_with_32021() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let result = peer
        .result(1, "tools/call", call("slow", &without_tasks()))
        .await;
    assert_eq!(texts(&result), ["slow done"]);
    for (id, method) in [(2, "tasks/get"), (3, "tasks/update"), (4, "tasks/cancel")] {
        let error = peer
            .error(id, method, task_params("gate-test", &without_tasks()))
            .await;
        assert_eq!(error["code"], -32021, "{method}");
        assert!(error["data"]["requiredCapabilities"]["extensions"][TASKS].is_object());
    }
}

#[tokio::test]
async fn a_tool_requiring_tasks_without_the_extension_is_refused_with_32021() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let error = peer
        .error(1, "tools/call", call("must_task", &without_tasks()))
        .await;
    assert_eq!(error["code"], -32021);
    assert!(error["data"]["requiredCapabilities"]["extensions"][TASKS].is_object());
}

#[tokio::test]
async fn a_2026_tool_error_completes_the_task_with_is_error() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let created = peer
        .result(1, "tools/call", call("must_task", &with_tasks()))
        .await;
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    let done = poll_until(&mut peer, &mut id, &task_id, "completed").await;
    assert_eq!(done["result"]["isError"], true);
}

#[tokio::test]
async fn a_2026_task_waits_for_input_and_resumes_after_tasks_update() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let created = peer
        .result(1, "tools/call", call("confirm", &with_tasks()))
        .await;
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    let waiting = poll_until(&mut peer, &mut id, &task_id, "input_required").await;
    assert_eq!(
        waiting["inputRequests"]["go"]["method"],
        "elicitation/create"
    );
    let unknown = with_meta(
        json!({"taskId": task_id, "inputResponses": {"nope": {"action": "decline"}}}),
        &with_tasks(),
    );
    assert_eq!(
        peer.result(100, "tasks/update", unknown).await,
        json!({"resultType": "complete"})
    );
    let answer = with_meta(
        json!({"taskId": task_id, "inputResponses": {"go": {"action": "accept", "content": {"go": true}}}}),
        &with_tasks(),
    );
    assert_eq!(
        peer.result(101, "tasks/update", answer).await,
        json!({"resultType": "complete"})
    );
    let mut id = 101;
    let done = poll_until(&mut peer, &mut id, &task_id, "completed").await;
    assert_eq!(texts(&done["result"]), ["went on"]);
}

#[tokio::test]
async fn a_2026_task_resumed_after_tasks_update_runs_with_the_arguments_of_the_call() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let params = json!({"name": "recall", "arguments": tricky_arguments()});
    let created = peer
        .result(1, "tools/call", with_meta(params, &with_tasks()))
        .await;
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    poll_until(&mut peer, &mut id, &task_id, "input_required").await;
    let answer = with_meta(
        json!({"taskId": task_id, "inputResponses": {"go": {"action": "accept", "content": {}}}}),
        &with_tasks(),
    );
    peer.result(100, "tasks/update", answer).await;
    let mut id = 100;
    let done = poll_until(&mut peer, &mut id, &task_id, "completed").await;
    let seen: Value = serde_json::from_str(&texts(&done["result"])[0]).unwrap();
    assert_eq!(seen, tricky_arguments());
}

#[tokio::test]
async fn cancelling_a_2026_task_stops_its_handler_and_a_second_cancel_is_acknowledged() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let server = server(&dropped, Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let created = peer
        .result(1, "tools/call", call("endless", &with_tasks()))
        .await;
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    let ack = peer
        .result(2, "tasks/cancel", task_params(&task_id, &with_tasks()))
        .await;
    assert_eq!(ack, json!({"resultType": "complete"}));
    let task = peer
        .result(3, "tasks/get", task_params(&task_id, &with_tasks()))
        .await;
    assert_eq!(task["status"], "cancelled");
    support::within("the handler to stop", async {
        while dropped.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let again = peer
        .result(4, "tasks/cancel", task_params(&task_id, &with_tasks()))
        .await;
    assert_eq!(again, json!({"resultType": "complete"}));
}

#[tokio::test]
async fn an_unknown_task_id_is_invalid_params_and_removed_methods_are_unknown() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let error = peer
        .error(1, "tasks/get", task_params("no-such-task", &with_tasks()))
        .await;
    assert_eq!(error["code"], -32602);
    for (id, method) in [(2, "tasks/result"), (3, "tasks/list")] {
        let error = peer
            .error(id, method, task_params("x", &with_tasks()))
            .await;
        assert_eq!(error["code"], -32601, "{method}");
    }
}

const V2025: &str = "2025-11-25";

fn core_call(name: &str, task: Option<Value>) -> Value {
    let mut params = json!({"name": name, "arguments": {}});
    if let Some(task) = task {
        params["task"] = task;
    }
    params
}

#[tokio::test]
async fn a_2025_task_is_created_polled_listed_and_its_result_fetched() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    let init = peer.initialize(V2025, json!({})).await;
    assert!(init["capabilities"]["tasks"]["requests"]["tools"]["call"].is_object());
    assert!(init["capabilities"].get("extensions").is_none());
    let created = peer
        .result(
            1,
            "tools/call",
            core_call("slow", Some(json!({"ttl": 60000}))),
        )
        .await;
    let task_id = created["task"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(created["task"]["status"], "working");
    assert_eq!(created["task"]["ttl"], 60000);
    let listed = peer.result(2, "tasks/list", json!({})).await;
    assert_eq!(listed["tasks"][0]["taskId"], task_id.as_str());
    // TASK-24: tasks/result waits for the end; status notifications may come first.
    let exchange = peer
        .exchange(3, "tasks/result", json!({"taskId": task_id}))
        .await;
    let payload = &exchange.response["result"];
    let completed = exchange.before.iter().find(|m| {
        m["method"] == "notifications/tasks/status" && m["params"]["status"] == "completed"
    });
    assert!(
        completed.is_some(),
        "no completion status notification: {:?}",
        exchange.before
    );
    assert_eq!(texts(payload), ["slow done"]);
    assert_eq!(
        payload["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        task_id.as_str()
    );
    let got = peer
        .exchange(4, "tasks/get", json!({"taskId": task_id}))
        .await;
    let got = &got.response["result"];
    assert_eq!(got["status"], "completed");
    assert!(got["createdAt"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
async fn task_support_forbidden_and_required_are_enforced_with_32601() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    peer.initialize(V2025, json!({})).await;
    // TASK-06: a task of a tool without task support.
    let error = peer
        .error(1, "tools/call", core_call("plain", Some(json!({}))))
        .await;
    assert_eq!(error["code"], -32601);
    // TASK-08: a tool requiring tasks, called plainly.
    let error = peer
        .error(2, "tools/call", core_call("must_task", None))
        .await;
    assert_eq!(error["code"], -32601);
    let plain = peer
        .result(3, "tools/call", core_call("instant", None))
        .await;
    assert_eq!(texts(&plain), ["instant"]);
}

#[tokio::test]
async fn cancelling_a_2025_task_stops_its_handler_and_a_terminal_cancel_is_refused() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let server = server(&dropped, Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    peer.initialize(V2025, json!({})).await;
    let created = peer
        .result(1, "tools/call", core_call("endless", Some(json!({}))))
        .await;
    let task_id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let cancelled = peer
        .exchange(2, "tasks/cancel", json!({"taskId": task_id}))
        .await;
    assert_eq!(cancelled.response["result"]["status"], "cancelled");
    support::within("the handler to stop", async {
        while dropped.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    // TASK-41: a terminal task cannot be cancelled.
    let again = peer
        .exchange(3, "tasks/cancel", json!({"taskId": task_id}))
        .await;
    assert_eq!(again.response["error"]["code"], -32602);
}

#[tokio::test]
async fn a_task_is_gone_once_its_ttl_has_passed() {
    let server = server(&Arc::default(), Duration::from_millis(150));
    let (mut peer, _task) = serve(&server);
    peer.initialize(V2025, json!({})).await;
    let created = peer
        .result(1, "tools/call", core_call("slow", Some(json!({}))))
        .await;
    let task_id = created["task"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(created["task"]["ttl"], 150);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let error = peer
        .exchange(2, "tasks/get", json!({"taskId": task_id}))
        .await;
    assert_eq!(error.response["error"]["code"], -32602);
}

#[tokio::test]
async fn another_session_cannot_see_a_task() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut owner, _first) = serve(&server);
    let (mut stranger, _second) = serve(&server);
    owner.initialize(V2025, json!({})).await;
    stranger.initialize(V2025, json!({})).await;
    let created = owner
        .result(1, "tools/call", core_call("slow", Some(json!({}))))
        .await;
    let task_id = created["task"]["taskId"].as_str().unwrap().to_owned();
    // TASK-47: the other session gets what an unknown id gets, and lists nothing.
    for (id, method) in [(1, "tasks/get"), (2, "tasks/result"), (3, "tasks/cancel")] {
        let error = stranger.error(id, method, json!({"taskId": task_id})).await;
        assert_eq!(error["code"], -32602, "{method}");
    }
    let listed = stranger.result(4, "tasks/list", json!({})).await;
    assert_eq!(listed["tasks"], json!([]));
    let own = owner
        .exchange(2, "tasks/get", json!({"taskId": task_id}))
        .await;
    assert!(own.response["result"]["status"].is_string());
}

#[tokio::test]
async fn a_2025_task_asks_the_client_with_requests_naming_the_task() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    peer.initialize(V2025, json!({"elicitation": {}})).await;
    let created = peer
        .exchange(1, "tools/call", core_call("confirm", Some(json!({}))))
        .await;
    let task_id = created.response["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    // TASK-26: the task waits in input_required while the client is asked.
    // The status notification and the question are sent from two tasks, so
    // either may come first.
    let (first, second) = (peer.recv().await, peer.recv().await);
    let (status, question) = if first["method"] == "notifications/tasks/status" {
        (first, second)
    } else {
        (second, first)
    };
    assert_eq!(status["method"], "notifications/tasks/status");
    assert_eq!(status["params"]["status"], "input_required");
    // TASK-27, TASK-30: the elicitation sent for the task names it.
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(
        question["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        task_id.as_str()
    );
    let answer = json!({"action": "accept", "content": {"go": true}});
    peer.send(json!({"jsonrpc": "2.0", "id": question["id"], "result": answer}))
        .await;
    let result = peer
        .exchange(2, "tasks/result", json!({"taskId": task_id}))
        .await;
    assert_eq!(texts(&result.response["result"]), ["went on"]);
}

#[tokio::test]
async fn a_2025_task_run_again_after_the_client_answered_has_the_arguments_of_the_call() {
    let server = server(&Arc::default(), Duration::from_secs(60));
    let (mut peer, _task) = serve(&server);
    peer.initialize(V2025, json!({"elicitation": {}})).await;
    let params = json!({"name": "recall", "arguments": tricky_arguments(), "task": {}});
    let created = peer.exchange(1, "tools/call", params).await;
    let task_id = created.response["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    // The status notification and the question come from two tasks, in
    // either order; status notifications may follow.
    let mut question = None;
    for _ in 0..2 {
        let message = peer.recv().await;
        if message["method"] == "elicitation/create" {
            question = Some(message);
            break;
        }
    }
    let question = question.unwrap();
    let answer = json!({"action": "accept", "content": {}});
    peer.send(json!({"jsonrpc": "2.0", "id": question["id"], "result": answer}))
        .await;
    let result = peer
        .exchange(2, "tasks/result", json!({"taskId": task_id}))
        .await;
    let seen: Value = serde_json::from_str(&texts(&result.response["result"])[0]).unwrap();
    assert_eq!(seen, tricky_arguments());
}
