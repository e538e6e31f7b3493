//! The abandonment soak (issue 17, "Prove it"): 10,000 sessions opened
//! with `initialize` and abandoned (half of them with a GET stream the
//! client never reads, held until the client goes away), then 1,000
//! connections trickling their request head one byte at a time. Once the
//! server's timeouts and sweeper have run, it must hold nothing of them
//! (its own counts back to zero, its memory back near the idle server's)
//! and serve a fresh client at once.
//!
//! Timeouts are short so that the soak ends well within a minute; the
//! limits a peer meets (connection cap, sessions cap) are the defaults or
//! close to them.
//!
//! Its own test binary: memory is per process, and its heap is counted
//! by the global allocator below.

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

/// The system allocator, counting the bytes in use: what the server holds
/// after the soak, apart from the pages glibc keeps for reuse (which
/// depend on how many sessions happened to be live at once).
#[global_allocator]
static HEAP: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// The heap in use, in KiB.
fn heap_kib() -> u64 {
    u64::try_from(HEAP.allocated() / 1024).unwrap_or(u64::MAX)
}

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use std::future::IntoFuture;
use std::sync::Arc;

use mcpwire_http::server::{Config, MemoryBus, Stats, StreamableHttp, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::server_support::*;

/// Sessions opened and abandoned.
const SESSIONS: usize = 10_000;
/// Connections trickling their request head.
const TRICKLERS: usize = 1_000;
/// Waves after which the process has reached its working size (reported,
/// to tell the peak of the first waves from growth after it).
const SETTLING_WAVES: usize = 3;
/// Keep-alive connections opening sessions at once.
const OPENERS: usize = 16;

/// The soak's server: default limits except the timeouts, shortened so
/// that abandoned state is reclaimed within seconds.
fn config(bus: Arc<MemoryBus>) -> Config {
    Config::default()
        .message_bus(bus)
        // Room for every abandoned session at once: the soak is about
        // reclaiming them, not about the cap refusing them (its default,
        // 10,000, would refuse the fresh client while they are held).
        .max_sessions(SESSIONS + 100)
        .idle_timeout(Duration::from_secs(3))
        .sweep_interval(Duration::from_millis(200))
        .header_read_timeout(Duration::from_secs(1))
        .body_read_timeout(Duration::from_secs(1))
        .write_stall_timeout(Duration::from_secs(1))
        // A ping every half second finds the GET streams whose client
        // went away.
        .keep_alive(Some(Duration::from_millis(500)))
}

/// The resident set size of this process (server and clients), in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap()
}

