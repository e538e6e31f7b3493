//! The contract every `SessionStore`, `EventStore` and `MessageBus` keeps,
//! as checks that anyone implementing the traits can run against their own
//! store (the in-memory defaults and the Redis stores run the same ones).
//!
//! Each check is an async function that drives the store through one
//! scenario and panics with a message naming the broken rule: it is test
//! support, meant to be called from an async test on any runtime (the one
//! check that waits takes the runtime's `sleep`). Every check starts
//! from an empty store and uses its own session ids, so several checks may
//! share one backend as long as they do not run at the same time on it.
//! The module exists with the `store-contract` feature only, so that normal
//! builds carry none of it.
//!
//! ```
//! use mcpwire_store::{MemoryEventStore, store_contract};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // In a `#[tokio::test]`, with your own store in place of this one:
//! let store = MemoryEventStore::new();
//! store_contract::event_store_replays_only_the_named_stream_after_the_given_event(&store).await;
//! # }
//! ```

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test support: a panic is how a check reports a broken rule"
)]

use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};

use crate::{
    Envelope, EventStore, MessageBus, SessionId, SessionStore, StoreError, StoredEvent,
    StreamEvent, StreamKey,
};

/// How long a check waits for a stream's next item before it fails.
const STREAM_WAIT: Duration = Duration::from_secs(5);

/// Unwraps a store call, panicking with what was being done.
#[track_caller]
fn ok<T>(result: Result<T, StoreError>, doing: &str) -> T {
    match result {
        Ok(value) => value,
        Err(error) => panic!("store contract: {doing} failed: {error}"),
    }
}

/// A session id from a fixed, valid text.
fn session(text: &str) -> SessionId {
    SessionId::parse(text).expect("the contract's session ids are valid")
}

/// The event the checks store with sequence number `seq` (a small JSON
/// object, as a server stores).
fn event(seq: u64) -> StoredEvent {
    StoredEvent {
        seq,
        data: Bytes::from(format!("{{\"n\":{seq}}}")),
    }
}

/// Waits for a stream's next item, at most [`STREAM_WAIT`] of real time
/// (measured by a thread of its own, so that no runtime is assumed).
async fn next<S: Stream + Unpin>(stream: &mut S, what: &str) -> Option<S::Item> {
    let deadline = deadline::Deadline::after(STREAM_WAIT);
    match futures_util::future::select(stream.next(), deadline).await {
        futures_util::future::Either::Left((item, _)) => item,
        futures_util::future::Either::Right(((), _)) => {
            panic!("store contract: {what} gave nothing within {STREAM_WAIT:?}")
        }
    }
}

/// Asserts two values are equal, naming the rule when they are not.
#[track_caller]
#[allow(
    clippy::needless_pass_by_value,
    reason = "taking values keeps the checks free of borrows of temporaries"
)]
fn expect_eq<T: PartialEq + Debug>(actual: T, expected: T, rule: &str) {
    assert_eq!(actual, expected, "store contract: {rule}");
}

/// Checks that a replay gives only the named stream's events after the
/// given one, says whether the stream finished, counts events across
/// streams, and that removing the session removes its events.
///
/// The store must be empty and keep at least 3 events per stream and 6 per
/// session.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn event_store_replays_only_the_named_stream_after_the_given_event(
    store: &dyn EventStore,
) {
    let s = session("contract-replay");
    ok(store.create_session(&s).await, "create_session");
    let one = StreamKey::new(s.clone(), 1);
    let two = StreamKey::new(s.clone(), 2);
    ok(store.open(&one).await, "open stream 1");
    ok(store.open(&two).await, "open stream 2");
    for seq in 1..=3 {
        ok(store.append(&one, event(seq)).await, "append to stream 1");
        ok(store.append(&two, event(seq)).await, "append to stream 2");
    }
    ok(store.finish(&one).await, "finish stream 1");
    let replay = ok(store.replay(&one, Some(1)).await, "replay stream 1")
        .expect("store contract: a known stream replays as Some");
    expect_eq(
        replay.events,
        vec![event(2), event(3)],
        "a replay gives the stream's events after the given one, in order",
    );
    assert!(
        replay.finished,
        "store contract: a finished stream replays as finished"
    );
    let other = ok(store.replay(&two, Some(3)).await, "replay stream 2")
        .expect("store contract: a known stream replays as Some");
    assert!(
        !other.finished,
        "store contract: finishing one stream leaves the others open"
    );
    expect_eq(
        ok(store.count().await, "count"),
        6,
        "count is every event kept, across streams",
    );
    ok(store.remove_session(&s).await, "remove_session");
    expect_eq(
        ok(store.count().await, "count"),
        0,
        "removing a session removes its events",
    );
    expect_eq(
        ok(store.replay(&one, Some(0)).await, "replay after removal"),
        None,
        "a removed session's streams replay as None",
    );
}

