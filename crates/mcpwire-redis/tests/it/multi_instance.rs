//! One MCP service on three server instances sharing one Redis, behind a
//! round-robin proxy that sends every request to the next instance: our
//! client (mcpwire-client over StreamableHttpClient) calls tools with
//! progress and elicitation, survives the instance holding its stream
//! being killed (resuming elsewhere with `Last-Event-ID`, HTTP-30..33),
//! and a Redis restart under load gives errors, never a hang.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use crate::support::RedisServer;
use crate::support::cluster::{Instance, instances};
use http::Method;
use mcpwire_client::{
    BoxFuture, Client, ClientConfig, ClientHandler, HandlerContext, RequestOptions,
};
use mcpwire_http::client::StreamableHttpClient;
use mcpwire_http::server::Config;
use mcpwire_jsonrpc::ErrorObject;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_test::proxy::RoundRobinProxy as Proxy;
use mcpwire_types::methods::CallTool;
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ContentBlock, ElicitRequestParams,
    ElicitResult, ElicitValue, ElicitationCapability, Implementation, PrimitiveSchemaDefinition,
    ProtocolVersion, RequestedSchema, StringSchema, Tool,
};

/// The tools every instance serves.
fn scaled_server() -> Server {
    Server::builder("scaled", "1.0.0")
        .tool(Tool::without_arguments("quick"), |_ctx: Context, _| async {
            Ok::<_, HandlerError>(CallToolResult::text("quick"))
        })
        .tool(
            Tool::without_arguments("count"),
            |ctx: Context, _| async move {
                for step in 1..=20 {
                    ctx.progress(f64::from(step), Some(20.0), None).await;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Ok::<_, HandlerError>(CallToolResult::text("counted 20"))
            },
        )
        .tool(
            Tool::without_arguments("confirm"),
            |ctx: Context, _| async move {
                ctx.progress(1.0, Some(2.0), Some("asking")).await;
                let form = RequestedSchema::default().with_property(
                    "answer",
                    PrimitiveSchemaDefinition::String(StringSchema::default()),
                    true,
                );
                let params = ElicitRequestParams::form("Go on?", form);
                let answer = ctx
                    .elicit(params, RequestOptions::default())
                    .await
                    .map_err(|error| HandlerError::tool(error.to_string()))?;
                ctx.progress(2.0, Some(2.0), Some("answered")).await;
                let content = answer.content.unwrap_or_default();
                let text = match content.get("answer") {
                    Some(ElicitValue::String(text)) => text.clone(),
                    other => format!("{other:?}"),
                };
                Ok(CallToolResult::text(format!("answer {text}")))
            },
        )
        .build()
        .unwrap()
}

/// Answers every form elicitation with `answer: "yes"`.
struct SaysYes;

impl ClientHandler for SaysYes {
    fn elicit(
        &self,
        _params: ElicitRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        Box::pin(async {
            let mut content = BTreeMap::new();
            content.insert("answer".to_owned(), ElicitValue::String("yes".to_owned()));
            Ok(ElicitResult::accept(content))
        })
    }
}

async fn connect(url: &str) -> Result<Client, mcpwire_client::ConnectError> {
    let transport = StreamableHttpClient::new(url).unwrap();
    let capabilities = ClientCapabilities {
        elicitation: Some(ElicitationCapability::default()),
        ..ClientCapabilities::default()
    };
    let config = ClientConfig::new(Implementation::new("scale-test", "1.0.0"), capabilities)
        .pinned(ProtocolVersion::V2025_11_25);
    Client::builder(config)
        .handler(SaysYes)
        .connect(transport)
        .await
}

fn text_of(result: &CallToolResult) -> String {
    match result.content.first() {
        Some(ContentBlock::Text(text)) => text.text.clone(),
        other => format!("{other:?}"),
    }
}

/// Three instances on one Redis behind the proxy.
struct Deployment {
    proxy: Proxy,
    instances: Vec<Instance>,
    redis: RedisServer,
}

async fn deploy() -> Deployment {
    let redis = RedisServer::start();
    let http = Config::default().retry_interval(Duration::from_millis(100));
    let instances = instances(3, &redis.config(), &scaled_server(), &http);
    let proxy = Proxy::start(
        crate::support::PROXY_LISTEN,
        instances.iter().map(|instance| instance.addr).collect(),
    )
    .await
    .unwrap();
    Deployment {
        proxy,
        instances,
        redis,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_elicitation_complete_when_every_request_lands_on_another_instance() {
    let deployment = deploy().await;
    let client = connect(&deployment.proxy.url("/mcp")).await.unwrap();
    for _ in 0..6 {
        let params = CallToolRequestParams::new("confirm");
        let (call, mut reports) =
            client.request_with_progress::<CallTool>(params, RequestOptions::default());
        let result = tokio::time::timeout(Duration::from_secs(20), call)
            .await
            .expect("the call completed within 20 s")
            .unwrap();
        assert_eq!(text_of(&result), "answer yes");
        let mut seen = Vec::new();
        while let Ok(report) = reports.try_recv() {
            seen.push(report.progress);
        }
        assert_eq!(seen, vec![1.0, 2.0]);
    }
    let result = client.call_tool("quick", ()).await.unwrap();
    assert_eq!(text_of(&result), "quick");
    client.close().await;
    // The requests really were spread: each instance served POSTs.
    let log = deployment.proxy.log();
    let served: BTreeSet<usize> = log
        .iter()
        .filter(|routed| routed.method == Method::POST)
        .map(|routed| routed.backend)
        .collect();
    assert_eq!(served.len(), 3, "{log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_resumes_on_another_instance_when_its_streams_instance_dies() {
    let mut deployment = deploy().await;
    let client = connect(&deployment.proxy.url("/mcp")).await.unwrap();
    let log = deployment.proxy.log();
    let runtime = log
        .iter()
        .find(|routed| routed.rpc_method.as_deref() == Some("initialize"))
        .unwrap()
        .backend;
    // The call's POST goes to an instance that does not run the session.
    let target = (runtime + 1) % 3;
    deployment.proxy.pin("tools/call", target);
    let params = CallToolRequestParams::new("count");
    let (call, mut reports) =
        client.request_with_progress::<CallTool>(params, RequestOptions::default());
    tokio::pin!(call);
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen.len() < 5 {
        tokio::select! {
            _ = &mut call => panic!("the call ended before the kill"),
            report = reports.recv() => seen.push(report.unwrap().progress),
            () = tokio::time::sleep_until(deadline.into()) => panic!("no progress: {seen:?}"),
        }
    }
    let served = deployment
        .proxy
        .log()
        .iter()
        .rev()
        .find(|routed| routed.rpc_method.as_deref() == Some("tools/call"))
        .unwrap()
        .backend;
    assert_ne!(served, runtime, "the call landed on the runtime's instance");
    let mut victim = deployment.instances.remove(served);
    tokio::task::spawn_blocking(move || victim.kill())
        .await
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), &mut call)
        .await
        .expect("the call completed within 30 s after the kill")
        .unwrap();
    assert_eq!(text_of(&result), "counted 20");
    while let Ok(report) = reports.try_recv() {
        seen.push(report.progress);
    }
    // No report lost, none repeated, in order.
    let expected: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!(seen, expected);
    let resumed = deployment
        .proxy
        .log()
        .iter()
        .any(|routed| routed.method == Method::GET && routed.backend != served);
    assert!(resumed, "no GET resumed the stream elsewhere");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restart_under_load_gives_errors_not_hangs_and_the_service_recovers() {
    let mut deployment = deploy().await;
    let url = deployment.proxy.url("/mcp");
    let load = tokio::spawn(async move {
        let client = connect(&url).await.unwrap();
        let (mut ok, mut failed) = (0usize, 0usize);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(4) {
            // Each call is bounded: a hang fails the test.
            let outcome =
                tokio::time::timeout(Duration::from_secs(10), client.call_tool("quick", ()))
                    .await
                    .expect("a call hung while Redis restarted");
            match outcome {
                Ok(_) => ok += 1,
                Err(_) => failed += 1,
            }
        }
        (ok, failed)
    });
    tokio::time::sleep(Duration::from_millis(800)).await;
    tokio::task::block_in_place(|| deployment.redis.kill());
    tokio::time::sleep(Duration::from_millis(700)).await;
    tokio::task::block_in_place(|| deployment.redis.restart());
    let (ok, failed) = load.await.unwrap();
    assert!(ok > 0, "no call succeeded before the restart");
    assert!(failed > 0, "no call noticed the restart");
    // The session died with Redis's data. Recovery: within 20 s a new
    // client connects and completes a call; from then on every call works,
    // whichever instance each request lands on.
    let started = Instant::now();
    let client = loop {
        let attempt = tokio::time::timeout(Duration::from_secs(5), async {
            let client = connect(&deployment.proxy.url("/mcp")).await.ok()?;
            client.call_tool("quick", ()).await.ok()?;
            Some(client)
        })
        .await;
        if let Ok(Some(client)) = attempt {
            break client;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "no recovery");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    for _ in 0..6 {
        let result = client.call_tool("quick", ()).await;
        let log = deployment.proxy.log();
        let tail = &log[log.len().saturating_sub(8)..];
        let result = result.unwrap_or_else(|error| panic!("{error:?} after {tail:?}"));
        assert_eq!(text_of(&result), "quick");
    }
    client.close().await;
}
