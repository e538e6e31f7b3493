//! Throughput and tail latency of `tools/call` (ignored by default; run
//! `cargo test -p mcpwire-redis --release --test bench -- --ignored
//! --nocapture`): through the round-robin proxy with one and with three
//! Redis-backed instances, and on one instance reached directly with the
//! in-memory stores and with the Redis stores. Prints a markdown table, one
//! row per setup; `cargo xtask bench scale` runs it after the load suite.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests: a panic is a failed assertion, as clippy.toml allows inside tests"
)]
// A measurement reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod support;

use std::time::{Duration, Instant};

use mcpwire_client::{Client, ClientConfig};
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::Config;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_test::proxy::RoundRobinProxy as Proxy;
use mcpwire_types::{CallToolResult, ClientCapabilities, Implementation, ProtocolVersion, Tool};
use support::RedisServer;
use support::cluster::Instance;

/// Concurrent clients, each with its own session, calling in a loop.
const CLIENTS: usize = 8;

/// How long each setup is measured (after a warm-up).
const MEASURE: Duration = Duration::from_secs(3);

fn echo_server() -> Server {
    Server::builder("bench", "1.0.0")
        .tool(Tool::without_arguments("quick"), |_ctx: Context, _| async {
            Ok::<_, HandlerError>(CallToolResult::text("quick"))
        })
        .build()
        .unwrap()
}

async fn client(url: &str) -> Client {
    let config = ClientConfig::new(
        Implementation::new("bench", "1.0.0"),
        ClientCapabilities::default(),
    )
    .pinned(ProtocolVersion::V2025_11_25);
    Client::connect(StreamableHttpClient::new(url).unwrap(), config)
        .await
        .unwrap()
}

/// Calls/s and p50/p99 latency of `CLIENTS` clients calling for `MEASURE`.
async fn measure(label: &str, url: &str) {
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(client(url).await);
    }
    // Warm-up: a few calls per client.
    for client in &clients {
        for _ in 0..5 {
            client.call_tool("quick", ()).await.unwrap();
        }
    }
    let started = Instant::now();
    let workers: Vec<_> = clients
        .into_iter()
        .map(|client| {
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while started.elapsed() < MEASURE {
                    let call = Instant::now();
                    client.call_tool("quick", ()).await.unwrap();
                    latencies.push(call.elapsed());
                }
                client.close().await;
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for worker in workers {
        latencies.extend(worker.await.unwrap());
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort();
    let at = |quantile: f64| {
        let index = ((latencies.len() as f64 - 1.0) * quantile).round() as usize;
        latencies[index].as_secs_f64() * 1000.0
    };
    println!(
        "| {label} | {:.0} | {:.2} | {:.2} | {} |",
        latencies.len() as f64 / elapsed,
        at(0.5),
        at(0.99),
        latencies.len(),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check: run it with --ignored --nocapture"]
async fn tools_call_throughput_and_p99_by_deployment() {
    let redis = RedisServer::start();
    println!("\n### Scale-out on Redis ({CLIENTS} clients, trivial tool, 2025-11-25)\n");
    println!("| setup | calls/s | p50 ms | p99 ms | calls |");
    println!("|---|---:|---:|---:|---:|");
    let http = Config::default();
    let server = echo_server();

    let memory = Instance::start(None, server.clone(), http.clone());
    measure(
        "1 instance, in-memory stores, direct",
        &format!("http://{}/mcp", memory.addr),
    )
    .await;
    drop(memory);

    let one = Instance::start(Some(redis.config()), server.clone(), http.clone());
    measure(
        "1 instance, Redis stores, direct",
        &format!("http://{}/mcp", one.addr),
    )
    .await;
    let proxy = Proxy::start(support::PROXY_LISTEN, vec![one.addr])
        .await
        .unwrap();
    measure("1 instance, Redis stores, via proxy", &proxy.url("/mcp")).await;
    drop(proxy);
    drop(one);

    let three: Vec<Instance> = (0..3)
        .map(|_| Instance::start(Some(redis.config()), server.clone(), http.clone()))
        .collect();
    let proxy = Proxy::start(
        support::PROXY_LISTEN,
        three.iter().map(|instance| instance.addr).collect(),
    )
    .await
    .unwrap();
    measure("3 instances, Redis stores, via proxy", &proxy.url("/mcp")).await;
}
