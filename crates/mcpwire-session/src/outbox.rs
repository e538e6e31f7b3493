//! The writing side of a session, shared by both runtimes: packets the
//! engine emits queue here and go out in batches (every packet queued at
//! the moment, then one flush), written by a future the runtime's driver
//! polls beside its reading. The driver keeps reading while a write waits
//! for the peer (two peers that both block reading while they write would
//! deadlock once both pipes are full), and no task hand-off stands between
//! an answer and its write.
//!
//! A transport that takes packets at once
//! ([`TransportSender::feed_now`], as stdio's line buffer does) is fed and
//! flushed by polls, with no future per batch: one allocation and the
//! moves of the sending half into and out of a future fewer for every
//! answer a session sends alone (about 700 instructions per call with
//! one stdio call in flight). Other transports go through a boxed future
//! of their `feed` and `flush`.
//!
//! Runtime-free like the rest of this crate: it only polls the futures of
//! the [`TransportSender`] it is given, spawns nothing and reads no clock
//! (a runtime bounds [`Outbox::finish`] with its own timer).

use std::collections::VecDeque;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use mcpwire_jsonrpc::{BoxFuture, TransportSender};

use crate::Transmit;

/// Why the transport stopped taking packets: its sending half's error.
pub type SendFailure = Box<dyn std::error::Error + Send + Sync>;

/// How many packets one batch writes at most before it flushes.
const BATCH: usize = 64;

/// How many bytes (by [`Packet::size_hint`](mcpwire_jsonrpc::Packet::size_hint))
/// one batch takes at most, beyond its first packet: a batch holds its
/// packets until each is fed to the transport, so 64 answers of 64 KiB
/// would otherwise leave the queue's byte count and still be held.
const BATCH_BYTES: usize = 256 * 1024;

/// How many packets may wait for a batch before the outbox is backed up
/// (see [`Outbox::is_backed_up`]), whatever their size.
const MAX_BACKLOG: usize = 256;

/// A batch on its way out: it owns the sending half while it runs and
/// gives it back with the outcome and the batch's emptied queue.
type Writing<S> = BoxFuture<'static, (S, Result<(), SendFailure>, VecDeque<Transmit>)>;

/// Packets on their way to the transport.
pub struct Outbox<S: TransportSender> {
    /// Taken from the engine, not yet in a batch. A batch that takes all
    /// of it takes the queue itself, and gives it back emptied when
    /// nothing was queued meanwhile: a session answering one request at a
    /// time (as over HTTP) then allocates no queue per batch.
    queue: VecDeque<Transmit>,
    /// The bytes `queue` holds, by [`Packet::size_hint`](mcpwire_jsonrpc::Packet::size_hint).
    queued_bytes: usize,
    /// The sending half while no batch runs; `None` once it failed or
    /// closed.
    sender: Option<S>,
    /// The batch being written through the sender's futures, if any.
    writing: Option<Writing<S>>,
    /// Whether packets the sender took at once wait for its
    /// [`poll_flush_fed`](TransportSender::poll_flush_fed) to finish.
    flushing: bool,
    /// Why writing failed, until the driver asks.
    failure: Option<SendFailure>,
    /// How many batches have been written whole: the peer's progress.
    batches_written: u64,
    /// Since when the outbox has been backed up with nothing taken, and
    /// the batch count then (see [`stall_deadline`](Self::stall_deadline)).
    stalled_since: Option<(Instant, u64)>,
}

impl<S: TransportSender> std::fmt::Debug for Outbox<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox")
            .field("queued", &self.queue.len())
            .field("writing", &(self.writing.is_some() || self.flushing))
            .field("failed", &self.failure.is_some())
            .finish()
    }
}

impl<S: TransportSender> Outbox<S> {
    /// An outbox writing to `sender`.
    pub fn new(sender: S) -> Self {
        Self {
            queue: VecDeque::new(),
            queued_bytes: 0,
            sender: Some(sender),
            writing: None,
            flushing: false,
            failure: None,
            batches_written: 0,
            stalled_since: None,
        }
    }

