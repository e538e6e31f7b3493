//! The writing side of a session: packets queue here and go out in
//! batches (every packet queued at the moment, then one flush), written by
//! a future the session driver polls beside its reading. The driver keeps
//! reading while a write waits for the peer (two peers that both block
//! reading while they write would deadlock once both pipes are full), and
//! no task hand-off stands between an answer and its write.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use mcpwire_jsonrpc::TransportSender;
use mcpwire_session::Transmit;

use crate::ServeError;

/// How many packets one batch writes at most before it flushes.
const BATCH: usize = 64;

/// A batch on its way out: it owns the sending half while it runs and
/// gives it back with the outcome.
type Writing<S> = Pin<Box<dyn Future<Output = (S, Result<(), ServeError>)> + Send>>;

/// Packets on their way to the transport.
pub(crate) struct Outbox<S: TransportSender> {
    /// Taken from the engine, not yet in a batch.
    queue: VecDeque<Transmit>,
    /// The sending half while no batch runs; `None` once it failed or
    /// closed.
    sender: Option<S>,
    /// The batch being written, if any.
    writing: Option<Writing<S>>,
    /// Why writing failed, until the driver asks.
    failure: Option<ServeError>,
}

impl<S: TransportSender> Outbox<S> {
    /// An outbox writing to `sender`.
    pub(crate) fn new(sender: S) -> Self {
        Self {
            queue: VecDeque::new(),
            sender: Some(sender),
            writing: None,
            failure: None,
        }
    }

    /// Queues a packet; it goes out when the driver next polls
    /// [`advance`](Self::advance).
    pub(crate) fn push(&mut self, transmit: Transmit) {
        self.queue.push_back(transmit);
    }

    /// How many packets wait for a batch.
    pub(crate) fn backlog(&self) -> usize {
        self.queue.len()
    }

    /// Whether there is writing to do (or a failure to report).
    pub(crate) fn busy(&self) -> bool {
        self.writing.is_some() || !self.queue.is_empty()
    }

    /// Writes until the queue is empty: `Ok` then, `Err` when the transport
    /// failed (see [`failure`](Self::failure)). Cancel safe: a batch that
    /// has started stays here and goes on at the next call.
    pub(crate) async fn advance(&mut self) -> Result<(), ()> {
        std::future::poll_fn(|cx| self.poll_write(cx)).await
    }

    fn poll_write(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ()>> {
        loop {
            if let Some(writing) = self.writing.as_mut() {
                let Poll::Ready((sender, outcome)) = writing.as_mut().poll(cx) else {
                    return Poll::Pending;
                };
                self.writing = None;
                if let Err(error) = outcome {
                    self.failure = Some(error);
                    return Poll::Ready(Err(()));
                }
                self.sender = Some(sender);
            }
            if self.queue.is_empty() {
                return Poll::Ready(Ok(()));
            }
            let Some(mut sender) = self.sender.take() else {
                return Poll::Ready(Err(()));
            };
            let batch: Vec<Transmit> = self.queue.drain(..self.queue.len().min(BATCH)).collect();
            self.writing = Some(Box::pin(async move {
                let outcome = write_batch(&mut sender, batch).await;
                (sender, outcome)
            }));
        }
    }

    /// Why writing ended early.
    pub(crate) fn failure(&mut self) -> ServeError {
        self.failure
            .take()
            .unwrap_or_else(|| ServeError::Transport("the transport stopped sending".into()))
    }

    /// Sends what is left and closes the sending half, taking at most
    /// `grace` (a peer that stopped reading gets no more).
    pub(crate) async fn finish(mut self, grace: Duration) -> Result<(), ServeError> {
        let flush = async {
            if self.advance().await.is_err() {
                return Err(self.failure());
            }
            if let Some(mut sender) = self.sender.take() {
                // Best effort: the peer may already be gone.
                let _ = sender.close().await;
            }
            Ok(())
        };
        tokio::time::timeout(grace, flush).await.unwrap_or(Ok(()))
    }
}

/// Feeds every packet of `batch` to `sender`, then flushes once.
async fn write_batch<S: TransportSender>(
    sender: &mut S,
    batch: Vec<Transmit>,
) -> Result<(), ServeError> {
    let failed = |error: S::Error| ServeError::Transport(Box::new(error));
    for transmit in batch {
        sender
            .feed(transmit.packet, transmit.related.as_ref())
            .await
            .map_err(failed)?;
    }
    sender.flush().await.map_err(failed)
}
