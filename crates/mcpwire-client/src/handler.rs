//! Requests from the server to the client (sampling, elicitation, roots):
//! the [`ClientHandler`] trait that answers them and the context each
//! answer gets.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcpwire_jsonrpc::{ErrorObject, RequestId};
use mcpwire_session::{RequestContext, TraceContext};
use mcpwire_types::methods::{ClientResult, ServerRequest};
use mcpwire_types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ListRootsResult, Meta, ProtocolVersion, RequestParams,
};
use tokio::sync::mpsc;

use crate::Cancellation;

/// A boxed, sendable future, as [`ClientHandler`] methods return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Answers the requests a server sends to its client.
///
/// Every method has a default that answers -32601 (method not found), so
/// an implementation overrides only what the client offers, and must
/// declare the matching capability in
/// [`ClientConfig::capabilities`](mcpwire_session::ClientConfig) (without
/// it the engine itself answers -32601 and the handler is never called:
/// SAMP-01, ROOTS-01, ROOTS-04). `ping` is answered by the engine.
///
/// Each request runs in its own task, so a slow answer (a user reading a
/// dialog) blocks nothing else. The server may cancel it: the task is then
/// stopped and [`HandlerContext::cancellation`] fires.
///
/// ```
/// use mcpwire_client::{BoxFuture, ClientHandler, HandlerContext};
/// use mcpwire_jsonrpc::ErrorObject;
/// use mcpwire_types::{ListRootsResult, RequestParams, Root};
///
/// struct Roots;
///
/// impl ClientHandler for Roots {
///     fn list_roots(
///         &self,
///         _params: RequestParams,
///         _context: HandlerContext,
///     ) -> BoxFuture<'_, Result<ListRootsResult, ErrorObject>> {
///         let root = Root::new("file:///work").with_name("work");
///         Box::pin(async move { Ok(ListRootsResult::new(vec![root])) })
///     }
/// }
/// ```
pub trait ClientHandler: Send + Sync + 'static {
    /// `sampling/createMessage`: sample the host's model (SAMP).
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        let _ = (params, context);
        not_offered("sampling/createMessage")
    }

    /// `elicitation/create`: ask the user for input (ELIC).
    fn elicit(
        &self,
        params: ElicitRequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        let _ = (params, context);
        not_offered("elicitation/create")
    }

    /// `roots/list`: the roots the user exposes to the server (ROOTS).
    fn list_roots(
        &self,
        params: RequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<ListRootsResult, ErrorObject>> {
        let _ = (params, context);
        not_offered("roots/list")
    }
}

fn not_offered<T: Send + 'static>(method: &str) -> BoxFuture<'static, Result<T, ErrorObject>> {
    let error = ErrorObject::method_not_found(method);
    Box::pin(std::future::ready(Err(error)))
}

/// The handler used when none is installed: every method answers -32601.
pub(crate) struct NoHandler;

impl ClientHandler for NoHandler {}

/// What a handler task sends back to the session driver.
pub(crate) enum HandlerMessage {
    Respond {
        id: RequestId,
        result: Result<ClientResult, ErrorObject>,
    },
    Progress {
        id: RequestId,
        progress: f64,
        total: Option<f64>,
    },
}

/// The circumstances of one server request, and a way to report progress.
///
/// Cheap to clone.
#[derive(Debug, Clone)]
pub struct HandlerContext {
    inner: Arc<ContextInner>,
}

#[derive(Debug)]
struct ContextInner {
    id: RequestId,
    request: RequestContext,
    meta: Option<Meta>,
    cancellation: Cancellation,
    messages: mpsc::Sender<HandlerMessage>,
}

impl HandlerContext {
    pub(crate) fn new(
        id: RequestId,
        request: RequestContext,
        meta: Option<Meta>,
        cancellation: Cancellation,
        messages: mpsc::Sender<HandlerMessage>,
    ) -> Self {
        let inner = ContextInner {
            id,
            request,
            meta,
            cancellation,
            messages,
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The id of the server's request.
    pub fn id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The revision the session speaks.
    pub fn version(&self) -> ProtocolVersion {
        self.inner.request.version
    }

    /// The request's `_meta`, as sent.
    pub fn meta(&self) -> Option<&Meta> {
        self.inner.meta.as_ref()
    }

    /// The W3C trace context the request carried.
    pub fn trace(&self) -> &TraceContext {
        &self.inner.request.trace
    }

    /// The cancellation signal of this request.
    pub fn cancellation(&self) -> &Cancellation {
        &self.inner.cancellation
    }

    /// Whether the server cancelled this request (or the session ended).
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Whether the server asked for progress on this request.
    pub fn wants_progress(&self) -> bool {
        self.inner.request.progress_token.is_some()
    }

    /// Reports progress when the server asked for it (otherwise nothing is
    /// sent). `progress` must grow with every call (PROG-03); smaller
    /// values are dropped.
    pub async fn progress(&self, progress: f64, total: Option<f64>) {
        if !self.wants_progress() {
            return;
        }
        let message = HandlerMessage::Progress {
            id: self.inner.id.clone(),
            progress,
            total,
        };
        // The session may be gone; then nobody listens.
        let _ = self.inner.messages.send(message).await;
    }
}

/// Runs the handler method a server request calls for.
pub(crate) async fn dispatch(
    handler: &dyn ClientHandler,
    request: ServerRequest,
    context: HandlerContext,
) -> Result<ClientResult, ErrorObject> {
    match request {
        ServerRequest::CreateMessage(params) => handler
            .create_message(*params, context)
            .await
            .map(|result| ClientResult::CreateMessage(Box::new(result))),
        ServerRequest::Elicit(params) => handler
            .elicit(*params, context)
            .await
            .map(|result| ClientResult::Elicit(Box::new(result))),
        ServerRequest::ListRoots(params) => handler
            .list_roots(*params, context)
            .await
            .map(|result| ClientResult::ListRoots(Box::new(result))),
        // Tasks run on this client are not offered (no `tasks` capability
        // is declared by default); `ping` never gets here.
        other => Err(ErrorObject::method_not_found(other.method())),
    }
}
