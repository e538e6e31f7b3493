//! The cancellation signal both runtimes hand their handlers: a flag and
//! the wakers of whoever awaits it, on `std` alone (no runtime), so that
//! the server and the client share one type.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// Tells a handler that its request was cancelled (by the peer, or because
/// the session ended).
///
/// Cheap to clone. When the signal fires the runtime also stops the
/// handler's task at its next await point, so most handlers need not check
/// it; it is for work handed to other tasks or threads (a dialog shown to
/// the user, a computation on a blocking thread).
#[derive(Debug, Clone)]
pub struct Cancellation {
    /// `None` for a signal that never fires.
    state: Option<Arc<Signal>>,
}

/// The side that fires a [`Cancellation`]; dropping it fires it too (the
/// request is over, so whoever still watches it is told).
///
/// Held by a runtime, one per request it runs a handler for.
#[derive(Debug)]
pub struct CancelHandle {
    state: Arc<Signal>,
}

/// What a [`CancelHandle`] and its [`Cancellation`]s share: one flag and
/// the wakers to call when it is set (a whole channel per request cost more
/// than the rest of a small tool call's bookkeeping).
#[derive(Debug, Default)]
struct Signal {
    fired: AtomicBool,
    waiters: Mutex<Waiters>,
}

/// The wakers of the futures awaiting a signal, one slot per future: a
/// future that is polled again replaces its waker, one that is dropped
/// takes its slot away, so the list never outgrows the futures alive.
#[derive(Default)]
struct Waiters {
    next_slot: u64,
    wakers: Vec<(u64, Waker)>,
}

impl fmt::Debug for Waiters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Waiters")
            .field("waiting", &self.wakers.len())
            .finish()
    }
}

impl Signal {
    fn waiters(&self) -> MutexGuard<'_, Waiters> {
        // The list is consistent after every statement that changes it: a
        // waiter that panicked leaves nothing half done.
        self.waiters.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl CancelHandle {
    /// A handle and the signal it fires.
    pub fn new() -> (Self, Cancellation) {
        let state = Arc::new(Signal::default());
        (
            Self {
                state: Arc::clone(&state),
            },
            Cancellation { state: Some(state) },
        )
    }

    /// Fires the signal: every [`Cancellation`] of it reports cancelled
    /// from now on, and every task awaiting one is woken.
    pub fn cancel(&self) {
        self.state.fired.store(true, Ordering::Release);
        let wakers = std::mem::take(&mut self.state.waiters().wakers);
        for (_, waker) in wakers {
            waker.wake();
        }
    }
}

impl Drop for CancelHandle {
    fn drop(&mut self) {
        // Nobody else holds the signal (a handler that finished at once
        // dropped its context already), and nobody can get it any more:
        // there is no one to tell, and telling no one is not free.
        if Arc::strong_count(&self.state) == 1 {
            return;
        }
        self.cancel();
    }
}

impl Cancellation {
    /// A signal that never fires.
    pub fn never() -> Self {
        Self { state: None }
    }

    /// Whether the request was cancelled (or the session ended).
    pub fn is_cancelled(&self) -> bool {
        self.state
            .as_ref()
            .is_some_and(|state| state.fired.load(Ordering::Acquire))
    }

    /// Waits until the request is cancelled (or the session ends); never
    /// completes for [`never`](Self::never).
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + '_ {
        Cancelled {
            state: self.state.as_deref(),
            slot: None,
        }
    }
}

/// The future of [`Cancellation::cancelled`].
struct Cancelled<'a> {
    state: Option<&'a Signal>,
    /// This future's place among the signal's waiters, once it waits.
    slot: Option<u64>,
}

impl Future for Cancelled<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let Some(state) = self.state else {
            return Poll::Pending;
        };
        if state.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        let mut waiters = state.waiters();
        // Read again under the lock `cancel` takes to wake: a `cancel`
        // between the first read and here is seen now, one after it finds
        // this waker.
        if state.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        let existing = self
            .slot
            .and_then(|slot| waiters.wakers.iter_mut().find(|(id, _)| *id == slot));
        match existing {
            Some((_, waker)) => waker.clone_from(cx.waker()),
            None => {
                let slot = waiters.next_slot;
                waiters.next_slot += 1;
                waiters.wakers.push((slot, cx.waker().clone()));
                drop(waiters);
                self.slot = Some(slot);
            }
        }
        Poll::Pending
    }
}

impl Drop for Cancelled<'_> {
    fn drop(&mut self) {
        if let (Some(state), Some(slot)) = (self.state, self.slot) {
            state.waiters().wakers.retain(|(id, _)| *id != slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_test::wakers::CountingWaker;

    use super::*;

    fn poll_once(future: Pin<&mut impl Future<Output = ()>>, counter: &Arc<CountingWaker>) -> bool {
        future
            .poll(&mut Context::from_waker(&counter.waker()))
            .is_ready()
    }

    #[test]
    fn a_waiting_handler_is_woken_when_its_request_is_cancelled() {
        let (handle, cancellation) = CancelHandle::new();
        let counter = CountingWaker::new();
        let mut waiting = std::pin::pin!(cancellation.cancelled());
        assert!(!poll_once(waiting.as_mut(), &counter));
        assert!(!poll_once(waiting.as_mut(), &counter));
        handle.cancel();
        assert_eq!(counter.wakes(), 1, "woken once");
        assert!(poll_once(waiting.as_mut(), &counter));
        assert!(cancellation.is_cancelled());
    }

    #[test]
    fn dropping_the_handle_fires_the_signal() {
        let (handle, cancellation) = CancelHandle::new();
        assert!(!cancellation.is_cancelled());
        drop(handle);
        assert!(cancellation.is_cancelled());
        let counter = CountingWaker::new();
        assert!(poll_once(
            std::pin::pin!(cancellation.cancelled()),
            &counter
        ));
    }

    #[test]
    fn a_dropped_waiter_leaves_no_waker_behind() {
        let (handle, cancellation) = CancelHandle::new();
        let counter = CountingWaker::new();
        for _ in 0..3 {
            let mut waiting = std::pin::pin!(cancellation.cancelled());
            assert!(!poll_once(waiting.as_mut(), &counter));
        }
        assert!(handle.state.waiters().wakers.is_empty());
        handle.cancel();
        assert_eq!(counter.wakes(), 0);
    }

    #[test]
    fn a_signal_that_never_fires_is_never_cancelled() {
        let never = Cancellation::never();
        assert!(!never.is_cancelled());
        let counter = CountingWaker::new();
        assert!(!poll_once(std::pin::pin!(never.cancelled()), &counter));
    }
}
