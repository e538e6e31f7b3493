//! The Redis stores against a real `redis-server`: mcpwire-http's store
//! contract (`server::store_contract`, the checks the in-memory defaults
//! run too), plus what only a shared store shows: two instances see one
//! state, keys carry TTLs, and a Redis restart gives prompt errors and
//! then recovery.

use std::time::{Duration, Instant};

use crate::support::RedisServer;
use bytes::Bytes;
use futures_util::StreamExt;
use mcpwire_http::server::{
    Envelope, EventStore, MessageBus, SessionId, SessionStore, StoredEvent, StreamEvent, StreamKey,
    store_contract,
};
use mcpwire_redis::RedisStores;
use mcpwire_types::ProtocolVersion;

fn id(text: &str) -> SessionId {
    SessionId::parse(text).unwrap()
}

fn event(seq: u64) -> StoredEvent {
    StoredEvent {
        seq,
        data: Bytes::from(format!("{{\"n\":{seq}}}")),
    }
}

/// Waits for a stream's next item, at most 5 s.
async fn next<S: futures_util::Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
    tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("the stream answered within 5 s")
}

#[tokio::test]
async fn event_store_replays_only_the_named_stream_after_the_given_event() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().events;
    store_contract::event_store_replays_only_the_named_stream_after_the_given_event(&*store).await;
}

#[tokio::test]
async fn event_store_append_last_appends_and_finishes() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().events;
    store_contract::event_store_append_last_appends_and_finishes(&*store).await;
}

#[tokio::test]
async fn event_store_append_now_logs_as_append_and_append_last_do() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().events;
    store_contract::event_store_append_now_logs_as_append_and_append_last_do(&*store).await;
}

#[tokio::test]
async fn event_store_retention_is_bounded_per_stream_and_per_session() {
    let redis = RedisServer::start();
    let config = redis.config().retention(3, 5);
    let store = RedisStores::connect(config).await.unwrap().events;
    store_contract::event_store_retention_is_bounded_per_stream_and_per_session(&*store).await;
}

#[tokio::test]
async fn event_store_retention_is_bounded_by_bytes_per_session() {
    let redis = RedisServer::start();
    let config = redis.config().retention_bytes(1000);
    let store = RedisStores::connect(config).await.unwrap().events;
    store_contract::event_store_retention_is_bounded_by_bytes_per_session(&*store).await;
}

#[tokio::test]
async fn event_store_ignores_writes_for_sessions_it_does_not_know() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().events;
    store_contract::event_store_ignores_writes_for_sessions_it_does_not_know(&*store).await;
}

#[tokio::test]
async fn standalone_replay_without_an_id_starts_after_the_delivery_mark() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().events;
    store_contract::event_store_standalone_replay_without_an_id_starts_after_the_delivery_mark(
        &*store,
    )
    .await;
}

#[tokio::test]
async fn every_event_key_carries_a_ttl() {
    let redis = RedisServer::start();
    let config = redis.config().event_ttl(Duration::from_secs(60));
    let store = RedisStores::connect(config).await.unwrap().events;
    let s = id("s");
    store.create_session(&s).await.unwrap();
    let key = StreamKey::new(s, 1);
    store.open(&key).await.unwrap();
    store.append(&key, event(1)).await.unwrap();
    store.finish(&key).await.unwrap();
    store.completed(&key).await.unwrap();
    let client = redis::Client::open(redis.url()).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut connection)
        .await
        .unwrap();
    // The session's meta hash and order list, stream 1's events, and the
    // list of streams delivered whole.
    assert_eq!(keys.len(), 4, "{keys:?}");
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&key)
            .query_async(&mut connection)
            .await
            .unwrap();
        assert!(ttl > 0 && ttl <= 60_000, "{key}: {ttl}");
    }
}

