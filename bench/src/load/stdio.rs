//! The stdio load client: newline-delimited JSON-RPC over the server's
//! stdin and stdout, with a fixed number of requests in flight.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, Semaphore};

use super::{ANSWER_TIMEOUT, Load, OPEN_TIMEOUT, ServerCommand};
use crate::messages::{self, CallTemplate, Era, scan_id};
use crate::procfs;
use crate::stats::Measurement;

/// Send times of the calls in flight, by id.
type InFlight = Arc<Mutex<HashMap<u64, Instant>>>;

/// Spawns `server`, opens it and drives `load` through its stdio.
///
/// # Errors
///
/// When the server cannot be spawned, does not answer in time, or closes
/// its stdout early.
pub async fn run(server: &ServerCommand, load: Load) -> Result<Measurement, String> {
    let Opened {
        child,
        pid,
        mut stdin,
        mut reader,
        cold_start,
    } = open(server, load.era).await?;
    if load.era == Era::Handshake {
        let mut initialized = messages::initialized();
        initialized.push('\n');
        write(&mut stdin, initialized.as_bytes()).await?;
    }

    let template = CallTemplate::new(load.size, load.era);
    let in_flight: InFlight = Arc::new(Mutex::new(HashMap::new()));
    let window = Arc::new(Semaphore::new(load.concurrency.max(1)));
    let measure_from = Instant::now() + load.warmup;
    let stop_at = measure_from + load.duration;
    let before = procfs::sample(pid);

    let writer_done = Notify::new();
    let writer = async {
        let sent = send_calls(
            &mut stdin,
            &template,
            &in_flight,
            &window,
            load.concurrency.max(1),
            (measure_from, stop_at),
            load.max_calls.unwrap_or(u64::MAX),
        )
        .await;
        // Closing the window tells the reader no more calls will come.
        window.close();
        writer_done.notify_one();
        sent
    };
    let reader_side = read_answers(&mut reader, &in_flight, &window, &writer_done, measure_from);
    let (sent, latencies) = tokio::join!(writer, reader_side);
    let sent = sent?;
    let latencies = latencies?;
    let after = procfs::sample(pid);
    if (latencies.total as u64) < sent {
        return Err(format!(
            "{} of {sent} calls unanswered",
            sent - latencies.total as u64
        ));
    }

    let window = measure_from.elapsed();
    let mut measurement = Measurement::from_latencies(latencies.measured, window);
    measurement.cold_start_ms = cold_start.as_secs_f64() * 1e3;
    measurement.peak_rss_kib = after.hwm_kib;
    if measurement.calls > 0 {
        measurement.server_cpu_us_per_call =
            after.cpu.saturating_sub(before.cpu).as_secs_f64() * 1e6 / measurement.calls as f64;
    }
    end(child, stdin).await?;
    Ok(measurement)
}

/// Closes the server's stdin, which must end it; gives it a moment, then
/// kills it.
async fn end(
    mut child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
) -> Result<(), String> {
    drop(stdin);
    let exited = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    if !matches!(exited, Ok(Ok(_))) {
        let _ = child.start_kill();
        return Err("the server did not exit when its stdin closed".to_owned());
    }
    Ok(())
}

/// A server spawned and answering: its pipes, and how long its first
/// answer took from the spawn.
struct Opened {
    child: tokio::process::Child,
    pid: u32,
    stdin: tokio::process::ChildStdin,
    reader: BufReader<tokio::process::ChildStdout>,
    cold_start: Duration,
}

/// Spawns `server` and sends the opening request of `era` (`initialize`,
/// or `server/discover`), waiting for its answer.
async fn open(server: &ServerCommand, era: Era) -> Result<Opened, String> {
    let spawned_at = Instant::now();
    let (mut child, pid) = server.spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut reader = BufReader::with_capacity(256 * 1024, stdout);

    let mut opening = messages::opening(era);
    opening.push('\n');
    write(&mut stdin, opening.as_bytes()).await?;
    let mut line = Vec::new();
    tokio::time::timeout(OPEN_TIMEOUT, async {
        loop {
            line.clear();
            let read = reader.read_until(b'\n', &mut line).await;
            match read {
                Ok(0) | Err(_) => return Err("the server closed stdout before answering"),
                Ok(_) if scan_id(&line) == Some(0) => return Ok(()),
                Ok(_) => {}
            }
        }
    })
    .await
    .map_err(|_| "no answer to the opening request")??;
    Ok(Opened {
        cold_start: spawned_at.elapsed(),
        child,
        pid,
        stdin,
        reader,
    })
}

