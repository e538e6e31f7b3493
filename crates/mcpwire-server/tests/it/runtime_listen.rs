//! Runtime tests of `subscriptions/listen` (2026-07-28): the request is held
//! open, acknowledged first with the filter the server honors, sent the
//! matching catalog changes tagged with its id, and ended by cancellation
//! (no answer) or by the end of the session (a completion result).

use crate::support;

use mcpwire_server::{Context, Server};
use mcpwire_types::{CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool};
use serde_json::{Value, json};
use support::{RawPeer, serve, stateless_meta, with_meta};

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
const CONFIG: &str = "file:///project/config.json";
const OTHER: &str = "file:///project/other.json";

fn add_tool(server: &Server, name: &str) {
    server
        .add_tool(Tool::without_arguments(name), |_ctx: Context, _args| {
            std::future::ready(Ok(CallToolResult::text("ok")))
        })
        .unwrap();
}

fn add_prompt(server: &Server, name: &str) {
    server
        .add_prompt(Prompt::new(name), |_ctx: Context, _args| {
            std::future::ready(Ok(GetPromptResult::new(Vec::new())))
        })
        .unwrap();
}

fn add_resource(server: &Server, uri: &str) {
    server
        .add_resource(Resource::new(uri, "a resource"), |_ctx: Context, _uri| {
            std::future::ready(Ok(ReadResourceResult::new(Vec::new())))
        })
        .unwrap();
}

/// A server declaring tools, prompts and resources (with `listChanged` and
/// `subscribe`), holding two resources.
fn full_server() -> Server {
    let server = Server::builder("listen", "1.0.0")
        .enable_tools()
        .enable_prompts()
        .enable_resources()
        .build()
        .unwrap();
    add_resource(&server, CONFIG);
    add_resource(&server, OTHER);
    server
}

/// Sends `subscriptions/listen` with `filter` as request `id` and returns
/// its acknowledgement, which must be the first message of the subscription.
async fn listen(peer: &mut RawPeer, id: i64, filter: Value) -> Value {
    let params = with_meta(json!({"notifications": filter}), &stateless_meta(json!({})));
    peer.send_request(id, "subscriptions/listen", params).await;
    let ack = peer.recv().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], json!(id), "{ack}");
    ack
}

/// Returns once the server has read everything sent so far: a stateless
/// `tools/list` is answered after what came before it; the messages that
/// arrived first are returned.
async fn settle(peer: &mut RawPeer, id: i64) -> Vec<Value> {
    let params = with_meta(json!({}), &stateless_meta(json!({})));
    let exchange = peer.exchange(id, "tools/list", params).await;
    assert!(exchange.response.get("result").is_some(), "{exchange:?}");
    exchange.before
}

fn assert_tagged(message: &Value, method: &str, id: i64) {
    assert_eq!(message["method"], method, "{message}");
    assert!(message.get("id").is_none(), "{message}");
    assert_eq!(
        message["params"]["_meta"][SUBSCRIPTION_ID],
        json!(id),
        "{message}"
    );
}

#[tokio::test]
async fn listen_is_acknowledged_first_with_the_requested_filter() {
    let server = full_server();
    let (mut peer, _task) = serve(&server);
    let filter = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
        "resourceSubscriptions": [CONFIG]
    });
    let ack = listen(&mut peer, 7, filter.clone()).await;
    assert_eq!(ack["params"]["notifications"], filter);
    // Held open: no answer to the listen request.
    assert!(settle(&mut peer, 8).await.is_empty());
}

#[tokio::test]
async fn acknowledgement_omits_what_the_server_did_not_declare() {
    let server = Server::builder("tools-only", "1.0.0")
        .enable_tools()
        .build()
        .unwrap();
    let (mut peer, _task) = serve(&server);
    let filter = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
        "resourceSubscriptions": [CONFIG]
    });
    let ack = listen(&mut peer, 1, filter).await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
}

