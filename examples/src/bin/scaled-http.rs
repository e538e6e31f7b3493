//! One instance of a scaled-out MCP service: Streamable HTTP at `/mcp`
//! with its sessions, stream events and message routing in Redis, so that
//! several instances behind a plain round-robin proxy serve one service
//! (see docs/scale-out.md and examples/scale-out/).
//!
//! `scaled-http REDIS_URL [ADDRESS] [NAME]` (defaults `127.0.0.1:0` and
//! `instance`) prints its URL as the first line of stdout, then serves
//! until interrupted. Its tools: `whoami` names the instance running the
//! session, and `count` reports progress for two seconds.

// A server binary that reports its URL on stdout before serving.
#![allow(clippy::print_stdout)]

use std::time::Duration;

use mcpwire::http::server::{Config, StreamableHttp, serve};
use mcpwire::server::{Context, HandlerError, Server};
use mcpwire::types::{CallToolResult, Tool};
use mcpwire_redis::{RedisConfig, RedisStores};

fn build(name: String) -> Result<Server, mcpwire::server::BuildError> {
    Server::builder("scaled-example", env!("CARGO_PKG_VERSION"))
        .tool(
            Tool::without_arguments("whoami"),
            move |_ctx: Context, _| {
                let name = name.clone();
                async move {
                    Ok::<_, HandlerError>(CallToolResult::text(format!(
                        "this session runs on {name}"
                    )))
                }
            },
        )
        .tool(
            Tool::without_arguments("count"),
            |ctx: Context, _| async move {
                for step in 1..=10 {
                    ctx.progress(f64::from(step), Some(10.0), None).await;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Ok::<_, HandlerError>(CallToolResult::text("counted to 10"))
            },
        )
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .init();
    let mut args = std::env::args().skip(1);
    let redis_url = args
        .next()
        .ok_or("usage: scaled-http REDIS_URL [ADDRESS] [NAME]")?;
    let address = args.next().unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let name = args.next().unwrap_or_else(|| "instance".to_owned());

    let stores = RedisStores::connect(RedisConfig::new(redis_url)).await?;
    let server = build(name)?;
    // Behind a reverse proxy the Host header is the proxy's name: accept
    // any, as the proxy checks it.
    let config = stores.apply(Config::default().hosts(mcpwire::http::server::HostPolicy::Any));
    let service =
        StreamableHttp::with_runtime(config, move |transport| server.run_session(transport));
    let listener = tokio::net::TcpListener::bind(&address).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    tokio::select! {
        served = serve(listener, service) => served?,
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(())
}
