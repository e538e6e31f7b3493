//! Serving the everything-server over HTTP, the only transport the
//! conformance runner speaks: Streamable HTTP (both eras on one endpoint)
//! beside the legacy HTTP+SSE endpoint of 2024-11-05.
//!
//! [`serve`] binds a listener at `address`, passes [`Endpoints::at`] of the
//! bound address to `announce` (the binary prints the two URLs, which
//! `cargo xtask conformance` reads), then serves both endpoints on one axum
//! router until the process is killed, handing each session's transport
//! (and each stateless request's) to `Server::serve`.

use std::fmt;
use std::net::SocketAddr;

use axum::Router;
use mcpwire_http::server::{Config, StreamableHttp};
use mcpwire_http_legacy::server::{Config as LegacyConfig, LegacySse};
use mcpwire_server::Server;

/// The path of the Streamable HTTP endpoint.
pub const STREAMABLE_PATH: &str = "/mcp";

/// The path of the legacy endpoint's SSE stream (2024-11-05).
pub const LEGACY_PATH: &str = "/sse";

/// The URLs an HTTP everything-server answers on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    /// The Streamable HTTP endpoint, e.g. `http://127.0.0.1:4321/mcp`.
    pub streamable: String,
    /// The legacy HTTP+SSE endpoint (its event stream), e.g.
    /// `http://127.0.0.1:4321/sse`.
    pub legacy: String,
}

impl Endpoints {
    /// The endpoints of a server listening on `address` (an unspecified
    /// port must already be resolved: pass the listener's local address).
    pub fn at(address: SocketAddr) -> Self {
        Self {
            streamable: format!("http://{address}{STREAMABLE_PATH}"),
            legacy: format!("http://{address}{LEGACY_PATH}"),
        }
    }
}

/// Why serving over HTTP stopped or never started.
#[derive(Debug)]
#[non_exhaustive]
pub enum HttpError {
    /// Binding, announcing or serving failed.
    Io(std::io::Error),
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(error) => write!(f, "HTTP serving failed: {error}"),
        }
    }
}

impl std::error::Error for HttpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(error) => Some(error),
        }
    }
}

impl From<std::io::Error> for HttpError {
    fn from(error: std::io::Error) -> Self {
        Self::Io(error)
    }
}

/// Serves `server` over HTTP on `address` until the process ends, calling
/// `announce` with the endpoints once the listener is bound.
///
/// # Errors
///
/// Failures to bind, announce or serve.
pub async fn serve<F>(server: Server, address: SocketAddr, announce: F) -> Result<(), HttpError>
where
    F: FnOnce(&Endpoints) -> std::io::Result<()>,
{
    serve_with(server, Config::default(), address, announce).await
}

/// Like [`serve`], with `config` for the Streamable HTTP endpoint (its
/// stores, for instance; the legacy endpoint keeps its defaults).
///
/// # Errors
///
/// Failures to bind, announce or serve.
pub async fn serve_with<F>(
    server: Server,
    config: Config,
    address: SocketAddr,
    announce: F,
) -> Result<(), HttpError>
where
    F: FnOnce(&Endpoints) -> std::io::Result<()>,
{
    let listener = tokio::net::TcpListener::bind(address).await?;
    announce(&Endpoints::at(listener.local_addr()?))?;
    // Every instance of a scaled-out deployment checks `Mcp-Param-*`
    // headers against its own catalog, not against the tools/list results
    // it happened to serve.
    let config = config.param_headers(std::sync::Arc::new(mcpwire::CatalogParamHeaders::new(
        server.clone(),
    )));
    // The service runs each session's runtime, as the facade's
    // `into_http_service` does: POSTs to idle sessions take the fast path.
    let runner = server.clone();
    let streamable =
        StreamableHttp::with_runtime(config, move |transport| runner.run_session(transport));
    let legacy = LegacySse::new(LegacyConfig::default(), spawner(server));
    let app = Router::new()
        .route_service(STREAMABLE_PATH, streamable)
        .route_service(LEGACY_PATH, legacy.clone())
        .route_service("/message", legacy);
    axum::serve(listener, app).await?;
    Ok(())
}

/// A connect hook serving each new transport with `server` in a task of its own.
fn spawner<T>(server: Server) -> impl Fn(T) + Send + Sync + Clone + 'static
where
    T: mcpwire_jsonrpc::Transport,
{
    move |transport| {
        let server = server.clone();
        tokio::spawn(async move {
            if let Err(error) = server.serve(transport).await {
                tracing::debug!(%error, "a session ended with an error");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_name_the_bound_address_and_paths() {
        let endpoints = Endpoints::at("127.0.0.1:4321".parse().unwrap());
        assert_eq!(endpoints.streamable, "http://127.0.0.1:4321/mcp");
        assert_eq!(endpoints.legacy, "http://127.0.0.1:4321/sse");
    }

    #[test]
    fn ipv6_endpoints_bracket_the_address() {
        let endpoints = Endpoints::at("[::1]:80".parse().unwrap());
        assert_eq!(endpoints.streamable, "http://[::1]:80/mcp");
    }
}