/// Checks that retention is bounded per stream (the oldest events go
/// first) and per session (the session's oldest events go first, from
/// whichever stream), and that forgetting a stream drops it and its events.
///
/// The store must be empty and configured to keep 3 events per stream and
/// 5 per session.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn event_store_retention_is_bounded_per_stream_and_per_session(store: &dyn EventStore) {
    let s = session("contract-retention");
    ok(store.create_session(&s).await, "create_session");
    let one = StreamKey::new(s.clone(), 1);
    let two = StreamKey::new(s.clone(), 2);
    ok(store.open(&one).await, "open stream 1");
    ok(store.open(&two).await, "open stream 2");
    for seq in 1..=10 {
        ok(store.append(&one, event(seq)).await, "append to stream 1");
    }
    let kept = ok(store.replay(&one, Some(0)).await, "replay stream 1")
        .expect("store contract: a known stream replays as Some")
        .events;
    expect_eq(
        kept,
        vec![event(8), event(9), event(10)],
        "a stream keeps only its newest 3 events",
    );
    for seq in 1..=3 {
        ok(store.append(&two, event(seq)).await, "append to stream 2");
    }
    // Six events exceed the session's five: stream one's oldest goes.
    expect_eq(
        ok(store.count().await, "count"),
        5,
        "a session keeps at most 5 events",
    );
    let kept = ok(store.replay(&one, Some(0)).await, "replay stream 1")
        .expect("store contract: a known stream replays as Some")
        .events;
    expect_eq(
        kept,
        vec![event(9), event(10)],
        "the session's oldest event goes first",
    );
    ok(store.forget(&two).await, "forget stream 2");
    expect_eq(
        ok(store.count().await, "count"),
        2,
        "forgetting a stream drops its events",
    );
    expect_eq(
        ok(store.replay(&two, None).await, "replay a forgotten stream"),
        None,
        "a forgotten stream replays as None",
    );
    ok(store.remove_session(&s).await, "remove_session");
}

/// Checks that a session keeps at most 1,000 bytes of event data across
/// its streams, its oldest events going first, and that an event larger
/// than that is not kept (it would push out everything, then itself).
///
/// The store must be empty and configured to keep 1,000 bytes per session
/// (and at least 5 events per stream and per session).
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn event_store_retention_is_bounded_by_bytes_per_session(store: &dyn EventStore) {
    let s = session("contract-bytes");
    ok(store.create_session(&s).await, "create_session");
    let sized = |seq: u64, bytes: usize| StoredEvent {
        seq,
        data: Bytes::from(vec![b'x'; bytes]),
    };
    for stream in 1..=4 {
        let key = StreamKey::new(s.clone(), stream);
        ok(store.open(&key).await, "open");
        ok(store.append(&key, sized(1, 300)).await, "append 300 bytes");
        ok(store.finish(&key).await, "finish");
    }
    expect_eq(
        ok(store.count().await, "count"),
        3,
        "four events of 300 bytes: the oldest goes past 1,000 bytes",
    );
    let first = StreamKey::new(s.clone(), 1);
    expect_eq(
        ok(store.replay(&first, None).await, "replay stream 1"),
        None,
        "a finished stream whose events all went is gone",
    );
    let big = StreamKey::new(s.clone(), 5);
    ok(store.open(&big).await, "open stream 5");
    ok(
        store.append(&big, sized(1, 5000)).await,
        "append 5,000 bytes",
    );
    expect_eq(
        ok(store.count().await, "count"),
        3,
        "an event larger than the bound takes nothing else",
    );
    let kept = ok(store.replay(&big, None).await, "replay stream 5")
        .expect("store contract: an open stream replays as Some")
        .events;
    expect_eq(
        kept,
        Vec::new(),
        "an event larger than the bound is not kept",
    );
    let unopened = StreamKey::new(s.clone(), 6);
    ok(
        store.append(&unopened, sized(1, 5000)).await,
        "append 5,000 bytes to a stream never opened",
    );
    expect_eq(
        ok(store.replay(&unopened, None).await, "replay stream 6").map(|replay| replay.events),
        Some(Vec::new()),
        "an event too large to keep still opens its stream, for a client resuming it",
    );
    ok(store.remove_session(&s).await, "remove_session");
}

