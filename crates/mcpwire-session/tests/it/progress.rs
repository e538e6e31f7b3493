//! Progress both ways: tokens on requests we send, progress events for
//! them, and the rules on progress we report (growing, live requests only,
//! fitted to the revision).

use std::time::Instant;

use crate::support::*;
use mcpwire_session::{Event, RequestOptions, SendError};
use mcpwire_types::{ProgressToken, ProtocolVersion};
use serde_json::{Value, json};

fn progress(token: impl Into<Value>, progress: f64) -> Value {
    notification(
        "notifications/progress",
        json!({"progressToken": token.into(), "progress": progress}),
    )
}

/// A client connected in memory to a tools server, in `version`.
fn connected(
    version: ProtocolVersion,
) -> (
    mcpwire_session::ClientSession,
    mcpwire_session::ServerSession,
) {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    let mut client = client_with(client_config(json!({})).pinned(version), now);
    connect(&mut client, &mut server, now);
    (client, server)
}

// PROG-01, PROG-02: asking for progress puts a token in `_meta`, an integer
// unique among our requests; not asking puts none.
#[test]
fn a_progress_token_is_added_only_when_progress_is_asked_for() {
    let now = Instant::now();
    for version in [ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28] {
        let (mut client, _server) = connected(version);
        let options = RequestOptions::default().with_progress();
        let mut tokens = std::collections::HashSet::new();
        for _ in 0..3 {
            let call = client_request("tools/call", json!({"name": "long"}));
            client.send_request(call, options, now).unwrap();
            let packet = sent_one(&mut client);
            let token = packet["params"]["_meta"]["progressToken"].as_i64();
            assert!(
                tokens.insert(token.unwrap()),
                "a unique integer token: {packet:#}"
            );
        }

        let call = client_request("tools/call", json!({"name": "quick"}));
        client
            .send_request(call, RequestOptions::default(), now)
            .unwrap();
        let packet = sent_one(&mut client);
        assert_eq!(
            packet["params"]["_meta"].get("progressToken"),
            None,
            "{packet:#}"
        );
    }
}

// PROG-03, PROG-08: progress on our request arrives as events; repeated or
// shrinking progress and unknown tokens are dropped.
#[test]
fn growing_progress_arrives_and_stale_progress_is_dropped() {
    let now = Instant::now();
    let (mut client, _server) = connected(ProtocolVersion::V2025_11_25);
    let call = client_request("tools/call", json!({"name": "long"}));
    let call_id = client
        .send_request(call, RequestOptions::default().with_progress(), now)
        .unwrap();
    let token = sent_one(&mut client)["params"]["_meta"]["progressToken"].clone();
    for value in [0.5, 0.5, 0.25, 0.75] {
        feed(&mut client, &progress(token.clone(), value), now);
    }
    feed(&mut client, &progress("someone-else", 0.9), now);
    let reported: Vec<(mcpwire_jsonrpc::RequestId, f64)> = events(&mut client)
        .into_iter()
        .map(|event| match event {
            Event::Progress { id, progress } => (id, progress.progress),
            other => panic!("expected progress, got {other:?}"),
        })
        .collect();
    assert_eq!(reported, [(call_id.clone(), 0.5), (call_id, 0.75)]);
}

// PROG-07: once the request is answered its token is dead; later progress
// is dropped.
#[test]
fn progress_after_the_answer_is_dropped() {
    let now = Instant::now();
    let (mut client, mut server) = connected(ProtocolVersion::V2026_07_28);
    let call = client_request("tools/call", json!({"name": "long"}));
    client
        .send_request(call, RequestOptions::default().with_progress(), now)
        .unwrap();
    pump(&mut client, &mut server, now);
    let incoming = only_request(events(&mut server));
    let token = incoming.context.progress_token.clone().unwrap();
    server
        .respond(&incoming.id, Ok(tool_result("done")))
        .unwrap();
    pump(&mut client, &mut server, now);
    assert_eq!(events(&mut client).len(), 1);
    let token = serde_json::to_value(token).unwrap();
    feed(&mut client, &progress(token, 1.0), now);
    assert!(events(&mut client).is_empty());
}

// PROG-03, PROG-05, PROG-07: the server reports growing progress with the
// request's own token, refuses shrinking progress, progress on requests
// without a token, and progress after the answer.
#[test]
fn the_server_reports_only_growing_progress_on_live_requests() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    let params = json!({"name": "long", "_meta": {"progressToken": "tok-1"}});
    feed(&mut server, &request(1, "tools/call", params), now);
    feed(
        &mut server,
        &request(2, "tools/call", json!({"name": "quiet"})),
        now,
    );
    let requests = only_requests(events(&mut server));
    let (asked, quiet) = (&requests[0].id, &requests[1].id);
    assert_eq!(
        requests[0].context.progress_token,
        Some(ProgressToken::String("tok-1".into()))
    );

    server
        .progress(asked, 1.0, Some(4.0), Some("a quarter".to_owned()))
        .unwrap();
    let transmits = transmits(&mut server);
    assert_eq!(transmits.len(), 1);
    assert_eq!(transmits[0].related.as_ref(), Some(asked));
    assert_eq!(
        packet_json(&transmits[0]),
        notification(
            "notifications/progress",
            json!({"progressToken": "tok-1", "progress": 1.0, "total": 4.0, "message": "a quarter"}),
        )
    );

    for stale in [1.0, 0.5] {
        assert_eq!(
            server.progress(asked, stale, None, None),
            Err(SendError::ProgressNotIncreasing {
                previous: 1.0,
                new: stale
            })
        );
    }
    assert_eq!(
        server.progress(quiet, 1.0, None, None),
        Err(SendError::NoProgressToken)
    );
    server.respond(asked, Ok(tool_result("done"))).unwrap();
    sent(&mut server);
    assert_eq!(
        server.progress(asked, 2.0, None, None),
        Err(SendError::UnknownRequest)
    );
    assert!(sent(&mut server).is_empty());
}

