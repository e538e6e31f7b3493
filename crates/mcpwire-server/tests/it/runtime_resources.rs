//! Runtime tests of resources over the wire: reads of listed resources and
//! templates, not-found codes per revision, and per-session subscriptions
//! (RES-*, the 2026-07-28 changelog).

use crate::support;

#[path = "runtime_resources/skills.rs"]
mod skills;

use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::{Value, json};
use support::{RawPeer, serve, stateless_meta, with_meta};

const NOTES: &str = "file:///notes.txt";
const TODO: &str = "file:///todo.txt";
const USER_TEMPLATE: &str = "users://{id}/notes/{note}";

fn text(uri: &str, text: &str) -> ReadResourceResult {
    ReadResourceResult::new(vec![ResourceContents::text(uri, "text/plain", text)])
}

fn resource_server() -> Server {
    Server::builder("resources", "1.0.0")
        .resource(
            Resource::new(NOTES, "notes"),
            |_ctx: Context, uri| async move { Ok(text(&uri, "buy milk")) },
        )
        .resource(
            Resource::new(TODO, "todo"),
            |_ctx: Context, uri| async move { Ok(text(&uri, "nothing")) },
        )
        .resource(
            Resource::new("file:///gone.txt", "gone"),
            |_ctx: Context, uri| async move { Err(HandlerError::NotFound(uri)) },
        )
        .resource_template(
            ResourceTemplate::new(USER_TEMPLATE, "a user's note"),
            |_ctx: Context, uri, vars| async move {
                let rendered = format!("user {} note {}", vars["id"], vars["note"]);
                Ok(text(&uri, &rendered))
            },
        )
        .build()
        .unwrap()
}

async fn initialized(server: &Server, version: &str) -> RawPeer {
    let (mut peer, _task) = serve(server);
    peer.initialize(version, json!({})).await;
    peer
}

fn read(uri: &str) -> Value {
    json!({"uri": uri})
}

#[tokio::test]
async fn listed_resources_and_templates_are_listed_in_registration_order() {
    let server = resource_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let result = peer.result(1, "resources/list", json!({})).await;
    let uris: Vec<&str> = result["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, [NOTES, TODO, "file:///gone.txt"]);
    let result = peer.result(2, "resources/templates/list", json!({})).await;
    assert_eq!(result["resourceTemplates"][0]["uriTemplate"], USER_TEMPLATE);
}

#[tokio::test]
async fn a_listed_resource_is_read_by_its_handler() {
    let server = resource_server();
    let mut peer = initialized(&server, "2025-11-25").await;
    let result = peer.result(1, "resources/read", read(NOTES)).await;
    assert_eq!(
        result["contents"],
        json!([{"uri": NOTES, "mimeType": "text/plain", "text": "buy milk"}])
    );
}

/// RES-04: a URI matching a template reaches its handler with the variables.
#[tokio::test]
async fn a_uri_matching_a_template_is_read_with_its_variables() {
    let server = resource_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let uri = "users://42/notes/shopping";
    let result = peer.result(1, "resources/read", read(uri)).await;
    assert_eq!(result["contents"][0]["uri"], uri);
    assert_eq!(result["contents"][0]["text"], "user 42 note shopping");
}

/// RES-09: -32002 with the URI in `data` in the handshake revisions; the
/// 2026-07-28 changelog (item 6) makes it -32602.
#[tokio::test]
async fn an_unknown_uri_is_32002_in_handshake_revisions_and_32602_in_2026_07_28() {
    let server = resource_server();
    let unknown = "file:///nowhere.txt";
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut peer = initialized(&server, version).await;
        let error = peer.error(1, "resources/read", read(unknown)).await;
        assert_eq!(error["code"], -32002, "{version}: {error}");
        assert_eq!(error["data"]["uri"], unknown, "{version}: {error}");
    }
    let (mut peer, _task) = serve(&server);
    let params = with_meta(read(unknown), &stateless_meta(json!({})));
    let error = peer.error(1, "resources/read", params).await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(error["data"]["uri"], unknown, "{error}");
}

