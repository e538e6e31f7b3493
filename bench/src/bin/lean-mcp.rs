//! The lean reference: the smallest correct MCP echo server written directly
//! on tokio, hyper and serde_json, with no mcpwire crate in it. It is what
//! the layers of mcpwire are measured against ("x lean"): the same `echo`
//! tool as `bench-server`, the same wire, none of the generality.
//!
//! It answers `initialize` (handshake revisions) and `server/discover`
//! (2026-07-28), `ping`, `tools/list` and `tools/call` of `echo`; answers
//! nothing to notifications; refuses unknown methods (-32601), unknown
//! tools (-32602) and unparsable lines (-32700).
//!
//! `lean-mcp --stdio` serves stdin/stdout with blocking reads on its main
//! thread (no runtime) and exits when stdin ends.
//! `lean-mcp --http ADDR [--sse] [--threads N]` serves Streamable HTTP on
//! plain hyper HTTP/1.1 with `TCP_NODELAY` (sessions by `Mcp-Session-Id`,
//! 404 for an unknown one, 202 for notifications, DELETE ends a session,
//! stateless 2026-07-28 requests need none), prints `http://ADDR/mcp` once
//! it listens and exits when stdin closes. `--threads 1` picks a
//! current-thread runtime, as for `bench-server`.

// The HTTP mode reports its URL on stdout before serving.
#![allow(clippy::print_stdout)]

use std::collections::HashSet;
use std::convert::Infallible;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::{Value, json};

/// The revisions of the handshake era this server negotiates.
const HANDSHAKE: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The stateless revision.
const STATELESS: &str = "2026-07-28";

/// The part of a JSON-RPC message the server reads.
#[derive(Deserialize)]
struct Message {
    id: Option<Value>,
    method: Option<String>,
    #[serde(default)]
    params: Value,
}

/// The answer to one line, or `None` for a notification or a response.
fn answer(line: &[u8]) -> Option<Vec<u8>> {
    match serde_json::from_slice::<Message>(line) {
        Ok(message) => reply(message),
        Err(_) => Some(error(&Value::Null, -32700, "parse error")),
    }
}

/// The answer to `message`, or `None` for a notification or a response.
fn reply(message: Message) -> Option<Vec<u8>> {
    let (Some(id), Some(method)) = (message.id, message.method) else {
        return None;
    };
    let params = &message.params;
    let stateless = params["_meta"]["io.modelcontextprotocol/protocolVersion"] == STATELESS;
    let mut result = match method.as_str() {
        "initialize" => {
            let asked = params["protocolVersion"].as_str().unwrap_or_default();
            let version = HANDSHAKE
                .into_iter()
                .find(|known| *known == asked)
                .unwrap_or(HANDSHAKE[0]);
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "lean-mcp", "version": "0.1.0"}
            })
        }
        "server/discover" => json!({
            "supportedVersions": [STATELESS, HANDSHAKE[0], HANDSHAKE[1], HANDSHAKE[2], HANDSHAKE[3]],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "lean-mcp", "version": "0.1.0"}}
        }),
        "ping" => json!({}),
        "tools/list" => json!({"tools": [{
            "name": "echo",
            "description": "Returns its text.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            }
        }]}),
        "tools/call" => match (
            params["name"].as_str(),
            params["arguments"]["text"].as_str(),
        ) {
            (Some("echo"), Some(text)) => json!({"content": [{"type": "text", "text": text}]}),
            (Some("echo"), None) => json!({
                "content": [{"type": "text", "text": "`text` must be a string"}],
                "isError": true
            }),
            _ => return Some(error(&id, -32602, "unknown tool")),
        },
        _ => return Some(error(&id, -32601, "method not found")),
    };
    if stateless && let Value::Object(map) = &mut result {
        map.insert("resultType".to_owned(), Value::from("complete"));
    }
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).ok()
}

/// A JSON-RPC error answer.
fn error(id: &Value, code: i64, message: &str) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    serde_json::to_vec(&body).unwrap_or_default()
}

