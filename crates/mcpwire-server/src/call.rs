//! One request's handler on its way to the answer: polled once by the
//! session driver right where the request arrived (most handlers finish in
//! that first poll, and the answer then goes out without any task
//! hand-off), and moved to a task of its own only when it has to wait.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use mcpwire_jsonrpc::{BoxFuture, ErrorObject, RequestId};

use crate::context::Command;
use crate::tasks::Reply;
use crate::tool_call::ToolCall;

/// A handler's future, boxed once: the same allocation serves the first
/// poll in the driver and, if needed, the spawned task.
type HandlerFuture = BoxFuture<'static, Result<Reply, ErrorObject>>;

/// What serving a request polls.
pub(crate) enum Work {
    /// A `tools/call`, the common request, which needs no box of its own
    /// around its handler's future.
    Tool(ToolCall),
    /// Any other request, on the general path.
    Boxed(HandlerFuture),
}

impl Work {
    /// Any request's serving future, boxed.
    pub(crate) fn boxed(
        future: impl Future<Output = Result<Reply, ErrorObject>> + Send + 'static,
    ) -> Self {
        Self::Boxed(Box::pin(future))
    }

    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Result<Reply, ErrorObject>> {
        match self {
            Self::Tool(call) => Pin::new(call).poll(cx),
            Self::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

/// A request being handled: polls the handler inside the request's span and
/// turns its outcome (or its panic) into the command that answers it.
pub(crate) struct Handling {
    id: RequestId,
    span: tracing::Span,
    /// `None` once the handler finished or panicked: it is never polled
    /// again (as tokio drops a task that panicked).
    work: Option<Work>,
}

impl Handling {
    pub(crate) fn new(id: RequestId, span: tracing::Span, work: Work) -> Self {
        Self {
            id,
            span,
            work: Some(work),
        }
    }

    /// Polls the handler once without a waker: `Ready` with the answer
    /// when it finished, `Pending` when it waits for something, in which
    /// case the caller spawns `self` (the task's first poll registers the
    /// real waker, so nothing the handler waits for is missed).
    pub(crate) fn poll_now(&mut self) -> Poll<Command> {
        let mut context = Context::from_waker(Waker::noop());
        Pin::new(self).poll(&mut context)
    }
}

impl Future for Handling {
    type Output = Command;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Command> {
        let this = self.get_mut();
        let Some(work) = this.work.as_mut() else {
            // Polled after it finished: the answer was already given.
            return Poll::Pending;
        };
        let _entered = this.span.enter();
        // A panicking handler still gets its request answered: otherwise
        // the client waits until its own timeout, and a draining session
        // waits out its whole drain time. Unwind safety: after a panic the
        // future is dropped unpolled, as tokio itself does with a task that
        // panics.
        let result = match std::panic::catch_unwind(AssertUnwindSafe(|| work.poll(cx))) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(result)) => result,
            Err(_) => Err(ErrorObject::internal_error("the handler panicked")),
        };
        this.work = None;
        if let Err(error) = &result {
            tracing::debug!(code = %error.code, message = %error.message, "request failed");
        }
        let id = this.id.clone();
        Poll::Ready(match result {
            Ok(Reply::Raw(raw)) => Command::RespondRaw {
                id,
                result: Ok(raw),
            },
            Ok(Reply::Typed(result)) => Command::Respond {
                id,
                result: Ok(result),
            },
            Err(error) => Command::Respond {
                id,
                result: Err(error),
            },
        })
    }
}
