//! Timeouts of requests we send, on fabricated instants (the engine reads
//! no clock): the earliest deadline, expiry with `notifications/cancelled`,
//! and progress resets capped by the absolute maximum.

use std::time::{Duration, Instant};

use crate::support::*;
use mcpwire_jsonrpc::RequestId;
use mcpwire_session::{
    ClientSession, Event, RequestOptions, ResponseError, ServerSession, Timeouts,
};
use mcpwire_types::ProtocolVersion;
use mcpwire_types::methods::ServerRequest;
use serde_json::json;

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// A client connected at `t0` to a tools server in 2026-07-28.
fn connected(t0: Instant, timeouts: Timeouts) -> (ClientSession, ServerSession) {
    let mut server = server(json!({"tools": {}}));
    let mut client = client_with(client_config(json!({})).with_timeouts(timeouts), t0);
    connect(&mut client, &mut server, t0);
    (client, server)
}

fn call(client: &mut ClientSession, options: RequestOptions, now: Instant) -> RequestId {
    let call = client_request("tools/call", json!({"name": "slow"}));
    let id = client.send_request(call, options, now).unwrap();
    sent(client);
    id
}

fn timed_out(
    events: &[Event<
        impl std::fmt::Debug,
        impl std::fmt::Debug,
        impl std::fmt::Debug,
        impl std::fmt::Debug,
    >],
) -> Vec<RequestId> {
    events
        .iter()
        .map(|event| match event {
            Event::Response {
                id,
                result: Err(ResponseError::TimedOut),
            } => id.clone(),
            other => panic!("expected a timeout, got {other:?}"),
        })
        .collect()
}

fn progress_for(client: &mut ClientSession, token: i64, value: f64, now: Instant) {
    let params = json!({"progressToken": token, "progress": value});
    feed(client, &notification("notifications/progress", params), now);
    assert_eq!(events(client).len(), 1, "the progress was accepted");
}

// LIFE-17: per-request timeouts; poll_timeout names the earliest deadline.
#[test]
fn poll_timeout_is_the_earliest_deadline() {
    let t0 = Instant::now();
    let (mut client, _server) = connected(t0, Timeouts::default());
    assert_eq!(client.poll_timeout(), None);
    call(
        &mut client,
        RequestOptions::default().with_timeout(secs(30)),
        t0,
    );
    call(
        &mut client,
        RequestOptions::default().with_timeout(secs(10)),
        t0 + secs(5),
    );
    call(
        &mut client,
        RequestOptions::default().with_timeout(secs(20)),
        t0,
    );
    assert_eq!(client.poll_timeout(), Some(t0 + secs(15)));
}

// LIFE-16: at its deadline a request fails with TimedOut and the peer gets
// `notifications/cancelled`; nothing happens a moment earlier, and a late
// answer is dropped (CANCEL-06).
#[test]
fn a_request_fails_at_its_deadline_and_is_cancelled() {
    let t0 = Instant::now();
    let (mut client, _server) = connected(t0, Timeouts::default());
    let id = call(&mut client, RequestOptions::default(), t0);
    let deadline = client.poll_timeout().unwrap();
    assert_eq!(deadline, t0 + secs(60), "the default timeout is 60 s");

    client.handle_timeout(deadline - Duration::from_millis(1));
    assert!(events(&mut client).is_empty());
    assert!(sent(&mut client).is_empty());

    client.handle_timeout(deadline);
    assert_eq!(timed_out(&events(&mut client)), std::slice::from_ref(&id));
    let n = id.as_number().unwrap();
    assert_eq!(
        sent_one(&mut client),
        notification(
            "notifications/cancelled",
            json!({"requestId": n, "reason": "request timed out"}),
        )
    );
    assert_eq!(client.poll_timeout(), None);
    feed(
        &mut client,
        &response(n, json!({"content": []})),
        t0 + secs(61),
    );
    assert!(events(&mut client).is_empty());
}

