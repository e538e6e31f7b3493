//! Hosting in one call: a [`Server`](mcpwire_server::Server) served over
//! stdio, or turned into the tower service of Streamable HTTP (or of the
//! legacy HTTP+SSE transport) for axum or hyper. Runtimes and transports
//! may not depend on each other, so the glue lives here, where they meet.

#[cfg(feature = "http")]
use mcpwire_http::server::{Config, StreamableHttp};
#[cfg(feature = "http-legacy")]
use mcpwire_http_legacy::server::{Config as LegacyConfig, LegacySse};
use mcpwire_server::Server;

mod sealed {
    pub trait Sealed {}
    impl Sealed for mcpwire_server::Server {}
}

/// One-call hosting for a [`Server`] (bring it in with `use mcpwire::prelude::*`).
///
/// Its methods exist with the transport features they use: `serve_stdio`
/// and `run_stdio` with `stdio`, `into_http_service` with `http`, `into_legacy_sse_service`
/// with `http-legacy`.
pub trait Host: sealed::Sealed {
    /// Serves this server on the process's own stdin and stdout until the
    /// client closes stdin (only protocol messages may reach stdout: log to
    /// stderr).
    ///
    /// On a multi-threaded runtime the session runs on a task of its own
    /// (dropping this future stops it): `#[tokio::main]` polls its `main`
    /// on a thread that is not one of the runtime's workers, and a session
    /// served there would be handed every message by the worker that read
    /// it (about 1.4 times the CPU per call with one call in flight,
    /// measured in `docs/performance.md`).
    #[cfg(feature = "stdio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
    fn serve_stdio(
        &self,
    ) -> impl Future<Output = Result<(), mcpwire_server::ServeError>> + Send + '_;

    /// The whole `main` of a stdio server: serves this server on stdin and
    /// stdout on a runtime of its own until the client closes stdin, with
    /// no `#[tokio::main]` and no tokio dependency of yours.
    ///
    /// ```no_run
    /// use mcpwire::prelude::*;
    ///
    /// fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     Server::builder("hello", "1.0.0")
    ///         .typed_tool(Tool::named("hi"), |_ctx: Context, _: serde_json::Value| async {
    ///             Ok::<_, HandlerError>("hi".to_owned())
    ///         })
    ///         .build()?
    ///         .run_stdio()?;
    ///     Ok(())
    /// }
    /// ```
    ///
    /// The runtime is tokio's current-thread one. A stdio server answers one
    /// client, and one thread answers it sooner and with less CPU than a
    /// pool of workers waking each other for every message (measured in
    /// `docs/performance.md`, rows `mcpwire` against `mcpwire
    /// multi-thread`). Handlers may still `tokio::spawn` and
    /// `spawn_blocking`; a handler that computes for long holds the one
    /// thread, so give such work to `spawn_blocking`.
    ///
    /// # Errors
    ///
    /// [`ServeError::Runtime`](mcpwire_server::ServeError::Runtime) when
    /// called within a tokio runtime (`.serve_stdio().await` is the way
    /// there) or when the runtime cannot be built; otherwise as
    /// [`serve_stdio`](Self::serve_stdio).
    #[cfg(feature = "stdio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
    fn run_stdio(&self) -> Result<(), mcpwire_server::ServeError>;

    /// The Streamable HTTP endpoint of this server as a
    /// `tower::Service<http::Request<_>>` whose `Mcp-Param-*` header checks
    /// (2026-07-28) read this server's own catalog ([`CatalogParamHeaders`],
    /// replacing any source set on `config`): mount it with axum's
    /// `Router::route_service("/mcp", ...)` or serve it with
    /// [`mcpwire_http::server::serve`]. Each stateless request is served
    /// on a task of its own; each session's runtime is held by the service
    /// ([`StreamableHttp::with_runtime`]), polled by a task of its own or,
    /// when it is idle, by the POST that brings it a message.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    fn into_http_service(self, config: Config) -> StreamableHttp;

    /// The legacy HTTP+SSE endpoints (2024-11-05) of this server as a
    /// tower service: route its SSE path (`/sse`) and message path
    /// (`/message`) to it.
    #[cfg(feature = "http-legacy")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http-legacy")))]
    fn into_legacy_sse_service(self, config: LegacyConfig) -> LegacySse;
}

