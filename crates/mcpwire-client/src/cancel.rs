//! A cancellation signal a handler of a server request can poll or await.

use tokio::sync::watch;

/// Tells a [`ClientHandler`](crate::ClientHandler) that the server cancelled
/// its request, or that the session ended.
///
/// Cheap to clone. When it fires, the handler's task is also stopped at
/// its next await point, so most handlers need not check it; it is for
/// work handed to other tasks or threads (a dialog shown to the user).
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
        let cancellation = Cancellation {
            receiver: Some(receiver),
        };
        (Self { sender }, cancellation)
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

    /// Whether the request was cancelled (or the session ended).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_signal_fires_on_cancel_and_when_its_handle_is_dropped() {
        let (handle, cancellation) = CancelHandle::new();
        assert!(!cancellation.is_cancelled());
        handle.cancel();
        assert!(cancellation.is_cancelled());
        cancellation.cancelled().await;

        let (handle, cancellation) = CancelHandle::new();
        drop(handle);
        assert!(cancellation.is_cancelled());
        cancellation.cancelled().await;
        assert!(!Cancellation::never().is_cancelled());
    }
}
