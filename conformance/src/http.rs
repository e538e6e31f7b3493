//! Serving the everything-server over HTTP, the only transport the
//! conformance runner speaks: Streamable HTTP (both eras on one endpoint)
//! beside the legacy HTTP+SSE endpoint of 2024-11-05.
//!
//! The transports are not wired in yet (`mcpwire-http-legacy` does not
//! exist), so [`serve`] reports [`HttpError::Unavailable`] and the binary
//! exits with status 2. Wiring them in is confined to [`serve`]: bind a
//! listener at `address`, pass [`Endpoints::at`] of the bound address to
//! `announce` (the binary prints the two URLs, which `cargo xtask
//! conformance` reads), then serve both endpoints until the process is
//! killed, handing each session's transport to `Server::serve`.

use std::fmt;
use std::net::SocketAddr;

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
    /// This build has no HTTP transport yet (see the module documentation).
    Unavailable,
    /// Binding, announcing or serving failed.
    Io(std::io::Error),
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unavailable => f.write_str(
                "HTTP is not available yet: the HTTP transports are not wired into the \
                 everything-server (conformance/src/http.rs); use --stdio",
            ),
            Self::Io(error) => write!(f, "HTTP serving failed: {error}"),
        }
    }
}

impl std::error::Error for HttpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Unavailable => None,
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
/// [`HttpError::Unavailable`] until the HTTP transport exists; afterwards,
/// failures to bind, announce or serve.
pub async fn serve<F>(server: Server, address: SocketAddr, announce: F) -> Result<(), HttpError>
where
    F: FnOnce(&Endpoints) -> std::io::Result<()>,
{
    // Nothing is bound: announcing URLs nobody answers on would make the
    // runner report every scenario as a connection failure instead of
    // saying what is missing.
    drop((server, address, announce));
    Err(HttpError::Unavailable)
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
