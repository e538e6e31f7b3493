//! The catalog changes a server announces to its live sessions: the last
//! [`KEPT`] of them, numbered, and the wakers of the sessions waiting for
//! the next.
//!
//! A session's [`ChangeCursor`] is polled at every turn of its driver,
//! while changes are rare. It sees that nothing is new with one atomic
//! load, and registers its waker again only when the task polling it is
//! another or the last one was used. tokio's broadcast channel, which this
//! replaces, linked a waiter into the channel and unlinked it at every
//! turn under its lock (~450 instructions per call, over stdio and over
//! HTTP alike).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::driver::waits::task_of;
use crate::server::Change;

/// How many changes are kept for sessions that have not read them yet: a
/// session further behind is told it missed some.
const KEPT: usize = 64;

/// A session read too late: changes it had not read were dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Missed;

/// The changes of one server, shared by its sessions' cursors.
#[derive(Default)]
pub(crate) struct ChangeLog {
    /// The number the next change gets (the changes announced so far);
    /// written under the lock, read without it.
    next: AtomicU64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The last changes, the first of them numbered `first`.
    recent: VecDeque<Change>,
    first: u64,
    /// The wakers of the sessions waiting for a change, by cursor; given
    /// back as sessions end (`shrink_sparse`), so that a peak of sessions
    /// is not held for ever.
    waiting: HashMap<u64, Waker>,
    /// The number the next cursor gets.
    cursors: u64,
}

impl ChangeLog {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays whole across a panic: each change to it is one
        // assignment or push.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Announces `change` to every cursor, and wakes the sessions waiting.
    pub(crate) fn announce(&self, change: Change) {
        let mut woken = Vec::new();
        {
            let mut state = self.lock();
            state.recent.push_back(change);
            if state.recent.len() > KEPT {
                state.recent.pop_front();
                state.first += 1;
            }
            self.next
                .store(state.first + state.recent.len() as u64, Ordering::Release);
            woken.extend(state.waiting.drain().map(|(_, waker)| waker));
            mcpwire_store::shrink_sparse(&mut state.waiting);
        }
        // Outside the lock: a woken task may poll its cursor at once.
        woken.into_iter().for_each(Waker::wake);
    }

    /// A cursor that reads the changes announced from now on.
    pub(crate) fn cursor(self: &Arc<Self>) -> ChangeCursor {
        let mut state = self.lock();
        let id = state.cursors;
        state.cursors += 1;
        ChangeCursor {
            log: self.clone(),
            seen: state.first + state.recent.len() as u64,
            id,
            registered: None,
        }
    }
}

/// One session's place in its server's [`ChangeLog`].
pub(crate) struct ChangeCursor {
    log: Arc<ChangeLog>,
    /// The number of the next change this session reads.
    seen: u64,
    /// Its number among the log's cursors.
    id: u64,
    /// The task of the waker it registered ([`task_of`]), while it is
    /// there.
    registered: Option<usize>,
}

impl ChangeCursor {
    /// The next change, `Err(Missed)` when some were dropped before this
    /// session read them, or pending (with the task's waker registered).
    pub(crate) fn poll_change(&mut self, cx: &mut Context<'_>) -> Poll<Result<Change, Missed>> {
        let waker = cx.waker();
        // The same task needs no new registration.
        let task = task_of(waker);
        let same_task = task.is_some() && self.registered == task;
        if same_task && self.log.next.load(Ordering::Acquire) == self.seen {
            return Poll::Pending;
        }
        let mut state = self.log.lock();
        let next = state.first + state.recent.len() as u64;
        if self.seen < next {
            // A change to read: the registration may have been used by it,
            // the next wait registers again.
            self.registered = None;
            if self.seen < state.first {
                self.seen = next;
                return Poll::Ready(Err(Missed));
            }
            let at = usize::try_from(self.seen - state.first).unwrap_or(usize::MAX);
            let change = state.recent.get(at).cloned();
            self.seen += 1;
            return match change {
                Some(change) => Poll::Ready(Ok(change)),
                // Cannot happen (`seen` is between `first` and `next`);
                // telling the session it missed some is always safe.
                None => Poll::Ready(Err(Missed)),
            };
        }
        state.waiting.insert(self.id, waker.clone());
        self.registered = task;
        Poll::Pending
    }
}

