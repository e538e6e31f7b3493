//! `LocalRuntime`: the runtime future of a session served in this process,
//! held by the HTTP layer rather than spawned, so that the POST bringing a
//! request to an idle session can poll it right on the POST's own task (the
//! in-process fast path) instead of waking the session's task and being
//! woken back by it.
//!
//! Whoever polls the future first takes the right to poll it (`RUNNING`):
//! the session's own small task, or a POST. Both poll it with the same
//! waker, the session's signal, so that whatever the runtime registers
//! (its inbox, its timers, handlers it spawned) wakes the session's task
//! when nobody is polling, and only marks the session `NOTIFIED` while
//! somebody is: the poller then polls again before it lets go. A POST
//! that finds the session busy leaves its message in the inbox, whose
//! wake-up reaches the poller the same way; nothing waits for a lock.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::service::lock;
use std::task::Wake;

/// A session runtime's future, as the connect hook of
/// [`StreamableHttp::with_runtime`](super::StreamableHttp::with_runtime)
/// returns it.
pub(crate) type RuntimeFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Nobody polls the future; a wake-up wakes the session's task.
const IDLE: u8 = 0;
/// Somebody polls the future.
const RUNNING: u8 = 1;
/// Somebody polls the future and it was woken meanwhile: poll it again.
const NOTIFIED: u8 = 2;
/// The future finished (or panicked) and is gone.
const DONE: u8 = 3;

/// How many polls in a row one poller gives a future that keeps waking
/// itself before it hands it to the session's task (a POST must not be
/// held by a busy session, and a self-waking future must not spin here).
const POLLS_IN_A_ROW: usize = 4;

/// The waker every poller polls the future with.
struct Signal {
    state: AtomicU8,
    /// The waker of the session's own task, which polls when nobody else does.
    task: Mutex<Option<Waker>>,
}

impl Signal {
    fn wake_task(&self) {
        let waker = lock(&self.task).clone();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            match state {
                IDLE => return self.wake_task(),
                RUNNING => {
                    match self.state.compare_exchange_weak(
                        RUNNING,
                        NOTIFIED,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    ) {
                        Ok(_) => return,
                        Err(now) => state = now,
                    }
                }
                // Already to be polled again, or finished.
                _ => return,
            }
        }
    }
}

/// What one attempt to poll the runtime came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ran {
    /// It was polled and waits for something.
    Waiting,
    /// Somebody else polls it (and will poll again for what this caller
    /// brought).
    Busy,
    /// It finished (or was gone already).
    Finished,
}

/// A session's runtime future with the right to poll it (see the module
/// docs).
pub(crate) struct LocalRuntime {
    signal: Arc<Signal>,
    waker: Waker,
    future: Mutex<Option<RuntimeFuture>>,
}

impl std::fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalRuntime")
            .field("state", &self.signal.state.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl LocalRuntime {
    /// Holds `future` and spawns the small task that polls it whenever it
    /// is woken and nobody else polls it. The task owns the runtime: it
    /// lives until the future finishes or the task is dropped (at the tokio
    /// runtime's shutdown, as a spawned future would be).
    pub(crate) fn spawn(future: RuntimeFuture) -> Weak<Self> {
        let signal = Arc::new(Signal {
            state: AtomicU8::new(IDLE),
            task: Mutex::new(None),
        });
        let runtime = Arc::new(Self {
            waker: Waker::from(signal.clone()),
            signal,
            future: Mutex::new(Some(future)),
        });
        let weak = Arc::downgrade(&runtime);
        tokio::spawn(core::future::poll_fn(move |cx| runtime.poll_as_task(cx)));
        weak
    }

    /// The session task's poll: registers its waker, then polls the future
    /// unless somebody else does.
    fn poll_as_task(&self, cx: &mut Context<'_>) -> Poll<()> {
        {
            let mut task = lock(&self.signal.task);
            match &mut *task {
                Some(waker) if waker.will_wake(cx.waker()) => {}
                slot => *slot = Some(cx.waker().clone()),
            }
        }
        match self.try_run() {
            Ran::Finished => Poll::Ready(()),
            Ran::Waiting | Ran::Busy => Poll::Pending,
        }
    }

    /// Takes the right to poll the future, or reports that somebody else
    /// has it. With `mark`, a busy future is marked to be polled again by
    /// its poller, so that the caller's reason to poll is not lost; a POST
    /// does not mark it, since the wake-up of the message it then delivers
    /// does.
    pub(crate) fn try_hold(&self, mark: bool) -> Result<Held<'_>, Ran> {
        let mut state = self.signal.state.load(Ordering::Acquire);
        loop {
            let next = match state {
                IDLE => RUNNING,
                RUNNING if mark => NOTIFIED,
                RUNNING | NOTIFIED => return Err(Ran::Busy),
                _ => return Err(Ran::Finished),
            };
            match self.signal.state.compare_exchange_weak(
                state,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) if next == RUNNING => return Ok(Held { runtime: self }),
                Ok(_) => return Err(Ran::Busy),
                Err(now) => state = now,
            }
        }
    }

    /// Polls the future once if nobody else does (more often while it is
    /// woken meanwhile, up to [`POLLS_IN_A_ROW`]); a busy future is marked
    /// to be polled again by its poller.
    fn try_run(&self) -> Ran {
        match self.try_hold(true) {
            Ok(held) => held.run(),
            Err(ran) => ran,
        }
    }
}

