//! The `initialize` handshake on a `ServerSession`: version negotiation,
//! init-phase gating and the `Established` event, driven with JSON bytes.

use std::time::Instant;

use crate::support::*;
use mcpwire_session::{Event, RequestOptions, SendError};
use mcpwire_types::ProtocolVersion;
use serde_json::json;

// LIFE-09, LIFE-10, LIFE-11: a spoken handshake version is echoed; anything
// else, including the stateless revision and unknown or aliased names, gets
// the newest handshake version (2024-10-07 is the pre-release name of 2024-11-05).
#[test]
fn initialize_answers_the_requested_version_or_the_newest_handshake_one() {
    let cases = [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
        ("2024-10-07", "2024-11-05"),
    ];
    for (requested, answered) in cases {
        let now = Instant::now();
        let mut server = server(json!({"tools": {}}));
        let params = initialize_params(requested, json!({}));
        feed(&mut server, &request(1, "initialize", params), now);
        let answer = sent_one(&mut server);
        assert_eq!(
            answer["result"]["protocolVersion"], answered,
            "asked for {requested}: {answer:#}"
        );
        assert_eq!(server.client().unwrap().version.as_str(), answered);
    }
}

// LIFE-11: a server that speaks only older revisions answers its newest one.
#[test]
fn a_server_limited_to_older_revisions_answers_its_newest() {
    let now = Instant::now();
    let config = server_config(json!({}))
        .with_versions([ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26]);
    let mut server = server_with(config);
    let params = initialize_params("2025-11-25", json!({}));
    feed(&mut server, &request(1, "initialize", params), now);
    assert_eq!(
        sent_one(&mut server)["result"]["protocolVersion"],
        "2025-03-26"
    );
}

// LIFE-03: the answer carries the version, capabilities, serverInfo and instructions.
#[test]
fn the_initialize_answer_carries_capabilities_server_info_and_instructions() {
    let now = Instant::now();
    let config = server_config(json!({"tools": {"listChanged": true}, "logging": {}}))
        .with_instructions("Use the echo tool.");
    let mut server = server_with(config);
    let params = initialize_params("2025-06-18", json!({"roots": {}}));
    feed(&mut server, &request("a", "initialize", params), now);
    assert_eq!(
        sent_one(&mut server),
        json!({
            "jsonrpc": "2.0",
            "id": "a",
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                "serverInfo": {"name": "test-server", "version": "1.0.0"},
                "instructions": "Use the echo tool.",
            },
        })
    );
}

// LIFE-01: initialization happens once per session; a second `initialize`
// is refused and does not change what was negotiated.
#[test]
fn a_second_initialize_is_refused() {
    let now = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    let params = initialize_params("2024-11-05", json!({}));
    feed(&mut server, &request(2, "initialize", params), now);
    let answer = sent_one(&mut server);
    assert_eq!(answer["id"], 2);
    assert_eq!(error_code(&answer), -32600);
    assert_eq!(
        server.client().unwrap().version,
        ProtocolVersion::V2025_06_18
    );
    assert!(events(&mut server).is_empty());
}

// LIFE-05, PING-01: before `initialize` only `ping` is served; other
// requests are refused without reaching the runtime.
#[test]
fn before_initialize_only_ping_is_served() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    feed(&mut server, &request(1, "tools/list", json!({})), now);
    let refused = sent_one(&mut server);
    assert_eq!(refused["id"], 1);
    assert!(refused.get("error").is_some(), "{refused:#}");
    feed(&mut server, &request(2, "ping", json!({})), now);
    assert_eq!(sent_one(&mut server), response(2, json!({})));
    assert!(events(&mut server).is_empty());
    assert!(server.client().is_none());
}

// PING-01: a ping without params is answered too.
#[test]
fn a_ping_without_params_is_answered_with_an_empty_result() {
    let now = Instant::now();
    let mut server = server(json!({}));
    feed_bytes(
        &mut server,
        br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
        now,
    );
    assert_eq!(sent_one(&mut server), response(7, json!({})));
}

// LIFE-04: `notifications/initialized` establishes the session, once, with
// what the client declared; one sent before `initialize` means nothing.
#[test]
fn initialized_establishes_the_session_exactly_once() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let initialized = notification("notifications/initialized", json!({}));
    feed(&mut server, &initialized, now);
    assert!(events(&mut server).is_empty());
    assert!(!server.is_initialized());

    let params = initialize_params("2025-03-26", json!({"sampling": {}}));
    feed(&mut server, &request(1, "initialize", params), now);
    sent(&mut server);
    assert!(!server.is_initialized());
    feed(&mut server, &initialized, now);
    feed(&mut server, &initialized, now);
    let events = events(&mut server);
    assert_eq!(events.len(), 1, "{events:?}");
    let Event::Established(client) = &events[0] else {
        panic!("expected Established, got {events:?}");
    };
    assert_eq!(client.version, ProtocolVersion::V2025_03_26);
    assert!(client.capabilities.supports_sampling());
    assert_eq!(client.info.name, "test-client");
    assert!(server.is_initialized());
    // A notification is never answered (BASE-13).
    assert!(sent(&mut server).is_empty());
}

