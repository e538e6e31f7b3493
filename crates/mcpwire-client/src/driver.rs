//! The session driver: one task owning a `ClientSession` and a transport,
//! feeding one into the other, answering the calls of API handles, and
//! running handlers of server requests in tasks of their own.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use mcpwire_jsonrpc::{ErrorObject, RequestId, Transport, TransportReceiver};
use mcpwire_session::{
    ClientConfig, ClientEvent, ClientSession, Event, IncomingRequest, RequestOptions,
    ResponseError, ServerView,
};
use mcpwire_types::ProgressNotificationParams;
use mcpwire_types::methods::{
    ClientNotification, ClientRequest, ServerNotification, ServerRequest, ServerResult,
};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::answer::Answerer;
use crate::client::Shared;
use crate::handler::HandlerMessage;
use crate::{ClientError, ConnectError, HandlerContext};
use mcpwire_session::CancelHandle;
use mcpwire_session::Outbox;

/// How many handler messages may queue before handler tasks wait.
const HANDLER_QUEUE: usize = 64;

/// How long closing waits for the last packets to be written.
const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// What API handles ask of the driver.
pub(crate) enum Command {
    /// Send a request; `key` names it for a later cancellation.
    Request {
        key: u64,
        request: ClientRequest,
        options: RequestOptions,
        reply: oneshot::Sender<Result<ServerResult, ClientError>>,
        progress: Option<mpsc::Sender<ProgressNotificationParams>>,
        span: tracing::Span,
    },
    /// Send a request of a method an extension adds; its result stays
    /// untyped.
    ExtensionRequest {
        key: u64,
        method: String,
        params: Option<serde_json::Map<String, serde_json::Value>>,
        options: RequestOptions,
        reply: oneshot::Sender<Result<serde_json::Value, ClientError>>,
        span: tracing::Span,
    },
    /// Send a notification.
    Notify {
        notification: ClientNotification,
        reply: oneshot::Sender<Result<(), ClientError>>,
    },
    /// End the session; `done` fires once the transport is closed.
    Close { done: oneshot::Sender<()> },
}

/// Where the answer to a request of ours goes.
enum Reply {
    /// A core method's result, decoded by its method.
    Typed(oneshot::Sender<Result<ServerResult, ClientError>>),
    /// An extension method's result, as JSON.
    Untyped(oneshot::Sender<Result<serde_json::Value, ClientError>>),
}

impl Reply {
    /// Tells the caller the request failed.
    fn fail(self, error: ClientError) {
        match self {
            Self::Typed(sender) => {
                let _ = sender.send(Err(error));
            }
            Self::Untyped(sender) => {
                let _ = sender.send(Err(error));
            }
        }
    }
}

/// A request of ours that awaits its answer.
struct Call {
    key: u64,
    reply: Reply,
    progress: Option<mpsc::Sender<ProgressNotificationParams>>,
    span: tracing::Span,
}

/// A server request being handled by its own task.
struct Running {
    task: JoinHandle<()>,
    cancel: CancelHandle,
}

/// Why the session loop stopped.
type Outcome = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// The state the engine does not keep: who waits for which answer, and
/// which handlers run.
pub(crate) struct Driver {
    session: ClientSession,
    shared: Arc<Shared>,
    calls: HashMap<RequestId, Call>,
    keys: HashMap<u64, RequestId>,
    running: HashMap<RequestId, Running>,
    messages: mpsc::Sender<HandlerMessage>,
    message_rx: Option<mpsc::Receiver<HandlerMessage>>,
    established: Option<oneshot::Sender<Result<ServerView, ConnectError>>>,
    closers: Vec<oneshot::Sender<()>>,
    failed: bool,
}

/// The engine's clock: tokio's, so that paused-time tests control it.
fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

impl Driver {
    pub(crate) fn new(
        config: Arc<ClientConfig>,
        shared: Arc<Shared>,
        established: oneshot::Sender<Result<ServerView, ConnectError>>,
    ) -> Self {
        let (messages, message_rx) = mpsc::channel(HANDLER_QUEUE);
        Self {
            // Queues the probe or `initialize`.
            session: ClientSession::new(config, now()),
            shared,
            calls: HashMap::new(),
            keys: HashMap::new(),
            running: HashMap::new(),
            messages,
            message_rx: Some(message_rx),
            established: Some(established),
            closers: Vec::new(),
            failed: false,
        }
    }

