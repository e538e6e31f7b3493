//! What the session driver waits on between its turns, each polled again
//! only when it can have changed: its timer, its handlers' command
//! channel, and the watch that tells when a quiet session is shrunk.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use tokio::sync::mpsc;

use super::SHRINK_AFTER;
use crate::context::Command;

/// When a session counts as quiet: [`SHRINK_AFTER`] passed without a
/// packet received since it was last shrunk.
#[derive(Default)]
pub(super) struct QuietWatch {
    /// When to look again, and the packets received by then.
    check: Option<(tokio::time::Instant, u64)>,
    /// The packets received when the session was last shrunk.
    shrunk_at: u64,
}

impl QuietWatch {
    /// When to look whether the session went quiet: set once packets came
    /// since it was last shrunk (one clock read per [`SHRINK_AFTER`] of a
    /// busy session, none while it stays idle).
    pub(super) fn arm(&mut self, received: u64) -> Option<tokio::time::Instant> {
        if self.check.is_none() && received != self.shrunk_at {
            self.check = Some((tokio::time::Instant::now() + SHRINK_AFTER, received));
        }
        self.check.map(|(at, _)| at)
    }

    /// Whether the session is to be shrunk now: the time to look has come
    /// and nothing was received since it was set.
    pub(super) fn due(&mut self, now: tokio::time::Instant, received: u64) -> bool {
        match self.check {
            Some((at, before)) if at <= now => {
                self.check = None;
                let quiet = before == received;
                if quiet {
                    self.shrunk_at = received;
                }
                quiet
            }
            _ => false,
        }
    }
}

/// The output of `future` if it is ready without waiting (for a cancel-safe
/// future: dropping it pending loses nothing, and the next poll with the
/// task's own waker registers for what it waits for).
pub(super) fn ready_now<F: Future>(future: F) -> Option<F::Output> {
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::pin!(future).poll(&mut context) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    }
}

/// The task `waker` wakes, named by its data pointer; `None` for a waker
/// with no data (`Waker::noop`, a static waker), which names none.
///
/// The same non-null data pointer is the same task for tokio's wakers (a
/// task's header, `block_on`'s handle) and for every executor that points
/// a waker at its task (see [`wakes_the_same`] for why `will_wake` is not
/// enough).
pub(crate) fn task_of(waker: &std::task::Waker) -> Option<usize> {
    let data = waker.data();
    (!data.is_null()).then_some(data as usize)
}

/// Whether `registered` (a clone of an earlier poll's waker) wakes the
/// task `current` belongs to.
///
/// `Waker::will_wake` compares the data pointer and the vtable's address,
/// and a clone of the waker tokio's `block_on` polls with (how a stdio
/// server's driver runs) carries another copy of the same vtable: it never
/// matched there, and every turn polled the timer and the command channel
/// again (~600 instructions per call with one stdio call in flight). So
/// the same task ([`task_of`]) counts too; a waker without data says
/// nothing, and only `will_wake` decides.
fn wakes_the_same(registered: &std::task::Waker, current: &std::task::Waker) -> bool {
    registered.will_wake(current)
        || task_of(current).is_some_and(|task| task_of(registered) == Some(task))
}

/// Completes when `timer` fires; pending without one.
///
/// The driver turns about twice per request, and each turn would poll the
/// timer (~75 instructions). Once polled with the task's waker, the timer
/// wakes that task when it fires: it is polled again only when it fired
/// (an atomic read) or the waker is another (`registered`, which the
/// driver clears when it sets the timer again).
pub(super) fn fired<'a>(
    timer: &'a mut Option<Pin<Box<tokio::time::Sleep>>>,
    registered: &'a mut Option<std::task::Waker>,
) -> impl Future<Output = ()> + 'a {
    std::future::poll_fn(move |cx| {
        let Some(timer) = timer else {
            return Poll::Pending;
        };
        let same_waker = registered
            .as_ref()
            .is_some_and(|waker| wakes_the_same(waker, cx.waker()));
        if same_waker && !timer.is_elapsed() {
            return Poll::Pending;
        }
        // A poll refused by tokio's cooperative budget registers nothing.
        let budgeted = tokio::task::coop::has_budget_remaining();
        let fired = timer.as_mut().poll(cx);
        *registered = (fired.is_pending() && budgeted).then(|| cx.waker().clone());
        fired
    })
}

