//! The stateless era (2026-07-28) on a `ServerSession`: per-request `_meta`,
//! `server/discover`, removed methods, per-request log levels, and both
//! eras served by one instance.

use std::time::Instant;

use crate::support::*;
use mcpwire_session::{RequestOptions, SendError};
use mcpwire_types::{
    LoggingLevel, LoggingMessageNotificationParams, ProtocolVersion, meta_keys,
    methods::ClientRequest,
};
use serde_json::{Value, json};

fn log(level: LoggingLevel, data: &str) -> LoggingMessageNotificationParams {
    LoggingMessageNotificationParams::new(level, data)
}

// 2026-07-28 basic/index "Per-request protocol fields": a request carrying
// its version and capabilities in `_meta` is served with no handshake, and
// its answer carries `resultType` (basic/index, "Result responses").
#[test]
fn a_request_with_per_request_meta_is_served_without_a_handshake() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let mut params = json!({"name": "echo", "arguments": {"text": "hi"}});
    params["_meta"] = stateless_meta(json!({"sampling": {}}));
    feed(&mut server, &request(1, "tools/call", params.clone()), now);
    let incoming = only_request(events(&mut server));
    assert!(matches!(
        incoming.request.request,
        ClientRequest::CallTool(_)
    ));
    // The raw params ride along, as sent, for a runtime that reads them again.
    let raw = incoming.request.params.as_ref().unwrap().get();
    assert_eq!(serde_json::from_str::<Value>(raw).unwrap(), params);
    assert_eq!(incoming.context.version, ProtocolVersion::V2026_07_28);
    assert!(
        incoming
            .context
            .client_capabilities
            .unwrap()
            .supports_sampling()
    );
    assert_eq!(incoming.context.client_info.unwrap().name, "modern-client");
    assert!(server.client().is_none(), "no session was negotiated");

    server.respond(&incoming.id, Ok(tool_result("hi"))).unwrap();
    let answer = sent_one(&mut server);
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["resultType"], "complete");
    assert_eq!(answer["result"]["content"][0]["text"], "hi");
}

// 2026-07-28 versioning, "A dual-era server MAY serve both eras
// concurrently": one instance holds a 2025-06-18 session and serves
// stateless requests beside it, each answered in its own revision.
#[test]
fn both_eras_are_served_on_one_session() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-06-18", json!({"roots": {}}), now);

    let legacy = json!({"name": "echo", "arguments": {}});
    feed(&mut server, &request(1, "tools/call", legacy), now);
    let modern = json!({"name": "echo", "arguments": {}});
    feed(
        &mut server,
        &stateless_request(1001, "tools/call", modern),
        now,
    );

    let requests = only_requests(events(&mut server));
    let versions: Vec<_> = requests.iter().map(|r| r.context.version).collect();
    assert_eq!(
        versions,
        [ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28]
    );
    assert!(
        requests[0]
            .context
            .client_capabilities
            .as_ref()
            .unwrap()
            .supports_roots()
    );
    assert!(
        !requests[1]
            .context
            .client_capabilities
            .as_ref()
            .unwrap()
            .supports_roots()
    );

    // Answered out of order, each fitted to its own revision.
    server
        .respond(&requests[1].id, Ok(tool_result("modern")))
        .unwrap();
    server
        .respond(&requests[0].id, Ok(tool_result("legacy")))
        .unwrap();
    let answers = sent(&mut server);
    assert_eq!(answers[0]["id"], 1001);
    assert_eq!(answers[0]["result"]["resultType"], "complete");
    assert_eq!(answers[1]["id"], 1);
    assert_eq!(answers[1]["result"].get("resultType"), None);
    assert_eq!(
        server.client().unwrap().version,
        ProtocolVersion::V2025_06_18
    );
}

// 2026-07-28 basic/index: a request missing a required per-request field is
// malformed and answered with -32602.
#[test]
fn a_stateless_request_without_client_capabilities_is_invalid_params() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let params = json!({"_meta": {meta_keys::PROTOCOL_VERSION: "2026-07-28"}});
    feed(&mut server, &request(1, "tools/list", params), now);
    let answer = sent_one(&mut server);
    assert_eq!(answer["id"], 1);
    assert_eq!(error_code(&answer), -32602);

    let malformed = json!({"_meta": {
        meta_keys::PROTOCOL_VERSION: "2026-07-28",
        meta_keys::CLIENT_CAPABILITIES: "all of them",
    }});
    feed(&mut server, &request(2, "tools/list", malformed), now);
    assert_eq!(error_code(&sent_one(&mut server)), -32602);
    assert!(events(&mut server).is_empty());
}

