//! The benchmark server on mcpwire's public API: one tool, `echo`, taking
//! `{"text": string}` and answering `{"content":[{"type":"text","text":...}]}`.
//!
//! `bench-server --stdio` serves stdin/stdout and exits when stdin ends.
//! `bench-server --http ADDR [--json|--sse] [--stateless] [--max-sessions N]
//! [--nodelay] [--spawned]`
//! serves Streamable HTTP (any path; the clients use `/mcp`) and prints
//! `http://ADDR/mcp` as its first line of stdout once it listens, and exits
//! when stdin closes. `--nodelay` hosts on plain hyper HTTP/1.1 with
//! `TCP_NODELAY` instead of `mcpwire_http::server::serve`. `--spawned`
//! starts each session's runtime on a task of its own from the connect
//! hook (`StreamableHttp::new`) instead of letting the service run it
//! (`StreamableHttp::with_runtime`, the POST fast path).
//! Over stdio it is served as the README writes a stdio server, with
//! `Host::run_stdio` (a current-thread runtime of its own; the suite's
//! stdio rows run `stdio-server`, the same server without the HTTP half
//! linked in);
//! `--multi-thread` serves it with `Host::serve_stdio` on tokio's default
//! multi-threaded runtime instead, as a `#[tokio::main]` would. Over HTTP `--threads N` picks the
//! runtime: 1 is a current-thread runtime (used under callgrind, where
//! threads only add scheduling noise), otherwise a multi-thread runtime
//! with N workers (default: one per core).

// The HTTP mode reports its URL on stdout before serving.
#![allow(clippy::print_stdout)]

use std::time::Duration;

use http::Request;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use mcpwire::Host as _;
use mcpwire_http::server::{Config, LocalAddr, ResponseMode, StreamableHttp, serve};
use mcpwire_server::Server;
use tower_service::Service as _;

/// The value following `flag` on the command line.
fn option(args: &[String], flag: &str) -> Option<String> {
    let at = args.iter().position(|arg| arg == flag)?;
    args.get(at + 1).cloned()
}

/// Whether `flag` is on the command line.
fn has(args: &[String], flag: &str) -> bool {
    args.iter().any(|arg| arg == flag)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = option(&args, "--http");
    let threads = option(&args, "--threads")
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let server = mcpwire_bench::echo::server()?;
    if http.is_none() && !has(&args, "--multi-thread") {
        // As the README writes a stdio server: its own current-thread
        // runtime, and no other built beside it (the cold start counts).
        return server.run_stdio().map_err(Into::into);
    }
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
    let outcome = runtime.block_on(async {
        match http {
            Some(address) => serve_http(server, &address, &args).await,
            None => server.serve_stdio().await.map_err(Into::into),
        }
    });
    // stdin is read on a blocking thread that cannot be interrupted: leave
    // without waiting for it (see `stdio()` in `mcpwire-stdio`).
    runtime.shutdown_timeout(Duration::from_millis(10));
    outcome
}

async fn serve_http(
    server: Server,
    address: &str,
    args: &[String],
) -> Result<(), Box<dyn std::error::Error>> {
    let mode = if has(args, "--sse") {
        ResponseMode::Sse
    } else if has(args, "--json") {
        ResponseMode::Json
    } else {
        ResponseMode::Auto
    };
    let mut config = Config::new().response_mode(mode);
    if has(args, "--stateless") {
        config = config.stateless_only();
    }
    if let Some(max) = option(args, "--max-sessions").and_then(|n| n.parse().ok()) {
        config = config.max_sessions(max);
    }
    let service = if has(args, "--spawned") {
        // Each session's runtime on a task of its own, started by the
        // connect hook: every POST crosses to that task and back.
        StreamableHttp::new(config, move |transport| server.spawn_session(transport))
    } else {
        // As `Host::into_http_service` does: the service runs each
        // session's runtime, and a POST to an idle session drives it.
        StreamableHttp::with_runtime(config, move |transport| server.run_session(transport))
    };
    let listener = tokio::net::TcpListener::bind(address).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    exit_when_stdin_closes();
    if has(args, "--nodelay") {
        return serve_nodelay(listener, service).await.map_err(Into::into);
    }
    // The public way to host the service, as a user would: `serve` (sniffs
    // HTTP/1.1 or HTTP/2, with every connection limit of the config).
    serve(listener, service).await.map_err(Into::into)
}

/// Hosts `service` on plain hyper HTTP/1.1 connections with `TCP_NODELAY`,
/// as the bare hyper limit is hosted: the difference to [`serve`] is what
/// the host costs, not the MCP layer.
async fn serve_nodelay(
    listener: tokio::net::TcpListener,
    service: StreamableHttp,
) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let local = stream.local_addr().ok();
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |mut request: Request<Incoming>| {
                if let Some(local) = local {
                    request.extensions_mut().insert(LocalAddr(local));
                }
                // `StreamableHttp` is always ready: no `poll_ready` needed.
                let mut service = service.clone();
                service.call(request)
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

/// Ends the process when stdin closes, so that the load client can stop an
/// HTTP server the same way as a stdio one, and a profiler running it
/// sees an ordinary exit.
fn exit_when_stdin_closes() {
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        std::process::exit(0);
    });
}