/// Real time: Redis keeps the idle deadlines on its own clock.
#[tokio::test]
async fn session_store_expires_idle_sessions_and_touch_refreshes() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().sessions;
    store_contract::session_store_expires_idle_sessions_and_touch_refreshes(
        &*store,
        Duration::from_millis(600),
    )
    .await;
}

/// Issue 17 item 6: a session bound to its creator stays bound in Redis,
/// so another identity holding its id is refused on every instance.
#[tokio::test]
async fn session_store_binds_a_session_to_its_owner() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().sessions;
    store_contract::session_store_binds_a_session_to_its_owner(&*store).await;
}

/// Issue 20: a POST holding a request touches its session and numbers
/// its stream in one round trip, under the same rules as the two calls.
#[tokio::test]
async fn session_store_touches_and_opens_a_stream_at_once() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().sessions;
    store_contract::session_store_touches_and_opens_a_stream_at_once(&*store).await;
}

#[tokio::test]
async fn a_sessions_owner_is_seen_by_every_instance() {
    let redis = RedisServer::start();
    let one = RedisStores::connect(redis.config()).await.unwrap();
    let two = RedisStores::connect(redis.config()).await.unwrap();
    let s = id("owned-across");
    one.sessions
        .create(&s, Duration::from_secs(60))
        .await
        .unwrap();
    one.sessions.set_owner(&s, "alice").await.unwrap();
    let record = two.sessions.get(&s).await.unwrap().unwrap();
    assert!(record.admits(Some("alice")));
    assert!(!record.admits(Some("bob")));
    assert!(!record.admits(None));
}

/// As the in-memory store: only the latest four streams delivered whole
/// stay replayable, so a session's completed streams cannot pile up.
#[tokio::test]
async fn only_the_latest_streams_delivered_whole_stay_replayable() {
    let redis = RedisServer::start();
    let store = RedisStores::connect(redis.config()).await.unwrap().events;
    let s = id("completed");
    store.create_session(&s).await.unwrap();
    for stream in 1..=10 {
        let key = StreamKey::new(s.clone(), stream);
        store.open(&key).await.unwrap();
        store.append(&key, event(1)).await.unwrap();
        store.finish(&key).await.unwrap();
        store.completed(&key).await.unwrap();
    }
    assert_eq!(store.count().await.unwrap(), 4);
    for (stream, kept) in [(6, false), (7, true), (10, true)] {
        let replay = store
            .replay(&StreamKey::new(s.clone(), stream), Some(0))
            .await
            .unwrap();
        assert_eq!(replay.is_some(), kept, "stream {stream}");
    }
    // An unknown session is ignored, not brought into being.
    let unknown = StreamKey::new(id("never-created"), 1);
    store.completed(&unknown).await.unwrap();
    assert_eq!(store.replay(&unknown, None).await.unwrap(), None);
    store.remove_session(&s).await.unwrap();
    assert_eq!(store.count().await.unwrap(), 0);
}

#[tokio::test]
async fn session_records_are_shared_between_instances() {
    let redis = RedisServer::start();
    let one = RedisStores::connect(redis.config()).await.unwrap().sessions;
    let two = RedisStores::connect(redis.config()).await.unwrap().sessions;
    let s = id("shared");
    one.create(&s, Duration::from_secs(60)).await.unwrap();
    assert_eq!(two.get(&s).await.unwrap().unwrap().version, None);
    two.set_version(&s, ProtocolVersion::V2025_11_25)
        .await
        .unwrap();
    let record = one
        .touch(&s, Duration::from_secs(60))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(record.version, Some(ProtocolVersion::V2025_11_25));
    assert_eq!(one.next_stream(&s).await.unwrap(), Some(1));
    assert_eq!(two.next_stream(&s).await.unwrap(), Some(2));
    assert!(two.remove(&s).await.unwrap());
    assert!(!one.remove(&s).await.unwrap());
    assert_eq!(one.get(&s).await.unwrap(), None);
    // A version set after removal does not bring the record back.
    one.set_version(&s, ProtocolVersion::V2025_11_25)
        .await
        .unwrap();
    assert_eq!(one.get(&s).await.unwrap(), None);
}

