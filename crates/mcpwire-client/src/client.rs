//! The client handle: connecting, typed requests with cancel-on-drop and
//! progress, notifications, and closing.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use mcpwire_jsonrpc::Transport;
use mcpwire_session::{ClientConfig, RequestOptions, ServerView};
use mcpwire_types::methods::{
    ClientMethod, ClientNotification, ClientRequest, ServerNotification, ServerResult,
};
use mcpwire_types::{ClientCapabilities, ProgressNotificationParams, Root, meta_keys};
use tokio::sync::{broadcast, mpsc, oneshot};
use tracing::Instrument;

use crate::cache::ResultCache;
use crate::driver::{Command, Driver};
use crate::handler::NoHandler;
use crate::roots::RootsState;
use crate::schema::{self, SchemaCache};
use crate::url_elicitation::OpenUrlElicitations;
use crate::{ClientError, ClientHandler, ConnectError, typed};

/// How many API commands may queue before callers wait (back-pressure).
const COMMAND_QUEUE: usize = 256;
/// Default capacity of the notification channel (see [`Client::notifications`]).
const DEFAULT_NOTIFICATION_CAPACITY: usize = 256;
/// How many progress reports of one call may wait unread before newer ones are dropped.
const PROGRESS_QUEUE: usize = 64;

/// A connection to one MCP server.
///
/// Cheap to clone (an `Arc`), `Send` and `Sync`: every clone talks to the
/// same session, which one background task drives (it owns the engine and
/// the transport). The session ends on [`Client::close`], when the
/// transport ends, or when the last clone is dropped.
///
/// Calls are futures; dropping one before its answer arrives sends
/// `notifications/cancelled` for it (CANCEL-01). Every call has a timeout
/// (the [`ClientConfig`] timeouts, or [`RequestOptions::timeout`]: LIFE-16,
/// LIFE-17), on expiry of which the engine cancels it too.
///
/// Params go out as given, `_meta` included, so a host passes W3C trace
/// context (`traceparent`, `tracestate`, `baggage`: SEP-414) by writing it
/// into the params' `_meta`, e.g. with
/// [`TraceContext::write_to`](mcpwire_session::TraceContext::write_to); the
/// engine only adds its own keys (`progressToken`, and the per-request
/// fields of 2026-07-28).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    server: ServerView,
    commands: mpsc::Sender<Command>,
    cancels: mpsc::UnboundedSender<u64>,
    next_key: AtomicU64,
    shared: Arc<Shared>,
}

/// State the API handles and the driver task share.
pub(crate) struct Shared {
    /// `None` once the session ended, so that receivers see the end.
    notifications: Mutex<Option<broadcast::Sender<ServerNotification>>>,
    pub(crate) schemas: SchemaCache,
    /// Answers the server's requests and the input requests of 2026-07-28.
    pub(crate) handler: Arc<dyn ClientHandler>,
    /// What this client declared.
    pub(crate) capabilities: ClientCapabilities,
    /// The roots set on the client, if any.
    pub(crate) roots: RootsState,
    /// The opt-in result cache, with this client's owner id in it.
    pub(crate) cache: Option<(ResultCache, u64)>,
    /// URL-mode elicitations shown to the user and not yet completed.
    pub(crate) open_urls: OpenUrlElicitations,
    /// How many bytes a whole list read page by page may take.
    pub(crate) max_listed_bytes: usize,
}

impl Shared {
    /// Hands a notification to every receiver (none listening is fine).
    pub(crate) fn publish(&self, notification: ServerNotification) {
        let sender = self
            .notifications
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = sender.as_ref() {
            let _ = sender.send(notification);
        }
    }

    /// Ends the notification channel.
    pub(crate) fn end_notifications(&self) {
        self.notifications
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("version", &self.inner.server.version)
            .field("server", &self.inner.server.info)
            .finish_non_exhaustive()
    }
}

/// Assembles a [`Client`]: configuration, a handler for server requests,
/// the notification channel's capacity, and the bounds on what a server
/// can make the client hold.
pub struct ClientBuilder {
    config: ClientConfig,
    handler: Arc<dyn ClientHandler>,
    notification_capacity: usize,
    max_listed_bytes: usize,
    max_schema_bytes: usize,
    roots: Option<Vec<Root>>,
    cache: Option<ResultCache>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// Answers the server's requests (sampling, elicitation, roots) with
    /// `handler`; declare the matching capabilities in the configuration.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// The roots the client exposes from the start: `roots/list` is
    /// answered with them instead of calling the handler; change them
    /// with [`Client::set_roots`]. Declare the `roots` capability.
    ///
    /// # Errors
    ///
    /// Why a root is refused: every root must be a `file://` URI (ROOTS-03).
    pub fn roots(mut self, roots: Vec<Root>) -> Result<Self, ClientError> {
        crate::roots::check_all(&roots).map_err(ClientError::InvalidRoot)?;
        self.roots = Some(roots);
        Ok(self)
    }

