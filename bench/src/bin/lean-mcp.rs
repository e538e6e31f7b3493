//! The lean reference: the smallest correct MCP echo server written directly
//! on tokio, hyper and serde_json, with no mcpwire crate in it. It is what
//! the layers of mcpwire are measured against ("x lean"): the same `echo`
//! tool as `bench-server`, the same wire, none of the generality.
//!
//! It answers `initialize` (handshake revisions) and `server/discover`
//! (2026-07-28), `ping`, `tools/list` and `tools/call` of `echo`; answers
//! nothing to notifications; refuses unknown methods (-32601), unknown
//! tools and params it cannot read (-32602) and unparsable lines (-32700).
//!
//! It reads a message as a lean server would: one serde pass over the line
//! into borrowed fields with the params left raw, a second over the params
//! into the few fields the method reads, and the echo's answer serialized
//! from borrowed parts straight into the output buffer. (Its first version
//! parsed every message into a `serde_json::Value` tree and built answers
//! with `json!`: 20,071 instructions per stdio call under E1's load instead
//! of ~9,600, which made every "x lean" ratio read too kindly; see
//! `docs/performance.md`, "The lean reference made lean".)
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

use std::borrow::Cow;
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
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// The revisions of the handshake era this server negotiates.
const HANDSHAKE: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The stateless revision.
const STATELESS: &str = "2026-07-28";

/// The part of a JSON-RPC message the server reads, borrowed from the
/// line: the params stay raw until the method's handling reads them.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

/// The params fields any of the methods served reads; serde skips the rest.
#[derive(Default, Deserialize)]
struct Params<'a> {
    #[serde(rename = "protocolVersion", borrow, default)]
    protocol_version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaVersion<'a>>,
}

/// The revision a 2026-07-28 request names in its `_meta`.
#[derive(Deserialize)]
struct MetaVersion<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    version: Option<Cow<'a, str>>,
}

/// The echo tool's arguments.
#[derive(Deserialize)]
struct EchoArguments<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// A successful answer, written straight from its parts.
#[derive(Serialize)]
struct Answer<'a, R> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: R,
}

/// The echo tool's result: one text block.
#[derive(Serialize)]
struct EchoResult<'a> {
    content: [TextBlock<'a>; 1],
    #[serde(rename = "isError", skip_serializing_if = "core::ops::Not::not")]
    is_error: bool,
    #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
}

/// A text content block.
#[derive(Serialize)]
struct TextBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// Appends the answer to `line` to `out`; false for a notification or a
/// response, which get none.
fn answer(line: &[u8], out: &mut Vec<u8>) -> bool {
    match serde_json::from_slice::<Message<'_>>(line) {
        Ok(message) => reply(&message, out),
        Err(_) => {
            error(None, -32700, "parse error", out);
            true
        }
    }
}

/// Appends the answer to `message` to `out`; false for a notification or a
/// response.
fn reply(message: &Message<'_>, out: &mut Vec<u8>) -> bool {
    let (Some(id), Some(method)) = (message.id, message.method.as_deref()) else {
        return false;
    };
    let params = match message.params {
        Some(raw) => match serde_json::from_str::<Params<'_>>(raw.get()) {
            Ok(params) => params,
            Err(_) => {
                error(Some(id), -32602, "invalid params", out);
                return true;
            }
        },
        None => Params::default(),
    };
    let stateless = params
        .meta
        .as_ref()
        .and_then(|meta| meta.version.as_deref())
        == Some(STATELESS);
    let result_type = stateless.then_some("complete");
    let mut result = match method {
        "tools/call" => {
            if params.name.as_deref() != Some("echo") {
                error(Some(id), -32602, "unknown tool", out);
                return true;
            }
            let arguments = params
                .arguments
                .and_then(|raw| serde_json::from_str::<EchoArguments<'_>>(raw.get()).ok());
            let (text, is_error) = match &arguments {
                Some(arguments) => (arguments.text.as_ref(), false),
                None => ("`text` must be a string", true),
            };
            let result = EchoResult {
                content: [TextBlock { kind: "text", text }],
                is_error,
                result_type,
            };
            return write(out, id, &result);
        }
        "initialize" => {
            let asked = params.protocol_version.as_deref().unwrap_or_default();
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
        _ => {
            error(Some(id), -32601, "method not found", out);
            return true;
        }
    };
    if let (Some(kind), Value::Object(map)) = (result_type, &mut result) {
        map.insert("resultType".to_owned(), Value::from(kind));
    }
    write(out, id, &result)
}

/// Appends the successful answer `result` to the request `id` to `out`.
fn write(out: &mut Vec<u8>, id: &RawValue, result: &impl Serialize) -> bool {
    let answer = Answer {
        jsonrpc: "2.0",
        id,
        result,
    };
    serde_json::to_writer(&mut *out, &answer).is_ok()
}

/// Appends a JSON-RPC error answer to `out` (`id` `None` is written `null`).
fn error(id: Option<&RawValue>, code: i64, message: &str, out: &mut Vec<u8>) {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    // Writing a `Value` into a vector cannot fail.
    let _ = serde_json::to_writer(&mut *out, &body);
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
    let mut answered = Vec::with_capacity(1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        answered.clear();
        if answer(line.trim_ascii(), &mut answered) {
            answered.push(b'\n');
            output.write_all(&answered)?;
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
    let Ok(message) = serde_json::from_slice::<Message<'_>>(body.trim_ascii()) else {
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
    let mut body = Vec::with_capacity(256);
    let content_type = if sessions.sse {
        body.extend_from_slice(b"event: message\ndata: ");
        "text/event-stream"
    } else {
        "application/json"
    };
    if !reply(&message, &mut body) {
        return Ok(status(StatusCode::ACCEPTED));
    }
    if sessions.sse {
        body.extend_from_slice(b"\n\n");
    }
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
