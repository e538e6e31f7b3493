//! The scale load: one HTTP server holding many idle sessions and many
//! open GET streams. Measures memory per session and per stream, how fast
//! sessions open, and whether calls stay as fast as on an idle server.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::http::{self, HttpServer};
use super::{Load, ServerCommand};
use crate::messages::Era;
use crate::procfs;
use crate::stats::Measurement;

/// Connections that open sessions in parallel.
const OPENERS: usize = 16;

/// What the scale run does.
#[derive(Debug, Clone, Copy)]
pub struct ScaleLoad {
    /// Idle sessions to open (initialize + initialized, then nothing).
    pub sessions: usize,
    /// GET streams to open, one per session, each on its own connection.
    pub streams: usize,
    /// The call load measured before and after (16 connections).
    pub calls: Load,
}

/// What the scale run measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScaleResult {
    /// Sessions opened.
    pub sessions: usize,
    /// GET streams opened.
    pub streams: usize,
    /// Sessions opened per second (over `OPENERS` connections).
    pub sessions_per_s: f64,
    /// Resident memory before opening sessions, in KiB.
    pub rss_base_kib: u64,
    /// Growth per idle session, in bytes.
    pub bytes_per_session: f64,
    /// Growth per open GET stream, in bytes.
    pub bytes_per_stream: f64,
    /// Growth for all sessions and streams, in KiB.
    pub growth_kib: u64,
    /// Calls on the idle server.
    pub idle: Measurement,
    /// Calls with every session and stream open.
    pub loaded: Measurement,
}

/// Runs the scale load against `server` (spawned here, in the handshake era).
///
/// # Errors
///
/// When the server fails to open a session or a stream, or to answer calls.
pub async fn run(server: &ServerCommand, scale: ScaleLoad) -> Result<ScaleResult, String> {
    let running = HttpServer::spawn(server).await?;
    let mut first = running.connect().await?;
    let headers = http::open(&mut first, Era::Handshake).await?;
    drop(first);
    let (latencies, window) = http::drive(&running, &headers, scale.calls).await?;
    let idle = Measurement::from_latencies(latencies, window);
    // Let connections of the idle run close before the baseline.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let base = procfs::sample(running.pid);

    let opening = Instant::now();
    let sessions = open_sessions(&running, scale.sessions).await?;
    let sessions_per_s = sessions.len() as f64 / opening.elapsed().as_secs_f64().max(1e-9);
    // Let the last sessions go quiet, as the first ones already are: a
    // session gives back the spare room of its queues and tables 100-200
    // ms after its last message (mcpwire's driver), and what is measured is
    // the memory of idle sessions.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let with_sessions = procfs::sample(running.pid);

    let mut streams = Vec::with_capacity(scale.streams);
    for chunk in sessions
        .iter()
        .take(scale.streams)
        .collect::<Vec<_>>()
        .chunks(64)
    {
        let mut tasks = tokio::task::JoinSet::new();
        for session in chunk {
            let endpoint = running.endpoint.clone();
            let session = (*session).clone();
            tasks.spawn(async move { http::open_get_stream(&endpoint, &session).await });
        }
        while let Some(joined) = tasks.join_next().await {
            streams.push(joined.map_err(|error| format!("a stream task failed: {error}"))??);
        }
    }
    // Give the server a moment to settle the streams' tasks.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let with_streams = procfs::sample(running.pid);

    let (latencies, window) = http::drive(&running, &headers, scale.calls).await?;
    let loaded = Measurement::from_latencies(latencies, window);
    drop(streams);
    let mut running = running;
    running.stop().await;

    let session_growth = with_sessions.rss_kib.saturating_sub(base.rss_kib);
    let stream_growth = with_streams.rss_kib.saturating_sub(with_sessions.rss_kib);
    Ok(ScaleResult {
        sessions: sessions.len(),
        streams: scale.streams.min(sessions.len()),
        sessions_per_s,
        rss_base_kib: base.rss_kib,
        bytes_per_session: (session_growth * 1024) as f64 / sessions.len().max(1) as f64,
        bytes_per_stream: (stream_growth * 1024) as f64 / scale.streams.max(1) as f64,
        growth_kib: with_streams.rss_kib.saturating_sub(base.rss_kib),
        idle,
        loaded,
    })
}

/// Opens `count` sessions over [`OPENERS`] keep-alive connections and
/// returns their ids.
async fn open_sessions(server: &HttpServer, count: usize) -> Result<Vec<String>, String> {
    let mut tasks = tokio::task::JoinSet::new();
    for opener in 0..OPENERS {
        let share = count / OPENERS + usize::from(opener < count % OPENERS);
        let mut connection = server.connect().await?;
        tasks.spawn(async move {
            let mut ids = Vec::with_capacity(share);
            for _ in 0..share {
                let headers = http::open(&mut connection, Era::Handshake).await?;
                ids.push(
                    headers
                        .session
                        .ok_or("initialize answered without a session")?,
                );
            }
            Ok::<_, String>(ids)
        });
    }
    let mut all = Vec::with_capacity(count);
    while let Some(joined) = tasks.join_next().await {
        all.extend(joined.map_err(|error| format!("an opener failed: {error}"))??);
    }
    Ok(all)
}
