//! `ChildInput`: the writer on a child's stdin, closable by the transport or by the process handle.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use tokio::io::AsyncWrite;
use tokio::process::ChildStdin;

/// The stdin pipe of a child, shared by the transport that writes it and
/// the [`ChildProcess`](crate::ChildProcess) handle that may close it
/// during shutdown.
#[derive(Debug)]
pub(crate) struct SharedStdin {
    state: Mutex<StdinState>,
}

#[derive(Debug)]
struct StdinState {
    /// `None` once closed by either side; dropping the pipe is what lets
    /// the child read end of input.
    pipe: Option<ChildStdin>,
    /// The task whose write or flush is waiting for the pipe to drain. When
    /// the handle closes the pipe underneath it, that task is woken so that
    /// it sees the closed pipe instead of waiting forever.
    waiting_writer: Option<Waker>,
}

impl SharedStdin {
    pub(crate) fn new(pipe: ChildStdin) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(StdinState {
                pipe: Some(pipe),
                waiting_writer: None,
            }),
        })
    }

    /// Closes the pipe (idempotent) and wakes a writer blocked on it.
    pub(crate) fn close(&self) {
        let (pipe, waiter) = {
            let mut state = self.lock();
            (state.pipe.take(), state.waiting_writer.take())
        };
        drop(pipe);
        if let Some(waker) = waiter {
            waker.wake();
        }
    }

    fn lock(&self) -> MutexGuard<'_, StdinState> {
        // No code path panics while holding the lock, and the state stays
        // consistent at every step, so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `operation` on the open pipe, remembering the waker when it
    /// has to wait; `closed` is the result once the pipe is gone.
    fn poll_pipe<T>(
        &self,
        context: &mut Context<'_>,
        closed: io::Result<T>,
        operation: impl FnOnce(Pin<&mut ChildStdin>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        let mut state = self.lock();
        let Some(pipe) = state.pipe.as_mut() else {
            return Poll::Ready(closed);
        };
        let outcome = operation(Pin::new(pipe), context);
        if outcome.is_pending() {
            state.waiting_writer = Some(context.waker().clone());
        }
        outcome
    }
}

/// The writer on a spawned server's stdin, as used by its
/// [`ChildTransport`](crate::ChildTransport).
///
/// Shutting it down (the transport's `close`) or dropping it closes the
/// pipe, and so does [`ChildProcess::shutdown`](crate::ChildProcess::shutdown)
/// or [`ChildProcess::close_stdin`](crate::ChildProcess::close_stdin); once
/// closed, writes fail with [`io::ErrorKind::BrokenPipe`].
#[derive(Debug)]
pub struct ChildInput {
    shared: Arc<SharedStdin>,
}

impl ChildInput {
    pub(crate) fn new(shared: Arc<SharedStdin>) -> Self {
        Self { shared }
    }
}

fn closed_pipe() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the server's stdin is closed")
}

impl AsyncWrite for ChildInput {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.shared
            .poll_pipe(context, Err(closed_pipe()), |pipe, context| {
                pipe.poll_write(context, bytes)
            })
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        slices: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.shared
            .poll_pipe(context, Err(closed_pipe()), |pipe, context| {
                pipe.poll_write_vectored(context, slices)
            })
    }

    /// Whether the pipe writes several slices in one system call, which
    /// lets a large payload go out with its envelope without being copied
    /// next to it.
    fn is_write_vectored(&self) -> bool {
        self.shared
            .lock()
            .pipe
            .as_ref()
            .is_some_and(ChildStdin::is_write_vectored)
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Flushing a closed pipe has nothing left to do.
        self.shared
            .poll_pipe(context, Ok(()), AsyncWrite::poll_flush)
    }

    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = self
            .shared
            .poll_pipe(context, Ok(()), AsyncWrite::poll_flush);
        if flushed.is_ready() {
            self.shared.close();
        }
        flushed
    }
}

impl Drop for ChildInput {
    fn drop(&mut self) {
        // A dropped transport closes both directions; the handle still holds
        // the shared pipe, so it must be closed here explicitly.
        self.shared.close();
    }
}
