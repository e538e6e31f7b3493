//! The in-flight tables: ids never reused, duplicates and excess refused,
//! and a thousand requests each way between two sessions in memory.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use crate::support::*;
use mcpwire_jsonrpc::RequestId;
use mcpwire_session::{Event, Limits, RequestOptions, SendError, ServerSession};
use mcpwire_types::ProtocolVersion;
use mcpwire_types::methods::{ClientResult, ServerRequest, ServerResult};
use serde_json::json;

// BASE-05: a sender never reuses a request id in a session, whether or not
// the earlier request was answered.
#[test]
fn request_ids_are_never_reused() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let mut client = client_with(client_config(json!({})), now);
    connect(&mut client, &mut server, now);
    let mut ids = HashSet::new();
    for round in 0..2 {
        for _ in 0..500 {
            let list = client_request("tools/list", json!({}));
            let id = client
                .send_request(list, RequestOptions::default(), now)
                .unwrap();
            assert!(ids.insert(id.clone()), "id {id} reused in round {round}");
        }
        // Answer everything between the rounds, so freed ids could be reused.
        pump(&mut client, &mut server, now);
        for incoming in only_requests(events(&mut server)) {
            let result = ServerResult::decode("tools/list", &raw(&json!({"tools": []}))).unwrap();
            server.respond(&incoming.id, Ok(result)).unwrap();
        }
        pump(&mut client, &mut server, now);
        assert_eq!(client.requests_awaiting_answers(), 0);
    }
    assert_eq!(ids.len(), 1000);
}

// BASE-05 (receiver side): a request reusing the id of one still in flight
// is refused, and the first one is not disturbed.
#[test]
fn a_duplicate_id_of_a_request_in_flight_is_refused() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    let call = request(7, "tools/call", json!({"name": "slow"}));
    feed(&mut server, &call, now);
    let first = only_request(events(&mut server));
    feed(&mut server, &call, now);
    let refused = sent_one(&mut server);
    assert_eq!(refused["id"], 7);
    assert_eq!(error_code(&refused), -32600);
    assert!(events(&mut server).is_empty());
    assert!(server.is_active(&first.id));

    server.respond(&first.id, Ok(tool_result("done"))).unwrap();
    let answer = sent_one(&mut server);
    assert_eq!(answer["result"]["content"][0]["text"], "done");
    assert_eq!(
        server.respond(&first.id, Ok(tool_result("again"))),
        Err(SendError::UnknownRequest),
        "a request is answered once"
    );
}

// The in-flight limit (Limits::max_inbound_in_flight) answers the excess
// with an error instead of queueing it; room frees up as requests finish.
#[test]
fn the_in_flight_limit_answers_the_excess_with_an_error() {
    let now = Instant::now();
    let mut limits = Limits::default();
    limits.max_inbound_in_flight = 2;
    let mut server = server_with(server_config(json!({"tools": {}})).with_limits(limits));
    initialize(&mut server, "2025-11-25", json!({}), now);
    for n in 1..=3 {
        feed(
            &mut server,
            &request(n, "tools/call", json!({"name": "t"})),
            now,
        );
    }
    let admitted = only_requests(events(&mut server));
    assert_eq!(admitted.len(), 2);
    let excess = sent_one(&mut server);
    assert_eq!(excess["id"], 3);
    assert_eq!(error_code(&excess), -32603);
    assert_eq!(server.requests_in_flight(), 2);

    server
        .respond(&admitted[0].id, Ok(tool_result("ok")))
        .unwrap();
    sent(&mut server);
    feed(
        &mut server,
        &request(4, "tools/call", json!({"name": "t"})),
        now,
    );
    assert_eq!(only_request(events(&mut server)).id, id(4));
}

/// A `tools/call` request `id` whose arguments carry `len` bytes of text.
fn call_with_text(id: i64, len: usize) -> serde_json::Value {
    let arguments = json!({"text": "x".repeat(len)});
    request(
        id,
        "tools/call",
        json!({"name": "t", "arguments": arguments}),
    )
}

