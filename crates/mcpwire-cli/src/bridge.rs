//! `bridge`: a stdio server served over HTTP (Streamable HTTP at `/mcp`,
//! legacy HTTP+SSE at `/sse` and `/message`, one child process per
//! session), or an HTTP server exposed on this process's stdin/stdout.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, StatusCode, header};
use mcpwire::http::server::body::{ReadError, SendBody, empty, read_limited};
use mcpwire::http::server::{
    Config, Drain, HostPolicy, HttpResponse, OriginPolicy, ResponseBody, StreamableHttp, serve,
};
use mcpwire::http_legacy::auto::connect_auto;
use mcpwire::http_legacy::server::{Config as LegacyConfig, LegacySse};
use mcpwire::jsonrpc::{BoxFuture, Transport, TransportSender};
use mcpwire::stdio::{StderrMode, StdioClient};

use crate::cli::{BridgeArgs, GlobalOptions};
use crate::error::{CliError, CliResult};
use crate::output::line;
use crate::relay::relay;
use crate::target::{self, Target};

/// The Streamable HTTP endpoint's path.
const MCP_PATH: &str = "/mcp";

/// The stdio server each session gets.
#[derive(Clone, Debug)]
struct ChildCommand {
    program: String,
    args: Vec<String>,
}

/// The children's slots: at most `--max-children` run at once, and a
/// session waits at most `--slot-wait` for one.
#[derive(Clone)]
struct Slots {
    free: Arc<tokio::sync::Semaphore>,
    wait: std::time::Duration,
}

/// Starts the child for one session (or one stateless request) and relays
/// its messages until either side ends; then stops the child. At most
/// `--max-children` run at once: the others wait for a slot, for
/// `--slot-wait` at most (a waiting session's open stream keeps it from
/// ever being idle, so it would otherwise wait for as long as others run).
async fn serve_session<T: Transport>(command: Arc<ChildCommand>, slots: Slots, transport: T) {
    let _slot = match tokio::time::timeout(slots.wait, slots.free.acquire_owned()).await {
        Ok(Ok(slot)) => slot,
        // The semaphore is never closed.
        Ok(Err(_)) => return,
        Err(_) => {
            eprintln!(
                "warning: no server process free within {:?}; a session was given up",
                slots.wait
            );
            let (mut sender, _receiver) = transport.split();
            let _ = sender.close().await;
            return;
        }
    };
    let spawned = StdioClient::new(&command.program)
        .args(&command.args)
        .stderr(StderrMode::Inherit)
        .spawn();
    match spawned {
        Ok((child_transport, child)) => {
            relay(transport, child_transport).await;
            if let Err(error) = child.shutdown().await {
                eprintln!("warning: stopping {} failed: {error}", command.program);
            }
        }
        Err(error) => {
            eprintln!("error: cannot start {}: {error}", command.program);
            let (mut sender, _receiver) = transport.split();
            let _ = sender.close().await;
        }
    }
}

/// Whether two byte strings are equal, in time independent of where they
/// differ (for bearer tokens).
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// The HTTP front of `bridge --listen`: the bearer check, then `/mcp` to
/// Streamable HTTP, the legacy paths to HTTP+SSE, 404 elsewhere.
#[derive(Clone)]
struct Gate {
    streamable: StreamableHttp,
    legacy: LegacySse,
    bearer: Option<Arc<str>>,
    hosts: HostPolicy,
    origins: OriginPolicy,
}

/// The largest stateless POST body the gate reads itself, and how long it
/// waits for it (the endpoint's own defaults).
const MAX_BODY: usize = 4 * 1024 * 1024;
const BODY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// Whether a POST is of the stateless era (2026-07-28), by its
/// `MCP-Protocol-Version` header.
fn is_stateless_post<B>(request: &Request<B>) -> bool {
    request.method() == http::Method::POST
        && !request.headers().contains_key("mcp-session-id")
        && request
            .headers()
            .get("mcp-protocol-version")
            .and_then(|value| value.to_str().ok())
            .and_then(|text| mcpwire::types::ProtocolVersion::parse(text.trim()).ok())
            .is_some_and(mcpwire::types::ProtocolVersion::is_stateless)
}