impl Host for Server {
    #[cfg(feature = "stdio")]
    // An `async fn`: stdin and stdout are opened at the first poll, within
    // the runtime that polls. Opened outside one (a future made before
    // `block_on`) they could not be registered with its reactor and would
    // be read and written on blocking threads, a hand-off per message.
    async fn serve_stdio(&self) -> Result<(), mcpwire_server::ServeError> {
        use tokio::runtime::{Handle, RuntimeFlavor};
        let in_place = match Handle::try_current() {
            // A current-thread runtime polls this future on its one
            // thread: a task of its own would only add its scheduling.
            Ok(handle) => handle.runtime_flavor() == RuntimeFlavor::CurrentThread,
            // Outside any runtime nothing can be spawned: served (and
            // failing) as before.
            Err(_) => true,
        };
        if in_place {
            return self.serve(mcpwire_stdio::stdio()).await;
        }
        let server = self.clone();
        let mut serving = AbortOnDrop(tokio::spawn(async move {
            server.serve(mcpwire_stdio::stdio()).await
        }));
        match (&mut serving.0).await {
            Ok(served) => served,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => Err(mcpwire_server::ServeError::Runtime(std::io::Error::other(
                error,
            ))),
        }
    }

    #[cfg(feature = "stdio")]
    fn run_stdio(&self) -> Result<(), mcpwire_server::ServeError> {
        use mcpwire_server::ServeError;
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(ServeError::Runtime(std::io::Error::other(
                "run_stdio was called within a tokio runtime: use `serve_stdio().await` there",
            )));
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(ServeError::Runtime)?;
        let served = runtime.block_on(self.serve_stdio());
        // When stdin is not a pipe (a terminal, a file) tokio reads it on a
        // blocking thread that cannot be interrupted: do not wait for it
        // longer than a moment that lets finishing blocking work end.
        runtime.shutdown_timeout(std::time::Duration::from_millis(100));
        served
    }

    #[cfg(feature = "http")]
    fn into_http_service(self, config: Config) -> StreamableHttp {
        let config =
            config.param_headers(std::sync::Arc::new(CatalogParamHeaders::new(self.clone())));
        // The service runs each session's runtime: a POST to an idle
        // session is answered on the POST's own task (the fast path).
        StreamableHttp::with_runtime(config, move |transport| self.run_session(transport))
    }

    #[cfg(feature = "http-legacy")]
    fn into_legacy_sse_service(self, config: LegacyConfig) -> LegacySse {
        LegacySse::new(config, move |transport| self.spawn_session(transport))
    }
}

/// A task stopped when its handle is dropped: the stdio session of a
/// [`Host::serve_stdio`] future that was dropped.
#[cfg(feature = "stdio")]
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

#[cfg(feature = "stdio")]
impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The `x-mcp-header` parameters of a server's tools, read from its own
/// catalog when a `tools/call` arrives (2026-07-28 `Mcp-Param-*` checks).
///
/// The HTTP transport's default learns them from the `tools/list` results
/// it sends, which is not enough when several instances share sessions
/// behind a load balancer: a call may reach an instance that never listed
/// its tools. Reading the catalog, every instance knows every tool it
/// offers, including tools added or removed at run time.
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
#[derive(Debug, Clone)]
pub struct CatalogParamHeaders {
    server: Server,
}

#[cfg(feature = "http")]
impl CatalogParamHeaders {
    /// The parameters of `server`'s tools.
    pub fn new(server: Server) -> Self {
        Self { server }
    }
}

#[cfg(feature = "http")]
impl mcpwire_http::server::ToolParamHeaders for CatalogParamHeaders {
    fn lookup(&self, tool: &str) -> Option<std::sync::Arc<[mcpwire_http::server::ParamHeader]>> {
        // Most tools annotate nothing: answer `None` (nothing to check)
        // rather than allocate an empty list on every call.
        self.server
            .with_tool(tool, |tool| {
                mcpwire_http::server::object_param_headers(&tool.input_schema)
            })
            .filter(|headers| !headers.is_empty())
            .map(Into::into)
    }
}

#[cfg(all(test, feature = "stdio"))]
mod tests {
    use super::Host as _;
    use mcpwire_server::{ServeError, Server};

    /// `run_stdio` builds a runtime of its own; within one, tokio would
    /// panic on the nested `block_on`, so it answers with an error instead
    /// (and never touches the test process's stdin).
    #[tokio::test]
    async fn run_stdio_within_a_runtime_is_an_error_not_a_panic() {
        let server = Server::builder("nested", "1.0.0")
            .build()
            .expect("an empty server builds");
        let refused = server.run_stdio();
        assert!(
            matches!(&refused, Err(ServeError::Runtime(error)) if error.to_string().contains("serve_stdio")),
            "{refused:?}"
        );
    }
}
