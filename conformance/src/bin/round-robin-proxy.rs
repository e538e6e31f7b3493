//! The round-robin proxy of `cargo xtask conformance scale-out`: an HTTP/1.1
//! reverse proxy on 127.0.0.1 that sends every request (not every client
//! connection) to the next backend in turn, so that consecutive requests
//! of one MCP session land on different server instances, as behind a load
//! balancer without sticky sessions.
//!
//! ```text
//! round-robin-proxy --listen 127.0.0.1:0 --backend URL --backend URL ...
//! ```
//!
//! It prints its own base URL (`http://127.0.0.1:PORT`) on stdout once it
//! listens; a request keeps its path and query and goes to the next
//! backend's address (only the scheme and authority of a backend URL
//! count). Bodies stream both ways without buffering (an SSE response
//! flows event by event, and a client that goes away drops the backend's
//! response too); headers pass through except the hop-by-hop ones, and
//! `Host` names the backend. Connections to the backends are kept alive
//! and reused. A backend that cannot be reached gives 502. Each request is
//! logged on stderr with the backend that served it (numbered from 1 in
//! command-line order), so that a failure can be traced to an instance.

use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use http::header::{self, HeaderName, HeaderValue};
use http::uri::{Authority, PathAndQuery, Scheme};
use http::{Request, Response, StatusCode, Uri};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};

/// What `--help` and usage errors print.
const USAGE: &str = "\
usage: round-robin-proxy --listen ADDRESS --backend URL [--backend URL ...]

--listen   the address to listen on (e.g. 127.0.0.1:0); the proxy prints its
           base URL (http://ADDRESS) on stdout once it listens
--backend  a backend, e.g. http://127.0.0.1:4321/mcp (its scheme and address
           count; requests keep their own path); give it once per backend
";

/// The headers that belong to one connection, never forwarded (RFC 9110
/// section 7.6.1).
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

/// The parsed command line.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    listen: SocketAddr,
    backends: Vec<Authority>,
}

/// Reads the command line (without the program name); `None` for `--help`.
fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut listen = None;
    let mut backends = Vec::new();
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        match flag.as_str() {
            "--help" | "-h" => return Ok(None),
            "--listen" | "--backend" => {
                let Some(value) = rest.next() else {
                    return Err(format!("{flag} needs a value"));
                };
                if flag == "--listen" {
                    let address = value.parse().map_err(|error| {
                        format!("--listen needs an address like 127.0.0.1:0: {error}")
                    })?;
                    listen = Some(address);
                } else {
                    backends.push(backend_authority(value)?);
                }
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    let listen = listen.ok_or("--listen is required")?;
    if backends.is_empty() {
        return Err("give at least one --backend".to_owned());
    }
    Ok(Some(Options { listen, backends }))
}

/// The address of an `http://` backend URL.
fn backend_authority(url: &str) -> Result<Authority, String> {
    let uri: Uri = url
        .parse()
        .map_err(|error| format!("--backend {url:?} is not a URL: {error}"))?;
    if uri.scheme() != Some(&Scheme::HTTP) {
        return Err(format!(
            "--backend {url:?}: only http:// backends are proxied"
        ));
    }
    uri.authority()
        .cloned()
        .ok_or_else(|| format!("--backend {url:?} names no host"))
}

/// The proxy's state, shared by every connection.
struct Proxy {
    backends: Vec<Authority>,
    next: AtomicUsize,
    client: Client<HttpConnector, Incoming>,
}

type ProxyBody = BoxBody<Bytes, hyper::Error>;

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
fn strip_hop_by_hop(headers: &mut http::HeaderMap) {
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

impl Proxy {
    /// The number (from 0) and address of the backend of the next request.
    fn pick(&self) -> (usize, &Authority) {
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        // `backends` is never empty (checked when parsing).
        let number = turn % self.backends.len();
        (number, &self.backends[number])
    }

    async fn forward(&self, request: Request<Incoming>) -> Response<ProxyBody> {
        let (number, backend) = self.pick();
        let backend = backend.clone();
        let session = request
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
            .map_or_else(String::new, |id| {
                format!(" session {}", id.get(..8).unwrap_or(id))
            });
        let line = format!(
            "{} {}{session} -> backend {}",
            request.method(),
            request.uri().path(),
            number + 1
        );
        let (mut parts, body) = request.into_parts();
        let path = parts
            .uri
            .path_and_query()
            .cloned()
            .unwrap_or_else(|| PathAndQuery::from_static("/"));
        let uri = Uri::builder()
            .scheme(Scheme::HTTP)
            .authority(backend.clone())
            .path_and_query(path)
            .build();
        let Ok(uri) = uri else {
            return own_answer(
                StatusCode::BAD_REQUEST,
                "the request target cannot be proxied",
            );
        };
        parts.uri = uri;
        strip_hop_by_hop(&mut parts.headers);
        if let Ok(host) = HeaderValue::from_str(backend.as_str()) {
            parts.headers.insert(header::HOST, host);
        }
        match self.client.request(Request::from_parts(parts, body)).await {
            Ok(response) => {
                eprintln!("round-robin-proxy: {line}: {}", response.status().as_u16());
                let (mut parts, body) = response.into_parts();
                strip_hop_by_hop(&mut parts.headers);
                Response::from_parts(parts, body.boxed())
            }
            Err(error) => {
                eprintln!("round-robin-proxy: {line} ({backend}): {error}");
                own_answer(StatusCode::BAD_GATEWAY, "the backend did not answer")
            }
        }
    }
}

/// Serves client connections until the process is killed.
async fn run(options: Options) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(options.listen).await?;
    let address = listener.local_addr()?;
    {
        // stdout carries only the URL, for the process that started us.
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "http://{address}")?;
        stdout.flush()?;
    }
    let proxy = Arc::new(Proxy {
        backends: options.backends,
        next: AtomicUsize::new(0),
        client: Client::builder(TokioExecutor::new()).build_http(),
    });
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors, say: try again shortly.
                eprintln!("round-robin-proxy: accept failed: {error}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let proxy = Arc::clone(&proxy);
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let proxy = Arc::clone(&proxy);
                async move { Ok::<_, Infallible>(proxy.forward(request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(Some(options)) => options,
        Ok(None) => {
            eprint!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("round-robin-proxy: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("round-robin-proxy: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("round-robin-proxy: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn backends_keep_only_their_address() {
        let parsed = parse(&args(&[
            "--listen",
            "127.0.0.1:0",
            "--backend",
            "http://127.0.0.1:1/mcp",
            "--backend",
            "http://127.0.0.1:2",
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(parsed.listen, "127.0.0.1:0".parse().unwrap());
        let names: Vec<&str> = parsed.backends.iter().map(Authority::as_str).collect();
        assert_eq!(names, ["127.0.0.1:1", "127.0.0.1:2"]);
    }

    #[test]
    fn bad_command_lines_are_refused() {
        for bad in [
            &["--listen", "127.0.0.1:0"][..],
            &["--backend", "http://127.0.0.1:1"][..],
            &["--listen", "nowhere", "--backend", "http://127.0.0.1:1"][..],
            &[
                "--listen",
                "127.0.0.1:0",
                "--backend",
                "https://127.0.0.1:1",
            ][..],
            &["--listen", "127.0.0.1:0", "--backend"][..],
            &["--listen", "127.0.0.1:0", "--port", "1"][..],
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad:?}");
        }
        assert_eq!(parse(&args(&["--help"])), Ok(None));
    }

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
}