/// Serves stdin/stdout until stdin ends, on the calling thread with
/// blocking reads, as the leanest stdio server would (the pipes need no
/// runtime); answers are flushed whenever no more input is already
/// buffered, so pipelined calls leave in batches.
fn serve_stdio() -> std::io::Result<()> {
    use std::io::{BufRead, Write};
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::with_capacity(256 * 1024, stdin.lock());
    let mut output = std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    let mut line = Vec::with_capacity(128 * 1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if let Some(answer) = answer(line.trim_ascii()) {
            output.write_all(&answer)?;
            output.write_all(b"\n")?;
        }
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}

/// The open sessions and how new ids are made.
struct Sessions {
    open: Mutex<HashSet<String>>,
    next: AtomicU64,
    keys: RandomState,
    sse: bool,
}

impl Sessions {
    /// A new, unguessable session id (a keyed hash of a counter).
    fn create(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!(
            "{:016x}{:016x}",
            self.keys.hash_one(n),
            self.keys.hash_one(!n)
        );
        self.lock().insert(id.clone());
        id
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A response with `status` and no body.
fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}

/// One HTTP request of the MCP endpoint.
async fn handle(
    sessions: Arc<Sessions>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let stateless = request
        .headers()
        .get("mcp-protocol-version")
        .is_some_and(|value| value == STATELESS);
    match *request.method() {
        Method::POST => {}
        Method::DELETE => {
            let removed = session.is_some_and(|id| sessions.lock().remove(&id));
            return Ok(status(if removed {
                StatusCode::OK
            } else {
                StatusCode::NOT_FOUND
            }));
        }
        _ => return Ok(status(StatusCode::METHOD_NOT_ALLOWED)),
    }
    let Ok(body) = request
        .into_body()
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
    else {
        return Ok(status(StatusCode::BAD_REQUEST));
    };
    let Ok(message) = serde_json::from_slice::<Message>(body.trim_ascii()) else {
        return Ok(status(StatusCode::BAD_REQUEST));
    };
    let initialize = message.method.as_deref() == Some("initialize");
    let mut new_session = None;
    if initialize {
        new_session = Some(sessions.create());
    } else if !stateless {
        match session {
            Some(id) if sessions.lock().contains(&id) => {}
            Some(_) => return Ok(status(StatusCode::NOT_FOUND)),
            None => return Ok(status(StatusCode::BAD_REQUEST)),
        }
    }
    let Some(answer) = reply(message) else {
        return Ok(status(StatusCode::ACCEPTED));
    };
    let (content_type, body) = if sessions.sse {
        let mut event = Vec::with_capacity(answer.len() + 24);
        event.extend_from_slice(b"event: message\ndata: ");
        event.extend_from_slice(&answer);
        event.extend_from_slice(b"\n\n");
        ("text/event-stream", event)
    } else {
        ("application/json", answer)
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Some(id) = new_session.and_then(|id| HeaderValue::from_str(&id).ok()) {
        response.headers_mut().insert("mcp-session-id", id);
    }
    Ok(response)
}

/// Serves Streamable HTTP on `address` until stdin closes.
async fn serve_http(address: &str, sse: bool) -> std::io::Result<()> {
    let sessions = Arc::new(Sessions {
        open: Mutex::new(HashSet::new()),
        next: AtomicU64::new(0),
        keys: RandomState::new(),
        sse,
    });
    let listener = tokio::net::TcpListener::bind(address).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        std::process::exit(0);
    });
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let sessions = sessions.clone();
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |request| handle(sessions.clone(), request));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |flag: &str| {
        let at = args.iter().position(|arg| arg == flag)?;
        args.get(at + 1).cloned()
    };
    let Some(address) = option("--http") else {
        return serve_stdio().map_err(Into::into);
    };
    let threads = option("--threads")
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        if threads > 1 {
            builder.worker_threads(threads);
        }
        builder.enable_all().build()?
    };
    let sse = args.iter().any(|arg| arg == "--sse");
    runtime
        .block_on(serve_http(&address, sse))
        .map_err(Into::into)
}