/// The receiving end of the handlers' command channel, and the waker it
/// last registered (see [`next_command`]).
pub(super) struct CommandInbox {
    pub(super) receiver: mpsc::Receiver<Command>,
    pub(super) registered: Option<std::task::Waker>,
}

/// The next message of a handler; pending while no handler ever ran (the
/// channel is not made yet).
///
/// Polled at every turn of the driver, like its timer (see [`fired`]):
/// once a poll has registered the task's waker, an empty channel wakes
/// that task when a handler sends, so it is polled again only when it
/// holds something (a lock-free check) or the waker is another. A
/// sender's wake-up takes the registration: a poll that receives clears
/// `registered`, and the next one registers again. So does a poll that
/// tokio's cooperative budget refused (it registers nothing).
pub(super) fn next_command(
    inbox: &mut Option<CommandInbox>,
) -> impl Future<Output = Option<Command>> + '_ {
    std::future::poll_fn(move |cx| {
        let Some(inbox) = inbox else {
            return Poll::Pending;
        };
        let same_waker = inbox
            .registered
            .as_ref()
            .is_some_and(|waker| wakes_the_same(waker, cx.waker()));
        if same_waker && inbox.receiver.is_empty() {
            return Poll::Pending;
        }
        // A poll refused by tokio's cooperative budget registers nothing.
        let budgeted = tokio::task::coop::has_budget_remaining();
        let received = inbox.receiver.poll_recv(cx);
        inbox.registered = (received.is_pending() && budgeted).then(|| cx.waker().clone());
        received
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcpwire_jsonrpc::RequestId;
    use mcpwire_test::coop::{poll_refused_by_the_budget, woken_within};

    use super::*;

    fn progress() -> Command {
        Command::Progress {
            id: RequestId::Number(1),
            progress: 1.0,
            total: None,
            message: None,
        }
    }

    #[tokio::test]
    async fn a_command_poll_refused_by_the_budget_registers_at_the_next_poll() {
        let (sender, receiver) = mpsc::channel(4);
        let mut inbox = Some(CommandInbox {
            receiver,
            registered: None,
        });
        let mut waiting = std::pin::pin!(next_command(&mut inbox));
        poll_refused_by_the_budget(waiting.as_mut()).await;
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let _ = sender.send(progress()).await;
        });
        // Generous: the command is sent 20 ms on.
        let received = woken_within(waiting).await;
        assert!(
            matches!(received, Some(Some(Command::Progress { .. }))),
            "the command never woke the task"
        );
    }

    /// The waker `poll_fn` is polled with, and a clone of it.
    async fn this_tasks_waker() -> std::task::Waker {
        std::future::poll_fn(|cx| Poll::Ready(cx.waker().clone())).await
    }

    #[tokio::test]
    async fn a_clone_of_the_waker_block_on_polls_with_wakes_the_same_task() {
        // `#[tokio::test]` runs this body in `block_on`, as `run_stdio`
        // runs a stdio server's driver.
        let registered = this_tasks_waker().await;
        std::future::poll_fn(|cx| {
            assert!(wakes_the_same(&registered, cx.waker()));
            Poll::Ready(())
        })
        .await;
    }

    #[tokio::test]
    async fn the_waker_of_another_task_does_not_wake_this_one() {
        let other = tokio::spawn(this_tasks_waker()).await.unwrap();
        std::future::poll_fn(|cx| {
            assert!(!wakes_the_same(&other, cx.waker()));
            Poll::Ready(())
        })
        .await;
    }

    #[tokio::test]
    async fn a_waker_that_wakes_nothing_is_not_this_tasks() {
        let noop = std::task::Waker::noop();
        std::future::poll_fn(|cx| {
            assert!(!wakes_the_same(noop, cx.waker()));
            assert!(!wakes_the_same(cx.waker(), noop));
            Poll::Ready(())
        })
        .await;
    }

    #[tokio::test]
    async fn a_timer_poll_refused_by_the_budget_registers_at_the_next_poll() {
        let mut timer = Some(Box::pin(tokio::time::sleep(Duration::from_millis(20))));
        let mut registered = None;
        let mut waiting = std::pin::pin!(fired(&mut timer, &mut registered));
        poll_refused_by_the_budget(waiting.as_mut()).await;
        // Generous: the timer fires 20 ms on.
        let fired = woken_within(waiting).await;
        assert!(fired.is_some(), "the timer never woke the task");
    }
}
