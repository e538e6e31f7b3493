//! `LegacySse`, the two legacy endpoints as a `tower::Service`: routing by
//! path and method, and the state shared by its clones.

use core::convert::Infallible;
use core::future::Future;
use core::task::{Context, Poll};
use std::sync::Arc;

use http::{Method, Request, StatusCode};
use mcpwire_http::server::body::{SendBody, method_not_allowed};
use mcpwire_http::server::security::check_host_and_origin;
use mcpwire_http::server::{Drain, HttpResponse, ResponseFuture};

use super::config::Config;
use super::endpoints::{self, refusal};
use super::session::Registry;
use super::transport::LegacyTransport;

/// The hook that receives each new session.
type ConnectHook = dyn Fn(LegacyTransport) + Send + Sync;

/// State shared by every clone of the service.
pub(crate) struct Shared {
    pub(crate) config: Config,
    on_connect: Box<ConnectHook>,
    pub(crate) registry: Arc<Registry>,
}

impl Shared {
    pub(crate) fn connect(&self, transport: LegacyTransport) {
        (self.on_connect)(transport);
    }
}

/// The legacy HTTP+SSE endpoints of revision 2024-11-05 (LEG-03).
///
/// A `tower::Service<http::Request<B>>` that answers two paths (see
/// [`Config::sse_path`] and [`Config::message_path`]) and 404 to any
/// other, so that it can sit next to the Streamable HTTP endpoint on the
/// same listener (LEG-07): route those two paths to it, for example with
/// [`LegacySse::beside`] or axum's `route_service`. Each GET of the SSE
/// path is a new session, handed to the connect hook as a
/// [`LegacyTransport`]. Clones share everything.
#[derive(Clone)]
pub struct LegacySse {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for LegacySse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegacySse")
            .field("config", &self.shared.config)
            .field("sessions", &self.shared.registry.len())
            .finish_non_exhaustive()
    }
}

impl LegacySse {
    /// A server with `config`, handing every new session to `on_connect`,
    /// typically to spawn a runtime:
    /// `move |transport| { tokio::spawn(server.clone().serve(transport)); }`.
    pub fn new<F>(config: Config, on_connect: F) -> Self
    where
        F: Fn(LegacyTransport) + Send + Sync + 'static,
    {
        Self {
            shared: Arc::new(Shared {
                config,
                on_connect: Box::new(on_connect),
                registry: Arc::default(),
            }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// How many sessions are live.
    pub fn session_count(&self) -> usize {
        self.shared.registry.len()
    }

    /// Ends every session: their streams end and their runtimes' `recv`
    /// returns `None`. Call it on shutdown, since SSE streams would
    /// otherwise keep their connections open.
    pub fn close_sessions(&self) {
        self.shared.registry.end_all();
    }

    /// Whether `path` is one of the two paths this service answers.
    pub fn handles_path(&self, path: &str) -> bool {
        let config = &self.shared.config;
        path == config.sse_path || path == config.message_path
    }

    /// Answers one HTTP request.
    pub async fn handle<B>(&self, request: Request<B>) -> HttpResponse
    where
        B: SendBody,
    {
        let (parts, body) = request.into_parts();
        let config = &self.shared.config;
        let path = parts.uri.path();
        let (sse, message) = (path == config.sse_path, path == config.message_path);
        if !sse && !message {
            return refusal(StatusCode::NOT_FOUND, "no legacy MCP endpoint at this path");
        }
        // The checks and policies of the Streamable HTTP endpoint, so that
        // both endpoints of one server are configured alike (LEG-01).
        if let Err(rejection) = check_host_and_origin(&parts, &config.hosts, &config.origins) {
            return rejection.to_response();
        }
        match parts.method {
            Method::GET if sse => endpoints::open_session(&self.shared),
            Method::POST if message => endpoints::deliver(&self.shared, &parts, body).await,
            _ if sse && message => method_not_allowed("GET, POST"),
            _ if sse => method_not_allowed("GET"),
            _ => method_not_allowed("POST"),
        }
    }
}

impl<B> tower_service::Service<Request<B>> for LegacySse
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
        let service = self.clone();
        Box::pin(async move { Ok(service.handle(request).await) })
    }
}

impl Drain for LegacySse {
    /// Ends every session ([`LegacySse::close_sessions`]) as soon as the
    /// shutdown begins: a session's answers travel on its SSE stream,
    /// which would otherwise hold its connection open until the drain
    /// timeout.
    fn begin_drain(&self) {
        self.close_sessions();
    }

    fn drained(&self) -> impl Future<Output = ()> + Send {
        // Sessions opened while connections drained end too.
        self.close_sessions();
        core::future::ready(())
    }
}
