//! Where messages travel: a server-to-client request made during a call
//! goes on that call's stream (or the standalone stream in JSON mode) and
//! its answer, POSTed by the client, reaches the runtime; a client that
//! stops reading cannot make the server buffer without bound.

use crate::server_support;

use std::time::{Duration, Instant};

use mcpwire_http::server::{
    Config, EventStore, MemoryEventStore, Replay, ResponseMode, SessionId, StoreFuture,
    StoredEvent, StreamKey,
};
use serde_json::{Value, json};
use server_support::*;

fn ask_client(id: i64) -> String {
    request(
        id,
        "tools/call",
        json!({"name": "ask_client", "arguments": {}}),
    )
}

fn answer_to(request: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": {}}).to_string()
}

#[tokio::test]
async fn http_19_a_request_to_the_client_travels_on_the_calls_stream() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (head, mut stream) = client.post_stream(&ask_client(8)).await;
    // Something came before the answer, so auto mode chose SSE.
    assert!(head.is_sse());
    let mut ping = None;
    while ping.is_none() {
        let event = within(stream.next_event()).await.unwrap();
        if !event.data.is_empty() {
            ping = Some(event.json());
        }
    }
    let ping = ping.unwrap();
    assert_eq!(ping["method"], "ping");
    // The client's answer is a POST of its own, accepted with 202 ...
    assert_eq!(client.post(&answer_to(&ping)).await.status(), 202);
    // ... and reaches the runtime, whose tool then answers on the stream.
    let rest = within(stream.rest()).await;
    let result = rest.last().unwrap().json();
    assert_eq!(result["id"], 8);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "the client answered"
    );
}

#[tokio::test]
async fn in_json_mode_a_request_to_the_client_uses_the_standalone_stream() {
    let config = Config::default().response_mode(ResponseMode::Json);
    let server = TestServer::start(config, test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let (_, mut standalone) = client.get_stream(None).await;
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.post(&ask_client(9)).await })
    };
    let ping = within(standalone.next_event()).await.unwrap().json();
    assert_eq!(ping["method"], "ping");
    assert_eq!(client.post(&answer_to(&ping)).await.status(), 202);
    let reply = within(call).await.unwrap();
    assert_eq!(reply.head.header("content-type"), Some("application/json"));
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "the client answered"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_leaves_the_server_bounded() {
    const PER_STREAM: usize = 8;
    const PER_SESSION: usize = 16;
    let config = Config::default()
        .response_mode(ResponseMode::Sse)
        .stream_buffer(4)
        .send_timeout(Duration::from_millis(300))
        .event_store(std::sync::Arc::new(MemoryEventStore::with_retention(
            PER_STREAM,
            PER_SESSION,
        )));
    let server = TestServer::start(config, test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    // 2,000 progress notifications of 8 KB each: far more than the
    // socket buffers hold, and the client reads only the priming event.
    let call = request(
        1,
        "tools/call",
        json!({"name": "count", "arguments": {"count": 2000, "bytes": 8000},
            "_meta": {"progressToken": 1}}),
    );
    let (_, mut stalled) = client.post_stream(&call).await;
    let priming = within(stalled.next_event()).await.unwrap();
    let priming_id = priming.id.unwrap();
    // The runtime is not blocked for good: it finishes the call, and the
    // log never holds more than its bounds meanwhile.
    let started = Instant::now();
    let answer = loop {
        let stats = server.service.stats().await;
        assert!(stats.buffered_events <= PER_SESSION, "{stats:?}");
        let (_, mut resumed) = client.get_stream(Some(&priming_id)).await;
        let replayed = tokio::time::timeout(Duration::from_millis(500), resumed.rest()).await;
        let answer = replayed
            .unwrap_or_default()
            .iter()
            .filter(|e| !e.data.is_empty())
            .map(Event::json)
            .find(|m| m.get("result").is_some());
        if let Some(answer) = answer {
            break answer;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the call never finished"
        );
    };
    assert_eq!(answer["result"]["content"][0]["text"], "counted 2000");
    assert!(server.service.stats().await.buffered_events <= PER_SESSION);
    // The stalled connection was closed (its body ends) after what the
    // socket already held, well short of all the messages.
    let delivered = within(stalled.rest()).await;
    assert!(delivered.len() < 2000, "{} events", delivered.len());
    assert!(delivered.iter().all(|e| e.json().get("result").is_none()));
}

/// Keep-alive comments come from the server's one beat, not a timer per
/// stream (issue 20): a POST stream waiting for a slow answer still gets
/// them, and an `Auto` POST still turns to SSE once one is due. Bounds are
/// generous (a keep-alive every 50-100 ms against answers after 600 ms)
/// so that a loaded machine does not fail them.
#[tokio::test]
async fn a_post_stream_waiting_for_a_slow_answer_gets_keep_alive_comments() {
    let slow = |id: i64| {
        request(
            id,
            "tools/call",
            json!({"name": "wait", "arguments": {"pause_ms": 600}}),
        )
    };
    for mode in [ResponseMode::Sse, ResponseMode::Auto] {
        let config = Config::default()
            .response_mode(mode)
            .keep_alive(Some(Duration::from_millis(100)));
        let server = TestServer::start(config, test_runtime()).await;
        let client = Client::connect(server.addr, V2025_11_25).await;
        let (head, mut stream) = client.post_stream(&slow(3)).await;
        assert!(head.is_sse(), "{mode:?}: a slow answer comes over SSE");
        let rest = within(stream.rest()).await;
        assert_eq!(
            rest.last().unwrap().json()["result"]["content"][0]["text"],
            "waited",
            "{mode:?}"
        );
        assert!(
            stream.comments() >= 2,
            "{mode:?}: {} keep-alive comments",
            stream.comments()
        );
    }
}

/// An SSE answer already in when the response starts is sent whole: one
/// body with its length (no chunked framing, no stream kept open), holding
/// the priming event (HTTP-13) and then the answer. An answer that comes
/// later still streams. The slow tool waits 300 ms, far longer than the
/// POST takes to reach `respond` on a loaded machine.
#[tokio::test]
async fn an_sse_answer_already_in_goes_out_whole_with_its_length() {
    let config = Config::default().response_mode(ResponseMode::Sse);
    let server = TestServer::start(config, test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let echo = request(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let (head, mut stream) = client.post_stream(&echo).await;
    assert!(head.is_sse());
    assert!(
        head.header("content-length").is_some(),
        "{:?}",
        head.headers
    );
    assert_eq!(head.header("transfer-encoding"), None);
    let events = within(stream.rest()).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        events[0].id.is_some() && events[0].data.is_empty(),
        "priming first"
    );
    assert_eq!(events[1].json()["result"]["content"][0]["text"], "hi");

    let slow = request(
        5,
        "tools/call",
        json!({"name": "wait", "arguments": {"pause_ms": 300}}),
    );
    let (head, mut stream) = client.post_stream(&slow).await;
    assert_eq!(head.header("transfer-encoding"), Some("chunked"));
    let events = within(stream.rest()).await;
    assert_eq!(
        events.last().unwrap().json()["result"]["content"][0]["text"],
        "waited"
    );
}

/// An event store that records which of its methods the server calls, and
/// keeps the events in a [`MemoryEventStore`].
#[derive(Default)]
struct RecordingEvents {
    inner: MemoryEventStore,
    calls: std::sync::Mutex<Vec<&'static str>>,
}

impl RecordingEvents {
    fn record(&self, call: &'static str) {
        self.calls.lock().unwrap().push(call);
    }

    fn take(&self) -> Vec<&'static str> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
}

impl EventStore for RecordingEvents {
    fn create_session(&self, session: &SessionId) -> StoreFuture<'_, ()> {
        self.inner.create_session(session)
    }
    fn open(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        self.record("open");
        self.inner.open(key)
    }
    fn append(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()> {
        self.record("append");
        self.inner.append(key, event)
    }
    fn finish(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        self.record("finish");
        self.inner.finish(key)
    }
    fn append_last(&self, key: &StreamKey, event: StoredEvent) -> StoreFuture<'_, ()> {
        self.record("append_last");
        self.inner.append_last(key, event)
    }
    fn replay(&self, key: &StreamKey, after: Option<u64>) -> StoreFuture<'_, Option<Replay>> {
        self.inner.replay(key, after)
    }
    fn mark_delivered(&self, key: &StreamKey, seq: u64) -> StoreFuture<'_, ()> {
        self.inner.mark_delivered(key, seq)
    }
    fn forget(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        self.record("forget");
        self.inner.forget(key)
    }
    fn completed(&self, key: &StreamKey) -> StoreFuture<'_, ()> {
        self.record("completed");
        self.inner.completed(key)
    }
    fn remove_session(&self, session: &SessionId) -> StoreFuture<'_, ()> {
        self.inner.remove_session(session)
    }
    fn count(&self) -> StoreFuture<'_, usize> {
        self.inner.count()
    }
}

