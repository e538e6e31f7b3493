//! tokio's cooperative budget in tests: a poll that the budget refuses
//! returns `Pending` and registers nothing, so a future that skips polls
//! while it believes itself registered must be tested against one.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::time::Duration;

/// Spends the calling task's cooperative budget, so that tokio's next
/// channel, watch or timer poll within this same task poll is refused.
///
/// # Panics
///
/// When the budget never runs out (the caller is outside a tokio runtime).
pub fn spend_budget(cx: &mut Context<'_>) {
    let spent = (0..10_000).any(|_| {
        let spending = core::pin::pin!(tokio::task::coop::consume_budget());
        spending.poll(cx).is_pending()
    });
    assert!(spent, "the cooperative budget never ran out");
}

/// Polls `future` once in a task poll whose cooperative budget is spent
/// (see [`spend_budget`]), and checks that it is pending: the poll a test
/// of a registration that must survive a refused poll starts with.
///
/// # Panics
///
/// When `future` is ready at that poll, or the budget never runs out.
pub async fn poll_refused_by_the_budget<F: Future + ?Sized>(mut future: Pin<&mut F>) {
    core::future::poll_fn(|cx| {
        spend_budget(cx);
        assert!(
            future.as_mut().poll(cx).is_pending(),
            "the future was ready at the poll the budget refused"
        );
        Poll::Ready(())
    })
    .await;
}

/// The output of `future` if it ends before 5 s have passed, `None`
/// otherwise. The deadline is polled first: a future that only a poll at
/// the deadline finds ready (nothing woke it) does not count.
pub async fn woken_within<F: Future>(future: F) -> Option<F::Output> {
    tokio::select! {
        biased;
        () = tokio::time::sleep(Duration::from_secs(5)) => None,
        output = future => Some(output),
    }
}
