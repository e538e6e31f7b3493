//! `StreamableHttp`, the MCP endpoint as a `tower::Service`: request
//! dispatch, shared state, session lifetimes (expiry sweeps, termination)
//! and graceful shutdown.

use core::convert::Infallible;
use core::future::Future;
use core::hash::{Hash, Hasher};
use core::task::{Context, Poll};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use futures_util::FutureExt as _;
use http::{Method, Request};
use tokio::sync::watch;

use super::beat::Beat;
use super::body::{HttpResponse, ResponseFuture, SendBody, method_not_allowed};
use super::config::Config;
use super::local_runtime::{LocalRuntime, RuntimeFuture};
use super::transport::SessionTransport;
use super::{get, post, security};
use mcpwire_store::SessionId;

/// The hook that receives each new session (and stateless request).
enum ConnectHook {
    /// It starts the runtime itself ([`StreamableHttp::new`]).
    Start(Box<dyn Fn(SessionTransport) + Send + Sync>),
    /// It hands back the runtime's future for this server to run
    /// ([`StreamableHttp::with_runtime`]).
    Run(Box<dyn Fn(SessionTransport) -> RuntimeFuture + Send + Sync>),
}

/// Locks a mutex, ignoring poisoning: the server's critical sections leave
/// their state consistent after each single change.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The sessions whose runtime runs in this process (see
/// [`Shared::local_id`]).
type LocalSessions = hashbrown::HashMap<SessionId, Option<Weak<LocalRuntime>>, ahash::RandomState>;

/// The text of a session id, as a key for looking an id up without making
/// one: it hashes as the id it spells ([`SessionId::hash_text`]).
struct IdText<'a>(&'a str);

impl Hash for IdText<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        SessionId::hash_text(self.0, state);
    }
}

impl hashbrown::Equivalent<SessionId> for IdText<'_> {
    fn equivalent(&self, key: &SessionId) -> bool {
        self.0 == key.as_str()
    }
}

/// Counters behind [`Stats`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) open_streams: AtomicUsize,
    pub(crate) transports: AtomicUsize,
}

/// State shared by every clone of the service and every transport.
pub(crate) struct Shared {
    pub(crate) config: Config,
    on_connect: ConnectHook,
    /// Open streams per session on this instance (the per-session limit,
    /// and which sessions are busy rather than idle). A count that drops
    /// to zero stays until the next sweep, so that a session's POSTs find
    /// it rather than insert and remove it each.
    open_streams: Mutex<HashMap<SessionId, usize, ahash::RandomState>>,
    /// Sessions whose runtime runs in this process, with the runtime's
    /// future when this server runs it (the POST fast path). Weak: the
    /// session's task owns its runtime, which holds this state, so that a
    /// runtime shut down with its tasks leaves no cycle behind.
    ///
    /// A hashbrown table: a POST finds its session's id here by the
    /// header's text ([`IdText`]), without making an id of its own.
    local_sessions: Mutex<LocalSessions>,
    pub(crate) counters: Counters,
    pub(crate) shutdown: watch::Sender<bool>,
    sweeper_started: AtomicBool,
    /// The keep-alive beat of SSE streams (`None` without keep-alives).
    pub(crate) beat: Option<Arc<Beat>>,
}

impl Shared {
    /// Hands `transport` to the connect hook; the runtime's future when
    /// this server runs it and it serves a session (a stateless request's
    /// runtime is spawned: no later POST brings it anything).
    pub(crate) fn connect(&self, transport: SessionTransport) -> Option<Weak<LocalRuntime>> {
        match &self.on_connect {
            ConnectHook::Start(start) => {
                start(transport);
                None
            }
            ConnectHook::Run(run) => {
                let stateless = transport.is_stateless();
                let future = run(transport);
                if stateless {
                    tokio::spawn(future);
                    None
                } else {
                    Some(LocalRuntime::spawn(future))
                }
            }
        }
    }

    /// The runtime of local session `id`, when this server runs it.
    pub(crate) fn local_runtime(&self, id: &SessionId) -> Option<Arc<LocalRuntime>> {
        lock(&self.local_sessions)
            .get(id)
            .and_then(Option::as_ref)
            .and_then(Weak::upgrade)
    }

    /// The id of local session `text`, shared with the tables that hold
    /// it (no allocation); `None` when no local session has that id.
    pub(crate) fn local_id(&self, text: &str) -> Option<SessionId> {
        lock(&self.local_sessions)
            .get_key_value(&IdText(text))
            .map(|(id, _)| id.clone())
    }

