//! `pipe`: the bounded queue that carries the events of one stream to the
//! connection attached to it, made for being opened once per POST.
//!
//! A tokio channel allocates its shared state and a block of 32 slots when
//! it is made, and initialises a semaphore and atomics; one was made and
//! dropped for every POST that holds a request (about 2,300 instructions
//! per call of the HTTP echo benchmark, E2). A stream usually carries one
//! event, its answer: a mutex around a queue that allocates on first use
//! costs a fraction of that, with the same bound and back-pressure. The
//! oldest queued value sits in a slot of its own, so that a queue that
//! never holds more than one value at once (a POST's answer, a session's
//! inbox with one request in flight) never allocates a buffer.

use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures_util::Stream;

/// A bounded queue of `T` between any number of senders and one receiver.
/// The receiver's stream ends once every sender is dropped and the queue
/// is empty; senders fail once the receiver is dropped.
pub(crate) fn pipe<T>(capacity: usize) -> (PipeSender<T>, PipeReceiver<T>) {
    let shared = Arc::new(Mutex::new(State {
        first: None,
        queue: VecDeque::new(),
        capacity: capacity.max(1),
        receiver: None,
        senders: Vec::new(),
        live_senders: 1,
        receiver_alive: true,
    }));
    (
        PipeSender {
            shared: shared.clone(),
        },
        PipeReceiver { shared },
    )
}

/// The capacity above which an emptied queue gives its buffer back.
const SHRINK_ABOVE: usize = 16;

struct State<T> {
    /// The oldest queued value; `queue` holds the ones after it (so it is
    /// empty whenever `first` is).
    first: Option<T>,
    queue: VecDeque<T>,
    capacity: usize,
    /// The receiver's waker while it waits for a value.
    receiver: Option<Waker>,
    /// The wakers of senders waiting for room (a waker of a send that was
    /// dropped meanwhile costs one spurious wake-up, no more).
    senders: Vec<Waker>,
    live_senders: usize,
    receiver_alive: bool,
}

impl<T> State<T> {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.queue.len()
    }

    fn push(&mut self, value: T) {
        if self.first.is_none() {
            self.first = Some(value);
        } else {
            self.queue.push_back(value);
        }
    }

    fn pop(&mut self) -> Option<T> {
        let value = self.first.take()?;
        self.first = self.queue.pop_front();
        Some(value)
    }
}

/// Why [`PipeSender::try_send`] queued nothing; the value comes back.
pub(crate) enum TrySendError<T> {
    /// The queue is at its bound.
    Full(T),
    /// The receiver is gone.
    Closed(T),
}

/// Locks the state, ignoring poisoning: every critical section leaves it
/// consistent after each single change, and none calls user code.
fn lock<T>(shared: &Mutex<State<T>>) -> MutexGuard<'_, State<T>> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The sending end of a [`pipe`]; clones send into the same queue.
pub(crate) struct PipeSender<T> {
    shared: Arc<Mutex<State<T>>>,
}

/// The receiving end of a [`pipe`], as a `Stream` (cancel safe: a value
/// is taken only in the poll that returns it).
pub(crate) struct PipeReceiver<T> {
    shared: Arc<Mutex<State<T>>>,
}

impl<T> PipeSender<T> {
    /// Queues `value`, waiting while the queue is full; gives the value
    /// back when the receiver is gone. Dropping the future before it
    /// finishes queues nothing.
    pub(crate) async fn send(&self, value: T) -> Result<(), T> {
        let mut value = Some(value);
        core::future::poll_fn(|cx| self.poll_send(cx, &mut value)).await
    }

    fn poll_send(&self, cx: &mut Context<'_>, value: &mut Option<T>) -> Poll<Result<(), T>> {
        let mut state = lock(&self.shared);
        let Some(item) = value.take() else {
            // Polled again after it finished: nothing is left to send.
            return Poll::Ready(Ok(()));
        };
        if !state.receiver_alive {
            return Poll::Ready(Err(item));
        }
        if state.len() >= state.capacity {
            if !state
                .senders
                .iter()
                .any(|waker| waker.will_wake(cx.waker()))
            {
                state.senders.push(cx.waker().clone());
            }
            *value = Some(item);
            return Poll::Pending;
        }
        state.push(item);
        let receiver = state.receiver.take();
        drop(state);
        if let Some(receiver) = receiver {
            receiver.wake();
        }
        Poll::Ready(Ok(()))
    }

