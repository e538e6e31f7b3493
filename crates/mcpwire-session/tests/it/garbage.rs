//! Malformed input between valid messages: each bad text gets its JSON-RPC
//! error (or silence, for notifications) and the session goes on.

use std::time::Instant;

use crate::support::*;
use serde_json::{Value, json};

// BASE-09, BASE-20: invalid JSON is a parse error (-32700) with a null id,
// and the next valid request is still served.
#[test]
fn invalid_json_gets_a_parse_error_and_the_session_goes_on() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    for garbage in [&b"{\"jsonrpc\":"[..], b"not json at all", b"\xff\xfe", b""] {
        feed_bytes(&mut server, garbage, now);
        let answer = sent_one(&mut server);
        assert_eq!(answer["id"], Value::Null, "{garbage:?}");
        assert_eq!(error_code(&answer), -32700, "{garbage:?}");
        feed(&mut server, &request(1, "ping", json!({})), now);
        assert_eq!(sent_one(&mut server), response(1, json!({})));
    }
    feed(&mut server, &request(2, "tools/list", json!({})), now);
    assert_eq!(only_request(events(&mut server)).id, id(2));
}

// BASE-02, BASE-09: JSON that is not a valid message is an invalid request
// (-32600), answered with its id when the id could be read.
#[test]
fn a_malformed_message_is_an_invalid_request() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-11-25", json!({}), now);
    let cases = [
        (
            json!({"jsonrpc": "1.0", "id": 2, "method": "ping"}),
            json!(2),
        ),
        (json!({"id": 3, "method": "ping"}), json!(3)),
        (json!(42), Value::Null),
        (json!([]), Value::Null),
        (
            json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
            Value::Null,
        ),
    ];
    for (message, expected_id) in cases {
        feed(&mut server, &message, now);
        let answer = sent_one(&mut server);
        assert_eq!(answer["id"], expected_id, "{message}");
        assert_eq!(error_code(&answer), -32600, "{message}");
    }
    assert!(events(&mut server).is_empty());
}

// BASE-20: an unknown method is -32601 and params that do not fit are
// -32602, each with the request's id.
#[test]
fn unknown_methods_and_bad_params_get_their_codes() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    feed(&mut server, &request(1, "tools/explode", json!({})), now);
    assert_eq!(error_code(&sent_one(&mut server)), -32601);
    feed(
        &mut server,
        &request(2, "tools/call", json!({"name": ["not", "a", "string"]})),
        now,
    );
    assert_eq!(error_code(&sent_one(&mut server)), -32602);
    // A method of a later revision is unknown in this one.
    feed(&mut server, &request(3, "tasks/list", json!({})), now);
    assert_eq!(error_code(&sent_one(&mut server)), -32601);
    // Server-to-client methods are unknown when a client sends them.
    feed(&mut server, &request(4, "roots/list", json!({})), now);
    assert_eq!(error_code(&sent_one(&mut server)), -32601);
    assert!(events(&mut server).is_empty());
}

// BASE-13: a notification is never answered, even an unknown or malformed one.
#[test]
fn bad_notifications_are_never_answered() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    feed(
        &mut server,
        &notification("notifications/who_knows", json!({})),
        now,
    );
    feed(
        &mut server,
        &notification("notifications/progress", json!({"progress": "lots"})),
        now,
    );
    feed(
        &mut server,
        &notification("notifications/cancelled", json!({"requestId": {}})),
        now,
    );
    assert!(sent(&mut server).is_empty());
    assert!(events(&mut server).is_empty());
    feed(&mut server, &request(9, "ping", json!({})), now);
    assert_eq!(sent_one(&mut server), response(9, json!({})));
}

// The client survives garbage the same way.
#[test]
fn the_client_answers_garbage_and_goes_on() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let config = client_config(json!({})).pinned(mcpwire_types::ProtocolVersion::V2025_06_18);
    let mut client = client_with(config, now);
    connect(&mut client, &mut server, now);
    feed_bytes(&mut client, b"}{", now);
    let answer = sent_one(&mut client);
    assert_eq!(
        (answer["id"].clone(), error_code(&answer)),
        (Value::Null, -32700)
    );
    feed(&mut client, &request("s1", "ping", json!({})), now);
    assert_eq!(sent_one(&mut client), response("s1", json!({})));
    assert!(client.server().is_some());
}

// BASE-08: a malformed *answer* (both `result` and `error`, or no
// `jsonrpc`) is dropped, not answered: its id names one of our own
// requests, and an error response carrying it would seem to answer that.
#[test]
fn a_malformed_answer_is_dropped_without_a_reply() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-11-25", json!({}), now);
    let answers = [
        json!({"jsonrpc": "2.0", "id": 5, "result": {}, "error": {"code": 1, "message": "x"}}),
        json!({"id": 6, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 7, "error": "not an object"}),
    ];
    for answer in answers {
        feed(&mut server, &answer, now);
        assert_eq!(sent(&mut server), Vec::<Value>::new(), "{answer}");
    }
    feed(&mut server, &request(8, "ping", json!({})), now);
    assert_eq!(sent_one(&mut server), response(8, json!({})));
}
