//! Requests from the server to the client (sampling, elicitation, roots):
//! the [`ClientHandler`] trait that answers them and the context each
//! answer gets.

use std::sync::Arc;

use mcpwire_jsonrpc::{ErrorCode, ErrorObject, RequestId};
use mcpwire_session::{RequestContext, TraceContext};
use mcpwire_types::methods::ClientResult;
use mcpwire_types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitRequestURLParams,
    ElicitResult, ListRootsResult, Meta, ProtocolVersion, RequestParams,
};
use tokio::sync::mpsc;

use crate::Cancellation;

pub use mcpwire_jsonrpc::BoxFuture;

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
    ///
    /// Everything the server sent reaches it: the messages (text, image,
    /// audio, and from 2025-11-25 `tool_use` / `tool_result` blocks), model
    /// preferences and hints, `systemPrompt`, `maxTokens`,
    /// `stopSequences`, `includeContext`, `tools` and `toolChoice`. It runs
    /// between [`ClientHandler::review_sampling_request`] and
    /// [`ClientHandler::review_sampling_result`], and only when the client
    /// declared `sampling` (and `sampling.tools` for requests with tools:
    /// SAMP-05; without it the runtime answers -32602 itself).
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        let _ = (params, context);
        not_offered("sampling/createMessage")
    }

    /// The human in the loop before a sampling request reaches the model
    /// (SAMP-02, SAMP-14): return the params to send to the model (as
    /// they came, or edited), or an error to deny it, typically
    /// [`user_rejected`]. The default approves every request unchanged.
    fn review_sampling_request(
        &self,
        params: CreateMessageRequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageRequestParams, ErrorObject>> {
        let _ = context;
        Box::pin(std::future::ready(Ok(params)))
    }

    /// The human in the loop before the model's reply goes back to the
    /// server (SAMP-02): return the result to send (as it came, or
    /// edited), or an error to withhold it. The default approves it.
    fn review_sampling_result(
        &self,
        result: CreateMessageResult,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        let _ = context;
        Box::pin(std::future::ready(Ok(result)))
    }

    /// `elicitation/create`: ask the user for input (ELIC).
    ///
    /// Form-mode requests come here (URL-mode ones too, unless
    /// [`ClientHandler::elicit_url`] is overridden). For an `accept`, the
    /// runtime fills omitted fields with their schema defaults (ELIC-13,
    /// SEP-1034) and checks the content against `requestedSchema` before
    /// sending it (ELIC-15): content that does not match is not sent, the
    /// server gets -32603 instead. A mode the client did not declare is
    /// answered -32602 without calling the handler (ELIC-09).
    fn elicit(
        &self,
        params: ElicitRequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        let _ = (params, context);
        not_offered("elicitation/create")
    }

    /// URL-mode `elicitation/create` (2025-11-25): `params.url` is the full
    /// URL, untouched, to show the user with the server's message (ELIC-32).
    ///
    /// The runtime never opens or fetches the URL (ELIC-31). Return
    /// `accept` once the user consented, then open it yourself in a way
    /// neither the client nor the model can read (the system browser);
    /// `decline` or `cancel` otherwise. The default hands the request to
    /// [`ClientHandler::elicit`].
    fn elicit_url(
        &self,
        params: ElicitRequestURLParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        self.elicit(ElicitRequestParams::Url(params), context)
    }

    /// `roots/list`: the roots the user exposes to the server (ROOTS).
    ///
    /// Not called when the roots were set with
    /// [`ClientBuilder::roots`](crate::ClientBuilder::roots) or
    /// [`Client::set_roots`](crate::Client::set_roots). Every root must be
    /// a `file://` URI (ROOTS-03): an answer with another one is not sent,
    /// the server gets -32603 instead.
    fn list_roots(
        &self,
        params: RequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<ListRootsResult, ErrorObject>> {
        let _ = (params, context);
        not_offered("roots/list")
    }
}

/// The error a client answers when the user denied a sampling request
/// (-1, SAMP-13).
pub fn user_rejected() -> ErrorObject {
    ErrorObject::new(ErrorCode(-1), "User rejected sampling request")
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
