//! The HTTP load client: POSTs of JSON-RPC over keep-alive HTTP/1.1
//! connections (hyper's client connection, nothing above it), one request
//! in flight per connection, after one opening request.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Empty, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout};

use super::{ANSWER_TIMEOUT, Load, OPEN_TIMEOUT, ServerCommand};
use crate::messages::{self, CallTemplate, Era, HANDSHAKE_REVISION, STATELESS_REVISION, scan_id};
use crate::procfs;
use crate::stats::Measurement;

/// A server process listening on HTTP, with the URL it printed.
pub struct HttpServer {
    /// The process (killed when dropped).
    pub child: Child,
    /// Its stdout, kept open so that it may write more without failing.
    _stdout: BufReader<ChildStdout>,
    /// Its pid, for `/proc`.
    pub pid: u32,
    /// Where it listens.
    pub endpoint: Endpoint,
    /// When it was spawned.
    pub spawned_at: Instant,
}

impl HttpServer {
    /// Spawns `server` and waits for the URL on its first line of stdout.
    ///
    /// # Errors
    ///
    /// When it cannot be spawned or prints no `http://` URL in time.
    pub async fn spawn(server: &ServerCommand) -> Result<Self, String> {
        let spawned_at = Instant::now();
        let (mut child, pid) = server.spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        tokio::time::timeout(OPEN_TIMEOUT, stdout.read_line(&mut line))
            .await
            .map_err(|_| "the server printed no URL in time")?
            .map_err(|error| format!("reading the server's URL: {error}"))?;
        let url = line.trim();
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("the server printed {url:?}, not a URL"))?;
        let (authority, path) = match rest.find('/') {
            Some(at) => (rest.get(..at), rest.get(at..)),
            None => (Some(rest), Some("/")),
        };
        Ok(Self {
            child,
            _stdout: stdout,
            pid,
            endpoint: Endpoint {
                authority: authority.unwrap_or_default().to_owned(),
                path: path.unwrap_or("/").to_owned(),
            },
            spawned_at,
        })
    }

    /// Stops it by closing its stdin (so that a profiler around it sees an
    /// ordinary exit), killing it if it is still running after a while.
    pub async fn stop(&mut self) {
        drop(self.child.stdin.take());
        let exited = tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await;
        if !matches!(exited, Ok(Ok(_))) {
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
        }
    }

    /// A new keep-alive connection to it.
    ///
    /// # Errors
    ///
    /// As [`Endpoint::connect`].
    pub async fn connect(&self) -> Result<Connection, String> {
        self.endpoint.connect().await
    }
}

/// An HTTP endpoint: `host:port` and path.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// `host:port`.
    pub authority: String,
    /// The endpoint's path.
    pub path: String,
}

impl Endpoint {
    /// A new keep-alive connection to it.
    ///
    /// # Errors
    ///
    /// When the connection or the HTTP handshake fails.
    pub async fn connect(&self) -> Result<Connection, String> {
        let stream = tokio::net::TcpStream::connect(&self.authority)
            .await
            .map_err(|error| format!("connecting to {}: {error}", self.authority))?;
        let _ = stream.set_nodelay(true);
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|error| format!("HTTP handshake: {error}"))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Connection {
            sender,
            authority: self.authority.clone(),
            path: self.path.clone(),
        })
    }
}

/// One keep-alive HTTP/1.1 connection.
pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    authority: String,
    path: String,
}

/// What a POST got back.
pub struct Answer {
    /// The HTTP status.
    pub status: StatusCode,
    /// The `Mcp-Session-Id` header, if any.
    pub session: Option<String>,
    /// The whole body (JSON, or the SSE events of the request's stream).
    pub body: Bytes,
}

/// The per-request context a POST carries in headers.
#[derive(Debug, Clone, Default)]
pub struct Headers {
    /// The session, once there is one.
    pub session: Option<String>,
    /// The protocol revision header, once negotiated.
    pub revision: Option<&'static str>,
    /// 2026-07-28 `Mcp-Method`.
    pub method: Option<&'static str>,
    /// 2026-07-28 `Mcp-Name`.
    pub name: Option<&'static str>,
}

impl Connection {
    /// POSTs `body` and reads the whole answer.
    ///
    /// # Errors
    ///
    /// When the connection fails or the answer takes longer than
    /// [`ANSWER_TIMEOUT`].
    pub async fn post(&mut self, headers: &Headers, body: Bytes) -> Result<Answer, String> {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(self.path.as_str())
            .header(header::HOST, self.authority.as_str())
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(session) = &headers.session {
            request = request.header("mcp-session-id", session.as_str());
        }
        if let Some(revision) = headers.revision {
            request = request.header("mcp-protocol-version", revision);
        }
        if let Some(method) = headers.method {
            request = request.header("mcp-method", method);
        }
        if let Some(name) = headers.name {
            request = request.header("mcp-name", name);
        }
        let request = request
            .body(Full::new(body))
            .map_err(|error| format!("building a request: {error}"))?;
        tokio::time::timeout(ANSWER_TIMEOUT, async {
            self.sender
                .ready()
                .await
                .map_err(|error| format!("connection closed: {error}"))?;
            let response = self
                .sender
                .send_request(request)
                .await
                .map_err(|error| format!("sending a request: {error}"))?;
            let status = response.status();
            let session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|error| format!("reading an answer: {error}"))?
                .to_bytes();
            Ok(Answer {
                status,
                session,
                body,
            })
        })
        .await
        .map_err(|_| "no answer within the timeout".to_owned())?
    }
}

