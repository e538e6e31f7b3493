//! A waker that counts how often it was woken: for tests of futures that
//! must wake their task exactly when something happens, and never after
//! they are dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Wake, Waker};

/// Counts its wakes; [`CountingWaker::waker`] is the `Waker` to poll with.
///
/// ```
/// use std::task::Context;
/// use mcpwire_test::wakers::CountingWaker;
///
/// let counting = CountingWaker::new();
/// let waker = counting.waker();
/// Context::from_waker(&waker).waker().wake_by_ref();
/// assert_eq!(counting.wakes(), 1);
/// ```
#[derive(Debug, Default)]
pub struct CountingWaker(AtomicUsize);

impl CountingWaker {
    /// A counter at zero.
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    /// A waker that counts into this counter.
    pub fn waker(self: &Arc<Self>) -> Waker {
        Waker::from(Arc::clone(self))
    }

    /// How often it was woken so far.
    pub fn wakes(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}