/// Checks that streams and events of a session the store does not know
/// (never created, or removed) are neither kept nor replayed.
///
/// The store must be empty.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn event_store_ignores_writes_for_sessions_it_does_not_know(store: &dyn EventStore) {
    let key = StreamKey::new(session("contract-gone"), 1);
    ok(store.open(&key).await, "open");
    ok(store.append(&key, event(1)).await, "append");
    ok(store.append_last(&key, event(2)).await, "append_last");
    expect_eq(
        ok(store.count().await, "count"),
        0,
        "events of an unknown session are not kept",
    );
    expect_eq(
        ok(store.replay(&key, None).await, "replay"),
        None,
        "streams of an unknown session replay as None",
    );
}

/// Checks that `append_last` appends a stream's last event and finishes
/// the stream, as `append` then `finish` do, and opens a stream that was
/// never opened (its first event needs no `open` of its own), while
/// `finish` leaves a stream never opened unknown.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn event_store_append_last_appends_and_finishes(store: &dyn EventStore) {
    let s = session("contract-append-last");
    ok(store.create_session(&s).await, "create_session");
    let key = StreamKey::new(s.clone(), 1);
    ok(store.open(&key).await, "open");
    ok(store.append(&key, event(1)).await, "append");
    ok(store.append_last(&key, event(2)).await, "append_last");
    let replay = ok(store.replay(&key, Some(0)).await, "replay")
        .expect("store contract: a known stream replays as Some");
    expect_eq(
        replay.events,
        vec![event(1), event(2)],
        "append_last appends after the events before it",
    );
    assert!(
        replay.finished,
        "store contract: append_last finishes the stream"
    );
    let never_opened = StreamKey::new(s.clone(), 2);
    ok(
        store.append_last(&never_opened, event(1)).await,
        "append_last to a stream never opened",
    );
    let replay = ok(store.replay(&never_opened, Some(0)).await, "replay")
        .expect("store contract: append_last opens a stream never opened");
    expect_eq(
        replay.events,
        vec![event(1)],
        "append_last logs the first event of a stream never opened",
    );
    assert!(
        replay.finished,
        "store contract: append_last finishes the stream it opened"
    );
    let unopened = StreamKey::new(s.clone(), 3);
    ok(
        store.append(&unopened, event(1)).await,
        "append to a stream never opened",
    );
    let replay = ok(store.replay(&unopened, Some(0)).await, "replay")
        .expect("store contract: append opens a stream never opened");
    expect_eq(replay.events, vec![event(1)], "append logs the first event");
    assert!(!replay.finished, "store contract: append does not finish");
    let finished_only = StreamKey::new(s.clone(), 4);
    ok(
        store.finish(&finished_only).await,
        "finish a stream never opened",
    );
    expect_eq(
        ok(store.replay(&finished_only, Some(0)).await, "replay"),
        None,
        "finish does not open a stream",
    );
    expect_eq(
        ok(store.count().await, "count"),
        4,
        "count is the events kept",
    );
    ok(store.remove_session(&s).await, "remove_session");
}