// LIFE-16: a timeout handled late fails every request that expired by then,
// in the order they were sent, and no other.
#[test]
fn a_late_timeout_call_fails_every_expired_request() {
    let t0 = Instant::now();
    let (mut client, _server) = connected(t0, Timeouts::default());
    let first = call(
        &mut client,
        RequestOptions::default().with_timeout(secs(10)),
        t0,
    );
    let second = call(
        &mut client,
        RequestOptions::default().with_timeout(secs(20)),
        t0,
    );
    let third = call(
        &mut client,
        RequestOptions::default().with_timeout(secs(90)),
        t0,
    );
    client.handle_timeout(t0 + secs(61));
    assert_eq!(timed_out(&events(&mut client)), [first, second]);
    assert_eq!(sent(&mut client).len(), 2);
    assert_eq!(client.poll_timeout(), Some(t0 + secs(90)));
    assert_eq!(client.requests_awaiting_answers(), 1);
    client.handle_timeout(t0 + secs(90));
    assert_eq!(timed_out(&events(&mut client)), [third]);
}

// LIFE-18: progress may restart the timeout, but never past the absolute
// maximum.
#[test]
fn progress_resets_the_timeout_but_never_past_the_maximum() {
    let t0 = Instant::now();
    let (mut client, _server) = connected(t0, Timeouts::default());
    let mut options = RequestOptions::default()
        .with_progress()
        .with_timeout(secs(10))
        .resetting_on_progress();
    options.maximum = Some(secs(25));
    let id = call(&mut client, options, t0);
    let token = id.as_number().unwrap();
    assert_eq!(client.poll_timeout(), Some(t0 + secs(10)));

    progress_for(&mut client, token, 0.1, t0 + secs(8));
    assert_eq!(client.poll_timeout(), Some(t0 + secs(18)));
    progress_for(&mut client, token, 0.2, t0 + secs(17));
    assert_eq!(
        client.poll_timeout(),
        Some(t0 + secs(25)),
        "capped by the maximum"
    );
    progress_for(&mut client, token, 0.3, t0 + secs(24));
    assert_eq!(client.poll_timeout(), Some(t0 + secs(25)));

    client.handle_timeout(t0 + secs(25));
    assert_eq!(timed_out(&events(&mut client)), [id]);
}

// LIFE-18 configured once: `Timeouts` sets the default reset and maximum
// for every request.
#[test]
fn the_session_timeouts_apply_to_every_request() {
    let t0 = Instant::now();
    let mut timeouts = Timeouts::default();
    timeouts.request = secs(5);
    timeouts.reset_on_progress = true;
    timeouts.maximum = secs(12);
    let (mut client, _server) = connected(t0, timeouts);
    let id = call(&mut client, RequestOptions::default().with_progress(), t0);
    progress_for(&mut client, id.as_number().unwrap(), 1.0, t0 + secs(4));
    assert_eq!(client.poll_timeout(), Some(t0 + secs(9)));
    progress_for(&mut client, id.as_number().unwrap(), 2.0, t0 + secs(8));
    assert_eq!(client.poll_timeout(), Some(t0 + secs(12)));

    // A timeout longer than the maximum is cut to it.
    let long = call(
        &mut client,
        RequestOptions::default().with_timeout(secs(600)),
        t0 + secs(20),
    );
    client.handle_timeout(t0 + secs(12));
    assert_eq!(timed_out(&events(&mut client)), [id]);
    assert_eq!(client.poll_timeout(), Some(t0 + secs(32)));
    client.handle_timeout(t0 + secs(32));
    assert_eq!(timed_out(&events(&mut client)), [long]);
}

