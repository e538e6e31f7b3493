//! A cancellation signal a handler can poll or await.

use tokio::sync::watch;

/// Tells a handler that its request was cancelled (by the client, or
/// because the session ended).
///
/// Cheap to clone. When the signal fires the handler's task is also
/// stopped at its next await point, so most handlers need not check it;
/// it is for work handed to other tasks or threads.
#[derive(Debug, Clone)]
pub struct Cancellation {
    /// `None` for a signal that never fires.
    receiver: Option<watch::Receiver<bool>>,
}

/// The side that fires a [`Cancellation`]; dropping it fires it too.
#[derive(Debug)]
pub(crate) struct CancelHandle {
    sender: watch::Sender<bool>,
}

impl CancelHandle {
    pub(crate) fn new() -> (Self, Cancellation) {
        let (sender, receiver) = watch::channel(false);
        (
            Self { sender },
            Cancellation {
                receiver: Some(receiver),
            },
        )
    }

    pub(crate) fn cancel(&self) {
        self.sender.send_replace(true);
    }
}

impl Cancellation {
    /// A signal that never fires.
    pub fn never() -> Self {
        Self { receiver: None }
    }

    /// Whether the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.receiver
            .as_ref()
            .is_some_and(|receiver| *receiver.borrow() || receiver.has_changed().is_err())
    }

    /// Waits until the request is cancelled (or the session ends).
    pub async fn cancelled(&self) {
        match &self.receiver {
            // `wait_for` fails when the sender is gone, which also means "over".
            Some(receiver) => {
                let _ = receiver.clone().wait_for(|cancelled| *cancelled).await;
            }
            None => std::future::pending().await,
        }
    }
}
