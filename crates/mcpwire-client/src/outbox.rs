//! The writing side of the client session: a task owning the transport's
//! sending half, so that the driver keeps reading answers while a write
//! waits for the server (two peers that both stop reading while they write
//! deadlock once both pipes are full).
//!
//! The channel to the writer is unbounded on purpose: the client must never
//! stop reading, and what it sends is already bounded by the engine (the
//! in-flight limits on its own requests and on the server's requests it
//! answers).

use std::time::Duration;

use mcpwire_jsonrpc::TransportSender;
use mcpwire_session::Transmit;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How the writer task ended.
pub(crate) type WriterOutcome = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// Packets on their way to the writer task.
pub(crate) struct Outbox {
    channel: Option<mpsc::UnboundedSender<Transmit>>,
    /// `None` once awaited.
    writer: Option<JoinHandle<WriterOutcome>>,
}

impl Outbox {
    /// Spawns the writer task over `sender`.
    pub(crate) fn spawn<S: TransportSender>(mut sender: S) -> Self {
        let (channel, mut packets) = mpsc::unbounded_channel::<Transmit>();
        let writer = tokio::spawn(async move {
            while let Some(transmit) = packets.recv().await {
                sender
                    .send_related(transmit.packet, transmit.related.as_ref())
                    .await
                    .map_err(|error| Box::new(error) as Box<dyn std::error::Error + Send + Sync>)?;
            }
            // Best effort: the server may already be gone.
            let _ = sender.close().await;
            Ok(())
        });
        Self {
            channel: Some(channel),
            writer: Some(writer),
        }
    }

    /// Hands a packet to the writer.
    pub(crate) fn push(&self, transmit: Transmit) {
        if let Some(channel) = &self.channel {
            // A closed channel means the writer ended; `ended` reports why.
            let _ = channel.send(transmit);
        }
    }

    /// Waits until the writer task ends, which before `finish` means the
    /// transport failed; never returns while it runs.
    pub(crate) async fn ended(&mut self) -> WriterOutcome {
        let Some(writer) = &mut self.writer else {
            return std::future::pending().await;
        };
        let outcome = match writer.await {
            Ok(Ok(())) => Err("the transport stopped sending".into()),
            Ok(Err(error)) => Err(error),
            Err(join) => Err(Box::new(join) as Box<dyn std::error::Error + Send + Sync>),
        };
        self.writer = None;
        outcome
    }

    /// The writer's failure, if it has already ended (a transport whose
    /// receiving side ends because its sending side failed reports the
    /// cause here, e.g. a 401 refusing the first request).
    pub(crate) async fn failure_if_ended(
        &mut self,
    ) -> Option<Box<dyn std::error::Error + Send + Sync>> {
        let finished = self.writer.as_ref().is_some_and(JoinHandle::is_finished);
        if finished {
            self.ended().await.err()
        } else {
            None
        }
    }

    /// Lets the writer send what is queued and close the sending half,
    /// waiting at most `grace` (a server that stopped reading is given up on).
    pub(crate) async fn finish(mut self, grace: Duration) {
        self.channel = None;
        if let Some(mut writer) = self.writer.take()
            && tokio::time::timeout(grace, &mut writer).await.is_err()
        {
            writer.abort();
        }
    }
}
