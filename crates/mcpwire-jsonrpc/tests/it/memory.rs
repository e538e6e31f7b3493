//! Tests of the in-memory transport pair against the `Transport` contract.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use futures_util::FutureExt;
use futures_util::future::{Either, join, select};
use mcpwire_jsonrpc::memory::{self, MemoryError, MemoryTransport};
use mcpwire_jsonrpc::{
    Inbound, Notification, Packet, Request, Transport, TransportReceiver, TransportSender,
};

/// Runs a future to completion on this thread, parking while it is pending.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
}

fn note(n: usize) -> Packet {
    Packet::from(Notification::new("n", &[n]).unwrap())
}

/// Receives one packet and unwraps it, as the tests expect only good ones.
async fn recv_packet(transport: &mut MemoryTransport) -> Option<Packet> {
    let inbound = transport.recv().await?;
    inbound.ok()?.into_packet().ok()
}

#[test]
fn packets_arrive_in_order_in_both_directions() {
    let (mut left, mut right) = memory::pair(8);
    block_on(async {
        for n in 0..5 {
            left.send(note(n)).await.unwrap();
        }
        right
            .send(Packet::from(Request::without_params(1, "r")))
            .await
            .unwrap();
        for n in 0..5 {
            assert_eq!(recv_packet(&mut right).await, Some(note(n)));
        }
        assert_eq!(
            left.recv().await,
            Some(Ok(Inbound::from(Packet::from(Request::without_params(
                1, "r"
            )))))
        );
    });
}

#[test]
fn full_channel_makes_send_wait_until_the_peer_receives() {
    let (mut left, mut right) = memory::pair(1);
    // One slot for the buffer and one for the sender.
    assert!(left.send(note(0)).now_or_never().is_some());
    assert!(left.send(note(1)).now_or_never().is_some());
    assert!(
        left.send(note(2)).now_or_never().is_none(),
        "third send must wait"
    );
    assert_eq!(block_on(recv_packet(&mut right)), Some(note(0)));
    assert!(left.send(note(2)).now_or_never().is_some());
}

#[test]
fn bounded_pair_carries_many_packets_between_concurrent_tasks() {
    let (mut left, mut right) = memory::pair(2);
    let count = 500;
    let sender = async {
        for n in 0..count {
            left.send(note(n)).await.unwrap();
        }
        left.close().await.unwrap();
    };
    let receiver = async {
        let mut received = Vec::new();
        while let Some(packet) = recv_packet(&mut right).await {
            received.push(packet);
        }
        received
    };
    let ((), received) = block_on(join(sender, receiver));
    assert_eq!(received, (0..count).map(note).collect::<Vec<_>>());
}

#[test]
fn close_delivers_what_was_sent_then_none_and_refuses_later_sends() {
    let (mut left, mut right) = memory::pair(4);
    block_on(async {
        left.send(note(1)).await.unwrap();
        left.close().await.unwrap();
        left.close().await.unwrap();
        assert_eq!(left.send(note(2)).await, Err(MemoryError::Closed));
        assert_eq!(recv_packet(&mut right).await, Some(note(1)));
        assert!(right.recv().await.is_none());
        assert!(right.recv().await.is_none(), "None is final");
        // The other direction still works after a one-sided close.
        right.send(note(3)).await.unwrap();
        assert_eq!(recv_packet(&mut left).await, Some(note(3)));
    });
}

#[test]
fn dropping_one_end_ends_the_other() {
    let (left, mut right) = memory::pair(4);
    drop(left);
    block_on(async {
        assert!(right.recv().await.is_none());
        assert_eq!(right.send(note(0)).await, Err(MemoryError::Closed));
    });
}

#[test]
fn dropping_a_pending_recv_loses_no_packet() {
    let (mut left, mut right) = memory::pair(4);
    {
        let mut pending = pin!(right.recv());
        let mut cx = Context::from_waker(Waker::noop());
        assert!(pending.as_mut().poll(&mut cx).is_pending());
    }
    block_on(async {
        // A driver that races `recv` against other work, here the peer
        // sending, and drops `recv` when the other work wins still sees
        // every packet.
        let other_work_won = matches!(
            select(pin!(right.recv()), pin!(left.send(note(7)))).await,
            Either::Right((Ok(()), _))
        );
        assert!(other_work_won);
        assert_eq!(recv_packet(&mut right).await, Some(note(7)));
    });
}

#[test]
fn transport_futures_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let (mut left, _right) = memory::pair(1);
    assert_send(&left.send(note(0)));
    assert_send(&left.recv());
    assert_send(&left.close());
    fn generic<T: Transport>(transport: T) {
        let (mut sender, mut receiver) = transport.split();
        assert_send(&receiver.recv());
        assert_send(&sender.send(note(1)));
        assert_send(&sender.close());
    }
    generic::<MemoryTransport>(left);
}
