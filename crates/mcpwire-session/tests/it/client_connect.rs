//! How a `ClientSession` connects: the `server/discover` probe, the
//! fallbacks to `initialize` (2026-07-28 stdio "Backward Compatibility"),
//! pinned revisions, and the per-request `_meta` of stateless requests.

use std::time::{Duration, Instant};

use crate::support::*;
use mcpwire_session::{ClientSession, Event, RequestOptions, SendError, ServerView};
use mcpwire_types::{LoggingLevel, ProtocolVersion, meta_keys};
use serde_json::{Value, json};

/// The view of the `Established` event among `events`, failing otherwise.
fn established(client: &mut ClientSession) -> ServerView {
    match events(client).as_slice() {
        [Event::Established(view)] => view.clone(),
        other => panic!(
            "expected Established, got {other:?} ({:?})",
            client.failure()
        ),
    }
}

/// The first packet of an `Auto` client: its probe.
fn probe_of(client: &mut ClientSession) -> Value {
    let probe = sent_one(client);
    assert_eq!(probe["method"], "server/discover", "{probe:#}");
    probe
}

fn initialize_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "legacy", "version": "0.9"},
    })
}

// 2026-07-28 stdio "Backward Compatibility", versioning matrix "Dual-era /
// Dual-era": the probe gets a DiscoverResult and the client stays modern,
// with no `initialize` at all.
#[test]
fn auto_against_a_dual_era_server_is_established_in_2026() {
    let now = Instant::now();
    let mut server =
        server_with(server_config(json!({"tools": {}})).with_instructions("Be brief."));
    let mut client = client_with(client_config(json!({"roots": {}})), now);
    let probe = probe_of(&mut client);
    let meta = &probe["params"]["_meta"];
    assert_eq!(meta[meta_keys::PROTOCOL_VERSION], "2026-07-28");
    assert_eq!(meta[meta_keys::CLIENT_CAPABILITIES], json!({"roots": {}}));
    assert_eq!(
        meta[meta_keys::CLIENT_INFO],
        json!({"name": "test-client", "version": "2.0.0"})
    );

    feed(&mut server, &probe, now);
    let answer = sent_one(&mut server);
    feed(&mut client, &answer, now);
    let view = established(&mut client);
    assert_eq!(view.version, ProtocolVersion::V2026_07_28);
    assert!(view.capabilities.supports_tools());
    assert_eq!(view.info.unwrap().name, "test-server");
    assert_eq!(view.instructions.as_deref(), Some("Be brief."));
    assert_eq!(
        client.server().unwrap().version,
        ProtocolVersion::V2026_07_28
    );
    assert!(
        sent(&mut client).is_empty(),
        "no initialize, no initialized"
    );
    assert!(server.client().is_none());
}

// 2026-07-28 stdio "Backward Compatibility": a server speaking only
// handshake revisions answers the probe with -32022 listing them (a
// recognized modern error), and the client initializes with the newest
// listed one it speaks.
#[test]
fn auto_against_a_handshake_only_server_initializes_with_a_listed_version() {
    let cases = [
        (HANDSHAKE_VERSIONS.to_vec(), ProtocolVersion::V2025_11_25),
        (
            vec![ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26],
            ProtocolVersion::V2025_03_26,
        ),
    ];
    for (versions, expected) in cases {
        let now = Instant::now();
        let mut server = server_with(server_config(json!({"tools": {}})).with_versions(versions));
        let mut client = client_with(client_config(json!({})), now);
        let probe = probe_of(&mut client);
        feed(&mut server, &probe, now);
        let refusal = sent_one(&mut server);
        assert_eq!(error_code(&refusal), -32022);
        feed(&mut client, &refusal, now);
        let init = sent_one(&mut client);
        assert_eq!(init["method"], "initialize");
        assert_eq!(init["params"]["protocolVersion"], expected.as_str());
        assert_eq!(
            init["params"].get("_meta"),
            None,
            "a plain legacy initialize"
        );

        feed(&mut server, &init, now);
        feed(&mut client, &sent_one(&mut server), now);
        assert_eq!(established(&mut client).version, expected);
        feed(&mut server, &sent_one(&mut client), now);
        assert!(server.is_initialized());
        assert_eq!(server.client().unwrap().version, expected);
    }
}