    /// Caches results by their cache hints (2026-07-28; off by default):
    /// `server/discover`, the lists and `resources/read` are answered from
    /// `cache` while fresh, and dropped when the server announces a change.
    /// See [`ResultCache`] for sharing one between clients.
    pub fn cache(mut self, cache: ResultCache) -> Self {
        self.cache = Some(cache);
        self
    }

    /// How many notifications the channel of [`Client::notifications`]
    /// holds for its slowest receiver (default 256).
    pub fn notification_capacity(mut self, capacity: usize) -> Self {
        self.notification_capacity = capacity.max(1);
        self
    }

    /// How many bytes a whole list may take (default 64 MiB): the items
    /// [`Client::list_all_tools`] and the other `list_all_*` calls (and
    /// [`Client::list_skills`], [`Client::read_directory`]) gather page
    /// after page, each weighing its length as JSON plus the size of its
    /// entry in memory. Past it the call fails with
    /// [`ClientError::ListTooLarge`] instead of holding whatever a server
    /// lists (up to [`MAX_PAGES`](crate::MAX_PAGES) pages of a message's
    /// size each); a client of a server with larger lists raises it, or
    /// reads them page by page.
    pub fn max_listed_bytes(mut self, bytes: usize) -> Self {
        self.max_listed_bytes = bytes;
        self
    }

    /// How many bytes the output schemas remembered from `tools/list` (to
    /// check structured tool results) may weigh together (default 4 MiB;
    /// at most 1,024 schemas besides), each its length as JSON plus its
    /// tool's name. Past it other tools' schemas are forgotten, and their
    /// results taken unchecked until they are listed again; a schema
    /// heavier than the whole bound is not kept. A client of a server
    /// whose schemas are larger raises it.
    pub fn max_schema_bytes(mut self, bytes: usize) -> Self {
        self.max_schema_bytes = bytes;
        self
    }

    /// Connects over `transport`: spawns the session task (on the current
    /// tokio runtime) and waits until the server is known.
    ///
    /// # Errors
    ///
    /// When no revision is agreed, the server refuses or does not answer
    /// the handshake, or the transport ends or fails first.
    pub async fn connect<T>(self, transport: T) -> Result<Client, ConnectError>
    where
        T: Transport + 'static,
    {
        let (commands, command_rx) = mpsc::channel(COMMAND_QUEUE);
        let (cancels, cancel_rx) = mpsc::unbounded_channel();
        let (notifications, _) = broadcast::channel(self.notification_capacity);
        let shared = Arc::new(Shared {
            notifications: Mutex::new(Some(notifications)),
            schemas: SchemaCache::with_limits(schema::DEFAULT_MAX_SCHEMAS, self.max_schema_bytes),
            handler: self.handler.clone(),
            capabilities: self.config.capabilities.clone(),
            roots: RootsState::new(self.roots),
            open_urls: OpenUrlElicitations::default(),
            cache: self.cache.map(|cache| {
                let owner = cache.new_owner();
                (cache, owner)
            }),
            max_listed_bytes: self.max_listed_bytes,
        });
        let (established, connected) = oneshot::channel();
        let driver = Driver::new(Arc::new(self.config), shared.clone(), established);
        tokio::spawn(driver.run(transport, command_rx, cancel_rx));
        let server = connected
            .await
            .unwrap_or(Err(ConnectError::TransportClosed))?;
        let inner = Inner {
            server,
            commands,
            cancels,
            next_key: AtomicU64::new(0),
            shared,
        };
        Ok(Client {
            inner: Arc::new(inner),
        })
    }
}

/// Sends `notifications/cancelled` for a call whose future was dropped
/// before its answer came (CANCEL-01); disarmed once the answer is in.
struct CancelOnDrop<'a> {
    key: u64,
    cancels: &'a mpsc::UnboundedSender<u64>,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            // The driver may be gone already; then there is nothing to cancel.
            let _ = self.cancels.send(self.key);
        }
    }
}

impl Client {
    /// Starts building a client with `config`.
    pub fn builder(config: ClientConfig) -> ClientBuilder {
        ClientBuilder {
            config,
            handler: Arc::new(NoHandler),
            notification_capacity: DEFAULT_NOTIFICATION_CAPACITY,
            max_listed_bytes: crate::weight::DEFAULT_MAX_LISTED_BYTES,
            max_schema_bytes: schema::DEFAULT_MAX_SCHEMA_BYTES,
            roots: None,
            cache: None,
        }
    }

