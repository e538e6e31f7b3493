//! The notes server over HTTP, mounted in an axum app beside an ordinary
//! route: Streamable HTTP at `/mcp`, the legacy HTTP+SSE endpoints of
//! 2024-11-05 at `/sse` and `/message`, a plain page at `/`.
//!
//! `notes-http [ADDRESS]` (default `127.0.0.1:0`) prints the Streamable
//! HTTP URL as its first line of stdout and the legacy SSE URL as its
//! second, then serves until interrupted (Ctrl-C drains in-flight requests).

// A server binary that reports its URL on stdout before serving.
#![allow(clippy::print_stdout)]

use axum::Router;
use axum::routing::get;
use mcpwire::http::server::Config;
use mcpwire::http_legacy::server::Config as LegacyConfig;
use mcpwire::prelude::*;
use mcpwire_examples::notes::{Notebook, build};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .init();
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let listener = tokio::net::TcpListener::bind(&address).await?;
    let local = listener.local_addr()?;

    let server = build(Notebook::default())?;
    let mcp = server.clone().into_http_service(Config::default());
    let legacy = server.into_legacy_sse_service(LegacyConfig::default());
    let app = Router::new()
        .route(
            "/",
            get(|| async { "notes server: MCP at /mcp, HTTP+SSE at /sse\n" }),
        )
        .route_service("/mcp", mcp)
        .route_service("/sse", legacy.clone())
        .route_service("/message", legacy);

    println!("http://{local}/mcp");
    println!("http://{local}/sse");
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
