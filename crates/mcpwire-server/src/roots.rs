//! The application's hook on `notifications/roots/list_changed` (ROOTS-02):
//! each session runs the hook one run at a time, in a task of its own (so
//! the hook may ask the client for its roots while the session goes on).
//! The notification carries nothing but "changed", so those that arrive
//! while a run is going on are merged into one more run: a client that
//! floods them costs one pending run, not a queue that grows with them.

use std::future::Future;
use std::sync::Arc;

use mcpwire_types::methods::{ClientResult, ServerRequest};
use mcpwire_types::{ClientCapabilities, ListRootsResult, ProtocolVersion};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use crate::context::Command;
use crate::handler::BoxFuture;
use crate::{PeerRequestError, RequestOptions};

/// The hook as stored: boxed, shared by every session.
pub(crate) type RootsChangedFn = Arc<dyn Fn(RootsContext) -> BoxFuture<'static, ()> + Send + Sync>;

/// Boxes `handler` for storage.
pub(crate) fn boxed<F, Fut>(handler: F) -> RootsChangedFn
where
    F: Fn(RootsContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    Arc::new(move |context| Box::pin(handler(context)))
}

/// What the roots hook gets: the session whose client's roots changed,
/// able to ask that client for them again.
#[derive(Clone)]
pub struct RootsContext {
    commands: mpsc::Sender<Command>,
    version: ProtocolVersion,
    client_capabilities: Arc<ClientCapabilities>,
}

impl std::fmt::Debug for RootsContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootsContext")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl RootsContext {
    /// The revision the session speaks.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// What the client declared.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client_capabilities
    }

    /// Asks the client for its roots now (`roots/list`).
    ///
    /// # Errors
    ///
    /// [`PeerRequestError::Refused`] when the client did not declare
    /// `roots` (ROOTS-08); otherwise the client's error, a timeout or the
    /// end of the session.
    pub async fn list_roots(
        &self,
        options: RequestOptions,
    ) -> Result<ListRootsResult, PeerRequestError> {
        let closed = || PeerRequestError::Failed(mcpwire_session::ResponseError::Closed);
        let (reply, answer) = oneshot::channel();
        let command = Command::Request {
            request: ServerRequest::ListRoots(Box::default()),
            options,
            related: None,
            reply,
        };
        self.commands.send(command).await.map_err(|_| closed())?;
        match answer.await.unwrap_or_else(|_| Err(closed()))? {
            ClientResult::ListRoots(result) => Ok(*result),
            _ => Err(PeerRequestError::UnexpectedResult),
        }
    }
}

/// One session's runner of the hook: started at the first notification,
/// stopped with the session.
#[derive(Default)]
pub(crate) struct RootsWatcher {
    /// The context of the latest notification not yet run for (marked
    /// changed until the runner takes it), and the runner.
    running: Option<(watch::Sender<Option<RootsContext>>, JoinHandle<()>)>,
}

impl RootsWatcher {
    /// Asks for one more run of `hook` for a notification of the session
    /// whose client is described by `version` and `client_capabilities`:
    /// at once when none is going on, otherwise when the current one
    /// ends (one run for all the notifications that came meanwhile).
    pub(crate) fn changed(
        &mut self,
        hook: &RootsChangedFn,
        commands: &mpsc::Sender<Command>,
        version: ProtocolVersion,
        client_capabilities: Arc<ClientCapabilities>,
    ) {
        let (latest, _) = self.running.get_or_insert_with(|| {
            let (latest, mut changes) = watch::channel(None::<RootsContext>);
            let hook = Arc::clone(hook);
            // One run at a time, each started after the notifications it
            // answers: the last run always sees the last change.
            let task = tokio::spawn(async move {
                while changes.changed().await.is_ok() {
                    let context = changes.borrow_and_update().clone();
                    if let Some(context) = context {
                        hook(context).await;
                    }
                }
            });
            (latest, task)
        });
        let context = RootsContext {
            commands: commands.clone(),
            version,
            client_capabilities,
        };
        latest.send_replace(Some(context));
    }

    /// Whether the hook's runner was started (it then lives as long as the
    /// session).
    pub(crate) fn is_running(&self) -> bool {
        self.running.is_some()
    }
}

impl Drop for RootsWatcher {
    fn drop(&mut self) {
        if let Some((_, task)) = self.running.take() {
            task.abort();
        }
    }
}
