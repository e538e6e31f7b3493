//! A round-robin HTTP/1.1 reverse proxy on loopback: every request (not
//! every client connection) goes to the next backend in turn, so that
//! consecutive requests of one MCP session land on different server
//! instances, as behind a load balancer without sticky sessions.
//!
//! Request bodies are read whole before forwarding (MCP POSTs are small),
//! so a backend that refuses connections (a killed instance) is skipped and
//! the request goes to the next one, and the JSON-RPC method of a POST can
//! be logged and pinned. Response bodies stream through event by event, so
//! SSE works and a backend dying mid-stream breaks the client's stream.
//! Hop-by-hop headers are dropped both ways (RFC 9110 section 7.6.1), `Host`
//! names the backend, and connections to the backends are kept alive and
//! reused. When no backend can be reached the answer is 502.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use http::header::{self, HeaderName, HeaderValue};
use http::uri::{PathAndQuery, Scheme};
use http::{Method, Request, Response, StatusCode, Uri};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The body of a proxied response.
pub type ProxyBody = BoxBody<Bytes, hyper::Error>;

/// How many forwarded requests [`RoundRobinProxy::log`] keeps (the oldest
/// are dropped first), so that a long run holds bounded memory.
pub const LOG_LIMIT: usize = 4_096;

/// The headers that belong to one connection, never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
];

/// One forwarded request and the backend that served it.
#[derive(Clone, Debug)]
pub struct Routed {
    /// The backend's index in the list the proxy was started with.
    pub backend: usize,
    /// The HTTP method.
    pub method: Method,
    /// The JSON-RPC method of a POST of one message.
    pub rpc_method: Option<String>,
    /// The backend's status code.
    pub status: StatusCode,
}

/// What the proxy's connections share.
struct State {
    backends: Vec<SocketAddr>,
    next: AtomicUsize,
    client: Client<HttpConnector, Full<Bytes>>,
    /// POSTs of this JSON-RPC method go to this backend first.
    pinned: Mutex<Option<(String, usize)>>,
    log: Mutex<VecDeque<Routed>>,
    /// Whether each request is traced on stderr.
    trace: bool,
}

/// Locks `mutex`; a panic elsewhere while it was held leaves plain data
/// behind, still usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running proxy; it stops accepting connections when dropped.
#[derive(Debug)]
pub struct RoundRobinProxy {
    address: SocketAddr,
    state: Arc<State>,
    accept: JoinHandle<()>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("backends", &self.backends)
            .finish_non_exhaustive()
    }
}

impl Drop for RoundRobinProxy {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl RoundRobinProxy {
    /// Starts a proxy on `listen` in front of `backends`, on the current
    /// tokio runtime.
    ///
    /// # Errors
    ///
    /// When `backends` is empty or `listen` cannot be bound.
    pub async fn start(listen: SocketAddr, backends: Vec<SocketAddr>) -> std::io::Result<Self> {
        Self::start_with(listen, backends, false).await
    }

    /// As [`start`](Self::start), tracing each request on stderr with the
    /// backend that served it (numbered from 1), so that a failure can be
    /// traced to an instance.
    ///
    /// # Errors
    ///
    /// As [`start`](Self::start).
    pub async fn start_traced(
        listen: SocketAddr,
        backends: Vec<SocketAddr>,
    ) -> std::io::Result<Self> {
        Self::start_with(listen, backends, true).await
    }

    async fn start_with(
        listen: SocketAddr,
        backends: Vec<SocketAddr>,
        trace: bool,
    ) -> std::io::Result<Self> {
        if backends.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a proxy needs at least one backend",
            ));
        }
        let listener = TcpListener::bind(listen).await?;
        let address = listener.local_addr()?;
        let state = Arc::new(State {
            backends,
            next: AtomicUsize::new(0),
            client: Client::builder(TokioExecutor::new()).build(backend_connector()),
            pinned: Mutex::new(None),
            log: Mutex::new(VecDeque::new()),
            trace,
        });
        let accept = tokio::spawn(accept_loop(listener, Arc::clone(&state)));
        Ok(Self {
            address,
            state,
            accept,
        })
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// `http://ADDRESS` followed by `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// The last [`LOG_LIMIT`] requests forwarded, oldest first.
    pub fn log(&self) -> Vec<Routed> {
        lock(&self.state.log).iter().cloned().collect()
    }

    /// Sends POSTs of the JSON-RPC method `rpc_method` to `backend` (when
    /// it is up) rather than the next in turn.
    pub fn pin(&self, rpc_method: &str, backend: usize) {
        *lock(&self.state.pinned) = Some((rpc_method.to_owned(), backend));
    }
}