    pub(crate) fn is_shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }

    /// Takes a stream slot of `id`; `false` when its limit is reached.
    pub(crate) fn claim_stream(self: &Arc<Self>, id: &SessionId) -> bool {
        let max = self.config.max_streams_per_session;
        let mut open = lock(&self.open_streams);
        if let Some(count) = open.get_mut(id) {
            if *count >= max {
                return false;
            }
            *count += 1;
            return true;
        }
        if max == 0 {
            return false;
        }
        open.insert(id.clone(), 1);
        drop(open);
        // The sweep drops the counts back at zero (this instance may serve
        // only sessions started elsewhere, and start no sweeper otherwise).
        self.start_sweeper();
        true
    }

    pub(crate) fn release_stream(&self, id: &SessionId) {
        if let Some(count) = lock(&self.open_streams).get_mut(id) {
            *count = count.saturating_sub(1);
        }
    }

    pub(crate) fn add_local_session(self: &Arc<Self>, id: &SessionId) {
        lock(&self.local_sessions).insert(id.clone(), None);
        self.start_sweeper();
    }

    /// Keeps the runtime of local session `id` for the POST fast path,
    /// unless the session ended meanwhile.
    pub(crate) fn set_local_runtime(&self, id: &SessionId, runtime: Weak<LocalRuntime>) {
        if let Some(slot) = lock(&self.local_sessions).get_mut(id) {
            *slot = Some(runtime);
        }
    }

    /// Ends a session everywhere: its record, its runtime's inbox, its
    /// connections and its event log. Idempotent.
    pub(crate) async fn end_session(&self, id: &SessionId) {
        if let Err(error) = self.config.sessions.remove(id).await {
            tracing::warn!(%error, "could not remove a session record");
        }
        self.release_session(id).await;
    }

    /// Frees what an ended session held (its record is already gone).
    pub(crate) async fn release_session(&self, id: &SessionId) {
        if let Err(error) = self.config.bus.close(id).await {
            tracing::warn!(%error, "could not close a session on the message bus");
        }
        if let Err(error) = self.config.events.remove_session(id).await {
            tracing::warn!(%error, "could not drop a session's events");
        }
        let mut local = lock(&self.local_sessions);
        local.remove(id);
        // `mcpwire_store::shrink_sparse`'s rule, for a hashbrown table.
        if let Some(capacity) = mcpwire_store::sparse_shrink(local.len(), local.capacity()) {
            local.shrink_to(capacity);
        }
    }

    /// Expires idle sessions. Sessions with a connection open here are
    /// busy, not idle: their records are refreshed first. Sessions whose
    /// runtime runs here and whose record is gone (expired in a store with
    /// native TTLs, or removed by another instance) are freed too.
    pub(crate) async fn sweep(&self) {
        let config = &self.config;
        let busy: Vec<SessionId> = {
            let mut open = lock(&self.open_streams);
            open.retain(|_, count| *count > 0);
            mcpwire_store::shrink_sparse(&mut open);
            open.keys().cloned().collect()
        };
        for id in &busy {
            let _ = config.sessions.touch(id, config.idle_timeout).await;
        }
        match config.sessions.take_expired().await {
            Ok(expired) => {
                for id in expired {
                    tracing::debug!(session = ?id, "session expired");
                    self.release_session(&id).await;
                }
            }
            Err(error) => tracing::warn!(%error, "could not sweep expired sessions"),
        }
        let local: Vec<SessionId> = lock(&self.local_sessions).keys().cloned().collect();
        for id in local {
            if let Ok(None) = config.sessions.get(&id).await {
                self.end_session(&id).await;
            }
        }
    }

    fn start_sweeper(self: &Arc<Self>) {
        if self.sweeper_started.swap(true, Ordering::SeqCst) {
            return;
        }
        let shared = Arc::downgrade(self);
        let every = self.config.effective_sweep_interval();
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(every);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                // Stops once the service and every session are gone.
                let Some(shared) = shared.upgrade() else {
                    break;
                };
                shared.sweep().await;
            }
        });
    }
}

/// What the server holds, for monitoring and leak tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Session records in the session store (expired ones count until
    /// the sweep frees them).
    pub sessions: usize,
    /// Events retained for resumption in the event store.
    pub buffered_events: usize,
    /// Open response streams on this instance (in-flight request POSTs
    /// and GET streams).
    pub open_streams: usize,
    /// Sessions whose runtime runs in this process.
    pub local_sessions: usize,
    /// Transports not yet dropped by their runtimes.
    pub live_transports: usize,
}

