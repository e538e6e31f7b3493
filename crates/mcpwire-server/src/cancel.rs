//! A cancellation signal a handler can poll or await.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

/// Tells a handler that its request was cancelled (by the client, or
/// because the session ended).
///
/// Cheap to clone. When the signal fires the handler's task is also
/// stopped at its next await point, so most handlers need not check it;
/// it is for work handed to other tasks or threads.
#[derive(Debug, Clone)]
pub struct Cancellation {
    /// `None` for a signal that never fires.
    state: Option<Arc<Signal>>,
}

/// What a [`CancelHandle`] and its [`Cancellation`]s share: one flag and
/// the waiters to wake when it is set (a whole `watch` channel per request
/// cost more than the rest of a small tool call's bookkeeping).
#[derive(Debug, Default)]
struct Signal {
    fired: AtomicBool,
    waiters: Notify,
}

/// The side that fires a [`Cancellation`]; dropping it fires it too.
#[derive(Debug)]
pub(crate) struct CancelHandle {
    state: Arc<Signal>,
}

impl CancelHandle {
    pub(crate) fn new() -> (Self, Cancellation) {
        let state = Arc::new(Signal::default());
        (
            Self {
                state: Arc::clone(&state),
            },
            Cancellation { state: Some(state) },
        )
    }

    pub(crate) fn cancel(&self) {
        self.state.fired.store(true, Ordering::Release);
        self.state.waiters.notify_waiters();
    }
}

impl Drop for CancelHandle {
    /// The request is over: whoever still watches its signal is told.
    fn drop(&mut self) {
        // Nobody else holds the signal (a handler that finished at once
        // dropped its context already), and nobody can get it any more:
        // there is no one to tell, and waking no one is not free.
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

    /// Whether the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.state
            .as_ref()
            .is_some_and(|state| state.fired.load(Ordering::Acquire))
    }

    /// Waits until the request is cancelled (or the session ends).
    pub async fn cancelled(&self) {
        let Some(state) = &self.state else {
            return std::future::pending().await;
        };
        loop {
            // Registered before the flag is read, so that a `cancel`
            // between the two is not missed.
            let notified = state.waiters.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if state.fired.load(Ordering::Acquire) {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_waiting_handler_wakes_when_its_request_is_cancelled() {
        let (handle, cancellation) = CancelHandle::new();
        let waiter = tokio::spawn(async move { cancellation.cancelled().await });
        tokio::task::yield_now().await;
        handle.cancel();
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .unwrap()
            .unwrap();
    }

    #[tokio::test]
    async fn dropping_the_handle_fires_the_signal() {
        let (handle, cancellation) = CancelHandle::new();
        assert!(!cancellation.is_cancelled());
        drop(handle);
        assert!(cancellation.is_cancelled());
        tokio::time::timeout(Duration::from_secs(5), cancellation.cancelled())
            .await
            .unwrap();
    }

    #[test]
    fn a_signal_that_never_fires_is_never_cancelled() {
        assert!(!Cancellation::never().is_cancelled());
    }
}
