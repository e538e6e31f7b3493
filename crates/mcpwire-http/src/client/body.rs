//! The request body type, and the signal that tells `send` its POST has
//! been handed over.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::oneshot;

use super::error::Error;

/// Fires once: when the POST's body is taken by the connection, when the
/// server answers, or when the exchange fails, whichever comes first.
/// `send` waits on it, so that it returns once the packet is on its way and
/// reports failures that happen before that.
#[derive(Clone, Debug)]
pub(crate) struct Dispatch(Arc<Mutex<Option<Report>>>);

/// Where `send` hears how its POST went.
type Report = oneshot::Sender<Result<(), Error>>;

impl Dispatch {
    pub(crate) fn new() -> (Self, oneshot::Receiver<Result<(), Error>>) {
        let (sender, receiver) = oneshot::channel();
        (Self(Arc::new(Mutex::new(Some(sender)))), receiver)
    }

    /// Reports `result` to `send` if nothing was reported yet; returns
    /// whether this call did (otherwise `send` has already returned).
    pub(crate) fn fire(&self, result: Result<(), Error>) -> bool {
        let sender = match self.0.lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        match sender {
            // A dropped `send` future no longer listens; the report is moot.
            Some(sender) => {
                let _ = sender.send(result);
                true
            }
            None => false,
        }
    }
}

/// A request body held whole in memory.
#[derive(Debug, Default)]
pub(crate) struct OutgoingBody {
    data: Option<Bytes>,
    /// Fired when the connection takes the data.
    on_taken: Option<Dispatch>,
}

impl OutgoingBody {
    /// A body of `data`; `on_taken` fires when the connection takes it.
    pub(crate) fn new(data: Bytes, on_taken: Option<Dispatch>) -> Self {
        Self {
            data: Some(data),
            on_taken,
        }
    }

    /// An empty body (GET, DELETE).
    pub(crate) fn empty() -> Self {
        Self::default()
    }
}

impl Body for OutgoingBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let frame = this.data.take().map(|data| Ok(Frame::data(data)));
        if frame.is_some()
            && let Some(dispatch) = this.on_taken.take()
        {
            dispatch.fire(Ok(()));
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.data.as_ref().map_or(0, |data| data.len() as u64))
    }
}