    /// Drives the session until it is closed, the transport ends, or every
    /// API handle is gone.
    pub(crate) async fn run<T: Transport>(
        mut self,
        transport: T,
        mut commands: mpsc::Receiver<Command>,
        mut cancels: mpsc::UnboundedReceiver<u64>,
    ) {
        let Some(mut message_rx) = self.message_rx.take() else {
            return;
        };
        let (sender, mut receiver) = transport.split();
        let mut outbox = Outbox::new(sender);
        let limits = self.session.config().limits;
        let outcome: Outcome = loop {
            self.drain_events();
            if self.failed {
                break Ok(());
            }
            while let Some(transmit) = self.session.poll_transmit() {
                outbox.push(transmit);
            }
            // The client keeps reading while the server reads nothing (the
            // answers it waits for must arrive; if both sides stopped
            // reading they could wait on each other), so a backed-up
            // outbox holds its handlers' answers back, and a server that
            // takes nothing for `max_backlog_wait` loses the session
            // instead of growing it with pings and requests.
            let backed_up = outbox.is_backed_up(limits.max_backlog_bytes);
            let stalled_at = outbox
                .stall_deadline(limits.max_backlog_bytes, limits.max_backlog_wait, now)
                .map(tokio::time::Instant::from_std);
            if stalled_at.is_some_and(|at| at <= tokio::time::Instant::now()) {
                break Err(format!(
                    "the server took none of the messages sent to it for {:?}",
                    limits.max_backlog_wait
                )
                .into());
            }
            let deadline = self
                .session
                .poll_timeout()
                .map(tokio::time::Instant::from_std)
                .into_iter()
                .chain(stalled_at)
                .min();
            tokio::select! {
                advanced = outbox.advance(), if outbox.busy() => {
                    if advanced.is_err() {
                        break Err(outbox.failure());
                    }
                }
                inbound = receiver.recv() => match inbound {
                    Some(Ok(inbound)) => self.session.handle_inbound(inbound, now()),
                    Some(Err(error)) => break Err(Box::new(error)),
                    None => {
                        // If the end came from a failed send, report why
                        // (the precise cause beats "the transport closed"):
                        // a write that has failed says so at its next poll.
                        tokio::task::yield_now().await;
                        let written = std::future::poll_fn(|cx| {
                            std::task::Poll::Ready(outbox.poll_advance(cx))
                        })
                        .await;
                        break match written {
                            std::task::Poll::Ready(Err(())) => Err(outbox.failure()),
                            _ => Ok(()),
                        };
                    }
                },
                command = commands.recv() => match command {
                    Some(Command::Close { done }) => {
                        // A call dropped just before `close` queued its
                        // cancellation first: send it before the session
                        // ends, or the server never learns (CANCEL-01).
                        while let Ok(key) = cancels.try_recv() {
                            self.cancel(key);
                        }
                        self.closers.push(done);
                        break Ok(());
                    }
                    Some(command) => self.apply(command),
                    // Every API handle is gone: nobody can use the session.
                    None => break Ok(()),
                },
                Some(key) = cancels.recv() => self.cancel(key),
                Some(message) = message_rx.recv(), if !backed_up => self.on_handler_message(message),
                () = sleep_until(deadline) => self.session.handle_timeout(now()),
            }
        };
        self.shut_down(outcome);
        while let Some(transmit) = self.session.poll_transmit() {
            outbox.push(transmit);
        }
        // Best effort, bounded: a server that stopped reading is given up on.
        let _ = tokio::time::timeout(CLOSE_GRACE, outbox.finish()).await;
        for done in self.closers.drain(..) {
            let _ = done.send(());
        }
        // Late `close` calls wait for `commands` to be dropped, right here.
    }

    fn drain_events(&mut self) {
        while let Some(event) = self.session.poll_event() {
            self.on_event(event);
        }
    }

