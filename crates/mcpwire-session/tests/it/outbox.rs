//! The outbox over a transport that takes packets at once
//! (`TransportSender::feed_now`): what it took and what went through
//! `feed` reach the peer in the order they were queued, a flush that waits
//! keeps the outbox busy, and a failed flush fails it with the
//! transport's error.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use mcpwire_jsonrpc::{Notification, Packet, RequestId, TransportSender};
use mcpwire_session::{Outbox, Transmit};

/// What the fake peer saw and how the fake transport behaves.
#[derive(Default)]
struct Wire {
    /// Methods of the packets the peer received, in order.
    received: Vec<String>,
    /// Which packets `feed_now` refuses (by method).
    refused: Vec<String>,
    /// How many `poll_flush_fed` calls answer `Pending` before one
    /// completes.
    pending_flushes: usize,
    /// Whether the next completing flush fails.
    fail_flush: bool,
    /// How many packets went through `feed` (the future path).
    fed_by_future: usize,
}

/// A transport with a buffer: `feed_now` appends to it, the flushes hand
/// it to the peer.
struct Buffered {
    wire: Arc<Mutex<Wire>>,
    buffer: VecDeque<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("the peer is gone")]
struct Gone;

fn method(packet: &Packet) -> String {
    packet.messages()[0].method().unwrap_or_default().to_owned()
}

impl Buffered {
    fn hand_on(&mut self) -> Result<(), Gone> {
        let mut wire = self.wire.lock().unwrap();
        if wire.fail_flush {
            return Err(Gone);
        }
        wire.received.extend(self.buffer.drain(..));
        Ok(())
    }
}

impl TransportSender for Buffered {
    type Error = Gone;

    async fn send(&mut self, packet: Packet) -> Result<(), Gone> {
        self.wire.lock().unwrap().fed_by_future += 1;
        self.buffer.push_back(method(&packet));
        self.hand_on()
    }

    async fn flush(&mut self) -> Result<(), Gone> {
        self.hand_on()
    }

    async fn close(&mut self) -> Result<(), Gone> {
        self.hand_on()
    }

    fn feed_now(&mut self, packet: Packet, _related: Option<&RequestId>) -> Option<Packet> {
        let name = method(&packet);
        if self.wire.lock().unwrap().refused.contains(&name) {
            return Some(packet);
        }
        self.buffer.push_back(name);
        None
    }

    fn poll_flush_fed(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Gone>> {
        {
            let mut wire = self.wire.lock().unwrap();
            if wire.pending_flushes > 0 {
                wire.pending_flushes -= 1;
                return Poll::Pending;
            }
        }
        Poll::Ready(self.hand_on())
    }
}

fn transmit(method: &str) -> Transmit {
    Transmit {
        packet: Packet::from(Notification::without_params(method)),
        related: None,
    }
}

fn outbox(wire: &Arc<Mutex<Wire>>) -> Outbox<Buffered> {
    Outbox::new(Buffered {
        wire: wire.clone(),
        buffer: VecDeque::new(),
    })
}

fn poll(outbox: &mut Outbox<Buffered>) -> Poll<Result<(), ()>> {
    outbox.poll_advance(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn packets_taken_at_once_and_packets_fed_by_a_future_reach_the_peer_in_queue_order() {
    let wire = Arc::new(Mutex::new(Wire {
        refused: vec!["c".to_owned()],
        ..Wire::default()
    }));
    let mut outbox = outbox(&wire);
    for name in ["a", "b", "c", "d", "e"] {
        outbox.push(transmit(name));
    }
    // Bounded: each round moves at least one packet or ends.
    for _ in 0..10 {
        if poll(&mut outbox).is_ready() {
            break;
        }
    }
    assert!(!outbox.busy());
    let wire = wire.lock().unwrap();
    assert_eq!(wire.received, ["a", "b", "c", "d", "e"]);
    // The two before the refused one were taken at once; the refused one
    // and the rest of its batch went through the future.
    assert_eq!(wire.fed_by_future, 3);
}

#[test]
fn a_flush_that_waits_keeps_the_outbox_busy_until_it_completes() {
    let wire = Arc::new(Mutex::new(Wire {
        pending_flushes: 2,
        ..Wire::default()
    }));
    let mut outbox = outbox(&wire);
    outbox.push(transmit("a"));
    assert!(poll(&mut outbox).is_pending());
    assert!(outbox.busy());
    // A packet queued while the flush waits goes out after it.
    outbox.push(transmit("b"));
    assert!(poll(&mut outbox).is_pending());
    assert!(wire.lock().unwrap().received.is_empty());
    assert_eq!(poll(&mut outbox), Poll::Ready(Ok(())));
    assert!(!outbox.busy());
    assert_eq!(wire.lock().unwrap().received, ["a", "b"]);
}

#[test]
fn a_failed_flush_of_packets_taken_at_once_fails_the_outbox_with_the_transports_error() {
    let wire = Arc::new(Mutex::new(Wire {
        fail_flush: true,
        ..Wire::default()
    }));
    let mut outbox = outbox(&wire);
    outbox.push(transmit("a"));
    assert_eq!(poll(&mut outbox), Poll::Ready(Err(())));
    assert_eq!(outbox.failure().to_string(), "the peer is gone");
    // The sending half is broken: nothing more goes out.
    wire.lock().unwrap().fail_flush = false;
    outbox.push(transmit("b"));
    assert_eq!(poll(&mut outbox), Poll::Ready(Err(())));
    assert!(wire.lock().unwrap().received.is_empty());
}
