//! What a handler receives: the request's circumstances and a way back to
//! the client (progress, logs, cancellation, requests of its own).

use std::sync::Arc;

use mcpwire_jsonrpc::{ErrorObject, RequestId};
use mcpwire_session::{RequestContext, RequestOptions, TraceContext};
use mcpwire_types::methods::ServerResult;
use mcpwire_types::methods::{ClientResult, ServerNotification, ServerRequest};
use mcpwire_types::{
    ClientCapabilities, Implementation, LoggingLevel, LoggingMessageNotificationParams, Meta,
    ProtocolVersion,
};
use tokio::sync::{mpsc, oneshot};

use crate::input::Round;
use crate::{Cancellation, PeerRequestError, Server};

/// What a handler sends back to the session driver.
pub(crate) enum Command {
    Respond {
        id: RequestId,
        result: Result<ServerResult, ErrorObject>,
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
}

/// The handle a handler uses to learn about its request and to talk back.
///
/// Cheap to clone; every message it sends travels with the request it
/// belongs to (on Streamable HTTP, on that request's stream).
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
    /// What the client sent back with a multi round-trip retry.
    round: Arc<Round>,
}

struct Inner {
    id: RequestId,
    request: RequestContext,
    meta: Option<Meta>,
    commands: mpsc::Sender<Command>,
    cancellation: Cancellation,
    server: Server,
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
        commands: mpsc::Sender<Command>,
        cancellation: Cancellation,
        server: Server,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                id,
                request,
                meta,
                commands,
                cancellation,
                server,
            }),
            round: Arc::default(),
        }
    }

    /// The same context for a handler round that sees `round`.
    pub(crate) fn with_round(&self, round: Arc<Round>) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            round,
        }
    }

    pub(crate) fn round(&self) -> &Round {
        &self.round
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
        &self.inner.server
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
        let _ = self.inner.commands.send(command).await;
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
        let _ = self.inner.commands.send(command).await;
    }

    /// Sends a notification on behalf of this request.
    pub async fn notify(&self, notification: ServerNotification) {
        let command = Command::Notify {
            notification,
            related: Some(self.inner.id.clone()),
        };
        let _ = self.inner.commands.send(command).await;
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
        request: ServerRequest,
        options: RequestOptions,
    ) -> Result<ClientResult, PeerRequestError> {
        let (reply, answer) = oneshot::channel();
        let command = Command::Request {
            request,
            options,
            related: Some(self.inner.id.clone()),
            reply,
        };
        if self.inner.commands.send(command).await.is_err() {
            return Err(PeerRequestError::Failed(
                mcpwire_session::ResponseError::Closed,
            ));
        }
        answer.await.unwrap_or(Err(PeerRequestError::Failed(
            mcpwire_session::ResponseError::Closed,
        )))
    }
}