    fn on_event(&mut self, event: ClientEvent) {
        match event {
            Event::Established(view) => {
                tracing::info!(
                    version = %view.version,
                    server = view.info.as_ref().map(|info| info.name.as_str()).unwrap_or_default(),
                    "connected"
                );
                if let Some(established) = self.established.take() {
                    let _ = established.send(Ok(view));
                }
            }
            Event::Failed(reason) => {
                tracing::debug!(%reason, "the session failed");
                self.failed = true;
                if let Some(established) = self.established.take() {
                    let _ = established.send(Err(ConnectError::Failed(reason)));
                }
            }
            Event::Response { id, result } => self.answered(&id, result),
            Event::ExtensionResponse { id, result } => self.extension_answered(&id, result),
            Event::Progress { id, progress } => {
                if let Some(sender) = self.calls.get(&id).and_then(|call| call.progress.as_ref()) {
                    // A reader that lags loses reports rather than stalling the session.
                    let _ = sender.try_send(progress);
                }
            }
            Event::Notification(notification) => self.notified(notification),
            Event::Request(request) => self.start(request),
            Event::Cancelled { id, reason } => {
                tracing::debug!(%id, reason = reason.as_deref().unwrap_or(""), "request cancelled by the server");
                if let Some(running) = self.running.remove(&id) {
                    running.cancel.cancel();
                    running.task.abort();
                }
                // The engine drops this answer (CANCEL-05); it frees the entry.
                let _ = self
                    .session
                    .respond(&id, Err(ErrorObject::internal_error("cancelled")));
            }
            _ => {}
        }
    }

    fn answered(&mut self, id: &RequestId, result: Result<ServerResult, ResponseError>) {
        let Some(call) = self.calls.remove(id) else {
            return;
        };
        self.keys.remove(&call.key);
        if let Err(error @ (ResponseError::TimedOut | ResponseError::Closed)) = &result {
            call.span
                .in_scope(|| tracing::debug!(%error, "request ended without an answer"));
        }
        match (call.reply, result) {
            (Reply::Typed(sender), result) => {
                let _ = sender.send(result.map_err(ClientError::from));
            }
            (reply, Err(error)) => reply.fail(ClientError::from(error)),
            // The engine decodes only core methods' results typed.
            (reply @ Reply::Untyped(_), Ok(_)) => reply.fail(ClientError::InvalidResult(
                "a typed result answered an extension request".to_owned(),
            )),
        }
    }

    fn extension_answered(
        &mut self,
        id: &RequestId,
        result: Result<serde_json::Value, ResponseError>,
    ) {
        let Some(call) = self.calls.remove(id) else {
            return;
        };
        self.keys.remove(&call.key);
        match (call.reply, result) {
            (Reply::Untyped(sender), result) => {
                let _ = sender.send(result.map_err(ClientError::from));
            }
            (reply, Err(error)) => reply.fail(ClientError::from(error)),
            (reply @ Reply::Typed(_), Ok(_)) => reply.fail(ClientError::InvalidResult(
                "an untyped result answered a core request".to_owned(),
            )),
        }
    }

    fn notified(&mut self, notification: ServerNotification) {
        match &notification {
            // Schemas learned from older lists may be stale now.
            ServerNotification::ToolListChanged(_) => self.shared.schemas.clear(),
            ServerNotification::LoggingMessage(params) => {
                tracing::debug!(
                    level = params.level.as_str(),
                    logger = params.logger.as_deref().unwrap_or(""),
                    "log message from the server"
                );
            }
            _ => {}
        }
        if let ServerNotification::ElicitationComplete(params) = &notification
            && !self.shared.open_urls.complete(&params.elicitation_id)
        {
            // ELIC-22: unknown or already completed.
            tracing::debug!(id = %params.elicitation_id, "ignored the completion of an unknown URL elicitation");
            return;
        }
        if let Some((cache, _)) = &self.shared.cache {
            cache.invalidate(&notification);
        }
        self.shared.publish(notification);
    }