    /// Queues a packet; it goes out when the driver next polls
    /// [`advance`](Self::advance).
    pub fn push(&mut self, transmit: Transmit) {
        self.queued_bytes += transmit.packet.size_hint();
        crate::peer::push_back_lean(&mut self.queue, transmit);
    }

    /// Gives back what the queue holds beyond its packets (all of it when
    /// it is empty), for a quiet session (see
    /// [`ServerSession::shrink_to_fit`](crate::ServerSession::shrink_to_fit)).
    pub fn shrink_to_fit(&mut self) {
        self.queue.shrink_to_fit();
    }

    /// How many packets wait for a batch (a driver stops reading while
    /// this is high: each request it reads would add an answer).
    pub fn backlog(&self) -> usize {
        self.queue.len()
    }

    /// About how many bytes wait for a batch (see
    /// [`Packet::size_hint`](mcpwire_jsonrpc::Packet::size_hint)): the
    /// other half of [`backlog`](Self::backlog), for a peer that does not
    /// read large answers (a driver stops reading while this is high).
    pub fn backlog_bytes(&self) -> usize {
        self.queued_bytes
    }

    /// Whether the peer is behind: 256 packets or `max_bytes` (by
    /// [`Packet::size_hint`](mcpwire_jsonrpc::Packet::size_hint)) wait.
    /// A server's driver stops reading while it is (each request would add
    /// an answer); a client's stops taking its handlers' answers, and gives
    /// the session up when the server takes nothing for too long
    /// ([`Limits::max_backlog_wait`](crate::Limits::max_backlog_wait)).
    pub fn is_backed_up(&self, max_bytes: usize) -> bool {
        self.queue.len() >= MAX_BACKLOG || self.queued_bytes >= max_bytes
    }

    /// When the session must fail because the peer takes nothing: while
    /// the outbox [is backed up](Self::is_backed_up) by `max_bytes`, `wait`
    /// after the last batch the peer took whole (or after the outbox
    /// backed up); `None` while it is not backed up (or the deadline is
    /// beyond the clock). `now` is read only while it is backed up.
    ///
    /// Reading stops while the outbox is backed up (or, for a client that
    /// must read on, its handlers' answers wait), but what a session
    /// sends on its own (progress, change announcements, pings, answers
    /// the engine gives) still adds to it: this bounds in time what a peer
    /// that reads nothing can make a session hold
    /// ([`Limits::max_backlog_wait`](crate::Limits::max_backlog_wait)).
    pub fn stall_deadline(
        &mut self,
        max_bytes: usize,
        wait: Duration,
        now: impl FnOnce() -> Instant,
    ) -> Option<Instant> {
        if !self.is_backed_up(max_bytes) {
            self.stalled_since = None;
            return None;
        }
        let since = match self.stalled_since {
            Some((since, written)) if written == self.batches_written => since,
            _ => {
                let since = now();
                self.stalled_since = Some((since, self.batches_written));
                since
            }
        };
        since.checked_add(wait)
    }

    /// Whether there is writing to do (or a failure to report).
    pub fn busy(&self) -> bool {
        self.writing.is_some() || self.flushing || !self.queue.is_empty()
    }

    /// Writes until the queue is empty: `Ok` then, `Err` when the transport
    /// failed (see [`failure`](Self::failure)). Cancel safe: a batch that
    /// has started stays here and goes on at the next call.
    pub async fn advance(&mut self) -> Result<(), ()> {
        std::future::poll_fn(|cx| self.poll_advance(cx)).await
    }