/// The MCP Streamable HTTP endpoint, serving both protocol eras.
///
/// A `tower::Service<http::Request<B>>` answering POST, GET and DELETE on
/// whatever path it is mounted (it does not look at the path): mount it
/// with axum's `Router::route_service("/mcp", service)`, or serve it with
/// [`serve`](super::serve()). Each new session, and each stateless request,
/// reaches the connect hook as a [`SessionTransport`] for a runtime to
/// serve. Clones share everything.
#[derive(Clone)]
pub struct StreamableHttp {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for StreamableHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamableHttp")
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

impl StreamableHttp {
    /// A server with `config`, handing every new session and stateless
    /// request to `on_connect`, typically to spawn a runtime:
    /// `move |transport| { tokio::spawn(server.clone().serve(transport)); }`.
    pub fn new<F>(config: Config, on_connect: F) -> Self
    where
        F: Fn(SessionTransport) + Send + Sync + 'static,
    {
        Self::with_hook(config, ConnectHook::Start(Box::new(on_connect)))
    }

    /// A server with `config` that runs each session's runtime itself:
    /// `runtime` receives every new session and stateless request and
    /// returns the future that serves it; with `mcpwire-server`,
    /// `move |transport| server.run_session(transport)` (an `async` block
    /// awaiting a future it captured would hold that future twice for the
    /// session's life).
    ///
    /// A stateless request's future is spawned. A session's is kept by the
    /// server, with a small task of its own that polls it when it is woken;
    /// a POST that brings a message to an idle session polls it right on
    /// the POST's own task instead, with the session task's waker, and
    /// finds its answer at once when the runtime answered within that
    /// poll: no hand-off between tasks. When the session is busy (its task
    /// or another POST polls it) the POST leaves its message in the
    /// session's inbox as [`new`](Self::new)'s server does. Sessions that
    /// live on another instance (a shared message bus) are unaffected.
    ///
    /// The runtime should answer a request that finishes in its first poll
    /// within that poll and spawn whatever waits for long (as
    /// `mcpwire-server` does): what it computes inline, it computes on the
    /// POST's task.
    pub fn with_runtime<F, R>(config: Config, runtime: F) -> Self
    where
        F: Fn(SessionTransport) -> R + Send + Sync + 'static,
        R: Future<Output = ()> + Send + 'static,
    {
        let run = move |transport| -> RuntimeFuture { Box::pin(runtime(transport)) };
        Self::with_hook(config, ConnectHook::Run(Box::new(run)))
    }