// 2026-07-28 versioning, "Protocol Version Negotiation": an unknown version
// is refused with -32022 listing what the server speaks.
#[test]
fn an_unsupported_stateless_version_is_refused_with_the_supported_list() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let mut params = json!({});
    params["_meta"] = stateless_meta(json!({}));
    params["_meta"][meta_keys::PROTOCOL_VERSION] = json!("2099-01-01");
    feed(&mut server, &request("x", "tools/list", params), now);
    let answer = sent_one(&mut server);
    assert_eq!(answer["id"], "x");
    assert_eq!(error_code(&answer), -32022);
    assert_eq!(
        answer["error"]["data"],
        json!({
            "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
            "requested": "2099-01-01",
        })
    );
}

// 2026-07-28 versioning: "a known version the server has chosen not to
// support" is refused the same way.
#[test]
fn a_server_without_the_stateless_revision_refuses_stateless_requests() {
    let now = Instant::now();
    let config = server_config(json!({"tools": {}})).with_versions([ProtocolVersion::V2025_06_18]);
    let mut server = server_with(config);
    feed(
        &mut server,
        &stateless_request(1, "tools/list", json!({})),
        now,
    );
    let answer = sent_one(&mut server);
    assert_eq!(error_code(&answer), -32022);
    assert_eq!(answer["error"]["data"]["supported"], json!(["2025-06-18"]));
    assert_eq!(answer["error"]["data"]["requested"], "2026-07-28");
}

// 2026-07-28 server/discover: versions, capabilities, instructions and the
// server's identity in `_meta`, as a complete result.
#[test]
fn server_discover_describes_the_server() {
    let now = Instant::now();
    let config = server_config(json!({"tools": {}, "resources": {}}))
        .with_instructions("Weather tools.")
        .with_versions([ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28]);
    let mut server = server_with(config);
    feed(
        &mut server,
        &stateless_request("discover-1", "server/discover", json!({})),
        now,
    );
    let answer = sent_one(&mut server);
    assert_eq!(answer["id"], "discover-1");
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-11-25"])
    );
    assert_eq!(
        result["capabilities"],
        json!({"tools": {}, "resources": {}})
    );
    assert_eq!(result["instructions"], "Weather tools.");
    assert_eq!(
        result["_meta"][meta_keys::SERVER_INFO],
        json!({"name": "test-server", "version": "1.0.0"})
    );
    assert!(
        events(&mut server).is_empty(),
        "the engine answers discover itself"
    );
}

// 2026-07-28 removed `ping`, `logging/setLevel` and `resources/subscribe`:
// a stateless request for them is an unknown method (-32601), even on a
// server that declares logging and subscriptions.
#[test]
fn methods_removed_in_2026_are_not_found_for_stateless_requests() {
    let now = Instant::now();
    let mut server = server(json!({"logging": {}, "resources": {"subscribe": true}}));
    let removed = [
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "debug"})),
        ("resources/subscribe", json!({"uri": "file:///a"})),
        ("resources/unsubscribe", json!({"uri": "file:///a"})),
    ];
    for (n, (method, params)) in removed.into_iter().enumerate() {
        feed(&mut server, &stateless_request(n, method, params), now);
        let answer = sent_one(&mut server);
        assert_eq!(answer["id"], n);
        assert_eq!(error_code(&answer), -32601, "{method}: {answer:#}");
    }
    assert!(events(&mut server).is_empty());
}

// 2026-07-28 basic/index: `initialize` carrying modern `_meta` is a
// stateless request, and `initialize` does not exist in that revision.
#[test]
fn initialize_with_modern_meta_is_an_unknown_method() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let params = initialize_params("2026-07-28", json!({}));
    feed(
        &mut server,
        &stateless_request(1, "initialize", params),
        now,
    );
    assert_eq!(error_code(&sent_one(&mut server)), -32601);
    assert!(server.client().is_none());
}

