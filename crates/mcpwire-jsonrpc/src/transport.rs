//! The message-level `Transport` trait that every transport implements.

use core::future::Future;

use crate::classify::Inbound;
use crate::id::RequestId;
use crate::message::Packet;

/// A bidirectional channel of JSON-RPC packets to one peer.
///
/// A transport moves whole packets; it frames and classifies bytes (for
/// example with [`LineCodec`](crate::LineCodec)) but knows nothing of
/// methods, sessions or protocol versions. It uses only `core::future`, so
/// it can be implemented and driven under any executor.
///
/// # Contract
///
/// * **Order.** Packets reach the peer in the order `send` completed, and
///   `recv` yields them in the order the peer sent them. Batches keep the
///   order of their elements.
/// * **`send`** completes once the packet has been handed to the underlying
///   channel (written, queued within a bounded buffer, ...); it waits while
///   the channel is full, which is how back-pressure reaches the sender. An
///   error means the packet may not have been delivered and the transport
///   is broken.
/// * **`recv`** yields `Some(Ok(inbound))` for each JSON text the peer sent,
///   `Some(Err(_))` for a failure of the transport itself (an I/O error;
///   afterwards the transport is broken and should be closed), and `None`
///   once the peer will send nothing more. After `None`, `recv` keeps
///   returning `None`.
/// * **Protocol errors are data, not failures.** Text that is not a valid
///   message, or a frame the transport refused (too long, not UTF-8), is
///   yielded as [`Inbound::Invalid`] (or as an `Err` element of
///   [`Inbound::Batch`]) so that the engine can answer it, and reading goes
///   on.
/// * **Cancel safety of `recv`.** Dropping the future returned by `recv`
///   before it completes loses nothing: a packet is taken from the channel
///   only in the poll that returns it. This lets a driver wait for inbound
///   packets and for outbound work at the same time, and drop the `recv`
///   future to `send` when outbound work wins. `send` and `close` need not
///   be cancel safe.
/// * **`close`** flushes what was sent and ends the sending direction: the
///   peer's `recv` yields what was already sent and then `None`, and a later
///   `send` here fails. This side's `recv` may still yield packets already
///   on their way until it returns `None`. Closing twice is not an error.
///   Dropping a transport closes both directions without flushing.
pub trait Transport: Send {
    /// The failure of the channel itself (I/O, a vanished peer, ...).
    type Error: core::error::Error + Send + Sync + 'static;

    /// Sends one packet to the peer.
    fn send(&mut self, packet: Packet) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Sends one packet that belongs to the peer's request `related` (its
    /// answer, or progress, logs and requests sent while serving it).
    ///
    /// Transports with one stream ignore `related` (the default calls
    /// [`Transport::send`]); a transport with a stream per request
    /// (Streamable HTTP) sends the packet on that request's stream.
    fn send_related(
        &mut self,
        packet: Packet,
        related: Option<&RequestId>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        let _ = related;
        self.send(packet)
    }

    /// Receives the next packet from the peer; see the contract above for
    /// what `None` and `Err` mean and for cancel safety.
    fn recv(&mut self) -> impl Future<Output = Option<Result<Inbound, Self::Error>>> + Send;

    /// Flushes and ends the sending direction.
    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send;
}
