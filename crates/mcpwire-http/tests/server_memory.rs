//! Peak memory of a session answering large calls over SSE (issue 20, "the
//! 105 MiB"): every POST stream's events used to stay in the event log
//! (1,024 per session, whatever their size), so 64 KiB answers held about
//! 100 MiB. A finished stream whose events all went to the connection is
//! now forgotten, and the log is bounded in bytes.
//!
//! Its own test binary: resident memory is per process, and other tests
//! running beside it would blur the measure.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::needless_pass_by_value,
    dead_code,
    unreachable_pub,
    reason = "test helpers outside #[test] functions: a panic is a failed assertion; this binary uses a few of the shared helpers of tests/it"
)]

#[path = "it/server_support/mod.rs"]
mod server_support;

use std::time::Duration;

use mcpwire_http::server::{Config, ResponseMode};
use serde_json::json;
use server_support::*;

/// This process's resident set size, in bytes (Linux `/proc`).
fn resident_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .unwrap();
    let kib: usize = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kib * 1024
}

/// Held by each test for its whole run: resident memory is per process,
/// so two measures running side by side would blur each other.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peak_memory_stays_bounded_across_1000_sse_calls_with_64_kib_answers() {
    let _alone = ONE_AT_A_TIME.lock().await;
    const CALLS: usize = 1000;
    const ANSWER: usize = 64 * 1024;
    // The bound on growth over the warmed-up server: a few answers in
    // flight and the allocator's caches fit well within it, the event log
    // of old (64 MiB and more for 1,000 answers) does not.
    const GROWTH: usize = 16 * 1024 * 1024;
    let config = Config::default()
        .response_mode(ResponseMode::Sse)
        .idle_timeout(Duration::from_secs(300));
    let server = TestServer::start(config, test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let text = "x".repeat(ANSWER);
    let call = |id: usize| {
        request(
            i64::try_from(id).unwrap(),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": text}}),
        )
    };
    let mut conn = Conn::open(server.addr).await;
    let mut exchange = async |id: usize| {
        conn.send("POST", &client.post_headers(), call(id).as_bytes())
            .await;
        let reply = conn.reply().await;
        assert_eq!(reply.status(), 200);
        assert!(reply.head.is_sse());
        assert!(reply.body.len() > ANSWER, "{id}: {}", reply.body.len());
    };
    for id in 1..=20 {
        within(exchange(id)).await;
    }
    let baseline = resident_bytes();
    let mut peak = baseline;
    for id in 21..21 + CALLS {
        within(exchange(id)).await;
        peak = peak.max(resident_bytes());
    }
    let stats = server.service.stats().await;
    eprintln!(
        "peak growth over {CALLS} calls: {} KiB (baseline {} KiB)",
        (peak - baseline) / 1024,
        baseline / 1024
    );
    assert!(
        peak - baseline < GROWTH,
        "resident memory grew by {} KiB (from {} KiB); the server holds {stats:?}",
        (peak - baseline) / 1024,
        baseline / 1024
    );
    // The standalone stream's log is all that is left.
    assert!(stats.buffered_events < 10, "{stats:?}");
}

/// Memory per idle session (issue 20, M2: at most 4 KiB in the release
/// benchmark). A session's runtime used to keep the queues and tables its
/// `initialize` exchange had grown, the channels of its handlers and the
/// `initialize` POST's extensions: about 8 KiB each. A session quiet for
/// 100 ms now gives them back. Measured here in this process, client side
/// included and unoptimized: about 4.1 KiB now, 5.0 KiB without the
/// shrinking of quiet sessions (the release benchmark measured 8.2 KiB
/// before any of this); the bound catches a return to the old shape, not
/// a drift of a few hundred bytes (resident memory varies that much with
/// the allocator's arenas).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_hold_little_memory_once_quiet() {
    const SESSIONS: usize = 1000;
    const PER_SESSION: usize = 6 * 1024;
    let _alone = ONE_AT_A_TIME.lock().await;
    let config = Config::default()
        .response_mode(ResponseMode::Json)
        .idle_timeout(Duration::from_secs(300));
    let server = TestServer::start(config, test_runtime()).await;
    // Warm up: the first sessions grow the server's tables and the
    // allocator's caches.
    let mut clients = Vec::with_capacity(SESSIONS + 50);
    for _ in 0..50 {
        clients.push(within(Client::connect(server.addr, V2025_11_25)).await);
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    let baseline = resident_bytes();
    for _ in 0..SESSIONS {
        clients.push(within(Client::connect(server.addr, V2025_11_25)).await);
    }
    // Every session is quiet after 100 ms and shrinks within another 100.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let per_session = resident_bytes().saturating_sub(baseline) / SESSIONS;
    eprintln!("resident memory per idle session: {per_session} bytes");
    assert!(
        per_session <= PER_SESSION,
        "{per_session} bytes of resident memory per idle session"
    );
    // They are all still there and served.
    let stats = server.service.stats().await;
    assert!(stats.sessions >= SESSIONS, "{stats:?}");
    let last = clients.last().unwrap();
    let reply = within(last.post(&request(1, "ping", json!({})))).await;
    assert_eq!(reply.status(), 200);
}
