//! JSON-RPC batches: answered as one batch under 2025-03-26 only, refused
//! as a single invalid request everywhere else.

use std::time::Instant;

use crate::support::*;
use mcpwire_session::{Event, RequestOptions};
use mcpwire_types::methods::ServerRequest;
use serde_json::{Value, json};

/// The elements of a batch packet, by id.
fn by_id(batch: &Value) -> Vec<(Value, Value)> {
    let mut elements: Vec<(Value, Value)> = batch
        .as_array()
        .unwrap_or_else(|| panic!("expected a batch, got {batch:#}"))
        .iter()
        .map(|element| (element["id"].clone(), element.clone()))
        .collect();
    elements.sort_by_key(|(id, _)| id.to_string());
    elements
}

// BASE-16: under 2025-03-26 a batch of requests is answered with one batch
// holding every answer: the engine's own, the runtime's, and errors for
// invalid elements; notifications in it are applied and not answered.
#[test]
fn a_2025_03_26_batch_is_answered_with_one_batch() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-03-26", json!({}), now);
    let batch = json!([
        request(1, "ping", json!({})),
        request(2, "tools/call", json!({"name": "echo"})),
        {"jsonrpc": "2.0", "id": 3},
        notification("notifications/roots/list_changed", json!({})),
        request(4, "no/such/method", json!({})),
        request(5, "tools/call", json!({"name": 42})),
    ]);
    feed(&mut server, &batch, now);
    assert!(
        sent(&mut server).is_empty(),
        "nothing goes until every request is answered"
    );
    let events = events(&mut server);
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(events[0], Event::Request(_)));
    assert!(matches!(events[1], Event::Notification(_)));
    let Event::Request(incoming) = &events[0] else {
        unreachable!()
    };

    server
        .respond(&incoming.id, Ok(tool_result("echoed")))
        .unwrap();
    let transmits = transmits(&mut server);
    assert_eq!(transmits.len(), 1);
    // The batch travels with the requests it answers (one of them is named),
    // so that Streamable HTTP sends it on the POST that carried them.
    assert!(matches!(
        transmits[0].related,
        Some(mcpwire_jsonrpc::RequestId::Number(1..=5))
    ));
    let elements = by_id(&packet_json(&transmits[0]));
    let ids: Vec<&Value> = elements.iter().map(|(id, _)| id).collect();
    assert_eq!(ids, [&json!(1), &json!(2), &json!(3), &json!(4), &json!(5)]);
    assert_eq!(elements[0].1, response(1, json!({})));
    assert_eq!(elements[1].1["result"]["content"][0]["text"], "echoed");
    assert_eq!(error_code(&elements[2].1), -32600);
    assert_eq!(error_code(&elements[3].1), -32601);
    assert_eq!(error_code(&elements[4].1), -32602);
}

// BASE-13, BASE-16: a batch of notifications only gets no response.
#[test]
fn a_batch_of_notifications_gets_no_response() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(
        &mut server,
        "2025-03-26",
        json!({"roots": {"listChanged": true}}),
        now,
    );
    let batch = json!([
        notification("notifications/roots/list_changed", json!({})),
        notification("notifications/cancelled", json!({"requestId": 77})),
        notification("notifications/unknown", json!({})),
    ]);
    feed(&mut server, &batch, now);
    assert!(sent(&mut server).is_empty());
    assert_eq!(
        events(&mut server).len(),
        1,
        "only the known notification is reported"
    );
}

// BASE-15, BASE-19: every other revision, and a session not yet initialized,
// answers a batch with one -32600 error (id null), handling none of it.
#[test]
fn a_batch_outside_2025_03_26_gets_one_invalid_request_error() {
    let now = Instant::now();
    let batch = json!([
        request(1, "ping", json!({})),
        request(2, "tools/list", json!({})),
        notification("notifications/roots/list_changed", json!({})),
    ]);
    for version in [
        None,
        Some("2024-11-05"),
        Some("2025-06-18"),
        Some("2025-11-25"),
    ] {
        let mut server = server(json!({"tools": {}}));
        if let Some(version) = version {
            initialize(&mut server, version, json!({}), now);
        }
        feed(&mut server, &batch, now);
        let answer = sent_one(&mut server);
        assert!(answer.is_object(), "{version:?}: {answer:#}");
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(error_code(&answer), -32600);
        assert!(events(&mut server).is_empty(), "{version:?}");
    }
}

