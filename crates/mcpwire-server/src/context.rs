//! What a handler receives: the request's circumstances and a way back to
//! the client (progress, logs, cancellation, requests of its own).

use std::sync::Arc;

use mcpwire_jsonrpc::{ErrorObject, RequestId, TransportContext};
use mcpwire_session::{RequestContext, RequestOptions, TraceContext};
use mcpwire_types::methods::ServerResult;
use mcpwire_types::methods::{ClientResult, ServerNotification, ServerRequest};
use mcpwire_types::{
    ClientCapabilities, Implementation, LoggingLevel, LoggingMessageNotificationParams, Meta,
    ProtocolVersion, RelatedTaskMetadata,
};
use tokio::sync::{mpsc, oneshot};

use crate::input::{EMPTY_ROUND, Round};
use crate::{Cancellation, HandlerError, PeerRequestError, Server};

/// What a handler sends back to the session driver.
pub(crate) enum Command {
    Respond {
        id: RequestId,
        result: Result<ServerResult, ErrorObject>,
    },
    /// An answer already shaped for the request's revision (tasks).
    RespondRaw {
        id: RequestId,
        result: Result<mcpwire_jsonrpc::RawJson, ErrorObject>,
    },
    Progress {
        id: RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    Log {
        params: LoggingMessageNotificationParams,
        related: Option<RequestId>,
    },
    Notify {
        notification: ServerNotification,
        related: Option<RequestId>,
    },
    Request {
        request: ServerRequest,
        options: RequestOptions,
        related: Option<RequestId>,
        reply: oneshot::Sender<Result<ClientResult, PeerRequestError>>,
    },
    /// Close the connection carrying request `id`'s stream (SEP-1699);
    /// `reply` says whether one was.
    CloseStream {
        id: RequestId,
        reply: oneshot::Sender<bool>,
    },
}

/// The handle a handler uses to learn about its request and to talk back.
///
/// Cheap to clone; every message it sends travels with the request it
/// belongs to (on Streamable HTTP, on that request's stream).
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
    /// What the client sent back with a multi round-trip retry; `None`
    /// for a first call (most calls), which then allocates nothing for it.
    round: Option<Arc<Round>>,
}

/// What every request of one session shares, held once by the session
/// driver: one reference per request instead of one per field.
pub(crate) struct SessionShared {
    pub(crate) commands: mpsc::Sender<Command>,
    pub(crate) server: Server,
    /// Names the session the request came in, for binding tasks to it.
    pub(crate) scope: Arc<str>,
}

struct Inner {
    id: RequestId,
    request: RequestContext,
    meta: Option<Meta>,
    cancellation: Cancellation,
    session: Arc<SessionShared>,
    /// The task the handler runs for, when it runs as one.
    task_id: Option<String>,
    /// What the transport knew about the request beyond the message.
    transport: Option<TransportContext>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("id", &self.inner.id)
            .field("version", &self.inner.request.version)
            .finish_non_exhaustive()
    }
}