/// The connector to the backends, with Nagle's algorithm off: a response
/// streamed event by event would otherwise wait for the ACK of its
/// previous write, which a peer delays by up to 40 ms.
fn backend_connector() -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector
}

/// Serves client connections until the task is aborted.
async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                // As for the backends: the events of a streamed response
                // go out as they come, not after the previous one's ACK.
                let _ = stream.set_nodelay(true);
                stream
            }
            Err(error) => {
                // Out of file descriptors, say: try again shortly.
                if state.trace {
                    eprintln!("round-robin-proxy: accept failed: {error}");
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let state = Arc::clone(&state);
                async move { Ok::<_, Infallible>(forward(&state, request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// An answer of the proxy's own (no backend took part).
fn own_answer(status: StatusCode, message: &str) -> Response<ProxyBody> {
    let body = Full::new(Bytes::from(format!("{message}\n")))
        .map_err(|never| match never {})
        .boxed();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
}

/// Removes the hop-by-hop headers, including those `Connection` names.
pub fn strip_hop_by_hop(headers: &mut http::HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
}

/// The backends to try for one request, in order: the pinned one first
/// when the request's JSON-RPC method is pinned, then the next in turn.
fn order(state: &State, rpc_method: Option<&str>) -> Vec<usize> {
    let count = state.backends.len();
    let pinned = lock(&state.pinned)
        .clone()
        .filter(|(pinned, backend)| rpc_method == Some(pinned.as_str()) && *backend < count)
        .map(|(_, backend)| backend);
    let first = pinned.unwrap_or_else(|| state.next.fetch_add(1, Ordering::Relaxed) % count);
    (0..count).map(|offset| (first + offset) % count).collect()
}

async fn forward(state: &State, request: Request<Incoming>) -> Response<ProxyBody> {
    let (mut parts, body) = request.into_parts();
    let Ok(body) = body
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
    else {
        return own_answer(
            StatusCode::BAD_REQUEST,
            "the request body could not be read",
        );
    };
    let rpc_method = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|json| json["method"].as_str().map(str::to_owned));
    let path = parts
        .uri
        .path_and_query()
        .cloned()
        .unwrap_or_else(|| PathAndQuery::from_static("/"));
    strip_hop_by_hop(&mut parts.headers);
    for backend in order(state, rpc_method.as_deref()) {
        let Some(address) = state.backends.get(backend) else {
            continue;
        };
        let Ok(uri) = Uri::builder()
            .scheme(Scheme::HTTP)
            .authority(address.to_string())
            .path_and_query(path.clone())
            .build()
        else {
            return own_answer(StatusCode::BAD_REQUEST, "the request cannot be proxied");
        };
        let mut outgoing = Request::from_parts(parts.clone(), Full::new(body.clone()));
        *outgoing.uri_mut() = uri;
        if let Ok(host) = HeaderValue::from_str(&address.to_string()) {
            outgoing.headers_mut().insert(header::HOST, host);
        }
        match state.client.request(outgoing).await {
            Ok(response) => {
                if state.trace {
                    eprintln!(
                        "round-robin-proxy: {} {} -> backend {}: {}",
                        parts.method,
                        path.path(),
                        backend + 1,
                        response.status().as_u16()
                    );
                }
                let mut log = lock(&state.log);
                if log.len() >= LOG_LIMIT {
                    log.pop_front();
                }
                log.push_back(Routed {
                    backend,
                    method: parts.method.clone(),
                    rpc_method: rpc_method.clone(),
                    status: response.status(),
                });
                drop(log);
                let (mut head, body) = response.into_parts();
                strip_hop_by_hop(&mut head.headers);
                return Response::from_parts(head, body.boxed());
            }
            // A backend that is down: the next one takes the request.
            Err(error) if error.is_connect() => continue,
            Err(error) => {
                if state.trace {
                    eprintln!("round-robin-proxy: backend {}: {error}", backend + 1);
                }
                return own_answer(StatusCode::BAD_GATEWAY, "the backend did not answer");
            }
        }
    }
    own_answer(StatusCode::BAD_GATEWAY, "no backend could be reached")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_are_not_forwarded() {
        let mut headers = http::HeaderMap::new();
        headers.insert(
            header::CONNECTION,
            HeaderValue::from_static("keep-alive, x-private"),
        );
        headers.insert("x-private", HeaderValue::from_static("1"));
        headers.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        headers.insert("mcp-session-id", HeaderValue::from_static("abc"));
        strip_hop_by_hop(&mut headers);
        let left: Vec<&str> = headers.keys().map(HeaderName::as_str).collect();
        assert_eq!(left, ["mcp-session-id"]);
    }

    #[tokio::test]
    async fn no_backends_is_refused() {
        let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
        assert!(RoundRobinProxy::start(listen, Vec::new()).await.is_err());
    }
}