// PROG-05: a cancelled request gets no more progress.
#[test]
fn a_cancelled_request_gets_no_progress() {
    let now = Instant::now();
    let mut server = server(json!({"tools": {}}));
    initialize(&mut server, "2025-06-18", json!({}), now);
    let params = json!({"name": "long", "_meta": {"progressToken": 9}});
    feed(&mut server, &request(1, "tools/call", params), now);
    let incoming = only_request(events(&mut server));
    let cancel = json!({"requestId": 1});
    feed(
        &mut server,
        &notification("notifications/cancelled", cancel),
        now,
    );
    assert_eq!(
        server.progress(&incoming.id, 0.1, None, None),
        Err(SendError::UnknownRequest)
    );
}

// PROG-04: `message` exists from 2025-03-26; a 2024-11-05 client gets
// progress without it.
#[test]
fn the_progress_message_is_stripped_for_2024_11_05() {
    let now = Instant::now();
    for (version, keeps_message) in [("2024-11-05", false), ("2025-03-26", true)] {
        let mut server = server(json!({"tools": {}}));
        initialize(&mut server, version, json!({}), now);
        let params = json!({"name": "long", "_meta": {"progressToken": 3}});
        feed(&mut server, &request(1, "tools/call", params), now);
        let incoming = only_request(events(&mut server));
        server
            .progress(&incoming.id, 0.5, None, Some("halfway".to_owned()))
            .unwrap();
        let packet = sent_one(&mut server);
        assert_eq!(packet["params"]["progressToken"], 3);
        assert_eq!(
            packet["params"].get("message").is_some(),
            keeps_message,
            "{version}: {packet:#}"
        );
    }
}

// PROG-01..03 end to end: the server's progress reaches the client as
// events for the request that asked, in either era.
#[test]
fn progress_travels_from_server_to_client_in_memory() {
    let now = Instant::now();
    for version in [ProtocolVersion::V2025_03_26, ProtocolVersion::V2026_07_28] {
        let (mut client, mut server) = connected(version);
        let call = client_request("tools/call", json!({"name": "long"}));
        let call_id = client
            .send_request(call, RequestOptions::default().with_progress(), now)
            .unwrap();
        pump(&mut client, &mut server, now);
        let incoming = only_request(events(&mut server));
        server
            .progress(&incoming.id, 1.0, Some(2.0), Some("one of two".to_owned()))
            .unwrap();
        server.progress(&incoming.id, 2.0, Some(2.0), None).unwrap();
        server
            .respond(&incoming.id, Ok(tool_result("done")))
            .unwrap();
        pump(&mut client, &mut server, now);
        let events = events(&mut client);
        assert_eq!(events.len(), 3, "{events:?}");
        let Event::Progress { id, progress } = &events[0] else {
            panic!("expected progress, got {events:?}");
        };
        assert_eq!(*id, call_id);
        assert_eq!((progress.progress, progress.total), (1.0, Some(2.0)));
        assert_eq!(progress.message.as_deref(), Some("one of two"));
        assert!(matches!(&events[1], Event::Progress { progress, .. } if progress.progress == 2.0));
        assert!(matches!(&events[2], Event::Response { id, result: Ok(_) } if *id == call_id));
    }
}

// PROG-01..03 the other way: the server asks for progress on its own
// request and the client reports it.
#[test]
fn progress_travels_from_client_to_server_in_memory() {
    let now = Instant::now();
    let mut server = server(json!({}));
    let config = client_config(json!({"roots": {}})).pinned(ProtocolVersion::V2025_11_25);
    let mut client = client_with(config, now);
    connect(&mut client, &mut server, now);
    let roots = server_request("roots/list", json!({}));
    let roots_id = server
        .send_request(roots, RequestOptions::default().with_progress(), None, now)
        .unwrap();
    pump(&mut client, &mut server, now);
    let incoming = only_request(events(&mut client));
    assert!(incoming.context.progress_token.is_some());
    client.progress(&incoming.id, 0.5, Some(1.0)).unwrap();
    assert!(matches!(
        client.progress(&incoming.id, 0.5, None),
        Err(SendError::ProgressNotIncreasing { .. })
    ));
    client.respond(&incoming.id, Ok(roots_result())).unwrap();
    assert_eq!(
        client.progress(&incoming.id, 0.9, None),
        Err(SendError::UnknownRequest)
    );
    pump(&mut client, &mut server, now);
    let events = events(&mut server);
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        matches!(&events[0], Event::Progress { id, progress } if *id == roots_id && progress.progress == 0.5)
    );
    assert!(matches!(&events[1], Event::Response { id, result: Ok(_) } if *id == roots_id));
}