/// Opens a GET stream (the standalone SSE stream of a session) on its own
/// connection and returns once its headers arrived; the stream stays open
/// while the returned value lives.
///
/// # Errors
///
/// When the connection fails or the answer is not 200.
pub async fn open_get_stream(
    server: &Endpoint,
    session: &str,
) -> Result<hyper::Response<hyper::body::Incoming>, String> {
    let stream = tokio::net::TcpStream::connect(&server.authority)
        .await
        .map_err(|error| format!("connecting: {error}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|error| format!("HTTP handshake: {error}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let request = Request::builder()
        .method(Method::GET)
        .uri(server.path.as_str())
        .header(header::HOST, server.authority.as_str())
        .header(header::ACCEPT, "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", HANDSHAKE_REVISION)
        .body(Empty::<Bytes>::new())
        .map_err(|error| format!("building a request: {error}"))?;
    let response = tokio::time::timeout(ANSWER_TIMEOUT, sender.send_request(request))
        .await
        .map_err(|_| "no answer to GET in time".to_owned())?
        .map_err(|error| format!("GET: {error}"))?;
    if response.status() != StatusCode::OK {
        return Err(format!("GET answered {}", response.status()));
    }
    Ok(response)
}

/// Opens a session (or, stateless, checks the server answers) on `connection`:
/// the opening request, then `notifications/initialized` in the handshake
/// era. Returns the headers later requests carry.
///
/// # Errors
///
/// When the server answers with an error status or no answer.
pub async fn open(connection: &mut Connection, era: Era) -> Result<Headers, String> {
    let mut headers = Headers::default();
    if era == Era::Stateless {
        headers.revision = Some(STATELESS_REVISION);
        headers.method = Some("server/discover");
    }
    let answer = connection
        .post(&headers, Bytes::from(messages::opening(era)))
        .await?;
    if !answer.status.is_success() || scan_id(&answer.body) != Some(0) {
        return Err(format!(
            "opening request answered {}: {}",
            answer.status,
            String::from_utf8_lossy(&answer.body)
        ));
    }
    match era {
        Era::Handshake => {
            headers.session = answer.session;
            headers.revision = Some(HANDSHAKE_REVISION);
            let notified = connection
                .post(&headers, Bytes::from(messages::initialized()))
                .await?;
            if !notified.status.is_success() {
                return Err(format!("initialized answered {}", notified.status));
            }
        }
        Era::Stateless => {
            headers.method = Some("tools/call");
            headers.name = Some("echo");
        }
    }
    Ok(headers)
}

/// Drives `load.concurrency` connections of `echo` calls against a
/// running server for `load.warmup + load.duration`; returns the
/// latencies of calls sent after the warm-up and the time from the end
/// of the warm-up to the last answer.
///
/// # Errors
///
/// When a connection fails or a call is not answered with its id.
pub async fn drive(
    server: &HttpServer,
    headers: &Headers,
    load: Load,
) -> Result<(Vec<Duration>, Duration), String> {
    let template = Arc::new(CallTemplate::new(load.size, load.era));
    let measure_from = Instant::now() + load.warmup;
    let stop_at = measure_from + load.duration;
    let mut tasks = tokio::task::JoinSet::new();
    let connections = load.concurrency.max(1);
    for index in 0..connections {
        let share = load.max_calls.map_or(u64::MAX, |max| {
            max / connections as u64 + u64::from((index as u64) < max % connections as u64)
        });
        let mut connection = server.connect().await?;
        let template = template.clone();
        let headers = headers.clone();
        tasks.spawn(async move {
            let mut latencies = Vec::with_capacity(1 << 14);
            let first_id = (index as u64 + 1) << 32;
            let mut id = first_id;
            // Past the stop time, still call until one call of the
            // measured window is done (a slow server may need it).
            while (Instant::now() < stop_at || latencies.is_empty()) && id - first_id < share {
                id += 1;
                let sent = Instant::now();
                let answer = connection
                    .post(&headers, Bytes::from(template.with_id(id)))
                    .await?;
                if answer.status != StatusCode::OK || scan_id(&answer.body) != Some(id) {
                    return Err(format!(
                        "call {id} answered {}: {}",
                        answer.status,
                        String::from_utf8_lossy(
                            answer
                                .body
                                .get(..200.min(answer.body.len()))
                                .unwrap_or_default()
                        )
                    ));
                }
                if sent >= measure_from {
                    latencies.push(sent.elapsed());
                }
            }
            Ok::<_, String>(latencies)
        });
    }
    let mut all = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        let latencies = joined.map_err(|error| format!("a load task failed: {error}"))??;
        all.extend(latencies);
    }
    Ok((all, measure_from.elapsed()))
}

/// Spawns `server`, opens it and drives `load` over HTTP.
///
/// # Errors
///
/// As [`HttpServer::spawn`], [`open`] and [`drive`].
pub async fn run(server: &ServerCommand, load: Load) -> Result<Measurement, String> {
    let mut running = HttpServer::spawn(server).await?;
    let mut first = running.connect().await?;
    let headers = open(&mut first, load.era).await?;
    let cold_start = running.spawned_at.elapsed();
    drop(first);
    let before_warmup = Instant::now();
    let before = procfs::sample(running.pid);
    let (latencies, window) = drive(&running, &headers, load).await?;
    let after = procfs::sample(running.pid);
    running.stop().await;

    let mut measurement = Measurement::from_latencies(latencies, window);
    measurement.cold_start_ms = cold_start.as_secs_f64() * 1e3;
    measurement.peak_rss_kib = after.hwm_kib;
    // The CPU window includes the warm-up: scale by the calls of the whole
    // window, estimated from the measured rate.
    let window = before_warmup.elapsed().as_secs_f64();
    let calls_in_window = measurement.calls_per_s * window;
    if calls_in_window > 0.0 {
        measurement.server_cpu_us_per_call =
            after.cpu.saturating_sub(before.cpu).as_secs_f64() * 1e6 / calls_in_window;
    }
    Ok(measurement)
}