/// Checks that `append_now`, when the store takes the event at once, does
/// what `append` (or, for a last event, `append_last`) does; a store that
/// gives the event back passes through those calls.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn event_store_append_now_logs_as_append_and_append_last_do(store: &dyn EventStore) {
    let s = session("contract-append-now");
    ok(store.create_session(&s).await, "create_session");
    let key = StreamKey::new(s.clone(), 1);
    for (seq, last) in [(1, false), (2, true)] {
        let appended = match store.append_now(&key, event(seq), last) {
            Ok(appended) => appended,
            Err(event) if last => store.append_last(&key, event).await,
            Err(event) => store.append(&key, event).await,
        };
        ok(appended, "append_now");
    }
    let replay = ok(store.replay(&key, Some(0)).await, "replay")
        .expect("store contract: append_now opens a stream never opened");
    expect_eq(
        replay.events,
        vec![event(1), event(2)],
        "append_now logs in order",
    );
    assert!(
        replay.finished,
        "store contract: append_now of a last event finishes the stream"
    );
    ok(store.remove_session(&s).await, "remove_session");
}

/// Checks that replaying the standalone stream (stream 0) without an
/// event id starts after the highest delivery mark, which never moves back.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn event_store_standalone_replay_without_an_id_starts_after_the_delivery_mark(
    store: &dyn EventStore,
) {
    let s = session("contract-standalone");
    ok(store.create_session(&s).await, "create_session");
    let standalone = StreamKey::new(s.clone(), 0);
    for seq in 1..=4 {
        ok(store.append(&standalone, event(seq)).await, "append");
    }
    ok(
        store.mark_delivered(&standalone, 2).await,
        "mark_delivered 2",
    );
    ok(
        store.mark_delivered(&standalone, 1).await,
        "mark_delivered 1",
    );
    let replay = ok(store.replay(&standalone, None).await, "replay")
        .expect("store contract: the standalone stream of a known session replays as Some");
    expect_eq(
        replay.events,
        vec![event(3), event(4)],
        "a replay without an id starts after the highest delivery mark",
    );
    ok(store.remove_session(&s).await, "remove_session");
}

/// Checks that sessions expire after `idle` without a touch, that a touch
/// refreshes the deadline, that an expired session reads as absent (no
/// record, no new stream numbers) but is counted until `take_expired`
/// hands it over exactly once, and that stream numbers count from 1.
///
/// The check waits with `sleep` (the runtime's, e.g. `tokio::time::sleep`)
/// for about 2.3 times `idle` in all: a store on the runtime's clock can be
/// tested with paused time and a long `idle`; a store on another clock
/// needs real time and an `idle` long enough for its resolution (a few
/// hundred milliseconds for Redis). The store must be empty.
/// (`mcpwire_http::server::store_contract` has this check with tokio's
/// `sleep` filled in.)
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn session_store_expires_idle_sessions_and_touch_refreshes<F, S>(
    store: &dyn SessionStore,
    idle: Duration,
    sleep: S,
) where
    S: Fn(Duration) -> F,
    F: Future<Output = ()>,
{
    let (a, b) = (session("contract-a"), session("contract-b"));
    ok(store.create(&a, idle).await, "create a");
    ok(store.create(&b, idle).await, "create b");
    sleep(idle * 7 / 12).await;
    assert!(
        ok(store.touch(&a, idle).await, "touch a").is_some(),
        "store contract: a session touched before its deadline is live"
    );
    sleep(idle * 7 / 12).await;
    expect_eq(
        ok(store.touch(&b, idle).await, "touch b"),
        None,
        "touching an expired session gives None",
    );
    expect_eq(
        ok(store.get(&b).await, "get b"),
        None,
        "an expired session reads as absent",
    );
    expect_eq(
        ok(store.take_expired().await, "take_expired"),
        vec![b.clone()],
        "take_expired hands over exactly the expired sessions",
    );
    assert!(
        ok(store.get(&a).await, "get a").is_some(),
        "store contract: a touch refreshes the idle deadline"
    );
    expect_eq(
        ok(store.next_stream(&a).await, "next_stream"),
        Some(1),
        "stream numbers start at 1",
    );
    expect_eq(
        ok(store.next_stream(&a).await, "next_stream"),
        Some(2),
        "stream numbers increase by 1",
    );
    sleep(idle * 7 / 6).await;
    expect_eq(
        ok(store.touch(&a, idle).await, "touch a"),
        None,
        "a session expires after idle without a touch",
    );
    expect_eq(
        ok(store.next_stream(&a).await, "next_stream"),
        None,
        "an expired session gives no stream numbers",
    );
    // Held until swept.
    expect_eq(
        ok(store.count().await, "count"),
        1,
        "an expired session is counted until take_expired takes it",
    );
    expect_eq(
        ok(store.take_expired().await, "take_expired"),
        vec![a],
        "take_expired hands over exactly the expired sessions",
    );
    expect_eq(
        ok(store.count().await, "count"),
        0,
        "take_expired removes what it hands over",
    );
}