/// The right to poll a [`LocalRuntime`]'s future; letting go of it without
/// [`Held::run`] hands the future to the session's task if it was woken
/// meanwhile.
pub(crate) struct Held<'a> {
    runtime: &'a LocalRuntime,
}

impl Held<'_> {
    /// Polls the future until it waits without having been woken meanwhile
    /// (at most [`POLLS_IN_A_ROW`] times), then lets go of it.
    pub(crate) fn run(self) -> Ran {
        let runtime = self.runtime;
        // Whatever woke the future before this poll is seen by it.
        runtime.signal.state.store(RUNNING, Ordering::Release);
        for _ in 0..POLLS_IN_A_ROW {
            // Locked only while polled (never contended: only the holder
            // locks it), and let go before the right to poll is.
            let finished = {
                let mut slot = lock(&runtime.future);
                let Some(future) = slot.as_mut() else {
                    return self.finish();
                };
                let mut cx = Context::from_waker(&runtime.waker);
                // A runtime that panics ends like a spawned task that
                // panics: the session's runtime is gone, its POSTs are not.
                match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx))) {
                    Ok(Poll::Pending) => None,
                    Ok(Poll::Ready(())) => Some(slot.take()),
                    Err(_) => {
                        tracing::error!(
                            "a session runtime panicked; the session's runtime is gone"
                        );
                        Some(slot.take())
                    }
                }
            };
            if let Some(future) = finished {
                // Dropped outside the lock: its drop may wake the runtime.
                drop(future);
                return self.finish();
            }
            match runtime.signal.state.compare_exchange(
                RUNNING,
                IDLE,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    core::mem::forget(self);
                    return Ran::Waiting;
                }
                // Woken while polled: poll again.
                Err(_) => runtime.signal.state.store(RUNNING, Ordering::Release),
            }
        }
        // Still woken after its polls in a row: the session's task goes on.
        runtime.signal.state.store(NOTIFIED, Ordering::Release);
        drop(self);
        Ran::Waiting
    }

    /// The future is gone: the session's task ends with it.
    fn finish(self) -> Ran {
        let signal = &self.runtime.signal;
        signal.state.store(DONE, Ordering::Release);
        signal.wake_task();
        core::mem::forget(self);
        Ran::Finished
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let signal = &self.runtime.signal;
        // Let go; a future woken meanwhile is polled by the session's task.
        if signal.state.swap(IDLE, Ordering::AcqRel) == NOTIFIED {
            signal.wake_task();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use super::*;

    /// Spawns `future`'s runtime and keeps a reference to it.
    fn spawn(future: RuntimeFuture) -> Arc<LocalRuntime> {
        LocalRuntime::spawn(future).upgrade().unwrap()
    }

    /// Waits (bounded) until `done` holds.
    async fn eventually(done: impl Fn() -> bool) {
        for _ in 0..500 {
            if done() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the condition did not hold within 5 s");
    }

    #[tokio::test]
    async fn a_holder_polls_the_future_inline_and_its_wake_ups_reach_the_task() {
        // Each poll records whether it ran on a task (the session's) or
        // right here (the test body runs outside any task).
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<()>();
        let polls = Arc::new(Mutex::new(Vec::new()));
        let seen = polls.clone();
        let future = core::future::poll_fn(move |cx| {
            lock(&seen).push(tokio::task::try_id().is_some());
            loop {
                match receiver.poll_recv(cx) {
                    Poll::Ready(Some(())) => {}
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(None) => return Poll::Ready(()),
                }
            }
        });
        let runtime = spawn(Box::pin(future));
        eventually(|| !lock(&polls).is_empty()).await;
        assert_eq!(lock(&polls).as_slice(), [true], "the task polls first");
        // A holder delivers without waking the task, then polls inline.
        let held = runtime.try_hold(false).ok().unwrap();
        sender.send(()).unwrap();
        assert_eq!(held.run(), Ran::Waiting);
        assert_eq!(lock(&polls).as_slice(), [true, false]);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(lock(&polls).len(), 2, "the delivery woke nobody else");
        // Nobody holds it: a wake-up goes to the session's task.
        sender.send(()).unwrap();
        eventually(|| lock(&polls).len() == 3).await;
        assert!(lock(&polls)[2], "the task polled it");
        // The end of the future ends the task and the runtime.
        drop(sender);
        eventually(|| runtime.try_hold(false).err() == Some(Ran::Finished)).await;
    }

    #[tokio::test]
    async fn a_busy_future_is_polled_again_by_its_holder_not_by_a_second_poller() {
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = polls.clone();
        let runtime = spawn(Box::pin(core::future::poll_fn(move |cx| {
            // Its second poll (the holder's, below) wakes it, as a message
            // arriving while it is polled does.
            if counted.fetch_add(1, Ordering::SeqCst) == 1 {
                cx.waker().wake_by_ref();
            }
            Poll::<()>::Pending
        })));
        eventually(|| polls.load(Ordering::SeqCst) == 1).await;
        let held = runtime.try_hold(false).ok().unwrap();
        // Others find it busy and do not poll it; the task's attempt marks
        // it (a mark made before the holder's poll is seen by that poll).
        assert_eq!(runtime.try_hold(false).err(), Some(Ran::Busy));
        assert_eq!(runtime.try_run(), Ran::Busy);
        assert_eq!(runtime.try_hold(false).err(), Some(Ran::Busy));
        assert_eq!(polls.load(Ordering::SeqCst), 1);
        assert_eq!(held.run(), Ran::Waiting);
        // Woken during its poll: polled again by its holder, then let go.
        assert_eq!(polls.load(Ordering::SeqCst), 3);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(polls.load(Ordering::SeqCst), 3, "nobody else polled it");
    }

    #[tokio::test]
    async fn a_future_that_keeps_waking_itself_is_handed_to_its_task() {
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = polls.clone();
        let runtime = spawn(Box::pin(core::future::poll_fn(move |cx| {
            // Yields to the scheduler each time, like a busy runtime.
            if counted.fetch_add(1, Ordering::SeqCst) >= 100 {
                return Poll::Ready(());
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        })));
        let held = loop {
            match runtime.try_hold(false) {
                Ok(held) => break held,
                Err(Ran::Finished) => panic!("finished before it was held"),
                Err(_) => tokio::task::yield_now().await,
            }
        };
        let before = polls.load(Ordering::SeqCst);
        assert_eq!(held.run(), Ran::Waiting);
        assert_eq!(polls.load(Ordering::SeqCst) - before, POLLS_IN_A_ROW);
        // Its task goes on polling it to the end.
        eventually(|| runtime.try_hold(false).err() == Some(Ran::Finished)).await;
        assert_eq!(polls.load(Ordering::SeqCst), 101);
    }

    #[tokio::test]
    async fn a_runtime_that_panics_ends_without_taking_its_poller_along() {
        let (sender, receiver) = tokio::sync::oneshot::channel::<()>();
        let mut receiver = Some(receiver);
        let runtime = spawn(Box::pin(core::future::poll_fn(move |cx| {
            if let Some(waiting) = receiver.as_mut() {
                if Pin::new(waiting).poll(cx).is_pending() {
                    return Poll::Pending;
                }
                receiver = None;
            }
            panic!("a runtime bug");
        })));
        tokio::time::sleep(Duration::from_millis(20)).await;
        let held = runtime.try_hold(false).ok().unwrap();
        sender.send(()).unwrap();
        assert_eq!(held.run(), Ran::Finished);
        assert_eq!(runtime.try_hold(false).err(), Some(Ran::Finished));
    }
}