// The byte limit (Limits::max_inbound_bytes_in_flight) answers a request
// whose params would pass it with an error, as the count limit does; a
// request alone is always taken, and room frees up as requests finish.
#[test]
fn the_in_flight_byte_limit_answers_the_excess_with_an_error() {
    let now = Instant::now();
    let mut limits = Limits::default();
    limits.max_inbound_bytes_in_flight = 1_000;
    let mut server = server_with(server_config(json!({"tools": {}})).with_limits(limits));
    initialize(&mut server, "2025-11-25", json!({}), now);
    // Alone, a request larger than the limit is taken.
    feed(&mut server, &call_with_text(1, 1_500), now);
    let alone = only_request(events(&mut server));
    feed(&mut server, &call_with_text(2, 100), now);
    let excess = sent_one(&mut server);
    assert_eq!(excess["id"], 2);
    assert_eq!(error_code(&excess), -32603);
    assert!(
        excess["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("bytes")),
        "{excess}"
    );

    server.respond(&alone.id, Ok(tool_result("ok"))).unwrap();
    sent(&mut server);
    // Small requests fit together; the one that would pass the limit does not.
    for n in 3..=5 {
        feed(&mut server, &call_with_text(n, 300), now);
    }
    let admitted = only_requests(events(&mut server));
    assert_eq!(admitted.len(), 2);
    let excess = sent_one(&mut server);
    assert_eq!(excess["id"], 5);
    assert_eq!(error_code(&excess), -32603);

    for incoming in &admitted {
        server.respond(&incoming.id, Ok(tool_result("ok"))).unwrap();
    }
    sent(&mut server);
    feed(&mut server, &call_with_text(6, 300), now);
    assert_eq!(only_request(events(&mut server)).id, id(6));
}

// The server-wide byte limit (Limits::max_server_inbound_bytes_in_flight)
// holds over all the sessions of one config: one session's requests leave
// less room for another's, and a session that ends gives its bytes back.
#[test]
fn the_server_wide_byte_limit_is_shared_by_its_sessions() {
    let now = Instant::now();
    let mut limits = Limits::default();
    limits.max_server_inbound_bytes_in_flight = 1_000;
    let config = Arc::new(server_config(json!({"tools": {}})).with_limits(limits));
    let mut first = ServerSession::new(Arc::clone(&config));
    let mut second = ServerSession::new(Arc::clone(&config));
    initialize(&mut first, "2025-11-25", json!({}), now);
    initialize(&mut second, "2025-11-25", json!({}), now);

    feed(&mut first, &call_with_text(1, 500), now);
    let held = only_request(events(&mut first));
    assert!(config.inbound_bytes_in_flight() > 500);
    feed(&mut second, &call_with_text(1, 500), now);
    let refused = sent_one(&mut second);
    assert_eq!(error_code(&refused), -32603);
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("the server has")),
        "{refused}"
    );

    first.respond(&held.id, Ok(tool_result("ok"))).unwrap();
    sent(&mut first);
    assert_eq!(config.inbound_bytes_in_flight(), 0);
    feed(&mut second, &call_with_text(2, 500), now);
    assert_eq!(only_request(events(&mut second)).id, id(2));
    // Ending with a request in flight gives its bytes back.
    drop(second);
    assert_eq!(config.inbound_bytes_in_flight(), 0);
    feed(&mut first, &call_with_text(3, 500), now);
    assert_eq!(only_request(events(&mut first)).id, id(3));
}

// The outbound limit (Limits::max_outbound_in_flight) refuses to send more.
#[test]
fn the_outbound_limit_refuses_to_send_more() {
    let now = Instant::now();
    let mut limits = Limits::default();
    limits.max_outbound_in_flight = 3;
    let mut server = server(json!({"tools": {}}));
    let config = client_config(json!({})).with_limits(limits);
    let mut client = client_with(config, now);
    connect(&mut client, &mut server, now);
    for _ in 0..3 {
        let list = client_request("tools/list", json!({}));
        client
            .send_request(list, RequestOptions::default(), now)
            .unwrap();
    }
    let list = client_request("tools/list", json!({}));
    assert_eq!(
        client.send_request(list, RequestOptions::default(), now),
        Err(SendError::TooManyInFlight(3))
    );
}

// BASE-06, BASE-09: answers carry the request's id, string or number, as sent.
#[test]
fn answers_carry_the_id_as_the_peer_sent_it() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    for id in [
        json!("abc"),
        json!(0),
        json!(-5),
        json!(9_007_199_254_740_993_i64),
    ] {
        feed(&mut server, &request(id.clone(), "ping", json!({})), now);
        assert_eq!(sent_one(&mut server), response(id, json!({})));
    }
}