// LIFE-18: without a reset, progress leaves the deadline where it was.
#[test]
fn progress_does_not_move_the_deadline_unless_asked() {
    let t0 = Instant::now();
    let (mut client, _server) = connected(t0, Timeouts::default());
    let id = call(&mut client, RequestOptions::default().with_progress(), t0);
    progress_for(&mut client, id.as_number().unwrap(), 1.0, t0 + secs(59));
    assert_eq!(client.poll_timeout(), Some(t0 + secs(60)));
    client.handle_timeout(t0 + secs(61));
    assert_eq!(timed_out(&events(&mut client)), [id]);
}

// LIFE-16 on the server side: its requests to the client time out the same way.
#[test]
fn the_server_times_out_its_own_requests() {
    let t0 = Instant::now();
    let mut server = server(json!({}));
    initialize(&mut server, "2025-06-18", json!({"roots": {}}), t0);
    let roots = ServerRequest::decode("roots/list", None).unwrap();
    let options = RequestOptions::default().with_timeout(secs(3));
    let id = server.send_request(roots, options, None, t0).unwrap();
    sent(&mut server);
    assert_eq!(server.poll_timeout(), Some(t0 + secs(3)));
    server.handle_timeout(t0 + secs(3));
    assert_eq!(timed_out(&events(&mut server)), std::slice::from_ref(&id));
    assert_eq!(
        sent_one(&mut server)["params"]["requestId"],
        id.as_number().unwrap()
    );
}

// CANCEL-02, LIFE-19: an `initialize` that times out fails the session and
// is not cancelled.
#[test]
fn an_initialize_that_times_out_fails_the_client_without_cancelling() {
    let t0 = Instant::now();
    let config = client_config(json!({})).pinned(ProtocolVersion::V2025_06_18);
    let mut client = client_with(config, t0);
    assert_eq!(sent_one(&mut client)["method"], "initialize");
    let deadline = client.poll_timeout().unwrap();
    client.handle_timeout(deadline);
    assert!(
        sent(&mut client).is_empty(),
        "initialize is never cancelled"
    );
    assert!(matches!(events(&mut client).as_slice(), [Event::Failed(_)]));
    assert!(client.failure().is_some());
    let list = client_request("tools/list", json!({}));
    assert!(matches!(
        client.send_request(list, RequestOptions::default(), deadline),
        Err(mcpwire_session::SendError::Failed(_))
    ));
}

// The engine's own `close`: every request still waiting fails with Closed.
#[test]
fn closing_fails_every_pending_request() {
    let t0 = Instant::now();
    let (mut client, _server) = connected(t0, Timeouts::default());
    let first = call(&mut client, RequestOptions::default(), t0);
    let second = call(&mut client, RequestOptions::default(), t0);
    client.close();
    let closed: Vec<RequestId> = events(&mut client)
        .into_iter()
        .map(|event| match event {
            Event::Response {
                id,
                result: Err(ResponseError::Closed),
            } => id,
            other => panic!("expected Closed, got {other:?}"),
        })
        .collect();
    assert_eq!(closed, [first, second]);
    assert_eq!(client.poll_timeout(), None);
}

// LIFE-17: a caller may ask for an effectively unbounded wait; the engine
// must not overflow computing the deadline (it would panic).
#[test]
fn an_unbounded_timeout_does_not_overflow() {
    let t0 = Instant::now();
    let (mut client, _server) = connected(t0, Timeouts::default());
    let mut options = RequestOptions::default()
        .with_progress()
        .with_timeout(Duration::MAX)
        .resetting_on_progress();
    options.maximum = Some(Duration::MAX);
    let id = call(&mut client, options, t0);
    let deadline = client.poll_timeout().unwrap();
    assert!(deadline > t0 + secs(365 * 24 * 3600), "{:?}", deadline - t0);
    progress_for(&mut client, id.as_number().unwrap(), 0.5, t0 + secs(10));
    client.handle_timeout(t0 + secs(365 * 24 * 3600));
    assert!(events(&mut client).is_empty());
    assert_eq!(client.requests_awaiting_answers(), 1);
}