// 2026-07-28 server/utilities/logging: each request's
// `io.modelcontextprotocol/logLevel` sets the minimum level sent while it
// runs, and a request without one gets no log messages.
#[test]
fn the_request_log_level_governs_log_messages() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}, "logging": {}}));
    let mut params = json!({"name": "echo"});
    params["_meta"] = stateless_meta(json!({}));
    params["_meta"][meta_keys::LOG_LEVEL] = json!("warning");
    feed(&mut server, &request(1, "tools/call", params), now);
    feed(
        &mut server,
        &stateless_request(2, "tools/call", json!({"name": "echo"})),
        now,
    );
    let requests = only_requests(events(&mut server));
    assert_eq!(requests[0].context.log_level, Some(LoggingLevel::Warning));
    assert_eq!(requests[1].context.log_level, None);
    let (warned, silent) = (&requests[0].id, &requests[1].id);

    assert_eq!(
        server.log(log(LoggingLevel::Info, "chatter"), Some(warned), now),
        Ok(false)
    );
    assert_eq!(
        server.log(log(LoggingLevel::Error, "broken"), Some(warned), now),
        Ok(true)
    );
    assert_eq!(
        server.log(log(LoggingLevel::Emergency, "fire"), Some(silent), now),
        Ok(false)
    );
    let transmits = transmits(&mut server);
    assert_eq!(transmits.len(), 1);
    assert_eq!(
        transmits[0].related,
        Some(id(1)),
        "it travels with its request"
    );
    assert_eq!(
        packet_json(&transmits[0]),
        notification(
            "notifications/message",
            json!({"level": "error", "data": "broken"})
        )
    );
}

// 2026-07-28 basic/index "Per-request protocol fields": nothing leaks from
// one stateless request to the next; each is read on its own.
#[test]
fn each_stateless_request_is_read_on_its_own() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let mut first = json!({});
    first["_meta"] = stateless_meta(json!({"roots": {}}));
    feed(&mut server, &request(1, "tools/list", first), now);
    feed(
        &mut server,
        &stateless_request(2, "tools/list", json!({})),
        now,
    );
    let requests = only_requests(events(&mut server));
    let roots: Vec<bool> = requests
        .iter()
        .map(|r| {
            r.context
                .client_capabilities
                .as_ref()
                .unwrap()
                .supports_roots()
        })
        .collect();
    assert_eq!(roots, [true, false]);
}

// BASE-13 and CANCEL-09 hold in the stateless era too: a notification the
// server does not know is dropped without an answer.
#[test]
fn unknown_notifications_are_dropped_in_either_era() {
    let now = Instant::now();
    let mut server = server(json!({}));
    feed(
        &mut server,
        &notification("notifications/unheard_of", json!({})),
        now,
    );
    let params: Value = json!({"_meta": stateless_meta(json!({}))});
    feed(
        &mut server,
        &notification("notifications/other", params),
        now,
    );
    assert!(sent(&mut server).is_empty());
    assert!(events(&mut server).is_empty());
}

// 2026-07-28 has no server-to-client requests (multi round-trip requests
// replace them): a handler of a stateless request cannot send one on its
// behalf, even when a handshake session with a capable client exists beside it.
#[test]
fn a_stateless_request_cannot_make_the_server_send_requests() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(
        &mut server,
        "2025-06-18",
        json!({"sampling": {}, "roots": {}}),
        now,
    );
    feed(
        &mut server,
        &stateless_request(1, "tools/call", json!({"name": "ask"})),
        now,
    );
    let incoming = only_request(events(&mut server));
    let roots = server_request("roots/list", json!({}));
    assert_eq!(
        server.send_request(
            roots.clone(),
            RequestOptions::default(),
            Some(&incoming.id),
            now
        ),
        Err(SendError::NotInRevision {
            method: "roots/list",
            version: ProtocolVersion::V2026_07_28,
        })
    );
    assert!(sent(&mut server).is_empty());
    // The handshake session's own requests still go.
    assert!(
        server
            .send_request(roots, RequestOptions::default(), None, now)
            .is_ok()
    );
}

// 2026-07-28 removed `initialize`, `logging/setLevel` and
// `resources/subscribe`: sent with only the stateless `_meta` (so their
// params do not even decode), they are unknown methods, not bad params.
#[test]
fn removed_methods_with_undecodable_params_are_not_found_in_2026_07_28() {
    let now = Instant::now();
    let mut server = server(json!({"logging": {}, "resources": {"subscribe": true}}));
    for (n, method) in [
        "initialize",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ]
    .into_iter()
    .enumerate()
    {
        feed(
            &mut server,
            &stateless_request(n as i64, method, json!({})),
            now,
        );
        assert_eq!(error_code(&sent_one(&mut server)), -32601, "{method}");
    }
}
