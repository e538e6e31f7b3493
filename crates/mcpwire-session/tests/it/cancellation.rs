//! Cancellation both ways: `notifications/cancelled` in and out, dropped
//! answers, ignored strays, and `initialize`, which is never cancelled.

use std::time::Instant;

use crate::support::*;
use mcpwire_session::{Event, RequestOptions};
use mcpwire_types::ProtocolVersion;
use mcpwire_types::methods::ServerRequest;
use serde_json::{Value, json};

fn cancelled(request_id: impl Into<Value>, reason: &str) -> Value {
    notification(
        "notifications/cancelled",
        json!({"requestId": request_id.into(), "reason": reason}),
    )
}

// CANCEL-05, CANCEL-08: after `notifications/cancelled` the runtime is told
// (with the reason) and the handler's answer is dropped.
#[test]
fn a_cancelled_request_gets_no_response() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    feed(
        &mut server,
        &request(5, "tools/call", json!({"name": "slow"})),
        now,
    );
    let incoming = only_request(events(&mut server));
    feed(&mut server, &cancelled(5, "user pressed stop"), now);
    assert_eq!(
        events(&mut server),
        [Event::Cancelled {
            id: id(5),
            reason: Some("user pressed stop".to_owned())
        }]
    );
    assert!(!server.is_active(&incoming.id));
    assert_eq!(
        server.respond(&incoming.id, Ok(tool_result("too late"))),
        Ok(())
    );
    assert!(sent(&mut server).is_empty());
    assert_eq!(server.requests_in_flight(), 0);
}

// CANCEL-05 for stateless requests: cancellation works the same in 2026-07-28.
#[test]
fn a_cancelled_stateless_request_gets_no_response() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    feed(
        &mut server,
        &stateless_request("s1", "tools/call", json!({"name": "slow"})),
        now,
    );
    let incoming = only_request(events(&mut server));
    let mut cancel = cancelled("s1", "gone");
    cancel["params"]["_meta"] = stateless_meta(json!({}));
    feed(&mut server, &cancel, now);
    assert_eq!(events(&mut server).len(), 1);
    server
        .respond(&incoming.id, Ok(tool_result("late")))
        .unwrap();
    assert!(sent(&mut server).is_empty());
}

// CANCEL-07, CANCEL-09: cancelling an unknown, finished or already
// cancelled request, or a malformed cancellation, is silently ignored.
#[test]
fn stray_cancellations_are_ignored() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-11-25", json!({}), now);
    feed(
        &mut server,
        &request(1, "tools/call", json!({"name": "t"})),
        now,
    );
    let incoming = only_request(events(&mut server));
    server
        .respond(&incoming.id, Ok(tool_result("done")))
        .unwrap();
    sent(&mut server);
    feed(
        &mut server,
        &request(2, "tools/call", json!({"name": "t"})),
        now,
    );
    events(&mut server);
    feed(&mut server, &cancelled(2, "first"), now);
    assert_eq!(events(&mut server).len(), 1);

    let strays = [
        cancelled(99, "never sent"),
        cancelled(1, "already answered"),
        cancelled(2, "already cancelled"),
        notification("notifications/cancelled", json!({"requestId": null})),
        notification("notifications/cancelled", json!({"reason": "no id"})),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
    ];
    for stray in strays {
        feed(&mut server, &stray, now);
        assert!(events(&mut server).is_empty(), "{stray:#}");
        assert!(sent(&mut server).is_empty(), "{stray:#}");
    }
}

// CANCEL-02: the client never cancels `initialize`, neither on request nor
// on timeout, and keeps waiting for its answer.
#[test]
fn the_client_never_cancels_initialize() {
    let now = Instant::now();
    let config = client_config(json!({})).pinned(ProtocolVersion::V2025_06_18);
    let mut client = client_with(config, now);
    let init = sent_one(&mut client);
    assert_eq!(init["method"], "initialize");
    let init_id = mcpwire_jsonrpc::RequestId::Number(init["id"].as_i64().unwrap());
    assert!(!client.cancel(&init_id, Some("impatient".to_owned())));
    assert!(
        sent(&mut client).is_empty(),
        "no notifications/cancelled for initialize"
    );

    // The answer still establishes the session.
    let answer = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "serverInfo": {"name": "s", "version": "1"},
    });
    feed(&mut client, &response(init["id"].clone(), answer), now);
    assert!(matches!(
        events(&mut client).as_slice(),
        [Event::Established(_)]
    ));
    assert_eq!(sent_one(&mut client)["method"], "notifications/initialized");
}

