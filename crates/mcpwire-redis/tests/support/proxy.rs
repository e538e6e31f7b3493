//! A round-robin HTTP reverse proxy on 127.0.0.1 for the multi-instance
//! tests: every request (not every TCP connection) goes to the next
//! backend, over a fresh connection, so consecutive requests of one client
//! land on different instances; a backend that refuses connections (a
//! killed instance) is skipped. Response bodies stream through, so SSE
//! works, and a backend dying mid-stream breaks the client's stream.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

type Body = BoxBody<Bytes, hyper::Error>;

/// One forwarded request: which backend served it.
#[derive(Clone, Debug)]
pub struct Routed {
    pub backend: usize,
    pub method: Method,
    /// The JSON-RPC method of a POST of one message.
    pub rpc_method: Option<String>,
    pub status: StatusCode,
}

struct State {
    backends: Vec<SocketAddr>,
    next: AtomicUsize,
    /// POSTs of this JSON-RPC method go to this backend first.
    pinned: Mutex<Option<(String, usize)>>,
    log: Mutex<Vec<Routed>>,
}

/// The running proxy; stops accepting when dropped.
pub struct Proxy {
    pub url: String,
    state: Arc<State>,
    accept: JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl Proxy {
    /// Starts a proxy in front of `backends`.
    pub async fn start(backends: Vec<SocketAddr>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let state = Arc::new(State {
            backends,
            next: AtomicUsize::new(0),
            pinned: Mutex::new(None),
            log: Mutex::new(Vec::new()),
        });
        let accept_state = Arc::clone(&state);
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&accept_state);
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
        });
        Self { url, state, accept }
    }

    /// Every request forwarded so far.
    pub fn log(&self) -> Vec<Routed> {
        self.state.log.lock().unwrap().clone()
    }

    /// Sends POSTs of the JSON-RPC method `rpc_method` to `backend` (if
    /// it is up) rather than the next in turn.
    pub fn pin(&self, rpc_method: &str, backend: usize) {
        *self.state.pinned.lock().unwrap() = Some((rpc_method.to_owned(), backend));
    }
}

fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Empty::new().map_err(|never| match never {}).boxed());
    *response.status_mut() = status;
    response
}

async fn forward(state: &State, request: Request<Incoming>) -> Response<Body> {
    let count = state.backends.len();
    let method = request.method().clone();
    let (parts, body) = request.into_parts();
    let Ok(body) = body
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
    else {
        return empty(StatusCode::BAD_REQUEST);
    };
    let rpc_method = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|json| json["method"].as_str().map(str::to_owned));
    let pinned = state
        .pinned
        .lock()
        .unwrap()
        .clone()
        .filter(|(pinned, _)| rpc_method.as_deref() == Some(pinned.as_str()))
        .map(|(_, backend)| backend);
    for round in 0..count {
        let backend = match pinned {
            Some(backend) if round == 0 => backend,
            _ => state.next.fetch_add(1, Ordering::SeqCst) % count,
        };
        let Ok(stream) = TcpStream::connect(state.backends[backend]).await else {
            continue;
        };
        let Ok((mut sender, connection)) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await
        else {
            continue;
        };
        tokio::spawn(connection);
        let request = Request::from_parts(parts.clone(), Full::new(body.clone()));
        let Ok(response) = sender.send_request(request).await else {
            return empty(StatusCode::BAD_GATEWAY);
        };
        state.log.lock().unwrap().push(Routed {
            backend,
            method,
            rpc_method,
            status: response.status(),
        });
        return response.map(BodyExt::boxed);
    }
    empty(StatusCode::BAD_GATEWAY)
}