#[tokio::test]
async fn a_resource_handler_reporting_not_found_gets_the_revisions_code() {
    let server = resource_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let error = peer
        .error(1, "resources/read", read("file:///gone.txt"))
        .await;
    assert_eq!(error["code"], -32002, "{error}");
    let (mut stateless, _task) = serve(&server);
    let params = with_meta(read("file:///gone.txt"), &stateless_meta(json!({})));
    let error = stateless.error(1, "resources/read", params).await;
    assert_eq!(error["code"], -32602, "{error}");
}

async fn expect_updated(peer: &mut RawPeer, uri: &str) {
    let message = peer.recv().await;
    assert_eq!(
        message,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
    );
}

/// RES-03: updates go only to sessions subscribed to that URI, and stop
/// after `resources/unsubscribe`.
#[tokio::test]
async fn resource_updates_reach_only_the_sessions_subscribed_to_the_uri() {
    let server = resource_server();
    let mut subscribed = initialized(&server, "2025-06-18").await;
    let mut bystander = initialized(&server, "2025-11-25").await;
    let result = subscribed
        .result(1, "resources/subscribe", read(NOTES))
        .await;
    assert_eq!(result, json!({}));

    server.resource_updated(NOTES);
    expect_updated(&mut subscribed, NOTES).await;
    bystander.expect_silence().await;

    // Another URI is nobody's business.
    server.resource_updated(TODO);
    subscribed.expect_silence().await;

    subscribed
        .result(2, "resources/unsubscribe", read(NOTES))
        .await;
    server.resource_updated(NOTES);
    subscribed.expect_silence().await;
    bystander.expect_silence().await;
}

#[tokio::test]
async fn a_uri_matching_a_template_can_be_subscribed_to() {
    let server = resource_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let uri = "users://7/notes/diary";
    peer.result(1, "resources/subscribe", read(uri)).await;
    server.resource_updated(uri);
    expect_updated(&mut peer, uri).await;
}

#[tokio::test]
async fn subscribing_to_an_unknown_uri_is_refused_as_not_found() {
    let server = resource_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    let error = peer
        .error(1, "resources/subscribe", read("file:///nowhere.txt"))
        .await;
    assert_eq!(error["code"], -32002, "{error}");
    assert_eq!(error["data"]["uri"], "file:///nowhere.txt");
    server.resource_updated("file:///nowhere.txt");
    peer.expect_silence().await;
}

/// 2026-07-28 has no `resources/subscribe` (the changelog moves updates to
/// `subscriptions/listen`): a stateless subscribe is an unknown method.
#[tokio::test]
async fn a_stateless_subscribe_is_method_not_found() {
    let server = resource_server();
    let (mut peer, _task) = serve(&server);
    let params = with_meta(read(NOTES), &stateless_meta(json!({})));
    let error = peer.error(1, "resources/subscribe", params).await;
    assert_eq!(error["code"], -32601, "{error}");
}

/// A session that falls behind on the server's announcements (more than
/// the channel holds pile up before it runs) must not lose the update of
/// a resource it subscribed to: the client would keep showing stale data.
#[tokio::test]
async fn an_update_is_not_lost_when_the_session_falls_behind_on_announcements() {
    let server = resource_server();
    let mut peer = initialized(&server, "2025-06-18").await;
    peer.result(1, "resources/subscribe", read(NOTES)).await;

    // On this single-threaded runtime the session's task cannot run between
    // these calls, so the announcements pile up beyond what it can keep.
    server.resource_updated(NOTES);
    for i in 0..200 {
        server.resource_updated(format!("file:///other/{i}"));
    }

    let mut heard = false;
    while let Some(message) = peer.recv_within(support::QUIET).await {
        if message["method"] == "notifications/resources/updated" {
            assert_eq!(message["params"]["uri"], NOTES, "{message}");
            heard = true;
        }
    }
    assert!(heard, "the update of {NOTES} was lost");
}
