//! The message-level `Transport` trait every transport implements: a
//! channel of JSON-RPC packets to one peer, split into a sending and a
//! receiving half.

use core::future::Future;
use std::sync::Arc;

use crate::classify::Inbound;
use crate::id::RequestId;
use crate::message::Packet;

/// A boxed, sendable future: the one shape every mcpwire crate uses where a
/// trait object or a stored handler must return a future (`'static` when it
/// outlives its caller, `'_` when it borrows `&self`).
pub type BoxFuture<'a, T> = core::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A bidirectional channel of JSON-RPC packets to one peer.
///
/// A transport moves whole packets; it frames and classifies bytes (for
/// example with [`LineCodec`](crate::LineCodec)) but knows nothing of
/// methods, sessions or protocol versions. It uses only `core::future`, so
/// it can be implemented and driven under any executor.
///
/// A runtime first [`split`](Transport::split)s it: the two halves are used
/// from different tasks, so that reading goes on while a write waits for
/// the peer. A transport whose `send` could block reading (two pipes, two
/// bounded channels) would otherwise deadlock when both peers write more
/// than the channels hold at once.
///
/// # Contract
///
/// * **Order.** Packets reach the peer in the order `send` completed, and
///   `recv` yields them in the order the peer sent them. Batches keep the
///   order of their elements.
/// * **`send`** completes once the packet has been handed to the underlying
///   channel (written, queued within a bounded buffer, ...); it waits while
///   the channel is full, which is how back-pressure reaches the sender. An
///   error means the packet may not have been delivered and the sending
///   half is broken.
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
///   packets and for other work at the same time. `send` and `close` need
///   not be cancel safe.
/// * **`close`** flushes what was sent and ends the sending direction: the
///   peer's `recv` yields what was already sent and then `None`, and a later
///   `send` fails. The receiving half may still yield packets already on
///   their way until it returns `None`. Closing twice is not an error.
///   Dropping both halves closes both directions without flushing.
pub trait Transport: Send + 'static {
    /// The failure of the channel itself (I/O, a vanished peer, ...).
    type Error: core::error::Error + Send + Sync + 'static;
    /// The half that sends.
    type Sender: TransportSender<Error = Self::Error>;
    /// The half that receives.
    type Receiver: TransportReceiver<Error = Self::Error>;

    /// Splits the transport into halves that can be used from two tasks.
    fn split(self) -> (Self::Sender, Self::Receiver);
}

/// The sending half of a [`Transport`].
pub trait TransportSender: Send + 'static {
    /// The failure of the channel itself.
    type Error: core::error::Error + Send + Sync + 'static;

    /// Sends one packet to the peer.
    fn send(&mut self, packet: Packet) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Sends one packet that belongs to the peer's request `related` (its
    /// answer, or progress, logs and requests sent while serving it).
    ///
    /// Transports with one stream ignore `related` (the default calls
    /// [`TransportSender::send`]); a transport with a stream per request
    /// (Streamable HTTP) sends the packet on that request's stream.
    fn send_related(
        &mut self,
        packet: Packet,
        related: Option<&RequestId>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        let _ = related;
        self.send(packet)
    }

    /// Sends one packet like [`send_related`](Self::send_related), except
    /// that the transport may hold it in a buffer until the next
    /// [`flush`](Self::flush): a writer with several packets at hand feeds
    /// them all, then flushes once (one system call instead of one each).
    ///
    /// The default sends at once.
    fn feed(
        &mut self,
        packet: Packet,
        related: Option<&RequestId>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.send_related(packet, related)
    }

    /// Hands on every packet [`feed`](Self::feed) still holds. The
    /// default has nothing to do.
    fn flush(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        core::future::ready(Ok(()))
    }

    /// Feeds a packet as [`feed`](Self::feed) would, without a future,
    /// when the transport can take it at once (it appends to a buffer that
    /// [`poll_flush_fed`](Self::poll_flush_fed) writes out): `None` when
    /// it took the packet, `Some` with the packet when it did not, which
    /// then goes through `feed`. A writer that feeds its packets in
    /// batches (a session's outbox) then keeps no future per batch.
    ///
    /// The default takes nothing. A transport that takes packets here
    /// must write them in `poll_flush_fed`.
    fn feed_now(&mut self, packet: Packet, related: Option<&RequestId>) -> Option<Packet> {
        let _ = related;
        Some(packet)
    }

    /// Writes what [`feed_now`](Self::feed_now) took, as
    /// [`flush`](Self::flush) would, as a poll: `Ready` once it is handed
    /// on, `Pending` (with the waker registered) while the channel is
    /// full. An error breaks the sending half, as one of `flush` does.
    ///
    /// The default, for a transport whose `feed_now` takes nothing, has
    /// nothing to write.
    fn poll_flush_fed(
        &mut self,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<Result<(), Self::Error>> {
        let _ = cx;
        core::task::Poll::Ready(Ok(()))
    }

    /// Flushes and ends the sending direction.
    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

/// Out-of-band context of one request, as a transport learned it (for
/// HTTP, a clone of the request's `http::Extensions`); the handler
/// downcasts it to the transport's type.
pub type TransportContext = Arc<dyn core::any::Any + Send + Sync>;

/// The receiving half of a [`Transport`].
pub trait TransportReceiver: Send + 'static {
    /// The failure of the channel itself.
    type Error: core::error::Error + Send + Sync + 'static;

    /// Receives the next packet from the peer; see [`Transport`] for what
    /// `None` and `Err` mean and for cancel safety.
    fn recv(&mut self) -> impl Future<Output = Option<Result<Inbound, Self::Error>>> + Send;

    /// Whether a [`recv`](Self::recv) now might complete without waiting:
    /// `false` when the transport holds no packet and its channel had
    /// nothing more at its last read. A runtime that takes the packets
    /// already there in a row asks before each further `recv`, and waits
    /// with its other work instead when it is `false` (one futile poll of
    /// the channel fewer per wake-up). Only a hint: `recv` keeps its
    /// contract whatever this says. The default is `true`.
    fn may_have_more(&self) -> bool {
        true
    }

    /// What the transport knows about the request `id` of the packet
    /// [`recv`](Self::recv) just yielded, beyond the message itself: on
    /// Streamable HTTP, the HTTP request's `http::Extensions`, where an
    /// authentication layer puts the caller's validated identity. A runtime
    /// asks once per request it received and hands the value to the
    /// request's handler. The default knows nothing.
    fn request_context(&mut self, id: &RequestId) -> Option<TransportContext> {
        let _ = id;
        None
    }

    /// Closes the connection that carries the stream of the peer's request
    /// `id` without ending the stream, so that the peer reconnects and
    /// resumes it (SSE polling, SEP-1699); what is sent for the request
    /// meanwhile waits for it there. The future resolves to whether a
    /// connection was told; it does not borrow the receiver, so a runtime
    /// can await it elsewhere.
    ///
    /// Only a transport with a resumable stream per request (Streamable
    /// HTTP) has anything to close; the default closes nothing.
    fn close_stream(&mut self, id: &RequestId) -> BoxFuture<'static, bool> {
        let _ = id;
        Box::pin(core::future::ready(false))
    }
}