/// In `Auto` mode an answer that goes out as JSON is never logged: the
/// POST leaves its stream's log to the first event logged
/// (`EventStore::append` opens the stream), and the runtime, finding the
/// response still undecided, claims JSON and logs nothing
/// (`ResponseForm`). No store call at all, where there were three (open,
/// log, forget; three round trips with a store across the network). In
/// `Sse` mode the priming event goes out at once, so the log is opened
/// before it and the answer logged. The calls made after the answer are
/// spawned: they are waited for, within a generous bound (5 s for the
/// ones expected, 300 ms for none to come: the old code logged the answer
/// before sending it, so its call was always recorded before the reply).
#[tokio::test]
async fn an_auto_post_answered_as_json_touches_no_event_log() {
    let echo = request(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    for (mode, expected) in [
        (ResponseMode::Auto, vec![]),
        (ResponseMode::Sse, vec!["open", "append_last", "completed"]),
    ] {
        let events = std::sync::Arc::new(RecordingEvents::default());
        let config = Config::default()
            .response_mode(mode)
            .event_store(events.clone());
        let server = TestServer::start(config, test_runtime()).await;
        let client = Client::connect(server.addr, V2025_11_25).await;
        events.take();
        let reply = within(client.post(&echo)).await;
        assert_eq!(reply.messages()[0]["result"]["content"][0]["text"], "hi");
        let deadline = Instant::now() + Duration::from_secs(5);
        while events.calls.lock().unwrap().len() < expected.len() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        if expected.is_empty() {
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        assert_eq!(events.take(), expected, "{mode:?}");
        if mode == ResponseMode::Auto {
            assert_eq!(events.inner.count().await.unwrap(), 0, "nothing kept");
        }
    }
}