/// Checks that a session bound to its owner ([`SessionStore::set_owner`])
/// carries the owner in every record read back (`get` and `touch`), so
/// that the server answers another identity as it answers an unknown id
/// (SEC-10: a session id is not authentication), and that binding an
/// unknown session does not bring it into being.
///
/// The store must be empty.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn session_store_binds_a_session_to_its_owner(store: &dyn SessionStore) {
    let (s, unknown) = (session("contract-owned"), session("contract-unknown"));
    let idle = Duration::from_secs(60);
    ok(store.create(&s, idle).await, "create");
    let record = ok(store.get(&s).await, "get").expect("store contract: a new session is live");
    expect_eq(record.owner, None, "a new session is bound to nobody");
    let owner = "alice\nclient-1";
    ok(store.set_owner(&s, owner).await, "set_owner");
    let record = ok(store.get(&s).await, "get").expect("store contract: a bound session is live");
    expect_eq(
        record.owner.as_deref(),
        Some(owner),
        "get returns the owner a session was bound to",
    );
    let touched =
        ok(store.touch(&s, idle).await, "touch").expect("store contract: a bound session is live");
    expect_eq(
        touched.owner.as_deref(),
        Some(owner),
        "touch returns the owner a session was bound to",
    );
    assert!(
        touched.admits(Some(owner)) && !touched.admits(Some("bob")) && !touched.admits(None),
        "store contract: a bound session admits its owner only"
    );
    ok(
        store.set_owner(&unknown, owner).await,
        "set_owner of an unknown session",
    );
    expect_eq(
        ok(store.get(&unknown).await, "get"),
        None,
        "binding an unknown session does not create it",
    );
    assert!(
        ok(store.remove(&s).await, "remove"),
        "store contract: removing a live session reports true"
    );
}

