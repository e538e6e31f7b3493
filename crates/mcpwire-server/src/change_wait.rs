//! The server's catalog changes as its sessions wait for them: a broadcast
//! channel with a count of what was sent, so that a session looks at the
//! channel only when the count moved.
//!
//! Each session's driver waits for changes beside the transport, the
//! handlers and its timer, in one `select!` per turn, and every HTTP call
//! takes two turns. A `broadcast::Receiver::recv` made anew each turn
//! joins the channel's list of waiters and leaves it again (the tail's
//! lock twice, a waker cloned and dropped), and even a wait kept across
//! turns takes three locks per poll: ~300 and ~220 instructions a turn.
//! Here the wait is kept, and a turn that finds the count unchanged and the
//! same waker does not poll it at all (one atomic load).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Waker};

use tokio::sync::broadcast::{self, error::RecvError};

use crate::server::Change;

/// How many changes each session may be behind before it is told it lagged
/// (then it announces every list as changed).
const CAPACITY: usize = 64;

/// The sending side, held by the server.
pub(crate) struct Changes {
    sender: broadcast::Sender<Change>,
    /// Changes sent so far, counted before each is sent.
    sent: Arc<AtomicU64>,
}

impl Changes {
    pub(crate) fn new() -> Self {
        Self {
            sender: broadcast::channel(CAPACITY).0,
            sent: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Sends `change` to every live session (none: nobody to tell).
    pub(crate) fn send(&self, change: Change) {
        // Counted first: a session that still reads the old count has not
        // missed this change's wake-up, since its wait was registered
        // before the count moved (see `ChangeWait::poll_recv`).
        self.sent.fetch_add(1, Ordering::SeqCst);
        let _ = self.sender.send(change);
    }

    /// A wait for the changes sent from now on.
    pub(crate) fn subscribe(&self) -> ChangeWait {
        ChangeWait {
            sent: Arc::clone(&self.sent),
            wait: wait_on(self.sender.subscribe()),
            registered: None,
        }
    }
}

/// The pending wait for the next change, owning the receiver while it waits.
type Wait = Pin<Box<dyn Future<Output = (Result<Change, RecvError>, Receiver)> + Send>>;

/// The server's change channel, as a session receives it.
type Receiver = broadcast::Receiver<Change>;

/// One session's wait for the next change, kept across the driver's turns.
pub(crate) struct ChangeWait {
    sent: Arc<AtomicU64>,
    wait: Wait,
    /// The count when the wait was last left pending, and the waker it was
    /// registered with.
    registered: Option<(u64, Waker)>,
}

impl ChangeWait {
    /// The next change, as `broadcast::Receiver::recv` gives it, except
    /// that a closed channel (the server gone, which a session's own
    /// handle to it prevents) never answers: no change can come any more,
    /// and an answer at every poll would spin the driver's loop. Cancel
    /// safe: dropped while pending, the wait stays here, registered, and
    /// the next call goes on with it.
    pub(crate) async fn recv(&mut self) -> Result<Change, RecvError> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Result<Change, RecvError>> {
        // Read before the wait is polled: a change sent after this read
        // moves the count past it, so the next turn polls the wait again.
        let sent = self.sent.load(Ordering::SeqCst);
        if let Some((seen, waker)) = &self.registered
            && *seen == sent
            && waker.will_wake(cx.waker())
        {
            // Nothing was sent since the wait was registered with this very
            // waker: it is still in the channel's list, and will be woken.
            return Poll::Pending;
        }
        match self.wait.as_mut().poll(cx) {
            Poll::Ready((Err(RecvError::Closed), _)) => {
                self.wait = Box::pin(std::future::pending());
                self.registered = None;
                Poll::Pending
            }
            Poll::Ready((change, receiver)) => {
                self.wait = wait_on(receiver);
                self.registered = None;
                Poll::Ready(change)
            }
            Poll::Pending => {
                self.registered = Some((sent, cx.waker().clone()));
                Poll::Pending
            }
        }
    }
}

/// Waits for the next change on `receiver`, and hands the receiver back.
fn wait_on(mut receiver: Receiver) -> Wait {
    Box::pin(async move {
        let change = receiver.recv().await;
        (change, receiver)
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Whether `wait` gives a change within a short while (nothing was
    /// sent: this only lets the wait register and be abandoned).
    async fn within_a_moment(wait: &mut ChangeWait) -> Option<Result<Change, RecvError>> {
        tokio::time::timeout(Duration::from_millis(20), wait.recv())
            .await
            .ok()
    }

    /// The next change, which must come: 10 s is far beyond a wake-up on
    /// a loaded machine, and a lost wake-up fails the test instead of
    /// hanging it.
    async fn next(wait: &mut ChangeWait) -> Result<Change, RecvError> {
        tokio::time::timeout(Duration::from_secs(10), wait.recv())
            .await
            .expect("a change that was sent arrives")
    }

    #[tokio::test]
    async fn changes_arrive_in_order_and_an_abandoned_wait_loses_none() {
        let changes = Changes::new();
        let mut wait = changes.subscribe();
        // A wait abandoned before anything was sent (as a `select!` turn
        // that another branch won) keeps its place.
        assert!(within_a_moment(&mut wait).await.is_none());
        assert!(within_a_moment(&mut wait).await.is_none());
        changes.send(Change::Tools);
        changes.send(Change::Prompts);
        assert_eq!(next(&mut wait).await.unwrap(), Change::Tools);
        assert_eq!(next(&mut wait).await.unwrap(), Change::Prompts);
        assert!(within_a_moment(&mut wait).await.is_none());
    }

    #[tokio::test]
    async fn a_waiting_task_is_woken_by_a_change_sent_from_another_task() {
        let changes = Arc::new(Changes::new());
        let mut wait = changes.subscribe();
        let sender = Arc::clone(&changes);
        let waiting = tokio::spawn(async move { next(&mut wait).await });
        tokio::task::yield_now().await;
        sender.send(Change::Resources);
        let change = tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("the waiting task ended")
            .expect("the waiting task was woken");
        assert_eq!(change.unwrap(), Change::Resources);
    }

    #[tokio::test]
    async fn a_wait_polled_by_another_task_registers_that_task() {
        // The HTTP fast path polls a session from the POST's task and from
        // the session's own: a new waker must reach the channel even when
        // the count has not moved.
        let changes = Arc::new(Changes::new());
        let mut wait = changes.subscribe();
        assert!(within_a_moment(&mut wait).await.is_none());
        let sender = Arc::clone(&changes);
        let waiting = tokio::spawn(async move { next(&mut wait).await });
        tokio::task::yield_now().await;
        sender.send(Change::Tools);
        let change = tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("the other task ended")
            .expect("the other task was woken");
        assert_eq!(change.unwrap(), Change::Tools);
    }

    #[tokio::test]
    async fn a_closed_channel_leaves_the_wait_pending_instead_of_answering() {
        let changes = Changes::new();
        let mut wait = changes.subscribe();
        changes.send(Change::Tools);
        drop(changes);
        assert_eq!(next(&mut wait).await.unwrap(), Change::Tools);
        assert!(within_a_moment(&mut wait).await.is_none());
        assert!(within_a_moment(&mut wait).await.is_none());
    }

    #[tokio::test]
    async fn a_wait_that_fell_behind_is_told_it_lagged() {
        let changes = Changes::new();
        let mut wait = changes.subscribe();
        for _ in 0..CAPACITY + 3 {
            changes.send(Change::Resources);
        }
        assert!(matches!(next(&mut wait).await, Err(RecvError::Lagged(3))));
        assert_eq!(next(&mut wait).await.unwrap(), Change::Resources);
    }
}