impl Drop for ChangeCursor {
    fn drop(&mut self) {
        let mut state = self.log.lock();
        if state.waiting.remove(&self.id).is_some() {
            mcpwire_store::shrink_sparse(&mut state.waiting);
        }
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_test::wakers::CountingWaker;

    use super::*;

    fn poll(cursor: &mut ChangeCursor, waker: &Waker) -> Poll<Result<Change, Missed>> {
        cursor.poll_change(&mut Context::from_waker(waker))
    }

    #[test]
    fn a_waiting_session_is_woken_by_a_change_and_reads_it_once() {
        let log = Arc::new(ChangeLog::default());
        let mut cursor = log.cursor();
        let counting = CountingWaker::new();
        let waker = counting.waker();
        assert!(poll(&mut cursor, &waker).is_pending());
        log.announce(Change::Tools);
        assert_eq!(counting.wakes(), 1);
        assert_eq!(poll(&mut cursor, &waker), Poll::Ready(Ok(Change::Tools)));
        assert!(poll(&mut cursor, &waker).is_pending());
        // It registered again after reading: the next change wakes it too.
        log.announce(Change::Prompts);
        assert_eq!(counting.wakes(), 2);
        assert_eq!(poll(&mut cursor, &waker), Poll::Ready(Ok(Change::Prompts)));
    }

    #[test]
    fn a_cursor_reads_only_changes_announced_after_it_was_made_in_order() {
        let log = Arc::new(ChangeLog::default());
        log.announce(Change::Tools);
        let mut cursor = log.cursor();
        let waker = Waker::noop();
        log.announce(Change::Resources);
        log.announce(Change::ResourceUpdated("file:///a".to_owned()));
        assert_eq!(poll(&mut cursor, waker), Poll::Ready(Ok(Change::Resources)));
        assert_eq!(
            poll(&mut cursor, waker),
            Poll::Ready(Ok(Change::ResourceUpdated("file:///a".to_owned())))
        );
        assert!(poll(&mut cursor, waker).is_pending());
    }

    #[test]
    fn a_session_that_fell_more_than_the_kept_changes_behind_is_told_it_missed_some() {
        let log = Arc::new(ChangeLog::default());
        let mut cursor = log.cursor();
        for _ in 0..=KEPT {
            log.announce(Change::Tools);
        }
        let waker = Waker::noop();
        assert_eq!(poll(&mut cursor, waker), Poll::Ready(Err(Missed)));
        // Missed covers everything up to now: nothing else to read.
        assert!(poll(&mut cursor, waker).is_pending());
    }

    #[test]
    fn a_dropped_cursor_is_not_woken_and_its_sessions_peak_is_given_back() {
        let log = Arc::new(ChangeLog::default());
        let counting = CountingWaker::new();
        let waker = counting.waker();
        let mut cursors: Vec<ChangeCursor> = (0..1_000).map(|_| log.cursor()).collect();
        for cursor in &mut cursors {
            assert!(poll(cursor, &waker).is_pending());
        }
        assert!(log.lock().waiting.capacity() >= 1_000);
        drop(cursors);
        assert!(log.lock().waiting.capacity() < 100);
        log.announce(Change::Tools);
        assert_eq!(counting.wakes(), 0);
    }

    #[test]
    fn another_task_polling_the_cursor_registers_its_own_waker() {
        let log = Arc::new(ChangeLog::default());
        let mut cursor = log.cursor();
        let (one, two) = (CountingWaker::new(), CountingWaker::new());
        assert!(poll(&mut cursor, &one.waker()).is_pending());
        assert!(poll(&mut cursor, &two.waker()).is_pending());
        log.announce(Change::Tools);
        assert_eq!(one.wakes(), 0);
        assert_eq!(two.wakes(), 1);
    }
}