// CANCEL-02 (server side): a client naming its `initialize` in a
// cancellation changes nothing: the answer was already sent.
#[test]
fn a_cancellation_naming_initialize_is_ignored() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let params = initialize_params("2025-06-18", json!({}));
    feed(&mut server, &request(0, "initialize", params), now);
    feed(&mut server, &cancelled(0, "oops"), now);
    let packets = sent(&mut server);
    assert_eq!(packets.len(), 1);
    assert_eq!(packets[0]["result"]["protocolVersion"], "2025-06-18");
    assert!(events(&mut server).is_empty());
    assert!(server.client().is_some());
}

// CANCEL-01, CANCEL-04, CANCEL-06: cancelling our own request sends
// `notifications/cancelled` with its id and reason, and a late response is
// dropped.
#[test]
fn a_late_response_to_a_request_we_cancelled_is_dropped() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-06-18", json!({"roots": {}}), now);
    let roots = ServerRequest::decode("roots/list", None).unwrap();
    let sent_id = server
        .send_request(roots, RequestOptions::default(), None, now)
        .unwrap();
    sent(&mut server);
    assert!(server.cancel(&sent_id, Some("no longer needed".to_owned())));
    let n = sent_id.as_number().unwrap();
    assert_eq!(sent_one(&mut server), cancelled(n, "no longer needed"));
    assert!(!server.cancel(&sent_id, None), "cancelled once");
    assert!(sent(&mut server).is_empty());

    feed(&mut server, &response(n, json!({"roots": []})), now);
    assert!(events(&mut server).is_empty());
    assert!(sent(&mut server).is_empty());
}

// CANCEL-05, CANCEL-06 end to end: the client cancels, the server's runtime
// hears of it, its answer is dropped, and the client gets no event.
#[test]
fn cancellation_from_client_to_server_in_memory() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let mut client = client_with(client_config(json!({})), now);
    connect(&mut client, &mut server, now);
    let call = client_request("tools/call", json!({"name": "slow"}));
    let call_id = client
        .send_request(call, RequestOptions::default(), now)
        .unwrap();
    pump(&mut client, &mut server, now);
    let incoming = only_request(events(&mut server));
    assert!(client.cancel(&call_id, Some("stop".to_owned())));
    pump(&mut client, &mut server, now);
    assert_eq!(
        events(&mut server),
        [Event::Cancelled {
            id: incoming.id.clone(),
            reason: Some("stop".to_owned())
        }]
    );
    server
        .respond(&incoming.id, Ok(tool_result("late")))
        .unwrap();
    assert_eq!(pump(&mut client, &mut server, now), 0);
    assert!(events(&mut client).is_empty());
}

// CANCEL-05 from server to client: the client's runtime hears of it and its
// answer to the server's request is dropped.
#[test]
fn cancellation_from_server_to_client_in_memory() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let config = client_config(json!({"roots": {}})).pinned(ProtocolVersion::V2025_11_25);
    let mut client = client_with(config, now);
    connect(&mut client, &mut server, now);
    let roots = ServerRequest::decode("roots/list", None).unwrap();
    let roots_id = server
        .send_request(roots, RequestOptions::default(), None, now)
        .unwrap();
    pump(&mut client, &mut server, now);
    let incoming = only_request(events(&mut client));
    server.cancel(&roots_id, None);
    pump(&mut client, &mut server, now);
    assert_eq!(
        events(&mut client),
        [Event::Cancelled {
            id: incoming.id.clone(),
            reason: None
        }]
    );
    client.respond(&incoming.id, Ok(roots_result())).unwrap();
    assert_eq!(pump(&mut client, &mut server, now), 0);
    assert!(events(&mut server).is_empty());
}