    /// Connects over `transport` with `config` and no handler for server
    /// requests (they are answered -32601); see [`Client::builder`].
    ///
    /// # Errors
    ///
    /// As [`ClientBuilder::connect`].
    pub async fn connect<T>(transport: T, config: ClientConfig) -> Result<Self, ConnectError>
    where
        T: Transport + 'static,
    {
        Self::builder(config).connect(transport).await
    }

    /// The server: the revision spoken, its capabilities, identity and
    /// instructions.
    pub fn server(&self) -> &ServerView {
        &self.inner.server
    }

    /// Notifications from the server, in the order they came: list changes,
    /// resource updates, log messages, and the rest (progress and
    /// cancellations go to the calls they concern instead).
    ///
    /// Each receiver sees the notifications sent after it subscribed. The
    /// channel is bounded ([`ClientBuilder::notification_capacity`]): a
    /// receiver that lags further behind misses the oldest ones and is told
    /// so once with `RecvError::Lagged`; the session itself never waits for
    /// receivers. After the session ends, receivers get `RecvError::Closed`.
    ///
    /// In 2026-07-28 a server sends change notifications only while a
    /// `subscriptions/listen` request is open; send one with
    /// [`Client::request`] (marker `SubscriptionsListen`) from a task of its
    /// own, and its notifications arrive here.
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        let sender = self
            .inner
            .shared
            .notifications
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match sender.as_ref() {
            Some(sender) => sender.subscribe(),
            // The session ended: a receiver that reports just that.
            None => broadcast::channel(1).1,
        }
    }

    /// State shared with the session task.
    pub(crate) fn shared(&self) -> &Shared {
        &self.inner.shared
    }

    /// The roots set on the client.
    pub(crate) fn roots_state(&self) -> &RootsState {
        &self.inner.shared.roots
    }

    /// Whether the session has ended.
    pub fn is_closed(&self) -> bool {
        self.inner.commands.is_closed()
    }

    /// Waits until the session ends (closed, or the transport ended).
    pub async fn closed(&self) {
        self.inner.commands.closed().await;
    }

    /// Ends the session: pending calls fail with [`ClientError::Closed`],
    /// handlers of server requests are stopped, and the transport is closed.
    /// Returns once that is done; closing a closed client does nothing.
    pub async fn close(&self) {
        let (done, finished) = oneshot::channel();
        if self
            .inner
            .commands
            .send(Command::Close { done })
            .await
            .is_ok()
        {
            let _ = finished.await;
        }
        self.closed().await;
    }

    /// Sends the request `M` (a marker type of
    /// [`mcpwire_types::methods`], e.g. `CallTool`) and waits for its result.
    ///
    /// # Errors
    ///
    /// [`ClientError::Refused`] when the method is not in the revision or
    /// the server lacks the capability (nothing is sent); otherwise a
    /// server error, a timeout, the end of the session, or a result that
    /// does not fit.
    pub async fn request<M: ClientMethod>(
        &self,
        params: M::Params,
        options: RequestOptions,
    ) -> Result<M::Result, ClientError> {
        let request = typed::into_request::<M>(params);
        let result = self.send(request, options, None).await?;
        typed::from_result::<M>(result)
    }

    /// Like [`Client::request`], asking the server for progress
    /// notifications, which arrive on the returned receiver while the call
    /// runs (it ends with the call). Reports are dropped when 64 are
    /// waiting unread.
    pub fn request_with_progress<M: ClientMethod>(
        &self,
        params: M::Params,
        options: RequestOptions,
    ) -> (
        impl Future<Output = Result<M::Result, ClientError>> + Send + '_,
        mpsc::Receiver<ProgressNotificationParams>,
    ) {
        let (progress, receiver) = mpsc::channel(PROGRESS_QUEUE);
        let call = async move {
            let request = typed::into_request::<M>(params);
            let result = self
                .send(request, options.with_progress(), Some(progress))
                .await?;
            typed::from_result::<M>(result)
        };
        (call, receiver)
    }

    /// Sends a notification to the server (for example
    /// `notifications/roots/list_changed` when the client's roots change:
    /// ROOTS-02).
    ///
    /// # Errors
    ///
    /// [`ClientError::Refused`] when the revision lacks it or the client
    /// did not declare the capability it needs; [`ClientError::Closed`].
    pub async fn notify(&self, notification: ClientNotification) -> Result<(), ClientError> {
        let (reply, answer) = oneshot::channel();
        let command = Command::Notify {
            notification,
            reply,
        };
        self.inner
            .commands
            .send(command)
            .await
            .map_err(|_| ClientError::Closed)?;
        answer.await.unwrap_or(Err(ClientError::Closed))
    }

    /// Sends `method`, a request an extension adds (registered with
    /// [`ClientConfig::with_extension`], which also declares the
    /// extension), with `params`, and waits for its result as JSON. Core
    /// methods go through [`Client::request`] instead.
    ///
    /// # Errors
    ///
    /// [`ClientError::Refused`] when `method` is not registered or the
    /// server did not declare the extension (nothing is sent); otherwise a
    /// server error, a timeout, or the end of the session.
    pub async fn request_extension(
        &self,
        method: &str,
        params: serde_json::Map<String, serde_json::Value>,
        options: RequestOptions,
    ) -> Result<serde_json::Value, ClientError> {
        let span = tracing::info_span!(
            "mcp.client.request",
            method,
            id = tracing::field::Empty,
            version = %self.inner.server.version,
        );
        let key = self.inner.next_key.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        let command = Command::ExtensionRequest {
            key,
            method: method.to_owned(),
            params: Some(params),
            options,
            reply,
            span: span.clone(),
        };
        let mut guard = CancelOnDrop {
            key,
            cancels: &self.inner.cancels,
            armed: true,
        };
        let outcome = async {
            self.inner
                .commands
                .send(command)
                .await
                .map_err(|_| ClientError::Closed)?;
            answer.await.unwrap_or(Err(ClientError::Closed))
        }
        .instrument(span)
        .await;
        guard.armed = false;
        outcome
    }

    /// Sends a request, waits for its answer under a span of its own, and
    /// checks what the client checks on results.
    async fn send(
        &self,
        request: ClientRequest,
        options: RequestOptions,
        progress: Option<mpsc::Sender<ProgressNotificationParams>>,
    ) -> Result<ServerResult, ClientError> {
        let tool = match &request {
            ClientRequest::CallTool(params) => Some(params.name.clone()),
            _ => None,
        };
        let cache = self.inner.shared.cache.as_ref();
        if let Some(hit) = cache.and_then(|(cache, owner)| cache.lookup(*owner, &request)) {
            tracing::debug!(method = request.method(), "answered from the cache");
            return Ok(hit);
        }
        let cacheable = cache.map(|_| request.clone());
        let span = tracing::info_span!(
            "mcp.client.request",
            method = request.method(),
            id = tracing::field::Empty,
            version = %self.inner.server.version,
            name = request_name(&request).unwrap_or_default(),
            traceparent = request
                .meta()
                .and_then(|meta| meta.get_str(meta_keys::TRACEPARENT))
                .unwrap_or_default(),
        );
        let key = self.inner.next_key.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        let command = Command::Request {
            key,
            request,
            options,
            reply,
            progress,
            span: span.clone(),
        };
        let mut guard = CancelOnDrop {
            key,
            cancels: &self.inner.cancels,
            armed: true,
        };
        let outcome = async {
            self.inner
                .commands
                .send(command)
                .await
                .map_err(|_| ClientError::Closed)?;
            answer.await.unwrap_or(Err(ClientError::Closed))
        }
        .instrument(span.clone())
        .await;
        guard.armed = false;
        if let Err(ClientError::UrlElicitationRequired(data)) = &outcome {
            // Their completions may be announced (ELIC-22 ignores others).
            let ids = data
                .elicitations
                .iter()
                .filter_map(|e| e.elicitation_id.as_deref());
            ids.for_each(|id| self.inner.shared.open_urls.opened(id));
        }
        let result = outcome?;
        span.in_scope(|| self.check_result(&result, tool.as_deref()))?;
        if let (Some((cache, owner)), Some(request)) = (cache, cacheable) {
            cache.store(*owner, &request, &result);
        }
        Ok(result)
    }

    /// Learns output schemas from tool lists, and checks structured tool
    /// results against them (TOOL-15).
    fn check_result(&self, result: &ServerResult, tool: Option<&str>) -> Result<(), ClientError> {
        match result {
            ServerResult::ListTools(list) => self.inner.shared.schemas.learn(&list.tools),
            ServerResult::CallTool(call) if call.is_error != Some(true) => {
                let schema =
                    tool.and_then(|tool| Some((tool, self.inner.shared.schemas.get(tool)?)));
                if let Some((tool, schema)) = schema
                    && let Err(reason) = schema::check(&schema, call.structured_content.as_ref())
                {
                    tracing::debug!(%reason, "structured content does not match the output schema");
                    return Err(ClientError::InvalidStructuredContent {
                        tool: tool.to_owned(),
                        reason,
                    });
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The tool, prompt or resource a request names, for its span.
fn request_name(request: &ClientRequest) -> Option<&str> {
    match request {
        ClientRequest::CallTool(params) => Some(&params.name),
        ClientRequest::GetPrompt(params) => Some(&params.name),
        ClientRequest::ReadResource(params) => Some(&params.uri),
        ClientRequest::Subscribe(params) => Some(&params.uri),
        ClientRequest::Unsubscribe(params) => Some(&params.uri),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_and_its_builder_can_cross_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Client>();
        fn sendable<T: Send>() {}
        sendable::<ClientBuilder>();
    }
}