/// Checks [`SessionStore::touch_and_open_stream`], the one round trip of
/// a POST holding a request: it numbers streams in the same sequence as
/// `next_stream`, returns the record (its revision and owner), refuses an
/// unknown session and another identity than the owner's without taking a
/// stream number, and refuses a removed session.
///
/// The store must be empty.
///
/// # Panics
///
/// When the store breaks one of these rules or one of its calls fails.
pub async fn session_store_touches_and_opens_a_stream_at_once(store: &dyn SessionStore) {
    let (s, owned) = (session("contract-open"), session("contract-open-owned"));
    let unknown = session("contract-open-unknown");
    let idle = Duration::from_secs(60);
    ok(store.create(&s, idle).await, "create");
    ok(
        store
            .set_version(&s, mcpwire_types::ProtocolVersion::V2025_11_25)
            .await,
        "set_version",
    );
    let (record, first) = ok(
        store.touch_and_open_stream(&s, idle, None).await,
        "touch_and_open_stream",
    )
    .expect("store contract: a live session opens a stream");
    expect_eq(first, 1, "stream numbers start at 1");
    expect_eq(
        record.version,
        Some(mcpwire_types::ProtocolVersion::V2025_11_25),
        "touch_and_open_stream returns the negotiated revision",
    );
    expect_eq(
        ok(store.next_stream(&s).await, "next_stream"),
        Some(2),
        "touch_and_open_stream and next_stream share one sequence",
    );
    let (_, third) = ok(
        store.touch_and_open_stream(&s, idle, Some("anyone")).await,
        "touch_and_open_stream",
    )
    .expect("store contract: a session bound to nobody admits anyone");
    expect_eq(third, 3, "stream numbers increase by 1");
    // A store that answers at once answers as its future does, on the
    // same sequence.
    if let Some(opened) = store.touch_and_open_stream_now(&s, idle, None) {
        let (record, fourth) = ok(opened, "touch_and_open_stream_now")
            .expect("store contract: a live session opens a stream at once");
        expect_eq(fourth, 4, "touch_and_open_stream_now shares the sequence");
        expect_eq(
            record.version,
            Some(mcpwire_types::ProtocolVersion::V2025_11_25),
            "touch_and_open_stream_now returns the negotiated revision",
        );
        expect_eq(
            store
                .touch_and_open_stream_now(&unknown, idle, None)
                .map(|opened| ok(opened, "touch_and_open_stream_now of an unknown session")),
            Some(None),
            "an unknown session opens no stream at once",
        );
    }
    expect_eq(
        ok(
            store.touch_and_open_stream(&unknown, idle, None).await,
            "touch_and_open_stream of an unknown session",
        ),
        None,
        "an unknown session opens no stream",
    );
    ok(store.create(&owned, idle).await, "create");
    ok(store.set_owner(&owned, "alice").await, "set_owner");
    for stranger in [None, Some("bob")] {
        expect_eq(
            ok(
                store.touch_and_open_stream(&owned, idle, stranger).await,
                "touch_and_open_stream by a stranger",
            ),
            None,
            "a session bound to another identity opens no stream",
        );
    }
    let (record, number) = ok(
        store
            .touch_and_open_stream(&owned, idle, Some("alice"))
            .await,
        "touch_and_open_stream by the owner",
    )
    .expect("store contract: the owner opens a stream");
    expect_eq(
        (record.owner.as_deref(), number),
        (Some("alice"), 1),
        "the owner's stream is numbered as if no stranger had tried",
    );
    assert!(
        ok(store.remove(&s).await, "remove"),
        "store contract: removing a live session reports true"
    );
    expect_eq(
        ok(
            store.touch_and_open_stream(&s, idle, None).await,
            "touch_and_open_stream of a removed session",
        ),
        None,
        "a removed session opens no stream",
    );
    ok(store.remove(&owned).await, "remove");
}