/// The median of `samples` cold starts of `server` (spawn to the answer of
/// its opening request), each server ended by closing its stdin. One
/// spawn's time varies by a factor of two with what else the machine
/// does, so a target on it reads a median.
///
/// # Errors
///
/// As [`run`]'s opening, and when a server does not exit once its stdin
/// closes.
pub async fn cold_start(
    server: &ServerCommand,
    era: Era,
    samples: usize,
) -> Result<Duration, String> {
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples.max(1) {
        let Opened {
            child,
            stdin,
            cold_start,
            ..
        } = open(server, era).await?;
        times.push(cold_start);
        end(child, stdin).await?;
    }
    times.sort();
    times
        .get(times.len() / 2)
        .copied()
        .ok_or_else(|| "no cold start sampled".to_owned())
}

async fn write(stdin: &mut tokio::process::ChildStdin, bytes: &[u8]) -> Result<(), String> {
    stdin
        .write_all(bytes)
        .await
        .map_err(|error| format!("writing to the server: {error}"))
}

/// Sends calls whenever the window has room, until `stop_at`, batching
/// every call that fits into one write. Returns how many were sent.
async fn send_calls(
    stdin: &mut tokio::process::ChildStdin,
    template: &CallTemplate,
    in_flight: &InFlight,
    window: &Semaphore,
    max_in_flight: usize,
    (measure_from, stop_at): (Instant, Instant),
    max_calls: u64,
) -> Result<u64, String> {
    let mut next_id: u64 = 1;
    let mut batch = Vec::new();
    let mut measured_one = false;
    // Past the stop time, still send until one call of the measured window
    // went out (a slow server may hold the window through all of it).
    while (Instant::now() < stop_at || !measured_one) && next_id <= max_calls {
        let Ok(Ok(first)) = tokio::time::timeout(ANSWER_TIMEOUT, window.acquire()).await else {
            return Err("no answer within the timeout".to_owned());
        };
        first.forget();
        let mut count = 1;
        let left = max_calls - next_id + 1;
        while count < max_in_flight && (count as u64) < left {
            match window.try_acquire() {
                Ok(permit) => {
                    permit.forget();
                    count += 1;
                }
                Err(_) => break,
            }
        }
        batch.clear();
        let now = Instant::now();
        measured_one |= now >= measure_from;
        {
            let mut table = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
            for _ in 0..count {
                table.insert(next_id, now);
                batch.extend_from_slice(template.with_id(next_id).as_bytes());
                batch.push(b'\n');
                next_id += 1;
            }
        }
        write(stdin, &batch).await?;
    }
    Ok(next_id - 1)
}

/// Latencies read by [`read_answers`].
struct Answers {
    /// Latencies of calls sent at or after the measuring start.
    measured: Vec<Duration>,
    /// How many answers arrived in all.
    total: usize,
}

/// Reads answers, freeing a window slot for each, until the writer has
/// stopped and every call sent is answered.
async fn read_answers(
    reader: &mut BufReader<tokio::process::ChildStdout>,
    in_flight: &InFlight,
    window: &Semaphore,
    writer_done: &Notify,
    measure_from: Instant,
) -> Result<Answers, String> {
    let mut answers = Answers {
        measured: Vec::with_capacity(1 << 16),
        total: 0,
    };
    let mut line = Vec::with_capacity(128 * 1024);
    loop {
        let outstanding = in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        if window.is_closed() && outstanding == 0 {
            return Ok(answers);
        }
        // `read_until` keeps what it read so far in `line` when the
        // writer's signal wins the race, so reading simply resumes.
        let read = tokio::time::timeout(ANSWER_TIMEOUT, async {
            tokio::select! {
                read = reader.read_until(b'\n', &mut line) => Some(read),
                () = writer_done.notified() => None,
            }
        })
        .await
        .map_err(|_| "no answer within the timeout".to_owned())?;
        match read {
            None => continue,
            Some(Ok(0)) => return Err("the server closed stdout".to_owned()),
            Some(Err(error)) => return Err(format!("reading from the server: {error}")),
            Some(Ok(_)) => {}
        }
        let id = scan_id(&line);
        line.clear();
        let Some(id) = id else { continue };
        let sent = in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        if let Some(sent) = sent {
            if sent >= measure_from {
                answers.measured.push(sent.elapsed());
            }
            answers.total += 1;
            window.add_permits(1);
        }
    }
}