#[tokio::test]
async fn bus_replaces_a_stream_connection_and_reports_absent_ones() {
    let redis = RedisServer::start();
    let bus = RedisStores::connect(redis.config()).await.unwrap().bus;
    store_contract::message_bus_replaces_a_stream_connection_and_reports_absent_ones(&*bus).await;
    assert_eq!(bus.runtime_count(), 0);
}

/// `publish_now` settles here what needs no Redis: an event for a local
/// connection, and the end of a stream that has no route to drop; it
/// gives back the end of an announced stream (its route must be deleted)
/// and an event for a stream held nowhere here, which `publish` then
/// settles.
#[tokio::test]
async fn bus_publish_now_settles_local_streams_and_gives_back_what_needs_redis() {
    let redis = RedisServer::start();
    let bus = RedisStores::connect(redis.config()).await.unwrap().bus;
    let s = id("publish-now");
    let _inbox = bus.register(&s, 4).await.unwrap();

    let quiet = StreamKey::new(s.clone(), 1);
    let mut here = bus.subscribe_here_now(&quiet, 4).unwrap();
    assert!(
        bus.publish_now(&quiet, StreamEvent::Pause)
            .unwrap()
            .unwrap()
    );
    assert!(bus.publish_now(&quiet, StreamEvent::End).unwrap().unwrap());
    assert_eq!(next(&mut here).await, Some(StreamEvent::Pause));
    assert_eq!(next(&mut here).await, Some(StreamEvent::End));
    assert_eq!(
        next(&mut here).await,
        None,
        "a final event ends the connection"
    );
    // Nothing attached here any more: only Redis can tell.
    assert_eq!(
        bus.publish_now(&quiet, StreamEvent::Pause).unwrap_err(),
        StreamEvent::Pause
    );
    assert!(!bus.publish(&quiet, StreamEvent::Pause).await.unwrap());

    let announced = StreamKey::new(s.clone(), 2);
    let mut routed = bus.subscribe_here_now(&announced, 4).unwrap();
    bus.announce(&announced).await.unwrap();
    assert_eq!(
        bus.publish_now(&announced, StreamEvent::End).unwrap_err(),
        StreamEvent::End,
        "the end of an announced stream waits for its route to be deleted"
    );
    assert!(bus.publish(&announced, StreamEvent::End).await.unwrap());
    assert_eq!(next(&mut routed).await, Some(StreamEvent::End));
    assert_eq!(next(&mut routed).await, None);
    bus.close(&s).await.unwrap();
    assert_eq!(bus.runtime_count(), 0);
}

#[tokio::test]
async fn bus_routes_posts_and_events_between_instances() {
    let redis = RedisServer::start();
    let runtime_side = RedisStores::connect(redis.config()).await.unwrap().bus;
    let http_side = RedisStores::connect(redis.config()).await.unwrap().bus;
    let third = RedisStores::connect(redis.config()).await.unwrap().bus;
    let s = id("routed");
    let key = StreamKey::new(s.clone(), 3);
    // Unknown session: nothing to subscribe to, nowhere to deliver.
    let mut unknown = http_side.subscribe(&key, 4).await.unwrap();
    assert_eq!(next(&mut unknown).await, None);
    let envelope = Envelope::new(Bytes::from_static(b"[1]"), Some(3), false);
    assert!(!http_side.deliver(&s, envelope.clone()).await.unwrap());

    let mut inbox = runtime_side.register(&s, 4).await.unwrap();
    let mut connection = http_side.subscribe(&key, 4).await.unwrap();
    assert!(http_side.deliver(&s, envelope.clone()).await.unwrap());
    assert_eq!(next(&mut inbox).await, Some(envelope));
    let message = |seq, last| StreamEvent::Message {
        seq,
        data: Bytes::from_static(b"{}"),
        last,
    };
    for seq in 1..=20 {
        assert!(
            runtime_side
                .publish(&key, message(seq, false))
                .await
                .unwrap()
        );
    }
    for seq in 1..=20 {
        assert_eq!(next(&mut connection).await, Some(message(seq, false)));
    }
    // A connection on a third instance replaces the second's.
    let mut resumed = third.subscribe(&key, 4).await.unwrap();
    assert_eq!(next(&mut connection).await, None);
    assert!(runtime_side.publish(&key, message(21, true)).await.unwrap());
    assert_eq!(next(&mut resumed).await, Some(message(21, true)));
    // The final event detached it everywhere.
    assert_eq!(next(&mut resumed).await, None);
    let started = Instant::now();
    while runtime_side.publish(&key, StreamEvent::End).await.unwrap() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the route stayed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Closing on one instance ends the runtime's inbox on another.
    let mut again = http_side.subscribe(&key, 4).await.unwrap();
    third.close(&s).await.unwrap();
    assert_eq!(next(&mut inbox).await, None);
    assert_eq!(next(&mut again).await, None);
}

