//! `HeadTimer`: hyper's timer for an HTTP/1 connection's header read
//! timeout, with one tokio timer per connection rather than one per
//! request.
//!
//! hyper arms the header read timeout each time it starts reading a
//! request head and drops it once the head is in: with hyper-util's
//! `TokioTimer` that is a tokio timer made, entered into the runtime's
//! timer wheel, polled and taken out again for every request (~950
//! instructions of an HTTP call, measured with callgrind). Here each
//! connection keeps one tokio timer and the deadline of the head being
//! read. The timer is set again only when it fires before that deadline:
//! deadlines only move later (each is the time a head started plus the
//! same timeout), so a connection serving requests steadily moves its
//! timer about once per timeout, not once per request, and a head that is
//! not in by its deadline still ends the connection then.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};

/// The timer of one connection (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct HeadTimer {
    armed: Arc<Mutex<Armed>>,
}

#[derive(Debug, Default)]
struct Armed {
    /// The deadline of the head being read: the latest hyper asked for.
    deadline: Option<Instant>,
    /// The connection's tokio timer, set at `deadline` or before it;
    /// made with the first head.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The waker the timer was last polled with: until it fires it wakes
    /// that task, so a poll with the same waker need not poll it again.
    registered: Option<Waker>,
}

fn lock(armed: &Mutex<Armed>) -> MutexGuard<'_, Armed> {
    armed.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(self.now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        lock(&self.armed).deadline = Some(deadline);
        Box::pin(HeadSleep {
            armed: self.armed.clone(),
        })
    }

    fn reset(&self, _sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        // Every sleep of this timer waits for the connection's one deadline.
        lock(&self.armed).deadline = Some(new_deadline);
    }

    fn now(&self) -> Instant {
        // tokio's clock, which tests can pause, as `TokioTimer`'s.
        tokio::time::Instant::now().into_std()
    }
}

/// A wait for the connection's current deadline.
struct HeadSleep {
    armed: Arc<Mutex<Armed>>,
}

impl Sleep for HeadSleep {}

impl Future for HeadSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut guard = lock(&self.armed);
        let armed = &mut *guard;
        let Some(deadline) = armed.deadline else {
            return Poll::Pending;
        };
        let deadline = tokio::time::Instant::from_std(deadline);
        let timer = armed
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if timer.deadline() > deadline {
            // Deadlines only move later under hyper; an earlier one is
            // honoured all the same.
            timer.as_mut().reset(deadline);
            armed.registered = None;
        }
        let same_waker = armed
            .registered
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()));
        if same_waker && !timer.is_elapsed() {
            // Registered with this task, and not fired: it will wake it.
            return Poll::Pending;
        }
        // At most twice: a timer that fired before the deadline (it was
        // set for an earlier head) is set to the deadline and polled again.
        for _ in 0..2 {
            // A poll refused by tokio's cooperative budget registers nothing.
            let budgeted = tokio::task::coop::has_budget_remaining();
            if timer.as_mut().poll(cx).is_pending() {
                armed.registered = budgeted.then(|| cx.waker().clone());
                return Poll::Pending;
            }
            if timer.deadline() >= deadline {
                return Poll::Ready(());
            }
            timer.as_mut().reset(deadline);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn elapsed(sleep: &mut Pin<Box<dyn Sleep>>) -> bool {
        futures_util::FutureExt::now_or_never(sleep.as_mut()).is_some()
    }

    #[tokio::test(start_paused = true)]
    async fn a_head_ends_at_its_own_deadline_not_at_an_earlier_heads() {
        let timer = HeadTimer::default();
        let step = Duration::from_secs(10);
        let mut first = timer.sleep(step);
        assert!(!elapsed(&mut first).await);
        drop(first);
        // A later head, started 6 s on: its deadline is 16 s, while the
        // connection's timer was set for the first head's, 10 s.
        tokio::time::advance(Duration::from_secs(6)).await;
        let mut second = timer.sleep(step);
        assert!(!elapsed(&mut second).await);
        tokio::time::advance(Duration::from_secs(5)).await;
        assert!(
            !elapsed(&mut second).await,
            "ended at the first head's deadline"
        );
        tokio::time::advance(Duration::from_secs(5)).await;
        assert!(
            elapsed(&mut second).await,
            "still waiting past its own deadline"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_pending_head_wakes_its_task_at_the_deadline() {
        let timer = HeadTimer::default();
        let sleep = timer.sleep(Duration::from_secs(3));
        let started = tokio::time::Instant::now();
        // Paused time moves to the next timer when the runtime is idle: the
        // wait ends only if the connection's timer woke this task.
        tokio::time::timeout(Duration::from_secs(60), sleep)
            .await
            .expect("the head's deadline woke the task");
        assert_eq!(started.elapsed(), Duration::from_secs(3));
    }

    #[tokio::test]
    async fn a_poll_refused_by_the_cooperative_budget_registers_at_the_next_poll() {
        use mcpwire_test::coop::{poll_refused_by_the_budget, woken_within};
        let timer = HeadTimer::default();
        let mut sleep = timer.sleep(Duration::from_millis(20));
        poll_refused_by_the_budget(sleep.as_mut()).await;
        // Generous: the deadline is 20 ms on.
        assert!(
            woken_within(sleep).await.is_some(),
            "the deadline never woke the task"
        );
    }
}