// 2026-07-28 stdio "Backward Compatibility": any error that is not a
// recognized modern one means a legacy server, whatever its code (the
// fallback "MUST NOT be keyed to one specific error code").
#[test]
fn a_probe_refused_with_a_non_modern_error_falls_back_to_initialize() {
    for code in [-32601, -32602, -32600, -32603, -32000, 1] {
        let now = Instant::now();
        let mut client = client_with(client_config(json!({})), now);
        let probe = probe_of(&mut client);
        feed(
            &mut client,
            &error_response(probe["id"].clone(), code, "what?"),
            now,
        );
        assert!(events(&mut client).is_empty(), "{code}");
        let init = sent_one(&mut client);
        assert_eq!(init["method"], "initialize", "{code}");
        assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
        assert_ne!(init["id"], probe["id"], "BASE-05: a fresh id");

        feed(
            &mut client,
            &response(init["id"].clone(), initialize_result("2025-11-25")),
            now,
        );
        assert_eq!(
            established(&mut client).version,
            ProtocolVersion::V2025_11_25
        );
        assert_eq!(sent_one(&mut client)["method"], "notifications/initialized");
    }
}

// 2026-07-28 stdio "Backward Compatibility": a probe unanswered within the
// probe timeout means a legacy server; the client falls back to
// `initialize` without sending it anything else first (LIFE-05), and a late
// answer to the probe is ignored.
#[test]
fn a_probe_that_times_out_falls_back_to_initialize() {
    let t0 = Instant::now();
    let config = client_config(json!({})).with_probe_timeout(Duration::from_secs(2));
    let mut client = client_with(config, t0);
    let probe = probe_of(&mut client);
    assert_eq!(client.poll_timeout(), Some(t0 + Duration::from_secs(2)));
    client.handle_timeout(t0 + Duration::from_secs(2));
    assert!(events(&mut client).is_empty());
    let init = sent_one(&mut client);
    assert_eq!(init["method"], "initialize");

    let mut server = server(json!({}));
    feed(
        &mut server,
        &stateless_request(999, "server/discover", json!({})),
        t0,
    );
    let late = sent_one(&mut server)["result"].clone();
    feed(
        &mut client,
        &response(probe["id"].clone(), late),
        t0 + Duration::from_secs(3),
    );
    assert!(
        events(&mut client).is_empty(),
        "the late probe answer is dropped"
    );
    feed(
        &mut client,
        &response(init["id"].clone(), initialize_result("2025-06-18")),
        t0,
    );
    assert_eq!(
        established(&mut client).version,
        ProtocolVersion::V2025_06_18
    );
}

// LIFE-12: a server choosing a revision the client does not speak ends the
// session: Failed, no `notifications/initialized`, nothing more sent.
#[test]
fn a_server_choosing_an_unspoken_version_fails_the_client() {
    for chosen in ["2024-11-05", "2099-01-01", "2026-07-28"] {
        let now = Instant::now();
        let mut config = client_config(json!({}));
        config.versions = vec![ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25];
        let mut client = client_with(config, now);
        let init = sent_one(&mut client);
        assert_eq!(
            init["method"], "initialize",
            "no stateless revision, no probe"
        );
        assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
        feed(
            &mut client,
            &response(init["id"].clone(), initialize_result(chosen)),
            now,
        );
        assert!(
            matches!(events(&mut client).as_slice(), [Event::Failed(_)]),
            "{chosen}"
        );
        assert!(sent(&mut client).is_empty(), "{chosen}: no initialized");
        assert!(client.server().is_none());
        let list = client_request("tools/list", json!({}));
        assert!(matches!(
            client.send_request(list, RequestOptions::default(), now),
            Err(SendError::Failed(_))
        ));
    }
}

