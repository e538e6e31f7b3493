//! The writing side of a session: a task owning the transport's sending
//! half, fed through a bounded channel, so that the driver keeps reading
//! while a write waits for the peer (two peers that both block reading
//! while they write would deadlock once both pipes are full).

use std::collections::VecDeque;
use std::time::Duration;

use mcpwire_jsonrpc::TransportSender;
use mcpwire_session::Transmit;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::ServeError;

/// How many packets wait in the channel to the writer task.
const CHANNEL: usize = 64;

/// Packets on their way to the writer task.
pub(crate) struct Outbox {
    /// Taken from the engine but not yet in the channel.
    queue: VecDeque<Transmit>,
    channel: Option<mpsc::Sender<Transmit>>,
    writer: JoinHandle<Result<(), ServeError>>,
}

impl Outbox {
    /// Spawns the writer task over `sender`.
    pub(crate) fn spawn<S: TransportSender>(mut sender: S) -> Self {
        let (channel, mut packets) = mpsc::channel::<Transmit>(CHANNEL);
        let writer = tokio::spawn(async move {
            while let Some(transmit) = packets.recv().await {
                sender
                    .send_related(transmit.packet, transmit.related.as_ref())
                    .await
                    .map_err(|error| ServeError::Transport(Box::new(error)))?;
            }
            // Best effort: the peer may already be gone.
            let _ = sender.close().await;
            Ok(())
        });
        Self {
            queue: VecDeque::new(),
            channel: Some(channel),
            writer,
        }
    }

    /// Queues a packet and moves what it can into the channel without waiting.
    pub(crate) fn push(&mut self, transmit: Transmit) {
        self.queue.push_back(transmit);
        self.hand_off();
    }

    fn hand_off(&mut self) {
        let Some(channel) = &self.channel else {
            return;
        };
        while let Some(transmit) = self.queue.pop_front() {
            match channel.try_send(transmit) {
                Ok(()) => {}
                Err(
                    mpsc::error::TrySendError::Full(transmit)
                    | mpsc::error::TrySendError::Closed(transmit),
                ) => {
                    self.queue.push_front(transmit);
                    break;
                }
            }
        }
    }

    /// How many packets wait outside the channel.
    pub(crate) fn backlog(&self) -> usize {
        self.queue.len()
    }

    /// Waits until the channel takes the oldest waiting packet; `Err` when
    /// the writer task has ended (the transport failed).
    pub(crate) async fn advance(&mut self) -> Result<(), ()> {
        {
            let Some(channel) = &self.channel else {
                return Err(());
            };
            let permit = channel.reserve().await.map_err(|_| ())?;
            if let Some(transmit) = self.queue.pop_front() {
                permit.send(transmit);
            }
        }
        self.hand_off();
        Ok(())
    }

    /// Why the writer task ended early.
    pub(crate) async fn failure(&mut self) -> ServeError {
        self.channel = None;
        match (&mut self.writer).await {
            Ok(Err(error)) => error,
            Ok(Ok(())) => ServeError::Transport("the transport stopped sending".into()),
            Err(join) => ServeError::Transport(Box::new(join)),
        }
    }

    /// Sends what is left, closes the sending half and waits (at most
    /// `grace`) for the writer to finish.
    pub(crate) async fn finish(mut self, grace: Duration) -> Result<(), ServeError> {
        let Some(channel) = self.channel.take() else {
            return Ok(());
        };
        let queue = std::mem::take(&mut self.queue);
        let mut writer = self.writer;
        let flush = async {
            let channel = channel;
            for transmit in queue {
                if channel.send(transmit).await.is_err() {
                    break;
                }
            }
            drop(channel);
            (&mut writer).await
        };
        match tokio::time::timeout(grace, flush).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(join)) => Err(ServeError::Transport(Box::new(join))),
            // A peer that stopped reading: give up on the rest.
            Err(_) => {
                writer.abort();
                Ok(())
            }
        }
    }
}