#[tokio::test]
async fn a_redis_restart_gives_prompt_errors_then_the_stores_recover() {
    let mut redis = RedisServer::start();
    let stores = RedisStores::connect(redis.config()).await.unwrap();
    let other = RedisStores::connect(redis.config()).await.unwrap();
    let s = id("before");
    stores
        .sessions
        .create(&s, Duration::from_secs(60))
        .await
        .unwrap();
    redis.kill();
    let started = Instant::now();
    assert!(stores.sessions.get(&s).await.is_err());
    assert!(stores.events.count().await.is_err());
    // Bounded: the command timeout (1.5 s) with some slack.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    redis.restart();
    // Nothing survives (the test Redis saves nothing), and within a few
    // seconds every store and both bus listeners work again.
    let started = Instant::now();
    loop {
        let fresh = id("after");
        let recovered = async {
            stores
                .sessions
                .create(&fresh, Duration::from_secs(60))
                .await?;
            let mut inbox = stores.bus.register(&fresh, 4).await?;
            let envelope = Envelope::new(Bytes::from_static(b"{}"), None, false);
            let delivered = other.bus.deliver(&fresh, envelope).await?;
            let received = tokio::time::timeout(Duration::from_millis(500), inbox.next())
                .await
                .ok()
                .flatten();
            Ok::<_, mcpwire_http::server::StoreError>(delivered && received.is_some())
        }
        .await;
        if matches!(recovered, Ok(true)) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "no recovery: {recovered:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(stores.sessions.get(&s).await.unwrap(), None);
}

/// A POST's stream attached with `subscribe_here_now` on the instance that
/// runs its session's runtime gets no route in Redis: the runtime's events
/// reach it locally, and another instance cannot find it. Once announced
/// (before its response sends an event id) it is reachable from every
/// instance, and a connection attached elsewhere replaces it. An instance
/// that does not run the runtime cannot attach here alone.
#[tokio::test]
async fn a_stream_attached_here_is_reachable_elsewhere_only_once_announced() {
    let redis = RedisServer::start();
    let here = RedisStores::connect(redis.config()).await.unwrap().bus;
    let elsewhere = RedisStores::connect(redis.config()).await.unwrap().bus;
    let s = id("attached-here");
    let key = StreamKey::new(s.clone(), 4);
    let _inbox = here.register(&s, 4).await.unwrap();
    assert!(elsewhere.subscribe_here_now(&key, 4).is_none());
    let mut connection = here.subscribe_here_now(&key, 4).unwrap();
    let message = |seq| StreamEvent::Message {
        seq,
        data: Bytes::from_static(b"{}"),
        last: false,
    };
    assert!(here.publish(&key, message(1)).await.unwrap());
    assert_eq!(next(&mut connection).await, Some(message(1)));
    assert!(
        !elsewhere.publish(&key, message(2)).await.unwrap(),
        "no route before the announcement"
    );
    here.announce(&key).await.unwrap();
    here.announce(&key).await.unwrap();
    assert!(elsewhere.publish(&key, message(3)).await.unwrap());
    assert_eq!(next(&mut connection).await, Some(message(3)));
    let mut resumed = elsewhere.subscribe(&key, 4).await.unwrap();
    assert_eq!(next(&mut connection).await, None, "replaced elsewhere");
    assert!(here.publish(&key, message(4)).await.unwrap());
    assert_eq!(next(&mut resumed).await, Some(message(4)));
}

/// A message that reaches an instance whose runtime for the session has
/// ended (it ended just as another instance sent the message, which still
/// found the instance in its route or its memory) is not silently lost:
/// the POST waiting for its answers has its stream's connection ended, so
/// that it is answered rather than held open. Forced here with a route
/// naming an instance that never ran the session.
#[tokio::test]
async fn a_message_for_a_runtime_that_ended_ends_the_posts_stream() {
    let redis = RedisServer::start();
    let post_side = RedisStores::connect(redis.config()).await.unwrap().bus;
    let stale_side = RedisStores::connect(redis.config()).await.unwrap().bus;
    let s = id("ended-here");
    let client = redis::Client::open(redis.url()).unwrap();
    let mut connection = client.get_connection().unwrap();
    let () = redis::cmd("SET")
        .arg(format!("mcpwire:bus:rt:{}", s.as_str()))
        .arg(stale_side.instance())
        .query(&mut connection)
        .unwrap();
    let key = StreamKey::new(s.clone(), 1);
    let mut stream = post_side.subscribe(&key, 4).await.unwrap();
    let envelope = Envelope::new(Bytes::from_static(b"[1]"), Some(1), false);
    assert!(post_side.deliver(&s, envelope).await.unwrap());
    assert_eq!(next(&mut stream).await, None, "the POST's stream ended");
}

/// A message for a runtime that lives on another instance but takes
/// nothing (its inbox stays full for the command timeout) is refused
/// there with a JSON-RPC error answering its request, on the POST's
/// stream: the client learns the session is overloaded, not (as a 404
/// would tell it) that the session is gone.
#[tokio::test]
async fn a_message_for_a_runtime_that_takes_nothing_is_answered_with_an_error_not_a_404() {
    let redis = RedisServer::start();
    let post_side = RedisStores::connect(redis.config()).await.unwrap().bus;
    let runtime_side = RedisStores::connect(redis.config()).await.unwrap().bus;
    let s = id("stalled-there");
    // Capacity 1, never read: the first message fills it.
    let _inbox = runtime_side.register(&s, 1).await.unwrap();
    let request =
        |id: u64| Bytes::from(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
    let first = StreamKey::new(s.clone(), 1);
    let _first_stream = post_side.subscribe(&first, 4).await.unwrap();
    assert!(
        post_side
            .deliver(&s, Envelope::new(request(1), Some(1), false))
            .await
            .unwrap()
    );
    let second = StreamKey::new(s.clone(), 2);
    let mut stream = post_side.subscribe(&second, 4).await.unwrap();
    assert!(
        post_side
            .deliver(&s, Envelope::new(request(2), Some(2), false))
            .await
            .unwrap()
    );
    // The runtime's instance waits the command timeout (1.5 s) first.
    let Some(StreamEvent::Message { seq, data, last }) = next(&mut stream).await else {
        panic!("the POST's stream ended without an answer");
    };
    assert_eq!((seq, last), (1, true));
    let answer: serde_json::Value = serde_json::from_slice(&data).unwrap();
    assert_eq!(answer["id"], 2);
    assert_eq!(answer["error"]["code"], -32603);
    assert_eq!(next(&mut stream).await, None, "the answer ended the stream");
}