/// Whether a body holds no request (only notifications or responses), so
/// that nothing needs a server process to answer it.
fn holds_no_request(payload: &[u8]) -> bool {
    match mcpwire::jsonrpc::Inbound::from_slice(payload) {
        mcpwire::jsonrpc::Inbound::Single(message) => {
            !matches!(message, mcpwire::jsonrpc::Message::Request(_))
        }
        mcpwire::jsonrpc::Inbound::Batch(items) => items
            .iter()
            .all(|item| matches!(item, Ok(message) if !matches!(message, mcpwire::jsonrpc::Message::Request(_)))),
        mcpwire::jsonrpc::Inbound::Invalid(_) => false,
    }
}

impl Gate {
    async fn handle<B: SendBody>(self, request: Request<B>) -> HttpResponse {
        if let Some(token) = &self.bearer {
            let given = request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "))
                .unwrap_or_default();
            if !same_secret(given.as_bytes(), token.as_bytes()) {
                let mut response = http::Response::new(ResponseBody::empty());
                *response.status_mut() = StatusCode::UNAUTHORIZED;
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    http::HeaderValue::from_static("Bearer"),
                );
                return response;
            }
        }
        let path = request.uri().path();
        if path == MCP_PATH && is_stateless_post(&request) {
            // A stateless POST of notifications only is answered here:
            // starting a server process for it would let anyone make the
            // bridge spawn one per request for nothing.
            let (parts, body) = request.into_parts();
            if let Err(refused) = mcpwire::http::server::security::check_host_and_origin(
                &parts,
                &self.hosts,
                &self.origins,
            ) {
                return refused.to_response();
            }
            let reading = read_limited(&parts.headers, body, MAX_BODY);
            let payload = match tokio::time::timeout(BODY_DEADLINE, reading).await {
                Ok(Ok(payload)) => payload,
                Ok(Err(ReadError::TooLarge { .. })) => return empty(StatusCode::PAYLOAD_TOO_LARGE),
                Ok(Err(_)) => return empty(StatusCode::BAD_REQUEST),
                Err(_) => return empty(StatusCode::REQUEST_TIMEOUT),
            };
            if holds_no_request(&payload) {
                return empty(StatusCode::ACCEPTED);
            }
            let request = Request::from_parts(parts, ResponseBody::full(payload));
            return self.streamable.handle(request).await;
        }
        if path == MCP_PATH {
            self.streamable.handle(request).await
        } else if self.legacy.handles_path(path) {
            self.legacy.handle(request).await
        } else {
            empty(StatusCode::NOT_FOUND)
        }
    }
}

impl<B: SendBody> tower_service::Service<Request<B>> for Gate {
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<HttpResponse, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let gate = self.clone();
        Box::pin(async move { Ok(gate.handle(request).await) })
    }
}

impl Drain for Gate {
    fn begin_drain(&self) {
        self.legacy.begin_drain();
        self.streamable.begin_drain();
    }

    async fn drained(&self) {
        self.legacy.drained().await;
        self.streamable.drained().await;
    }
}

/// The Host and Origin policies: loopback by default (DNS-rebinding
/// defence), widened by `--allow-host` / replaced by `--allow-origin`.
fn policies(args: &BridgeArgs) -> (HostPolicy, OriginPolicy) {
    let hosts = if args.allow_host.is_empty() {
        HostPolicy::Auto
    } else {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .map(str::to_owned)
            .to_vec();
        hosts.extend(args.allow_host.iter().cloned());
        HostPolicy::List(hosts)
    };
    let origins = if args.allow_origin.is_empty() {
        OriginPolicy::Auto
    } else {
        OriginPolicy::List(args.allow_origin.clone())
    };
    (hosts, origins)
}

/// `bridge`.
pub(crate) async fn bridge(args: &BridgeArgs, global: &GlobalOptions) -> CliResult {
    match (&args.listen, &args.stdio) {
        (Some(address), None) => listen(address, args, global.json).await,
        (None, Some(url)) => {
            if !args.command.is_empty() {
                return Err(CliError::usage("bridge --stdio takes a URL, not a command"));
            }
            to_stdio(url, global).await
        }
        _ => Err(CliError::usage(
            "give exactly one of --listen ADDRESS and --stdio URL",
        )),
    }
}