    fn with_hook(config: Config, on_connect: ConnectHook) -> Self {
        let (shutdown, _) = watch::channel(false);
        let beat = config.keep_alive.map(Beat::new);
        Self {
            shared: Arc::new(Shared {
                config,
                on_connect,
                open_streams: Mutex::default(),
                local_sessions: Mutex::default(),
                counters: Counters::default(),
                shutdown,
                sweeper_started: AtomicBool::new(false),
                beat,
            }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// What the server holds right now.
    pub async fn stats(&self) -> Stats {
        let config = &self.shared.config;
        Stats {
            sessions: config.sessions.count().await.unwrap_or_default(),
            buffered_events: config.events.count().await.unwrap_or_default(),
            open_streams: self.shared.counters.open_streams.load(Ordering::Relaxed),
            local_sessions: lock(&self.shared.local_sessions).len(),
            live_transports: self.shared.counters.transports.load(Ordering::Relaxed),
        }
    }

    /// Expires idle sessions now (a background task also does it
    /// periodically once the first session exists).
    pub async fn sweep(&self) {
        self.shared.sweep().await;
    }

    /// Begins a graceful shutdown: standalone GET streams end, new
    /// sessions and GET streams are refused with 503, and requests in
    /// flight go on until answered.
    pub fn shutdown(&self) {
        self.shared.shutdown.send_replace(true);
    }

    /// Ends every session whose runtime runs in this process.
    pub async fn close_sessions(&self) {
        let ids: Vec<SessionId> = lock(&self.shared.local_sessions).keys().cloned().collect();
        for id in ids {
            self.shared.end_session(&id).await;
        }
    }

    /// Answers one HTTP request.
    pub async fn handle<B>(&self, request: Request<B>) -> HttpResponse
    where
        B: SendBody,
    {
        match self.dispatch(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    /// The future answering `request`, chosen before anything is awaited:
    /// the POST's future is boxed as it is, with no enclosing future whose
    /// state would copy it at each poll, and the rare GET and DELETE do
    /// not make it larger.
    fn dispatch<B>(&self, request: Request<B>) -> ResponseFuture
    where
        B: SendBody,
    {
        let (parts, body) = request.into_parts();
        let config = &self.shared.config;
        if let Err(rejection) =
            security::check_host_and_origin(&parts, &config.hosts, &config.origins)
        {
            return answered(rejection.to_response());
        }
        let shared = self.shared.clone();
        match parts.method {
            // Boxed once per POST: `post::handle` keeps a session's POST
            // within the allocator's per-thread cache (see its test below).
            Method::POST => Box::pin(post::handle(shared, parts, body).map(Ok)),
            Method::GET => Box::pin(async move { Ok(get::handle_get(&shared, &parts).await) }),
            Method::DELETE => {
                Box::pin(async move { Ok(get::handle_delete(&shared, &parts).await) })
            }
            _ => answered(method_not_allowed("GET, POST, DELETE")),
        }
    }
}

/// A future answering at once with `response`.
fn answered(response: HttpResponse) -> ResponseFuture {
    Box::pin(core::future::ready(Ok(response)))
}

impl<B> tower_service::Service<Request<B>> for StreamableHttp
where
    B: SendBody,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> ResponseFuture {
        self.dispatch(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// glibc serves chunks of up to 1,032 bytes from a per-thread cache
    /// (tcache), a few dozen instructions; a larger one goes through its
    /// bins, several hundred more for the allocation and its free. hyper
    /// boxes the future of every POST: a session's must stay under.
    #[test]
    fn a_session_posts_boxed_future_fits_the_allocators_thread_cache() {
        fn boxed_size<F, R>(_: &F) -> usize
        where
            F: FnOnce(Arc<Shared>, http::request::Parts, hyper::body::Incoming) -> R,
        {
            size_of::<R>()
        }
        let post = |shared, parts, body| post::handle(shared, parts, body).map(Ok::<_, Infallible>);
        let size = boxed_size(&post);
        assert!(size <= 1032, "a session's POST future is {size} bytes");
    }

    #[test]
    fn a_session_id_is_found_by_its_text_and_only_by_its_text() {
        let long = SessionId::generate().unwrap();
        let short = SessionId::parse("abc").unwrap();
        // Same first and last eight bytes and length as `long`: it hashes
        // alike, and must still miss.
        let text = long.as_str();
        let twin = format!(
            "{}{}{}",
            &text[..8],
            "x".repeat(text.len() - 16),
            &text[text.len() - 8..]
        );
        let mut table = LocalSessions::default();
        table.insert(long.clone(), None);
        table.insert(short.clone(), None);
        let found = |text: &str| table.get_key_value(&IdText(text)).map(|(id, _)| id.clone());
        assert_eq!(found(long.as_str()), Some(long.clone()));
        assert_eq!(found("abc"), Some(short));
        assert_eq!(found(&twin), None);
        assert_eq!(found("abd"), None);
        assert_eq!(found(""), None);
    }

    #[tokio::test]
    async fn stream_slots_are_bounded_per_session_and_freed_counts_go_at_the_sweep() {
        let config = Config::default().max_streams_per_session(2);
        let service = StreamableHttp::new(config, |_| {});
        let shared = &service.shared;
        let (a, b) = (
            SessionId::parse("a").unwrap(),
            SessionId::parse("b").unwrap(),
        );
        assert!(shared.claim_stream(&a) && shared.claim_stream(&a));
        assert!(!shared.claim_stream(&a), "a third stream of one session");
        assert!(
            shared.claim_stream(&b),
            "another session's limit is its own"
        );
        shared.release_stream(&a);
        assert!(shared.claim_stream(&a), "a released slot is taken again");
        for id in [&a, &a, &b] {
            shared.release_stream(id);
        }
        // A stream slot released more often than claimed frees nothing more.
        shared.release_stream(&b);
        assert_eq!(lock(&shared.open_streams).len(), 2);
        service.sweep().await;
        assert!(lock(&shared.open_streams).is_empty());
        assert!(shared.claim_stream(&a) && shared.claim_stream(&a));
        assert!(!shared.claim_stream(&a));
    }
}