impl Context {
    pub(crate) fn new(
        id: RequestId,
        request: RequestContext,
        meta: Option<Meta>,
        cancellation: Cancellation,
        session: Arc<SessionShared>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                id,
                request,
                meta,
                cancellation,
                session,
                task_id: None,
                transport: None,
            }),
            round: None,
        }
    }

    /// The same fresh context with what the transport knew of the request.
    pub(crate) fn with_transport(mut self, transport: Option<TransportContext>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.transport = transport;
        }
        self
    }

    /// What the transport knew about this request beyond the message: on
    /// Streamable HTTP, the HTTP request's `http::Extensions` (downcast with
    /// `downcast_ref::<http::Extensions>()`), where an authentication layer
    /// (mcpwire-auth's `BearerAuthLayer`) puts the caller's validated
    /// identity. `None` on transports that know nothing more (stdio).
    pub fn transport_context(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.inner.transport.as_deref()
    }

    /// The same request's context for a task: with its own cancellation
    /// signal, since the task outlives the request that created it.
    pub(crate) fn for_task(&self, cancellation: Cancellation, task_id: Option<&str>) -> Self {
        let inner = &self.inner;
        Self {
            inner: Arc::new(Inner {
                id: inner.id.clone(),
                request: inner.request.clone(),
                meta: inner.meta.clone(),
                cancellation,
                session: Arc::clone(&inner.session),
                task_id: task_id.map(str::to_owned),
                transport: inner.transport.clone(),
            }),
            round: self.round.clone(),
        }
    }

    /// The id of the task this handler runs for, when the call runs as a
    /// task the client asked for (2025-11-25; in 2026-07-28 a call may
    /// become a task after its handler started, and this stays `None`).
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task_id.as_deref()
    }

    /// The session the request came in (a handshake session, or one
    /// stateless exchange).
    pub(crate) fn scope(&self) -> &str {
        &self.inner.session.scope
    }

    /// Sends a notification that belongs to no request (a task's status).
    pub(crate) async fn notify_session(&self, notification: ServerNotification) {
        let command = Command::Notify {
            notification,
            related: None,
        };
        let _ = self.inner.session.commands.send(command).await;
    }

    /// The same context for a handler round that sees `round` (shared
    /// only when it holds something: an empty round is the default).
    pub(crate) fn with_round(&self, round: Round) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            round: (!round.is_empty()).then(|| Arc::new(round)),
        }
    }

    pub(crate) fn round(&self) -> &Round {
        self.round.as_deref().unwrap_or(&EMPTY_ROUND)
    }

    /// The channel to the session driver, for messages not tied to this
    /// request's stream.
    pub(crate) fn sender(&self) -> &mpsc::Sender<Command> {
        &self.inner.session.commands
    }

    /// The id of the request being handled.
    pub fn id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The revision this request speaks.
    pub fn version(&self) -> ProtocolVersion {
        self.inner.request.version
    }

    /// What the client declared it can do.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        static NONE: std::sync::OnceLock<ClientCapabilities> = std::sync::OnceLock::new();
        match &self.inner.request.client_capabilities {
            Some(caps) => caps,
            None => NONE.get_or_init(ClientCapabilities::default),
        }
    }

    /// Who the client says it is, when known.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.request.client_info.as_deref()
    }

    /// The request's `_meta`, as sent.
    pub fn meta(&self) -> Option<&Meta> {
        self.inner.meta.as_ref()
    }

    /// The W3C trace context the request carried.
    pub fn trace(&self) -> &TraceContext {
        &self.inner.request.trace
    }

    /// The server, e.g. to add or remove tools while serving.
    pub fn server(&self) -> &Server {
        &self.inner.session.server
    }

    /// The application state of type `S` given to
    /// [`ServerBuilder::state`](crate::ServerBuilder::state).
    ///
    /// # Errors
    ///
    /// An internal error naming the type when no such state was given (a
    /// mistake in the server's code, reported to the client as -32603).
    pub fn state<S: Send + Sync + 'static>(&self) -> Result<&S, HandlerError> {
        self.server().inner.states.get::<S>()
    }

    /// The cancellation signal of this request.
    pub fn cancellation(&self) -> &Cancellation {
        &self.inner.cancellation
    }

    /// Whether the client cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Whether the client asked for progress on this request.
    pub fn wants_progress(&self) -> bool {
        self.inner.request.progress_token.is_some()
    }

    /// Reports progress, when the client asked for it (otherwise nothing is
    /// sent). `progress` must grow with every call; smaller values are dropped.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if !self.wants_progress() {
            return;
        }
        let command = Command::Progress {
            id: self.inner.id.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
        };
        // The session may be gone (the client left); then nobody listens.
        let _ = self.inner.session.commands.send(command).await;
    }

    /// Sends a log message about this request, if the client wants that
    /// level (the session's `logging/setLevel`, or the request's own
    /// `logLevel` in 2026-07-28) and the rate limit allows.
    pub async fn log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: impl Into<serde_json::Value>,
    ) {
        let mut params = LoggingMessageNotificationParams::new(level, data);
        params.logger = logger.map(str::to_owned);
        let command = Command::Log {
            params,
            related: Some(self.inner.id.clone()),
        };
        let _ = self.inner.session.commands.send(command).await;
    }

    /// Sends a notification on behalf of this request.
    pub async fn notify(&self, mut notification: ServerNotification) {
        if let Some(task_id) = &self.inner.task_id {
            // TASK-30: what a task sends names the task.
            RelatedTaskMetadata::new(task_id.clone())
                .insert_into(notification.meta_mut().get_or_insert_with(Meta::new));
        }
        let command = Command::Notify {
            notification,
            related: Some(self.inner.id.clone()),
        };
        let _ = self.inner.session.commands.send(command).await;
    }

    /// Closes the connection that carries this request's SSE stream,
    /// without ending the stream (SSE polling, SEP-1699): the client gets
    /// a `retry:` delay, reconnects with `Last-Event-ID`, and receives
    /// there what was sent meanwhile, the answer included. A long call
    /// then holds no connection open while it works (proxies and load
    /// balancers cut idle ones).
    ///
    /// Returns whether a connection was closed: `false` on transports with
    /// one stream (stdio), for clients before 2025-11-25 (they cannot
    /// resume a request's stream), for stateless requests, and once the
    /// answer went out.
    ///
    /// ```no_run
    /// use std::time::Duration;
    ///
    /// use mcpwire_server::{Arguments, Context, HandlerError};
    /// use mcpwire_types::CallToolResult;
    ///
    /// /// A tool that works for minutes with nothing to report meanwhile.
    /// async fn nightly_report(ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    ///     // The client comes back for the answer; no connection idles meanwhile.
    ///     ctx.close_sse_stream().await;
    ///     tokio::time::sleep(Duration::from_secs(300)).await;
    ///     Ok(CallToolResult::text("report ready"))
    /// }
    /// ```
    pub async fn close_sse_stream(&self) -> bool {
        // An older client would not resume: its stream is left open.
        if !self.version().has_sse_polling() {
            return false;
        }
        let (reply, closed) = oneshot::channel();
        let command = Command::CloseStream {
            id: self.inner.id.clone(),
            reply,
        };
        if self.inner.session.commands.send(command).await.is_err() {
            return false;
        }
        closed.await.unwrap_or(false)
    }

    /// Sends a request to the client (sampling, elicitation, roots, ping)
    /// while this request is in flight, and waits for its answer.
    ///
    /// # Errors
    ///
    /// When the client did not declare the capability, the revision lacks
    /// the method, or the client answered with an error or not in time.
    pub async fn request(
        &self,
        mut request: ServerRequest,
        options: RequestOptions,
    ) -> Result<ClientResult, PeerRequestError> {
        if let Some(task_id) = &self.inner.task_id {
            // TASK-27, TASK-30: a request sent on behalf of a task names it.
            RelatedTaskMetadata::new(task_id.clone())
                .insert_into(request.meta_mut().get_or_insert_with(Meta::new));
        }
        let (reply, answer) = oneshot::channel();
        let command = Command::Request {
            request,
            options,
            related: Some(self.inner.id.clone()),
            reply,
        };
        if self.inner.session.commands.send(command).await.is_err() {
            return Err(PeerRequestError::Failed(
                mcpwire_session::ResponseError::Closed,
            ));
        }
        answer.await.unwrap_or(Err(PeerRequestError::Failed(
            mcpwire_session::ResponseError::Closed,
        )))
    }
}
