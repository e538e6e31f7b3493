//! Capability gating both ways (LIFE-14): what a peer did not declare is
//! neither served nor sent.

use std::time::Instant;

use crate::support::*;
use mcpwire_session::{RequestOptions, SendError};
use mcpwire_types::methods::{ServerNotification, ServerRequest};
use mcpwire_types::{LoggingLevel, LoggingMessageNotificationParams, ProtocolVersion};
use serde_json::{Value, json};

fn sampling(with_tools: bool) -> ServerRequest {
    let mut params = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}],
        "maxTokens": 10,
    });
    if with_tools {
        params["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    }
    server_request("sampling/createMessage", params)
}

fn form_elicitation() -> ServerRequest {
    server_request(
        "elicitation/create",
        json!({"message": "name?", "requestedSchema": {"type": "object", "properties": {}}}),
    )
}

fn url_elicitation() -> ServerRequest {
    server_request(
        "elicitation/create",
        json!({
            "mode": "url",
            "message": "sign in",
            "url": "https://example.com/login",
            "elicitationId": "e1",
        }),
    )
}

fn list_changed(method: &str) -> ServerNotification {
    ServerNotification::decode(method, Some(&raw(&json!({})))).unwrap()
}

/// A server whose 2025-11-25 client declared `client_capabilities`.
fn established(
    server_capabilities: Value,
    client_capabilities: Value,
) -> mcpwire_session::ServerSession {
    let mut server = server(server_capabilities);
    initialize(
        &mut server,
        "2025-11-25",
        client_capabilities,
        Instant::now(),
    );
    server
}

// LIFE-14: a request for a capability the server did not declare is an
// unknown method, in either era, and never reaches the runtime.
#[test]
fn requests_for_undeclared_server_capabilities_are_method_not_found() {
    let now = Instant::now();
    let mut server = established(json!({"prompts": {}}), json!({}));
    let calls = [
        request(1, "tools/call", json!({"name": "echo"})),
        request(2, "tools/list", json!({})),
        request(3, "resources/read", json!({"uri": "file:///a"})),
        request(4, "logging/setLevel", json!({"level": "info"})),
        stateless_request(5, "tools/call", json!({"name": "echo"})),
    ];
    for call in calls {
        feed(&mut server, &call, now);
        let answer = sent_one(&mut server);
        assert_eq!(answer["id"], call["id"]);
        assert_eq!(error_code(&answer), -32601, "{call:#}");
    }
    assert!(events(&mut server).is_empty());
}

// LIFE-14, RES-03: subscribing needs `resources.subscribe`, not just `resources`.
#[test]
fn subscribing_needs_the_subscribe_capability() {
    let now = Instant::now();
    let mut server = established(json!({"resources": {}}), json!({}));
    feed(
        &mut server,
        &request(1, "resources/subscribe", json!({"uri": "file:///a"})),
        now,
    );
    assert_eq!(error_code(&sent_one(&mut server)), -32601);
    feed(
        &mut server,
        &request(2, "resources/read", json!({"uri": "file:///a"})),
        now,
    );
    assert_eq!(only_requests(events(&mut server)).len(), 1);
}

// LIFE-14 (SAMP, ELIC, ROOTS): the server cannot send sampling, elicitation
// or roots requests to a client that did not declare them.
#[test]
fn the_server_cannot_send_requests_the_client_did_not_declare() {
    let now = Instant::now();
    let options = RequestOptions::default();
    let mut bare = established(json!({}), json!({}));
    let refused = [
        (sampling(false), "sampling"),
        (form_elicitation(), "elicitation.form"),
        (url_elicitation(), "elicitation.url"),
        (server_request("roots/list", json!({})), "roots"),
    ];
    for (request, capability) in refused {
        let method = request.method();
        assert_eq!(
            bare.send_request(request, options, None, now),
            Err(SendError::PeerLacksCapability { method, capability })
        );
    }
    assert!(sent(&mut bare).is_empty());
    assert_eq!(bare.requests_awaiting_answers(), 0);

    let mut capable = established(
        json!({}),
        json!({"sampling": {}, "elicitation": {}, "roots": {}}),
    );
    for request in [
        sampling(false),
        form_elicitation(),
        server_request("roots/list", json!({})),
    ] {
        capable.send_request(request, options, None, now).unwrap();
    }
    assert_eq!(sent(&mut capable).len(), 3);
    // `elicitation: {}` means form mode only (2025-11-25 elicitation page).
    assert_eq!(
        capable.send_request(url_elicitation(), options, None, now),
        Err(SendError::PeerLacksCapability {
            method: "elicitation/create",
            capability: "elicitation.url",
        })
    );
}

// SAMP (2025-11-25 sampling with tools): tools in a sampling request need
// `sampling.tools`.
#[test]
fn sampling_with_tools_needs_the_sampling_tools_capability() {
    let now = Instant::now();
    let options = RequestOptions::default();
    let mut plain = established(json!({}), json!({"sampling": {}}));
    assert_eq!(
        plain.send_request(sampling(true), options, None, now),
        Err(SendError::PeerLacksCapability {
            method: "sampling/createMessage",
            capability: "sampling.tools",
        })
    );
    let mut tooled = established(json!({}), json!({"sampling": {"tools": {}}}));
    assert!(
        tooled
            .send_request(sampling(true), options, None, now)
            .is_ok()
    );
}

// LIFE-14: a method outside the negotiated revision is not sent
// (elicitation arrived in 2025-06-18).
#[test]
fn requests_outside_the_negotiated_revision_are_not_sent() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-03-26", json!({"elicitation": {}}), now);
    assert_eq!(
        server.send_request(form_elicitation(), RequestOptions::default(), None, now),
        Err(SendError::NotInRevision {
            method: "elicitation/create",
            version: ProtocolVersion::V2025_03_26,
        })
    );
}

