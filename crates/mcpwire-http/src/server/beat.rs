//! The keep-alive beat: one timer for the whole server that SSE streams
//! (and `Auto` POSTs waiting for their first event) watch, rather than a
//! timer armed and cancelled for every stream.
//!
//! A tokio timer costs an allocation, a clock read and two trips through
//! the timer wheel's lock; armed for every POST stream it cost about 2,000
//! instructions per SSE call (E2 profile, issue 20). The beat ticks every
//! half keep-alive interval and counts its ticks; a stream notes the count
//! when it last wrote and sends a keep-alive comment once two more ticks
//! have passed, so an idle stream writes something every half to whole
//! interval, as before. Waiting costs a registration on a `Notify` (no
//! allocation, no clock).

use core::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::Notify;

/// Waiters are spread over this many `Notify`s so that streams on many
/// threads do not all take one lock.
const SHARDS: usize = 8;

/// How many ticks of silence make a stream send a keep-alive comment.
const QUIET_TICKS: u64 = 2;

/// The server's keep-alive beat (see the module docs).
pub(crate) struct Beat {
    /// Ticks so far.
    ticks: AtomicU64,
    shards: [Notify; SHARDS],
    /// The shard the next watcher takes.
    next_shard: AtomicUsize,
    /// Half the keep-alive interval.
    period: Duration,
    started: AtomicBool,
}

impl std::fmt::Debug for Beat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Beat")
            .field("ticks", &self.ticks.load(Ordering::Relaxed))
            .field("period", &self.period)
            .finish_non_exhaustive()
    }
}

impl Beat {
    /// A beat for keep-alive comments every `keep_alive` of silence; it
    /// starts ticking with its first watcher.
    pub(crate) fn new(keep_alive: Duration) -> Arc<Self> {
        Arc::new(Self {
            ticks: AtomicU64::new(0),
            shards: Default::default(),
            next_shard: AtomicUsize::new(0),
            period: (keep_alive / 2).max(Duration::from_millis(1)),
            started: AtomicBool::new(false),
        })
    }

    /// A watcher of the beat, as quiet from now (starts the ticking task
    /// with the first one; needs a tokio runtime).
    pub(crate) fn watch(self: &Arc<Self>) -> Watch {
        if !self.started.load(Ordering::Relaxed) && !self.started.swap(true, Ordering::AcqRel) {
            tokio::spawn(tick(Arc::downgrade(self)));
        }
        let shard = self.next_shard.fetch_add(1, Ordering::Relaxed) % SHARDS;
        Watch {
            beat: self.clone(),
            shard,
            quiet_since: self.ticks.load(Ordering::Acquire),
        }
    }
}

/// Ticks `beat` until it is dropped.
async fn tick(beat: Weak<Beat>) {
    let Some(period) = beat.upgrade().map(|beat| beat.period) else {
        return;
    };
    let start = tokio::time::Instant::now() + period;
    let mut interval = tokio::time::interval_at(start, period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let Some(beat) = beat.upgrade() else {
            return;
        };
        beat.ticks.fetch_add(1, Ordering::AcqRel);
        for shard in &beat.shards {
            shard.notify_waiters();
        }
    }
}

/// One stream's view of the [`Beat`]: when it last wrote, and the wait
/// for its next keep-alive comment.
#[derive(Debug)]
pub(crate) struct Watch {
    beat: Arc<Beat>,
    shard: usize,
    /// The tick count when the stream last wrote.
    quiet_since: u64,
}

impl Watch {
    /// The stream wrote something: its silence starts again.
    pub(crate) fn wrote(&mut self) {
        self.quiet_since = self.beat.ticks.load(Ordering::Acquire);
    }

    fn due(&self) -> bool {
        self.beat.ticks.load(Ordering::Acquire) >= self.quiet_since + QUIET_TICKS
    }

    /// Waits until the stream has been silent for a keep-alive interval
    /// (two ticks since it last wrote). Cancel safe.
    pub(crate) async fn quiet(&self) {
        let notify = &self.beat.shards[self.shard];
        loop {
            let mut notified = pin!(notify.notified());
            // Registered before the count is read: a tick in between
            // wakes it.
            notified.as_mut().enable();
            if self.due() {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_silent_watcher_is_due_after_one_to_two_periods_and_writing_restarts_it() {
        let beat = Beat::new(Duration::from_secs(10));
        let mut watch = beat.watch();
        let started = tokio::time::Instant::now();
        watch.quiet().await;
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(5) && waited <= Duration::from_secs(10),
            "{waited:?}"
        );
        watch.wrote();
        let again = tokio::time::Instant::now();
        watch.quiet().await;
        assert_eq!(again.elapsed(), Duration::from_secs(10));
        // A write just before a tick: due one and a half periods later.
        tokio::time::sleep(Duration::from_secs(4)).await;
        watch.wrote();
        let late = tokio::time::Instant::now();
        watch.quiet().await;
        assert_eq!(late.elapsed(), Duration::from_secs(6));
    }

    #[tokio::test(start_paused = true)]
    async fn the_ticking_task_ends_with_the_beat() {
        let beat = Beat::new(Duration::from_millis(100));
        let watch = beat.watch();
        watch.quiet().await;
        let weak = Arc::downgrade(&beat);
        drop(watch);
        drop(beat);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(weak.upgrade().is_none());
    }
}
