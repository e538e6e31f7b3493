//! An in-memory transport pair over bounded channels, for tests and in-process peers.

use core::future::poll_fn;

use futures_channel::mpsc;

use crate::classify::Inbound;
use crate::message::Packet;
use crate::transport::{Transport, TransportReceiver, TransportSender};

/// Two connected in-memory transports: what one sends, the other receives.
///
/// Each direction is a bounded channel holding about `capacity` packets
/// (the channel adds one slot for its sender), so a sender that outpaces its
/// receiver waits in `send`: nothing queues without bound. Packets are
/// passed as values, not bytes, so the pair exercises no framing.
pub fn pair(capacity: usize) -> (MemoryTransport, MemoryTransport) {
    let (left_tx, right_rx) = mpsc::channel(capacity);
    let (right_tx, left_rx) = mpsc::channel(capacity);
    (
        MemoryTransport {
            sender: MemorySender {
                outgoing: Some(left_tx),
            },
            receiver: MemoryReceiver { incoming: left_rx },
        },
        MemoryTransport {
            sender: MemorySender {
                outgoing: Some(right_tx),
            },
            receiver: MemoryReceiver { incoming: right_rx },
        },
    )
}

/// One end of an in-memory transport pair made by [`pair`].
///
/// Its inherent `send`, `recv` and `close` make it easy to script a peer in
/// a test; a runtime [`split`](Transport::split)s it.
#[derive(Debug)]
pub struct MemoryTransport {
    sender: MemorySender,
    receiver: MemoryReceiver,
}

/// The sending half of a [`MemoryTransport`].
#[derive(Debug)]
pub struct MemorySender {
    /// `None` once this end is closed.
    outgoing: Option<mpsc::Sender<Packet>>,
}

/// The receiving half of a [`MemoryTransport`].
#[derive(Debug)]
pub struct MemoryReceiver {
    incoming: mpsc::Receiver<Packet>,
}

/// The failure of an in-memory transport.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// This end was closed, or the other end was dropped.
    #[error("the in-memory transport is closed")]
    Closed,
}

impl MemoryTransport {
    /// Sends one packet to the other end.
    ///
    /// # Errors
    ///
    /// When this end was closed or the other end dropped.
    pub async fn send(&mut self, packet: Packet) -> Result<(), MemoryError> {
        self.sender.send(packet).await
    }

    /// Receives the next packet from the other end; `None` once it closed.
    pub async fn recv(&mut self) -> Option<Result<Inbound, MemoryError>> {
        self.receiver.recv().await
    }

    /// Ends the sending direction.
    ///
    /// # Errors
    ///
    /// Never; the signature matches the trait's.
    pub async fn close(&mut self) -> Result<(), MemoryError> {
        self.sender.close().await
    }
}

impl Transport for MemoryTransport {
    type Error = MemoryError;
    type Sender = MemorySender;
    type Receiver = MemoryReceiver;

    fn split(self) -> (MemorySender, MemoryReceiver) {
        (self.sender, self.receiver)
    }
}

impl TransportSender for MemorySender {
    type Error = MemoryError;

    async fn send(&mut self, packet: Packet) -> Result<(), MemoryError> {
        let outgoing = self.outgoing.as_mut().ok_or(MemoryError::Closed)?;
        poll_fn(|cx| outgoing.poll_ready(cx))
            .await
            .map_err(|_| MemoryError::Closed)?;
        outgoing.start_send(packet).map_err(|_| MemoryError::Closed)
    }

    async fn close(&mut self) -> Result<(), MemoryError> {
        // Dropping the only sender ends the channel once the peer has drained it.
        self.outgoing = None;
        Ok(())
    }
}

impl TransportReceiver for MemoryReceiver {
    type Error = MemoryError;

    async fn recv(&mut self) -> Option<Result<Inbound, MemoryError>> {
        // `Recv` takes a packet only in the poll that returns it, so dropping
        // this future early loses nothing.
        let packet = self.incoming.recv().await.ok()?;
        Some(Ok(Inbound::from(packet)))
    }
}