/// The soft limit on open files of this process.
fn open_files_limit() -> usize {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    limits
        .lines()
        .find_map(|line| line.strip_prefix("Max open files"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|soft| soft.parse().ok())
        .unwrap_or(1024)
}

/// A server on 127.0.0.1 serving the test runtime, keeping nothing of
/// the sessions it creates (unlike `TestServer`, which keeps every
/// session's handle for the tests that use them).
struct SoakServer {
    addr: SocketAddr,
    service: StreamableHttp,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl SoakServer {
    async fn start(config: Config) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let runtime = test_runtime();
        let service = StreamableHttp::new(config, move |transport| {
            let runtime = runtime.clone();
            tokio::spawn(async move {
                let _ = runtime.serve(transport).await;
            });
        });
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(
            serve(listener, service.clone())
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .drain_timeout(Duration::from_secs(5))
                .into_future(),
        );
        Self {
            addr,
            service,
            stop,
            task,
        }
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        within(self.task).await.unwrap().unwrap();
    }
}

/// Waits (at most `limit`) until the server holds no session, stream or
/// transport; returns the last counts seen.
async fn drained(server: &SoakServer, limit: Duration) -> Stats {
    let start = Instant::now();
    loop {
        let stats = server.service.stats().await;
        let empty = stats.sessions == 0
            && stats.open_streams == 0
            && stats.local_sessions == 0
            && stats.live_transports == 0;
        if empty || start.elapsed() > limit {
            return stats;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Opens `count` sessions over one keep-alive connection; each even one
/// also opens a GET stream on a connection of its own, which is returned
/// unread.
async fn open_sessions(addr: SocketAddr, count: usize) -> Vec<TcpStream> {
    let opener = Client::new(addr);
    let mut conn = Conn::open(addr).await;
    let body = initialize(V2025_11_25);
    let mut held = Vec::new();
    for index in 0..count {
        conn.send("POST", &opener.post_headers(), body.as_bytes())
            .await;
        let reply = conn.reply().await;
        assert_eq!(reply.status(), 200, "initialize {index} was refused");
        if index % 2 == 0 {
            let mut client = Client::new(addr);
            client.session = reply.head.header("mcp-session-id").map(str::to_owned);
            client.version = Some(V2025_11_25.to_owned());
            let mut get = Conn::open(addr).await;
            get.send("GET", &client.get_headers(), b"").await;
            assert_eq!(get.head().await.status, 200, "GET {index} was refused");
            held.push(get.into_stream());
        }
    }
    held
}

/// Sends a request head one byte every 100 ms until the server cuts the
/// connection; returns whether it did within 10 s.
async fn trickle(addr: SocketAddr) -> bool {
    let Ok(Ok(mut stream)) = tokio::time::timeout(STEP, TcpStream::connect(addr)).await else {
        return false;
    };
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{}\r\nx-padding: {}",
        addr.port(),
        "a".repeat(100)
    );
    for byte in head.bytes() {
        if stream.write_all(&[byte]).await.is_err() {
            return true;
        }
        let mut probe = [0_u8; 256];
        let read = tokio::time::timeout(Duration::from_millis(100), stream.read(&mut probe)).await;
        // A 408 answer or a close: cut off.
        if let Ok(Ok(_) | Err(_)) = read {
            return true;
        }
    }
    false
}

/// Runs `count` tricklers at once; returns how many were cut off.
async fn trickle_wave(addr: SocketAddr, count: usize) -> usize {
    let tasks: Vec<_> = (0..count).map(|_| tokio::spawn(trickle(addr))).collect();
    let mut cut = 0;
    for task in tasks {
        cut += usize::from(task.await.unwrap());
    }
    cut
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_sessions_streams_and_trickling_connections_are_all_reclaimed() {
    let soak = async {
        let bus = Arc::new(MemoryBus::new());
        let server = SoakServer::start(config(bus.clone())).await;
        // Every connection costs two descriptors here (client and server
        // in one process): hold at most what the soft limit allows, with
        // room for the rest of the process, in waves.
        let budget = open_files_limit().saturating_sub(256) / 2;
        let wave = (budget.min(1_000) / OPENERS).max(1) * OPENERS;
        let tricklers_at_once = budget.clamp(1, TRICKLERS);
        eprintln!(
            "fd budget {budget}: waves of {wave} sessions, {tricklers_at_once} tricklers at once"
        );

        // The idle server: warmed by one wave of the same work (sessions,
        // unread streams, tricklers), reclaimed, so that the one-time growth
        // of the runtime and the allocator (worker pools, slabs, arenas
        // sized for the peak of a wave) is in the baseline, and only what
        // the soak leaves behind is measured.
        let warm_up = tokio::spawn(open_sessions(server.addr, wave));
        drop(warm_up.await.unwrap());
        trickle_wave(server.addr, tricklers_at_once).await;
        let stats = drained(&server, Duration::from_secs(30)).await;
        assert_eq!(
            stats.sessions, 0,
            "the warm-up was not reclaimed: {stats:?}"
        );
        let idle = rss_kib();
        let idle_heap = heap_kib();

        let start = Instant::now();
        let mut opened = 0;
        let mut waves = 0;
        let mut settled = 0;
        let mut peak = Stats::default();
        while opened < SESSIONS {
            let count = wave.min(SESSIONS - opened);
            let openers: Vec<_> = (0..OPENERS)
                .map(|index| {
                    let share = count / OPENERS + usize::from(index < count % OPENERS);
                    tokio::spawn(open_sessions(server.addr, share))
                })
                .collect();
            let mut held = Vec::new();
            for opener in openers {
                held.extend(opener.await.unwrap());
            }
            let stats = server.service.stats().await;
            // The unread GET streams are open while their clients hold them.
            assert!(stats.open_streams >= held.len(), "{stats:?}");
            if stats.sessions > peak.sessions {
                peak = stats;
            }
            // The clients go away without a word.
            drop(held);
            opened += count;
            waves += 1;
            if waves == SETTLING_WAVES {
                settled = rss_kib();
            }
        }
        let opening = start.elapsed();
        let after_sessions = rss_kib();

        let mut cut = 0;
        for _ in 0..TRICKLERS.div_ceil(tricklers_at_once) {
            cut += trickle_wave(server.addr, tricklers_at_once).await;
        }
        let at_peak = rss_kib();

        // idle timeout 3 s + sweep 0.2 s + ping 0.5 s; 30 s covers a
        // loaded two-core machine sweeping 10,000 sessions.
        let stats = drained(&server, Duration::from_secs(30)).await;
        let reclaimed = start.elapsed();
        let after = rss_kib();
        let after_heap = heap_kib();
        let bus_left = (bus.runtime_count(), bus.connection_count());

        let fresh = Instant::now();
        let client = Client::connect(server.addr, V2025_11_25).await;
        let served = fresh.elapsed();
        drop(client);
        eprintln!(
            "soak: {SESSIONS} sessions in {opening:?} (peak {peak:?}), {cut}/{TRICKLERS} \
             tricklers cut, reclaimed at {reclaimed:?}; RSS idle {idle} KiB, after \
             {SETTLING_WAVES} waves {settled} KiB, after sessions \
             {after_sessions} KiB, after tricklers {at_peak} KiB, after reclaim {after} KiB; \
             heap in use idle {idle_heap} KiB, after reclaim {after_heap} KiB; \
             fresh client served in {served:?}"
        );

        // The sessions were really held at once (the soak is not vacuous):
        // at least the half of a wave with unread streams, which keep
        // their sessions alive until their clients go away (the others
        // may expire while a slow machine still opens the wave).
        assert!(peak.sessions >= wave / 2, "{peak:?}");
        // Every trickler was cut off by the header read timeout (1 s)
        // long before its 10 s head was sent.
        assert_eq!(cut, TRICKLERS, "tricklers were not all cut off");
        // Exact: nothing of the abandoned sessions is left.
        assert_eq!(stats.sessions, 0, "{stats:?}");
        assert_eq!(stats.open_streams, 0, "{stats:?}");
        assert_eq!(stats.local_sessions, 0, "{stats:?}");
        assert_eq!(stats.live_transports, 0, "{stats:?}");
        assert_eq!(
            bus_left,
            (0, 0),
            "session inboxes and stream connections left on the bus"
        );
        // Memory (the issue: back within 10 % of the idle server's). The
        // heap in use is what the server holds, and it must be back within
        // 10 % of the warmed idle server's: the tables that held thousands
        // of sessions give their capacity back (`shrink_sparse`), and a
        // leaked session would hold its runtime task, transport, inbox and
        // buffers, tens of KiB each. The resident size is reported, not
        // bounded: glibc keeps freed pages for reuse, so it follows how many
        // sessions happened to be live at once (up to ~9,000 on a fast run,
        // ~2,800 on a loaded one), not what is still held. The idle heap
        // is small (about 120 KiB once `serve` reaps finished connections
        // as they end), so the allowance is 10 % or 64 KiB, whichever is
        // larger: measured runs differ by up to 5 KiB (timers and tasks in
        // flight), while leaking even 1 % of the soak's sessions would hold
        // several hundred KiB.
        assert!(
            after_heap <= idle_heap + (idle_heap / 10).max(64),
            "heap {after_heap} KiB in use after the soak, {idle_heap} KiB idle"
        );
        // The bound: a fresh client is served within 1 s.
        assert!(served < Duration::from_secs(1), "{served:?}");
        server.stop().await;
    };
    // Bounded: the soak takes well under a minute on an idle machine.
    tokio::time::timeout(Duration::from_secs(180), soak)
        .await
        .expect("the soak took more than 3 minutes");
}