#[tokio::test]
async fn catalog_changes_arrive_tagged_with_the_subscription_id() {
    let server = full_server();
    let (mut peer, _task) = serve(&server);
    let filter = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
        "resourceSubscriptions": [CONFIG]
    });
    listen(&mut peer, 3, filter).await;

    add_tool(&server, "added");
    assert_tagged(&peer.recv().await, "notifications/tools/list_changed", 3);
    add_prompt(&server, "greeting");
    assert_tagged(&peer.recv().await, "notifications/prompts/list_changed", 3);
    add_resource(&server, "file:///project/new.json");
    assert_tagged(
        &peer.recv().await,
        "notifications/resources/list_changed",
        3,
    );
    server.resource_updated(CONFIG);
    let updated = peer.recv().await;
    assert_tagged(&updated, "notifications/resources/updated", 3);
    assert_eq!(updated["params"]["uri"], CONFIG);
}

#[tokio::test]
async fn only_the_changes_the_filter_asks_for_are_sent() {
    let server = full_server();
    let (mut peer, _task) = serve(&server);
    let filter = json!({"promptsListChanged": true, "resourceSubscriptions": [CONFIG]});
    listen(&mut peer, 4, filter).await;

    add_tool(&server, "ignored");
    add_resource(&server, "file:///project/ignored.json");
    server.resource_updated(OTHER);
    add_prompt(&server, "wanted");
    server.resource_updated(CONFIG);

    let first = peer.recv().await;
    assert_tagged(&first, "notifications/prompts/list_changed", 4);
    let second = peer.recv().await;
    assert_tagged(&second, "notifications/resources/updated", 4);
    assert_eq!(second["params"]["uri"], CONFIG);
    assert!(settle(&mut peer, 5).await.is_empty());
}

#[tokio::test]
async fn each_subscription_gets_its_own_tagged_copy() {
    let server = full_server();
    let (mut peer, _task) = serve(&server);
    listen(&mut peer, 1, json!({"toolsListChanged": true})).await;
    listen(&mut peer, 2, json!({"toolsListChanged": true})).await;

    add_tool(&server, "added");
    let mut tags: Vec<Value> = Vec::new();
    for _ in 0..2 {
        let message = peer.recv().await;
        assert_eq!(message["method"], "notifications/tools/list_changed");
        tags.push(message["params"]["_meta"][SUBSCRIPTION_ID].clone());
    }
    tags.sort_by_key(Value::to_string);
    assert_eq!(tags, [json!(1), json!(2)]);
}

#[tokio::test]
async fn cancelling_a_subscription_stops_it_without_an_answer() {
    let server = full_server();
    let (mut peer, _task) = serve(&server);
    listen(&mut peer, 9, json!({"toolsListChanged": true})).await;
    let cancel = with_meta(json!({"requestId": 9}), &stateless_meta(json!({})));
    peer.notify("notifications/cancelled", cancel).await;
    assert!(settle(&mut peer, 10).await.is_empty());

    add_tool(&server, "after-cancel");
    // Nothing on the cancelled subscription, and no answer to it.
    assert!(settle(&mut peer, 11).await.is_empty());
    peer.expect_silence().await;
}

#[tokio::test]
async fn the_end_of_the_session_ends_subscriptions_with_a_completion_result() {
    let server = full_server();
    let (mut peer, task) = serve(&server);
    listen(&mut peer, 12, json!({"toolsListChanged": true})).await;
    peer.close().await;

    let end = peer.recv().await;
    assert_eq!(end["id"], 12, "{end}");
    assert_eq!(end["result"]["resultType"], "complete", "{end}");
    assert_eq!(end["result"]["_meta"][SUBSCRIPTION_ID], 12, "{end}");
    assert!(peer.next().await.is_none());
    task.await.unwrap().unwrap();
}

/// A listen request naming more resources than `Limits::max_subscriptions`
/// (or the same one many times) is honored for the first distinct URIs up
/// to the limit, and the acknowledgement says so: what one request makes
/// the session keep, and fan out on a missed change, stays bounded.
#[tokio::test]
async fn listen_honors_at_most_max_subscriptions_distinct_resource_uris() {
    let mut limits = mcpwire_session::Limits::default();
    limits.max_subscriptions = 3;
    let server = Server::builder("listen", "1.0.0")
        .enable_resources()
        .limits(limits)
        .build()
        .unwrap();
    let (mut peer, _task) = serve(&server);
    let mut uris = vec![CONFIG.to_owned(), CONFIG.to_owned()];
    uris.extend((0..1000).map(|n| format!("file:///project/{n}.json")));
    let ack = listen(&mut peer, 1, json!({"resourceSubscriptions": uris})).await;
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!([CONFIG, "file:///project/0.json", "file:///project/1.json"])
    );
}