    fn apply(&mut self, command: Command) {
        match command {
            Command::Request {
                key,
                request,
                options,
                reply,
                progress,
                span,
            } => {
                // The caller dropped its future before the request went out:
                // send nothing (its cancellation found no request to cancel).
                if reply.is_closed() {
                    return;
                }
                match self.session.send_request(request, options, now()) {
                    Ok(id) => {
                        span.record("id", tracing::field::display(&id));
                        self.keys.insert(key, id.clone());
                        let call = Call {
                            key,
                            reply: Reply::Typed(reply),
                            progress,
                            span,
                        };
                        self.calls.insert(id, call);
                    }
                    Err(error) => {
                        let _ = reply.send(Err(ClientError::Refused(error)));
                    }
                }
            }
            Command::ExtensionRequest {
                key,
                method,
                params,
                options,
                reply,
                span,
            } => {
                if reply.is_closed() {
                    return;
                }
                let sent = self
                    .session
                    .send_extension_request(&method, params, options, now());
                match sent {
                    Ok(id) => {
                        span.record("id", tracing::field::display(&id));
                        self.keys.insert(key, id.clone());
                        let call = Call {
                            key,
                            reply: Reply::Untyped(reply),
                            progress: None,
                            span,
                        };
                        self.calls.insert(id, call);
                    }
                    Err(error) => {
                        let _ = reply.send(Err(ClientError::Refused(error)));
                    }
                }
            }
            Command::Notify {
                notification,
                reply,
            } => {
                let result = self
                    .session
                    .notify(notification)
                    .map_err(ClientError::Refused);
                let _ = reply.send(result);
            }
            // Handled by the loop, which stops on it.
            Command::Close { done } => self.closers.push(done),
        }
    }

    /// The caller of the call `key` stopped waiting: tell the server.
    fn cancel(&mut self, key: u64) {
        let Some(id) = self.keys.remove(&key) else {
            return;
        };
        if let Some(call) = self.calls.remove(&id) {
            call.span
                .in_scope(|| tracing::debug!("cancelled: the caller stopped waiting"));
        }
        self.session
            .cancel(&id, Some("the client stopped waiting".to_owned()));
    }

    /// Runs the handler of a server request in a task of its own.
    fn start(&mut self, incoming: IncomingRequest<ServerRequest>) {
        let IncomingRequest {
            id,
            request,
            context,
        } = incoming;
        let span = tracing::info_span!(
            "mcp.client.handle",
            method = request.method(),
            id = %id,
            version = %context.version,
            traceparent = context.trace.traceparent.as_deref().unwrap_or_default(),
        );
        let (cancel, cancellation) = CancelHandle::new();
        let meta = request.meta().cloned();
        let handler_context = HandlerContext::new(
            id.clone(),
            context,
            meta,
            cancellation,
            self.messages.clone(),
        );
        let shared = self.shared.clone();
        let messages = self.messages.clone();
        let task_id = id.clone();
        let task = tokio::spawn(
            async move {
                let answerer = Answerer {
                    handler: &*shared.handler,
                    capabilities: &shared.capabilities,
                    roots: &shared.roots,
                    open_urls: &shared.open_urls,
                };
                let result = answerer.answer(request, handler_context).await;
                if let Err(error) = &result {
                    tracing::debug!(code = %error.code, message = %error.message, "request failed");
                }
                let message = HandlerMessage::Respond {
                    id: task_id,
                    result,
                };
                let _ = messages.send(message).await;
            }
            .instrument(span),
        );
        self.running.insert(id, Running { task, cancel });
    }

    fn on_handler_message(&mut self, message: HandlerMessage) {
        match message {
            HandlerMessage::Respond { id, result } => {
                self.running.remove(&id);
                if let Err(error) = self.session.respond(&id, result) {
                    tracing::debug!(%id, %error, "answer not sent");
                }
            }
            HandlerMessage::Progress {
                id,
                progress,
                total,
            } => {
                if let Err(error) = self.session.progress(&id, progress, total) {
                    tracing::debug!(%id, %error, "progress not sent");
                }
            }
        }
    }

    fn shut_down(&mut self, outcome: Outcome) {
        // A connection still being set up learns the precise cause here,
        // before the engine reports its own generic failure on close.
        match (self.established.take(), outcome) {
            (Some(established), Ok(())) => {
                let _ = established.send(Err(ConnectError::TransportClosed));
            }
            (Some(established), Err(error)) => {
                let _ = established.send(Err(ConnectError::Transport(error)));
            }
            (None, Err(error)) => tracing::debug!(%error, "the transport failed"),
            (None, Ok(())) => {}
        }
        for (_, running) in self.running.drain() {
            running.cancel.cancel();
            running.task.abort();
        }
        // Every pending call fails with `Closed`.
        self.session.close();
        self.drain_events();
        for (_, call) in self.calls.drain() {
            call.reply.fail(ClientError::Closed);
        }
        self.keys.clear();
        self.shared.end_notifications();
    }
}