/// Checks the bus's routing rules on one session: publishing to a stream
/// nobody holds reports `false`; a new connection to a stream replaces
/// (ends) the previous one, whether made by `subscribe`, `subscribe_now`
/// or `subscribe_here_now` (announced or not); `publish_now` offers an
/// event as `publish` does or gives it back; a registered runtime
/// receives what is delivered;
/// closing the session ends its inbox and its connections, and later
/// deliveries report `false`.
///
/// Callers with a way to count registered runtimes should check after this
/// that none is left.
///
/// # Panics
///
/// When the bus breaks one of these rules, one of its calls fails, or a
/// stream gives nothing within 5 s.
pub async fn message_bus_replaces_a_stream_connection_and_reports_absent_ones(
    bus: &dyn MessageBus,
) {
    let s = session("contract-bus");
    let mut inbox = ok(bus.register(&s, 4).await, "register");
    let key = StreamKey::new(s.clone(), 1);
    assert!(
        !ok(bus.publish(&key, StreamEvent::End).await, "publish"),
        "store contract: publishing to a stream nobody holds reports false"
    );
    let mut first = ok(bus.subscribe(&key, 4).await, "subscribe");
    let mut second = ok(bus.subscribe(&key, 4).await, "subscribe again");
    expect_eq(
        next(&mut first, "the replaced connection").await,
        None,
        "a new connection to a stream ends the previous one",
    );
    // A bus that attaches at once does it as `subscribe` does.
    let mut second = match bus.subscribe_now(&key, 4) {
        Some(mut now) => {
            expect_eq(
                next(&mut second, "the connection replaced at once").await,
                None,
                "subscribe_now ends the previous connection as subscribe does",
            );
            assert!(
                ok(bus.publish(&key, StreamEvent::Pause).await, "publish"),
                "store contract: publishing to a stream held by subscribe_now reports true"
            );
            expect_eq(
                next(&mut now, "the connection attached at once").await,
                Some(StreamEvent::Pause),
                "a connection attached by subscribe_now receives what is published",
            );
            ok(
                bus.subscribe(&key, 4).await,
                "subscribe after subscribe_now",
            )
        }
        None => second,
    };
    // A connection attached here alone (the session's runtime runs on
    // this instance) replaces the previous one as well, receives what is
    // published, and stays attached when announced, however often.
    let mut second = match bus.subscribe_here_now(&key, 4) {
        Some(here) => {
            expect_eq(
                next(&mut second, "the connection replaced here").await,
                None,
                "subscribe_here_now ends the previous connection as subscribe does",
            );
            ok(bus.announce(&key).await, "announce");
            ok(bus.announce(&key).await, "announce again");
            here
        }
        None => second,
    };
    assert!(
        ok(bus.publish(&key, StreamEvent::Pause).await, "publish"),
        "store contract: publishing to a held stream reports true"
    );
    expect_eq(
        next(&mut second, "the connection").await,
        Some(StreamEvent::Pause),
        "the current connection receives what is published",
    );
    // A bus that offers an event at once does it as `publish` does; one
    // that cannot gives the event back, for `publish`.
    match bus.publish_now(&key, StreamEvent::Pause) {
        Ok(published) => {
            assert!(
                ok(published, "publish_now"),
                "store contract: publish_now to a held stream reports true"
            );
            expect_eq(
                next(&mut second, "the connection").await,
                Some(StreamEvent::Pause),
                "the current connection receives what publish_now offers",
            );
        }
        Err(event) => expect_eq(
            event,
            StreamEvent::Pause,
            "publish_now gives back the event it cannot offer",
        ),
    }
    let envelope = Envelope::new(Bytes::from_static(b"{}"), None, false);
    assert!(
        ok(bus.deliver(&s, envelope.clone()).await, "deliver"),
        "store contract: delivering to a registered runtime reports true"
    );
    expect_eq(
        next(&mut inbox, "the runtime's inbox").await,
        Some(envelope.clone()),
        "the runtime receives what is delivered",
    );
    ok(bus.close(&s).await, "close");
    expect_eq(
        next(&mut inbox, "the closed inbox").await,
        None,
        "closing a session ends its runtime's inbox",
    );
    expect_eq(
        next(&mut second, "the closed connection").await,
        None,
        "closing a session ends its connections",
    );
    assert!(
        !ok(bus.deliver(&s, envelope).await, "deliver after close"),
        "store contract: delivering to a closed session reports false"
    );
}

/// A future that completes after a span of real time, woken by a thread of
/// its own: the contract's checks run on any runtime, so none is assumed.
mod deadline {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex, PoisonError};
    use std::task::{Context, Poll, Waker};
    use std::time::Duration;

    /// Whether the time is up, and whom to wake when it is.
    #[derive(Default)]
    struct Shared {
        done: bool,
        waker: Option<Waker>,
    }

    /// Completes once `span` has passed since [`Deadline::after`].
    pub(super) struct Deadline(Arc<Mutex<Shared>>);

    impl Deadline {
        /// A deadline `span` from now.
        pub(super) fn after(span: Duration) -> Self {
            let shared = Arc::new(Mutex::new(Shared::default()));
            let timer = Arc::clone(&shared);
            std::thread::spawn(move || {
                std::thread::sleep(span);
                let mut shared = timer.lock().unwrap_or_else(PoisonError::into_inner);
                shared.done = true;
                if let Some(waker) = shared.waker.take() {
                    waker.wake();
                }
            });
            Self(shared)
        }
    }

    impl Future for Deadline {
        type Output = ();

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            let mut shared = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            if shared.done {
                return Poll::Ready(());
            }
            shared.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}