// LIFE-14 (TOOL, RES, PROMPT list-changed): a list-changed notification
// needs `listChanged` declared by the server itself.
#[test]
fn list_changed_needs_list_changed_declared() {
    let cases = [
        (
            "notifications/tools/list_changed",
            "tools",
            "tools.listChanged",
        ),
        (
            "notifications/prompts/list_changed",
            "prompts",
            "prompts.listChanged",
        ),
        (
            "notifications/resources/list_changed",
            "resources",
            "resources.listChanged",
        ),
    ];
    for (method, capability, dotted) in cases {
        let mut without = established(json!({capability: {}}), json!({}));
        assert_eq!(
            without.notify(list_changed(method), None),
            Err(SendError::OwnCapabilityMissing {
                method,
                capability: dotted
            })
        );
        assert!(sent(&mut without).is_empty());

        let mut with = established(json!({capability: {"listChanged": true}}), json!({}));
        with.notify(list_changed(method), None).unwrap();
        assert_eq!(
            sent_one(&mut with),
            json!({"jsonrpc": "2.0", "method": method, "params": {}})
        );
    }
}

// LOG (2025-11-25 logging page): a server that did not declare `logging`
// sends no log messages.
#[test]
fn log_messages_need_the_logging_capability() {
    let now = Instant::now();
    let mut server = established(json!({}), json!({}));
    let message = LoggingMessageNotificationParams::new(LoggingLevel::Error, "x");
    assert_eq!(
        server.log(message, None, now),
        Err(SendError::OwnCapabilityMissing {
            method: "notifications/message",
            capability: "logging",
        })
    );
    assert!(sent(&mut server).is_empty());
}

// LIFE-14: the client refuses to call tools on a server without `tools`,
// in either era.
#[test]
fn a_client_cannot_call_tools_on_a_server_without_tools() {
    for pinned in [ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28] {
        let now = Instant::now();
        let mut server = server(json!({"prompts": {}}));
        let mut client = client_with(client_config(json!({})).pinned(pinned), now);
        connect(&mut client, &mut server, now);
        let call = client_request("tools/call", json!({"name": "echo"}));
        assert_eq!(
            client.send_request(call, RequestOptions::default(), now),
            Err(SendError::PeerLacksCapability {
                method: "tools/call",
                capability: "tools"
            })
        );
        assert!(sent(&mut client).is_empty());
        let prompts = client_request("prompts/list", json!({}));
        assert!(
            client
                .send_request(prompts, RequestOptions::default(), now)
                .is_ok()
        );
    }
}

// LIFE-14: the client answers a server request for a capability it did not
// declare with -32601 and does not hand it to its runtime.
#[test]
fn the_client_refuses_server_requests_it_did_not_declare() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let mut client = client_with(
        client_config(json!({})).pinned(ProtocolVersion::V2025_06_18),
        now,
    );
    connect(&mut client, &mut server, now);
    let sampling = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 5,
    });
    feed(
        &mut client,
        &request(40, "sampling/createMessage", sampling),
        now,
    );
    feed(&mut client, &request(41, "roots/list", json!({})), now);
    let answers = sent(&mut client);
    assert_eq!(answers.len(), 2);
    assert_eq!(
        (answers[0]["id"].clone(), error_code(&answers[0])),
        (json!(40), -32601)
    );
    assert_eq!(
        (answers[1]["id"].clone(), error_code(&answers[1])),
        (json!(41), -32601)
    );
    assert!(events(&mut client).is_empty());
}

// ELIC-09, SAMP-05: a client that declared a capability but not the mode
// or feature a request uses (URL elicitation with `elicitation: {}`, tools
// in sampling without `sampling.tools`) answers -32602 instead of handling it.
#[test]
fn the_client_refuses_undeclared_elicitation_modes_and_sampling_tools() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let capabilities = json!({"elicitation": {}, "sampling": {}});
    let mut client = client_with(
        client_config(capabilities).pinned(ProtocolVersion::V2025_11_25),
        now,
    );
    connect(&mut client, &mut server, now);
    let url = json!({
        "mode": "url",
        "message": "sign in",
        "url": "https://example.com/login",
        "elicitationId": "e1",
    });
    feed(&mut client, &request(50, "elicitation/create", url), now);
    let tools = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 5,
        "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
    });
    feed(
        &mut client,
        &request(51, "sampling/createMessage", tools),
        now,
    );
    let answers = sent(&mut client);
    assert_eq!(answers.len(), 2, "{answers:#?}");
    assert_eq!(
        (answers[0]["id"].clone(), error_code(&answers[0])),
        (json!(50), -32602)
    );
    assert_eq!(
        (answers[1]["id"].clone(), error_code(&answers[1])),
        (json!(51), -32602)
    );
    assert!(events(&mut client).is_empty());

    // The declared form mode is handed to the runtime.
    let form = json!({"message": "name?", "requestedSchema": {"type": "object", "properties": {}}});
    feed(&mut client, &request(52, "elicitation/create", form), now);
    assert_eq!(only_requests(events(&mut client)).len(), 1);
}