// LIFE-19: a refused `initialize` fails the client.
#[test]
fn a_refused_initialize_fails_the_client() {
    let now = Instant::now();
    let config = client_config(json!({})).pinned(ProtocolVersion::V2025_06_18);
    let mut client = client_with(config, now);
    let stateless_only = server_config(json!({})).with_versions([ProtocolVersion::V2026_07_28]);
    let mut server = server_with(stateless_only);
    pump(&mut client, &mut server, now);
    let failure = match events(&mut client).as_slice() {
        [Event::Failed(reason)] => reason.clone(),
        other => panic!("expected Failed, got {other:?}"),
    };
    assert!(failure.contains("refused"), "{failure}");
}

// LIFE-02, LIFE-07: a client pinned to 2025-06-18 opens with `initialize`
// for exactly that revision (no probe), with its capabilities and identity.
#[test]
fn a_pinned_handshake_client_sends_initialize_with_that_version() {
    let now = Instant::now();
    let config = client_config(json!({"sampling": {}})).pinned(ProtocolVersion::V2025_06_18);
    let mut client = client_with(config, now);
    let init = sent_one(&mut client);
    assert_eq!(
        init,
        request(
            0,
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"sampling": {}},
                "clientInfo": {"name": "test-client", "version": "2.0.0"},
            }),
        )
    );
    let mut server = server(json!({"tools": {}}));
    feed(&mut server, &init, now);
    pump(&mut client, &mut server, now);
    assert_eq!(
        established(&mut client).version,
        ProtocolVersion::V2025_06_18
    );
    assert!(server.is_initialized(), "LIFE-04: initialized was sent");
}

// 2026-07-28 versioning: a client pinned to the stateless revision does not
// fall back; a refused probe fails it.
#[test]
fn a_pinned_modern_client_does_not_fall_back() {
    let now = Instant::now();
    let config = client_config(json!({})).pinned(ProtocolVersion::V2026_07_28);
    let mut refused = client_with(config.clone(), now);
    let probe = probe_of(&mut refused);
    feed(
        &mut refused,
        &error_response(probe["id"].clone(), -32601, "unknown"),
        now,
    );
    assert!(matches!(
        events(&mut refused).as_slice(),
        [Event::Failed(_)]
    ));
    assert!(sent(&mut refused).is_empty(), "no initialize");

    let mut silent = client_with(config, now);
    probe_of(&mut silent);
    silent.handle_timeout(silent.poll_timeout().unwrap());
    assert!(matches!(events(&mut silent).as_slice(), [Event::Failed(_)]));
}

// 2026-07-28 versioning: a modern error naming no revision the client
// speaks ends the attempt instead of falling back.
#[test]
fn a_modern_refusal_without_a_common_version_fails_the_client() {
    let now = Instant::now();
    let mut client = client_with(client_config(json!({})), now);
    let probe = probe_of(&mut client);
    let mut refusal = error_response(probe["id"].clone(), -32022, "Unsupported protocol version");
    refusal["error"]["data"] = json!({"supported": ["2030-01-01"], "requested": "2026-07-28"});
    feed(&mut client, &refusal, now);
    assert!(matches!(events(&mut client).as_slice(), [Event::Failed(_)]));
    assert!(sent(&mut client).is_empty(), "no initialize");
}

// 2026-07-28 basic/index "Per-request protocol fields": every stateless
// request carries the protocol version, the client's capabilities and
// identity, and the log level when one is configured.
#[test]
fn stateless_client_requests_carry_the_per_request_meta() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let config = client_config(json!({"elicitation": {}})).with_log_level(LoggingLevel::Notice);
    let mut client = client_with(config, now);
    connect(&mut client, &mut server, now);
    let call = client_request("tools/call", json!({"name": "echo", "arguments": {"x": 1}}));
    client
        .send_request(call, RequestOptions::default(), now)
        .unwrap();
    let packet = sent_one(&mut client);
    assert_eq!(packet["params"]["name"], "echo");
    assert_eq!(
        packet["params"]["_meta"],
        json!({
            meta_keys::PROTOCOL_VERSION: "2026-07-28",
            meta_keys::CLIENT_CAPABILITIES: {"elicitation": {}},
            meta_keys::CLIENT_INFO: {"name": "test-client", "version": "2.0.0"},
            meta_keys::LOG_LEVEL: "notice",
        })
    );
    // The server reads them back.
    feed(&mut server, &packet, now);
    let incoming = only_request(events(&mut server));
    assert_eq!(incoming.context.log_level, Some(LoggingLevel::Notice));
    assert!(
        incoming
            .context
            .client_capabilities
            .unwrap()
            .supports_elicitation()
    );
}