    /// Queues `value` if there is room now, without waiting: what a caller
    /// that can answer at once (rather than with a future) uses first.
    pub(crate) fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let mut state = lock(&self.shared);
        if !state.receiver_alive {
            return Err(TrySendError::Closed(value));
        }
        if state.len() >= state.capacity {
            return Err(TrySendError::Full(value));
        }
        state.push(value);
        let receiver = state.receiver.take();
        drop(state);
        if let Some(receiver) = receiver {
            receiver.wake();
        }
        Ok(())
    }

    /// Whether `other` sends into the same queue.
    pub(crate) fn same_pipe(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T> Clone for PipeSender<T> {
    fn clone(&self) -> Self {
        lock(&self.shared).live_senders += 1;
        Self {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for PipeSender<T> {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        state.live_senders -= 1;
        let receiver = (state.live_senders == 0)
            .then(|| state.receiver.take())
            .flatten();
        drop(state);
        // The last sender is gone: the receiver sees the end of the stream.
        if let Some(receiver) = receiver {
            receiver.wake();
        }
    }
}

impl<T> Stream for PipeReceiver<T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut state = lock(&self.shared);
        if let Some(value) = state.pop() {
            if state.queue.is_empty() && state.queue.capacity() > SHRINK_ABOVE {
                // A long-lived stream (the standalone GET) keeps no buffer
                // of a past burst while it idles.
                state.queue = VecDeque::new();
            }
            let senders = core::mem::take(&mut state.senders);
            drop(state);
            for sender in senders {
                sender.wake();
            }
            return Poll::Ready(Some(value));
        }
        if state.live_senders == 0 {
            return Poll::Ready(None);
        }
        match &mut state.receiver {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl<T> Drop for PipeReceiver<T> {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        state.receiver_alive = false;
        let queued = (state.first.take(), core::mem::take(&mut state.queue));
        let senders = core::mem::take(&mut state.senders);
        drop(state);
        // Dropped outside the lock: a value's own drop may do anything.
        drop(queued);
        for sender in senders {
            sender.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures_util::StreamExt;

    use super::*;

    #[tokio::test]
    async fn values_arrive_in_order_and_the_stream_ends_with_the_last_sender() {
        let (sender, mut receiver) = pipe(4);
        let other = sender.clone();
        sender.send(1).await.unwrap();
        other.send(2).await.unwrap();
        drop(sender);
        assert_eq!(receiver.next().await, Some(1));
        assert_eq!(receiver.next().await, Some(2));
        drop(other);
        assert_eq!(receiver.next().await, None);
    }

    #[tokio::test]
    async fn a_full_pipe_holds_the_sender_until_the_receiver_takes_a_value() {
        let (sender, mut receiver) = pipe(1);
        sender.send(1).await.unwrap();
        let waiting = tokio::spawn(async move {
            sender.send(2).await.unwrap();
            sender
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "the second value waits for room");
        assert_eq!(receiver.next().await, Some(1));
        let sender = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(receiver.next().await, Some(2));
        drop(sender);
        assert_eq!(receiver.next().await, None);
    }

    #[tokio::test]
    async fn a_waiting_receiver_is_woken_by_a_send_and_by_the_end() {
        let (sender, mut receiver) = pipe::<u8>(2);
        let reading = tokio::spawn(async move {
            let first = receiver.next().await;
            let end = receiver.next().await;
            (first, end)
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        sender.send(7).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(sender);
        let read = tokio::time::timeout(Duration::from_secs(5), reading)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(read, (Some(7), None));
    }

    #[tokio::test]
    async fn senders_fail_once_the_receiver_is_gone_even_while_waiting() {
        let (sender, receiver) = pipe(1);
        sender.send(1).await.unwrap();
        let waiting = tokio::spawn(async move { sender.send(2).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(receiver);
        let refused = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(refused, Err(2));
    }

    #[tokio::test]
    async fn an_emptied_queue_gives_back_the_buffer_of_a_burst() {
        let (sender, mut receiver) = pipe(64);
        for value in 0..40 {
            sender.send(value).await.unwrap();
        }
        for value in 0..40 {
            assert_eq!(receiver.next().await, Some(value));
        }
        assert_eq!(lock(&receiver.shared).queue.capacity(), 0);
        sender.send(40).await.unwrap();
        assert_eq!(receiver.next().await, Some(40));
    }

    #[tokio::test]
    async fn try_send_queues_in_order_up_to_the_bound_and_gives_the_value_back() {
        let (sender, mut receiver) = pipe(2);
        assert!(sender.try_send(1).is_ok());
        assert!(sender.try_send(2).is_ok());
        assert!(matches!(sender.try_send(3), Err(TrySendError::Full(3))));
        assert_eq!(receiver.next().await, Some(1));
        sender.send(3).await.unwrap();
        assert_eq!(receiver.next().await, Some(2));
        assert_eq!(receiver.next().await, Some(3));
        drop(receiver);
        assert!(matches!(sender.try_send(4), Err(TrySendError::Closed(4))));
        // One value at a time never needs the queue's buffer.
        let (sender, mut receiver) = pipe(8);
        for value in 0..3 {
            assert!(sender.try_send(value).is_ok());
            assert_eq!(receiver.next().await, Some(value));
        }
        assert_eq!(lock(&receiver.shared).queue.capacity(), 0);
    }

    #[tokio::test]
    async fn a_cancelled_send_queues_nothing() {
        let (sender, mut receiver) = pipe(1);
        sender.send(1).await.unwrap();
        let cancelled = tokio::time::timeout(Duration::from_millis(20), sender.send(2)).await;
        assert!(cancelled.is_err());
        assert_eq!(receiver.next().await, Some(1));
        sender.send(3).await.unwrap();
        assert_eq!(receiver.next().await, Some(3));
        let other = sender.clone();
        assert!(sender.same_pipe(&other));
        assert!(!sender.same_pipe(&pipe::<i32>(1).0));
    }
}