// BASE-19 in 2026-07-28: stateless requests cannot be batched either.
#[test]
fn a_batch_of_stateless_requests_is_refused() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let batch = json!([
        stateless_request(1, "tools/list", json!({})),
        stateless_request(2, "tools/list", json!({})),
    ]);
    feed(&mut server, &batch, now);
    let answer = sent_one(&mut server);
    assert_eq!(
        (answer["id"].clone(), error_code(&answer)),
        (Value::Null, -32600)
    );
    assert!(events(&mut server).is_empty());
}

// BASE-18: `initialize` is never part of a batch.
#[test]
fn initialize_inside_a_batch_is_refused() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-03-26", json!({}), now);
    let batch = json!([
        request(1, "initialize", initialize_params("2025-03-26", json!({}))),
        request(2, "ping", json!({})),
    ]);
    feed(&mut server, &batch, now);
    let elements = by_id(&sent_one(&mut server));
    assert_eq!(error_code(&elements[0].1), -32600);
    assert_eq!(elements[1].1, response(2, json!({})));
}

// CANCEL-05 inside a batch: a cancelled element is left out, and the batch
// still goes once the rest is answered.
#[test]
fn a_cancelled_element_is_left_out_of_its_batch() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-03-26", json!({}), now);
    let batch = json!([
        request(1, "tools/call", json!({"name": "a"})),
        request(2, "tools/call", json!({"name": "b"})),
    ]);
    feed(&mut server, &batch, now);
    let requests = only_requests(events(&mut server));
    feed(
        &mut server,
        &notification("notifications/cancelled", json!({"requestId": 1})),
        now,
    );
    assert!(matches!(
        events(&mut server).as_slice(),
        [Event::Cancelled { .. }]
    ));
    server
        .respond(&requests[1].id, Ok(tool_result("b")))
        .unwrap();
    assert!(
        sent(&mut server).is_empty(),
        "the cancelled element is still being handled"
    );
    server
        .respond(&requests[0].id, Ok(tool_result("a")))
        .unwrap();
    let answer = sent_one(&mut server);
    let elements = by_id(&answer);
    assert_eq!(elements.len(), 1, "{answer:#}");
    assert_eq!(elements[0].0, 2);
}

// BASE-16: a batch of responses to our requests is matched element by
// element and answered with nothing.
#[test]
fn a_batch_of_responses_completes_each_request() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-03-26", json!({"roots": {}}), now);
    let mut ids = Vec::new();
    for _ in 0..2 {
        let roots = ServerRequest::decode("roots/list", None).unwrap();
        ids.push(
            server
                .send_request(roots, RequestOptions::default(), None, now)
                .unwrap(),
        );
    }
    sent(&mut server);
    let batch: Vec<Value> = ids
        .iter()
        .map(|id| response(id.as_number().unwrap(), json!({"roots": []})))
        .collect();
    feed(&mut server, &Value::Array(batch), now);
    assert!(sent(&mut server).is_empty());
    let answered: Vec<_> = events(&mut server)
        .into_iter()
        .map(|event| match event {
            Event::Response { id, result: Ok(_) } => id,
            other => panic!("expected a response, got {other:?}"),
        })
        .collect();
    assert_eq!(answered, ids);
}

// BASE-16 on the client: a 2025-03-26 client answers a batch of server
// requests with one batch.
#[test]
fn a_2025_03_26_client_answers_a_batch_with_one_batch() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let config =
        client_config(json!({"roots": {}})).pinned(mcpwire_types::ProtocolVersion::V2025_03_26);
    let mut client = client_with(config, now);
    connect(&mut client, &mut server, now);
    let batch = json!([
        request("p", "ping", json!({})),
        request("r", "roots/list", json!({}))
    ]);
    feed(&mut client, &batch, now);
    let incoming = only_request(events(&mut client));
    client.respond(&incoming.id, Ok(roots_result())).unwrap();
    let elements = by_id(&sent_one(&mut client));
    assert_eq!(elements[0].1, response("p", json!({})));
    assert_eq!(elements[1].1["result"]["roots"][0]["uri"], "file:///work");
}
