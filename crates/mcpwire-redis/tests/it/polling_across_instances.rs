//! SSE polling (SEP-1699, HTTP-14, HTTP-16) across instances: three
//! instances on one Redis behind the round-robin proxy close every stream
//! connection shortly after it opens (`Config::poll_after`), so the client
//! resumes each stream with `Last-Event-ID` (HTTP-30..33), every time on
//! another instance than the one that closed it, while the call's progress
//! and its server-to-client request keep coming from the runtime's.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::support::RedisServer;
use crate::support::cluster::instances;
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

/// Sends ten progress reports 60 ms apart, asks the client a question
/// halfway, and answers with what the client said.
fn polled_server() -> Server {
    Server::builder("polled", "1.0.0")
        .tool(
            Tool::without_arguments("slow"),
            |ctx: Context, _| async move {
                let mut said = String::new();
                for step in 1..=10 {
                    ctx.progress(f64::from(step), Some(10.0), None).await;
                    tokio::time::sleep(Duration::from_millis(60)).await;
                    if step == 5 {
                        let form = RequestedSchema::default().with_property(
                            "answer",
                            PrimitiveSchemaDefinition::String(StringSchema::default()),
                            true,
                        );
                        let answer = ctx
                            .elicit(
                                ElicitRequestParams::form("Go on?", form),
                                RequestOptions::default(),
                            )
                            .await
                            .map_err(|error| HandlerError::tool(error.to_string()))?;
                        if let Some(ElicitValue::String(text)) =
                            answer.content.unwrap_or_default().get("answer")
                        {
                            said.clone_from(text);
                        }
                    }
                }
                Ok::<_, HandlerError>(CallToolResult::text(format!("done, {said}")))
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_polled_call_resumes_on_other_instances_and_loses_no_progress_or_request() {
    let redis = RedisServer::start();
    // Closes each stream connection 150 ms after it opens; the client is
    // told to come back after 50 ms (`retry:`).
    let http = Config::default()
        .poll_after(Some(Duration::from_millis(150)))
        .retry_interval(Duration::from_millis(50));
    let deployment = instances(3, &redis.config(), &polled_server(), &http);
    let proxy = Proxy::start(
        crate::support::PROXY_LISTEN,
        deployment.iter().map(|instance| instance.addr).collect(),
    )
    .await
    .unwrap();
    let transport = StreamableHttpClient::new(&proxy.url("/mcp")).unwrap();
    let capabilities = ClientCapabilities {
        elicitation: Some(ElicitationCapability::default()),
        ..ClientCapabilities::default()
    };
    let config = ClientConfig::new(Implementation::new("polling-test", "1.0.0"), capabilities)
        .pinned(ProtocolVersion::V2025_11_25);
    let client = Client::builder(config)
        .handler(SaysYes)
        .connect(transport)
        .await
        .unwrap();
    let (call, mut reports) = client.request_with_progress::<CallTool>(
        CallToolRequestParams::new("slow"),
        RequestOptions::default(),
    );
    let result = tokio::time::timeout(Duration::from_secs(20), call)
        .await
        .expect("the call completed within 20 s")
        .unwrap();
    match result.content.first() {
        Some(ContentBlock::Text(text)) => assert_eq!(text.text, "done, yes"),
        other => panic!("unexpected content {other:?}"),
    }
    let mut seen = Vec::new();
    while let Ok(report) = reports.try_recv() {
        seen.push(report.progress);
    }
    // Every report once, in order, across all the resumptions.
    let expected: Vec<f64> = (1..=10).map(f64::from).collect();
    assert_eq!(seen, expected);
    // The call's stream really was resumed, with GETs, on several instances.
    let log = proxy.log();
    let resumed: std::collections::BTreeSet<usize> = log
        .iter()
        .filter(|routed| routed.method == Method::GET)
        .map(|routed| routed.backend)
        .collect();
    assert!(resumed.len() >= 2, "{log:?}");
    client.close().await;
}