/// `bridge --listen ADDRESS -- COMMAND...`.
async fn listen(address: &str, args: &BridgeArgs, json_mode: bool) -> CliResult {
    let Some((program, rest)) = args.command.split_first() else {
        return Err(CliError::usage(
            "bridge --listen needs the stdio server's command after `--`",
        ));
    };
    let command = Arc::new(ChildCommand {
        program: program.clone(),
        args: rest.to_vec(),
    });
    if args.bearer.is_none() && !args.insecure && !is_loopback_address(address).await {
        return Err(CliError::usage(format!(
            "{address} is not a loopback address: give --bearer TOKEN (or --insecure to let anyone who reaches it start {program})"
        )));
    }
    let slots = Slots {
        free: Arc::new(tokio::sync::Semaphore::new(args.max_children.max(1))),
        wait: std::time::Duration::from_secs(args.slot_wait),
    };
    let (hosts, origins) = policies(args);
    let (gate_hosts, gate_origins) = (hosts.clone(), origins.clone());
    let config = Config::default()
        .hosts(hosts.clone())
        .origins(origins.clone());
    let limits = config.connection_limits();
    let streamable = StreamableHttp::new(config, {
        let command = command.clone();
        let slots = slots.clone();
        move |transport| {
            tokio::spawn(serve_session(command.clone(), slots.clone(), transport));
        }
    });
    let legacy_config = LegacyConfig::default().hosts(hosts).origins(origins);
    let legacy = LegacySse::new(legacy_config, move |transport| {
        tokio::spawn(serve_session(command.clone(), slots.clone(), transport));
    });
    let gate = Gate {
        streamable,
        legacy,
        bearer: args.bearer.as_deref().map(Arc::from),
        hosts: gate_hosts,
        origins: gate_origins,
    };
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| CliError::connection(format!("cannot listen on {address}: {error}")))?;
    let local = listener.local_addr()?;
    // The first line of stdout is the endpoint, for scripts and tests.
    let url = format!("http://{local}{MCP_PATH}");
    if json_mode {
        let endpoints =
            serde_json::json!({"url": url, "legacySseUrl": format!("http://{local}/sse")});
        line(endpoints.to_string());
    } else {
        line(&url);
    }
    eprintln!(
        "serving {program} over Streamable HTTP at http://{local}{MCP_PATH} and HTTP+SSE at http://{local}/sse; Ctrl-C stops"
    );
    serve(listener, gate)
        .connection_limits(limits)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(CliError::connection)
}

/// Whether every address `address` (`host:port`) resolves to is loopback.
async fn is_loopback_address(address: &str) -> bool {
    match tokio::net::lookup_host(address).await {
        Ok(resolved) => {
            let mut any = false;
            for socket in resolved {
                any = true;
                if !socket.ip().to_canonical().is_loopback() {
                    return false;
                }
            }
            any
        }
        Err(_) => false,
    }
}

/// `bridge --stdio URL`: our stdin/stdout to the HTTP server at `url`.
async fn to_stdio(url: &str, global: &GlobalOptions) -> CliResult {
    if !target::is_url(url) {
        return Err(CliError::usage(format!("{url:?} is not an http(s) URL")));
    }
    let target = Target::Url {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    // The tokens `login` stored for this URL, if any, authorize the bridge.
    let authorizer = crate::auth::stored_authorizer(url, global)?
        .map(|a| a as Arc<dyn mcpwire::http::client::Authorizer>);
    let options = target::auto_options(&target, global, authorizer)?;
    let remote = connect_auto(url, options)
        .map_err(|error| CliError::usage(format!("cannot use {url:?}: {error}")))?;
    tokio::select! {
        () = relay(mcpwire::stdio::stdio(), remote) => Ok(()),
        _ = tokio::signal::ctrl_c() => Err(CliError::Interrupted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_equal_only_when_identical() {
        assert!(same_secret(b"token", b"token"));
        assert!(!same_secret(b"token", b"tokem"));
        assert!(!same_secret(b"tok", b"token"));
    }
}