// LIFE-14 (handshake era): requests after `initialize` carry no per-request
// protocol fields.
#[test]
fn handshake_client_requests_carry_no_protocol_meta() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let config = client_config(json!({})).pinned(ProtocolVersion::V2025_11_25);
    let mut client = client_with(config, now);
    connect(&mut client, &mut server, now);
    let list = client_request("tools/list", json!({}));
    client
        .send_request(list, RequestOptions::default(), now)
        .unwrap();
    let packet = sent_one(&mut client);
    assert_eq!(packet["params"].get("_meta"), None, "{packet:#}");
}

// LIFE-05: before it is connected the client sends nothing but `ping`.
#[test]
fn the_client_sends_only_ping_before_it_is_connected() {
    let now = Instant::now();
    let config = client_config(json!({})).pinned(ProtocolVersion::V2025_06_18);
    let mut client = client_with(config, now);
    sent(&mut client);
    let list = client_request("tools/list", json!({}));
    assert_eq!(
        client.send_request(list, RequestOptions::default(), now),
        Err(SendError::NotInitialized)
    );
    let ping = client_request("ping", json!({}));
    assert!(
        client
            .send_request(ping, RequestOptions::default(), now)
            .is_ok()
    );
    assert_eq!(sent_one(&mut client)["method"], "ping");
}

// 2026-07-28 removed `ping`: a modern client does not send it.
#[test]
fn a_modern_client_does_not_send_removed_methods() {
    let now = Instant::now();
    let mut server = server(json!({"logging": {}}));
    let mut client = client_with(client_config(json!({})), now);
    connect(&mut client, &mut server, now);
    for (method, params) in [
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
    ] {
        let removed = client_request(method, params);
        assert!(matches!(
            client.send_request(removed, RequestOptions::default(), now),
            Err(SendError::NotInRevision {
                version: ProtocolVersion::V2026_07_28,
                ..
            })
        ));
    }
}

// LIFE-19: closing while connecting fails the connection; the runtime never
// sees a response for the probe or `initialize`, which it did not send.
#[test]
fn closing_while_connecting_fails_the_session() {
    let now = Instant::now();
    for config in [
        client_config(json!({})),
        client_config(json!({})).pinned(ProtocolVersion::V2025_06_18),
    ] {
        let mut client = client_with(config, now);
        let first = sent_one(&mut client);
        client.close();
        assert!(
            matches!(events(&mut client).as_slice(), [Event::Failed(_)]),
            "{first:#}"
        );
        assert!(client.failure().is_some());
        assert_eq!(client.poll_timeout(), None);
    }
}

// 2026-07-28 versioning: "the client SHOULD select a mutually supported
// version from the `supported` list and retry". A refusal listing a
// stateless revision the client speaks gets one more probe with it (only
// one: two peers refusing each other cannot loop).
#[test]
fn a_modern_refusal_listing_a_stateless_revision_is_retried_once() {
    let now = Instant::now();
    let mut client = client_with(client_config(json!({})), now);
    let probe = probe_of(&mut client);
    let mut refusal = error_response(probe["id"].clone(), -32022, "Unsupported protocol version");
    refusal["error"]["data"] = json!({"supported": ["2026-07-28"], "requested": "2026-07-28"});
    feed(&mut client, &refusal, now);
    let retry = probe_of(&mut client);
    assert_eq!(retry["method"], "server/discover");
    assert_eq!(
        retry["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    let mut refusal = error_response(retry["id"].clone(), -32022, "Unsupported protocol version");
    refusal["error"]["data"] = json!({"supported": ["2026-07-28"], "requested": "2026-07-28"});
    feed(&mut client, &refusal, now);
    assert!(matches!(events(&mut client).as_slice(), [Event::Failed(_)]));
}