    /// [`advance`](Self::advance) as a poll: `Ready(Ok)` once the queue is
    /// written, `Ready(Err)` when the transport failed.
    pub fn poll_advance(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ()>> {
        loop {
            if let Some(writing) = self.writing.as_mut() {
                let Poll::Ready((sender, outcome, emptied)) = writing.as_mut().poll(cx) else {
                    return Poll::Pending;
                };
                self.writing = None;
                if self.queue.capacity() == 0 {
                    self.queue = emptied;
                }
                if let Err(error) = outcome {
                    self.failure = Some(error);
                    return Poll::Ready(Err(()));
                }
                self.batches_written += 1;
                self.sender = Some(sender);
            }
            if self.flushing {
                let Some(sender) = self.sender.as_mut() else {
                    return Poll::Ready(Err(()));
                };
                let Poll::Ready(outcome) = sender.poll_flush_fed(cx) else {
                    return Poll::Pending;
                };
                self.flushing = false;
                if let Err(error) = outcome {
                    // Broken, as a failed batch's sender is.
                    self.sender = None;
                    self.failure = Some(Box::new(error));
                    return Poll::Ready(Err(()));
                }
                self.batches_written += 1;
            }
            if self.queue.is_empty() {
                return Poll::Ready(Ok(()));
            }
            if self.feed_now() {
                self.flushing = true;
                continue;
            }
            let Some(mut sender) = self.sender.take() else {
                return Poll::Ready(Err(()));
            };
            let batch = self.take_batch();
            let writing: Writing<S> = Box::pin(async move {
                let mut batch = batch;
                let outcome = write_batch(&mut sender, &mut batch).await;
                // A failed batch's packets are dropped here, not kept.
                batch.clear();
                (sender, outcome, batch)
            });
            self.writing = Some(writing);
        }
    }

    /// Feeds the sender, without a future, the packets of the next batch
    /// (as [`take_batch`](Self::take_batch) counts them) that it takes at
    /// once; whether it took any. The first it refuses stays first in the
    /// queue, for a boxed batch or the next round.
    fn feed_now(&mut self) -> bool {
        let Some(sender) = self.sender.as_mut() else {
            return false;
        };
        let mut count = 0;
        let mut bytes = 0;
        while count < BATCH {
            let Some(Transmit { packet, related }) = self.queue.pop_front() else {
                break;
            };
            let size = packet.size_hint();
            if count > 0 && bytes + size > BATCH_BYTES {
                self.queue.push_front(Transmit { packet, related });
                break;
            }
            match sender.feed_now(packet, related.as_ref()) {
                None => {
                    count += 1;
                    bytes += size;
                }
                Some(packet) => {
                    self.queue.push_front(Transmit { packet, related });
                    break;
                }
            }
        }
        self.queued_bytes = self.queued_bytes.saturating_sub(bytes);
        count > 0
    }

    /// The packets of the next batch: at most [`BATCH`], and no more
    /// after the first than [`BATCH_BYTES`] hold.
    fn take_batch(&mut self) -> VecDeque<Transmit> {
        let mut count = 0;
        let mut bytes = 0;
        for transmit in self.queue.iter().take(BATCH) {
            let size = transmit.packet.size_hint();
            if count > 0 && bytes + size > BATCH_BYTES {
                break;
            }
            count += 1;
            bytes += size;
        }
        self.queued_bytes = self.queued_bytes.saturating_sub(bytes);
        if count == self.queue.len() {
            return core::mem::take(&mut self.queue);
        }
        self.queue.drain(..count).collect()
    }

    /// Why writing ended early (the transport's error, or that it stopped
    /// taking packets).
    pub fn failure(&mut self) -> SendFailure {
        self.failure
            .take()
            .unwrap_or_else(|| "the transport stopped sending".into())
    }

    /// Sends what is left and closes the sending half. A runtime bounds it
    /// in time: a peer that stopped reading would hold it forever.
    ///
    /// # Errors
    ///
    /// When the transport failed while writing what was left.
    pub async fn finish(mut self) -> Result<(), SendFailure> {
        if self.advance().await.is_err() {
            return Err(self.failure());
        }
        if let Some(mut sender) = self.sender.take() {
            // Best effort: the peer may already be gone.
            let _ = sender.close().await;
        }
        Ok(())
    }
}

/// Feeds every packet of `batch` to `sender`, then flushes once.
async fn write_batch<S: TransportSender>(
    sender: &mut S,
    batch: &mut VecDeque<Transmit>,
) -> Result<(), SendFailure> {
    let failed = |error: S::Error| Box::new(error) as SendFailure;
    while let Some(transmit) = batch.pop_front() {
        sender
            .feed(transmit.packet, transmit.related.as_ref())
            .await
            .map_err(failed)?;
    }
    sender.flush().await.map_err(failed)
}