// 2026-07-28 versioning, "Backward Compatibility": a server speaking only
// the stateless revision names the versions it supports when refusing
// `initialize`, the only diagnostic a legacy client can show.
#[test]
fn a_stateless_only_server_refuses_initialize_naming_its_versions() {
    let now = Instant::now();
    let config = server_config(json!({})).with_versions([ProtocolVersion::V2026_07_28]);
    let mut server = server_with(config);
    let params = initialize_params("2025-06-18", json!({}));
    feed(&mut server, &request(1, "initialize", params), now);
    let answer = sent_one(&mut server);
    assert_eq!(answer["id"], 1);
    assert_eq!(error_code(&answer), -32602);
    assert_eq!(
        answer["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-06-18"})
    );
    assert!(server.client().is_none());
}

// LIFE-06: before `notifications/initialized` the server sends no request
// but `ping`.
#[test]
fn the_server_sends_only_ping_before_initialized() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let roots = server_request("roots/list", json!({}));
    let ping = server_request("ping", json!({}));
    let options = RequestOptions::default();
    assert_eq!(
        server.send_request(ping.clone(), options, None, now),
        Err(SendError::NotInitialized)
    );
    let params = initialize_params("2025-06-18", json!({"roots": {}}));
    feed(&mut server, &request(1, "initialize", params), now);
    sent(&mut server);
    assert_eq!(
        server.send_request(roots.clone(), options, None, now),
        Err(SendError::NotInitialized)
    );
    let ping_id = server.send_request(ping, options, None, now).unwrap();
    assert_eq!(
        sent_one(&mut server),
        request(ping_id.as_number().unwrap(), "ping", json!({}))
    );
    feed(
        &mut server,
        &notification("notifications/initialized", json!({})),
        now,
    );
    assert!(server.send_request(roots, options, None, now).is_ok());
}

// LIFE-14: after the handshake, requests are handed to the runtime with the
// negotiated revision and what the client declared.
#[test]
fn requests_after_the_handshake_carry_the_negotiated_revision() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2024-11-05", json!({"roots": {}}), now);
    let params =
        json!({"name": "echo", "arguments": {}, "_meta": {"traceparent": "00-abc-def-01"}});
    feed(&mut server, &request(5, "tools/call", params), now);
    let incoming = only_request(events(&mut server));
    assert_eq!(incoming.id, id(5));
    assert_eq!(incoming.context.version, ProtocolVersion::V2024_11_05);
    assert!(
        incoming
            .context
            .client_capabilities
            .unwrap()
            .supports_roots()
    );
    assert_eq!(incoming.context.client_info.unwrap().name, "test-client");
    assert_eq!(
        incoming.context.trace.traceparent.as_deref(),
        Some("00-abc-def-01")
    );
    server.respond(&incoming.id, Ok(tool_result("hi"))).unwrap();
    assert_eq!(
        sent_one(&mut server),
        response(5, json!({"content": [{"type": "text", "text": "hi"}]}))
    );
}

// LIFE-14, LOG (2025-11-25 logging page): `logging/setLevel` is answered by
// the engine, and the level it sets filters later log messages.
#[test]
fn logging_set_level_is_answered_by_the_engine() {
    let now = Instant::now();
    let mut server = server(json!({"logging": {}}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    feed(
        &mut server,
        &request(3, "logging/setLevel", json!({"level": "error"})),
        now,
    );
    assert_eq!(sent_one(&mut server), response(3, json!({})));
    assert!(events(&mut server).is_empty());
    let info = mcpwire_types::LoggingMessageNotificationParams::new(
        mcpwire_types::LoggingLevel::Info,
        "quiet",
    );
    assert_eq!(server.log(info, None, now), Ok(false));
    let error = mcpwire_types::LoggingMessageNotificationParams::new(
        mcpwire_types::LoggingLevel::Error,
        "loud",
    );
    assert_eq!(server.log(error, None, now), Ok(true));
    assert_eq!(
        sent_one(&mut server),
        notification(
            "notifications/message",
            json!({"level": "error", "data": "loud"})
        )
    );
}

// LIFE-06, LOG-07: before `notifications/initialized` the server sends no
// notifications but log messages.
#[test]
fn the_server_sends_only_log_messages_before_initialized() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {"listChanged": true}, "logging": {}}));
    let params = initialize_params("2025-06-18", json!({}));
    feed(&mut server, &request(1, "initialize", params), now);
    sent(&mut server);
    let changed = mcpwire_types::methods::ServerNotification::decode(
        "notifications/tools/list_changed",
        None,
    )
    .unwrap();
    assert_eq!(
        server.notify(changed.clone(), None),
        Err(SendError::NotInitialized)
    );
    let message = mcpwire_types::LoggingMessageNotificationParams::new(
        mcpwire_types::LoggingLevel::Info,
        "starting",
    );
    assert_eq!(server.log(message, None, now), Ok(true));
    assert_eq!(sent_one(&mut server)["method"], "notifications/message");
    feed(
        &mut server,
        &notification("notifications/initialized", json!({})),
        now,
    );
    assert_eq!(server.notify(changed, None), Ok(()));
}