// BASE-14: requests flow both ways at once. A thousand requests each way
// between a client and a server session in memory all complete, answered
// out of order.
#[test]
fn a_thousand_concurrent_requests_each_way_all_complete() {
    const N: usize = 1000;
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let config = client_config(json!({"roots": {}})).pinned(ProtocolVersion::V2025_06_18);
    let mut client = client_with(config, now);
    connect(&mut client, &mut server, now);

    let mut client_sent = HashSet::new();
    let mut server_sent = HashSet::new();
    for n in 0..N {
        let call = client_request("tools/call", json!({"name": "echo", "arguments": {"n": n}}));
        client_sent.insert(
            client
                .send_request(call, RequestOptions::default(), now)
                .unwrap(),
        );
        let roots = ServerRequest::decode("roots/list", None).unwrap();
        server_sent.insert(
            server
                .send_request(roots, RequestOptions::default(), None, now)
                .unwrap(),
        );
    }
    pump(&mut client, &mut server, now);

    // Each runtime answers what it got, last first.
    let for_server = only_requests(events(&mut server));
    let for_client = only_requests(events(&mut client));
    assert_eq!((for_server.len(), for_client.len()), (N, N));
    for incoming in for_server.iter().rev() {
        server
            .respond(&incoming.id, Ok(tool_result("echoed")))
            .unwrap();
    }
    for incoming in for_client.iter().rev() {
        client.respond(&incoming.id, Ok(roots_result())).unwrap();
    }
    pump(&mut client, &mut server, now);

    let client_answers: HashSet<RequestId> = events(&mut client)
        .into_iter()
        .map(|event| match event {
            Event::Response {
                id,
                result: Ok(ServerResult::CallTool(_)),
            } => id,
            other => panic!("expected a tools/call result, got {other:?}"),
        })
        .collect();
    let server_answers: HashSet<RequestId> = events(&mut server)
        .into_iter()
        .map(|event| match event {
            Event::Response {
                id,
                result: Ok(ClientResult::ListRoots(_)),
            } => id,
            other => panic!("expected a roots/list result, got {other:?}"),
        })
        .collect();
    assert_eq!(client_answers, client_sent);
    assert_eq!(server_answers, server_sent);
    assert_eq!(
        client.requests_awaiting_answers() + client.requests_in_flight(),
        0
    );
    assert_eq!(
        server.requests_awaiting_answers() + server.requests_in_flight(),
        0
    );
}

// CANCEL-06: a response to an id we never sent is dropped without an event.
#[test]
fn answers_to_unknown_ids_are_dropped() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    feed(&mut server, &response(12345, json!({})), now);
    feed(&mut server, &error_response("nope", -32603, "boom"), now);
    assert!(events(&mut server).is_empty());
    assert!(sent(&mut server).is_empty());
}

// BASE-06: a result that does not fit the request's result type is reported
// as such rather than dropped or panicking.
#[test]
fn a_malformed_result_is_reported_as_invalid() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-06-18", json!({"roots": {}}), now);
    let roots = ServerRequest::decode("roots/list", None).unwrap();
    let sent_id = server
        .send_request(roots, RequestOptions::default(), None, now)
        .unwrap();
    sent(&mut server);
    feed(
        &mut server,
        &response(sent_id.as_number().unwrap(), json!({"roots": "none"})),
        now,
    );
    match events(&mut server).as_slice() {
        [
            Event::Response {
                id,
                result: Err(mcpwire_session::ResponseError::InvalidResult(_)),
            },
        ] => {
            assert_eq!(*id, sent_id);
        }
        other => panic!("expected an invalid result, got {other:?}"),
    }
}

// Transmit::related: what a handler sends while serving a request travels
// with that request (so Streamable HTTP can use its stream), and what stands
// alone names none.
#[test]
fn packets_name_the_request_they_belong_to() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {"listChanged": true}, "logging": {}}));
    initialize(&mut server, "2025-06-18", json!({"roots": {}}), now);
    let params = json!({"name": "t", "_meta": {"progressToken": "p"}});
    feed(&mut server, &request("call-1", "tools/call", params), now);
    let incoming = only_request(events(&mut server));
    let call = Some(incoming.id.clone());

    server.progress(&incoming.id, 1.0, None, None).unwrap();
    let message = mcpwire_types::LoggingMessageNotificationParams::new(
        mcpwire_types::LoggingLevel::Info,
        "working",
    );
    server.log(message, Some(&incoming.id), now).unwrap();
    let roots = ServerRequest::decode("roots/list", None).unwrap();
    let roots_id = server
        .send_request(roots, RequestOptions::default(), Some(&incoming.id), now)
        .unwrap();
    server.cancel(&roots_id, None);
    let changed = mcpwire_types::methods::ServerNotification::decode(
        "notifications/tools/list_changed",
        None,
    )
    .unwrap();
    server.notify(changed, None).unwrap();
    server
        .respond(&incoming.id, Ok(tool_result("done")))
        .unwrap();

    let routed: Vec<(String, Option<RequestId>)> = transmits(&mut server)
        .iter()
        .map(|transmit| {
            let packet = packet_json(transmit);
            let kind = packet["method"].as_str().unwrap_or("response").to_owned();
            (kind, transmit.related.clone())
        })
        .collect();
    assert_eq!(
        routed,
        [
            ("notifications/progress".to_owned(), call.clone()),
            ("notifications/message".to_owned(), call.clone()),
            ("roots/list".to_owned(), call.clone()),
            ("notifications/cancelled".to_owned(), call.clone()),
            ("notifications/tools/list_changed".to_owned(), None),
            ("response".to_owned(), call),
        ]
    );
}
