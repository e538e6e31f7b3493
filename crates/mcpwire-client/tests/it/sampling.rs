//! Sampling through the client's handler in both eras: everything the
//! server sent reaches the model call (SAMP-19), the human-approval hooks
//! can edit or deny the request and edit the reply (SAMP-02, SAMP-13), and
//! tools need `sampling.tools` (SAMP-05).

use std::sync::Mutex;

use mcpwire_client::{
    BoxFuture, Client, ClientConfig, ClientError, ClientHandler, HandlerContext, user_rejected,
};
use mcpwire_jsonrpc::ErrorObject;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, CreateMessageRequestParams, CreateMessageResult,
    InputRequiredResult, ProtocolVersion, Tool,
};
use serde_json::{Value, json};

use crate::support::{bounded, config, serve};

/// Every field a sampling request can carry (2025-11-25 on).
fn rich_request() -> Value {
    json!({
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "Describe these"},
                {"type": "image", "data": "aW1n", "mimeType": "image/png"},
                {"type": "audio", "data": "YXVk", "mimeType": "audio/wav"}
            ]},
            {"role": "assistant", "content": {"type": "tool_use", "id": "u1", "name": "lookup", "input": {"q": "x"}}},
            {"role": "user", "content": {"type": "tool_result", "toolUseId": "u1", "content": [{"type": "text", "text": "found"}]}}
        ],
        "modelPreferences": {"hints": [{"name": "claude"}, {"name": "sonnet"}], "speedPriority": 0.5},
        "systemPrompt": "Be brief.",
        "includeContext": "thisServer",
        "temperature": 0.2,
        "maxTokens": 50,
        "stopSequences": ["END"],
        "tools": [{"name": "lookup", "inputSchema": {"type": "object"}}],
        "toolChoice": {"mode": "auto"}
    })
}

/// A server whose tool `ask` samples the client with `request` (through
/// `input_required`, which the handshake revisions turn into a server
/// request) and reports the reply's text, or the failure.
fn sampling_server(request: Value) -> Server {
    Server::builder("sampler", "1.0.0")
        .tool(Tool::without_arguments("ask"), move |ctx: Context, _| {
            let request = request.clone();
            async move {
                match ctx.sampling_response("q") {
                    Some(reply) => Ok(CallToolResult::text(
                        serde_json::to_value(&reply.content).unwrap()["text"]
                            .as_str()
                            .unwrap_or_default(),
                    )),
                    None => {
                        let params: CreateMessageRequestParams =
                            serde_json::from_value(request).unwrap();
                        Err::<CallToolResult, HandlerError>(
                            ctx.input_required().sample("q", params).into(),
                        )
                    }
                }
            }
        })
        .build()
        .unwrap()
}

/// A host that records what reaches its model, reviews requests (adding to
/// the system prompt, or denying) and rewrites the model's reply.
#[derive(Default)]
struct Host {
    deny: bool,
    seen: Mutex<Vec<Value>>,
}

impl ClientHandler for Host {
    fn review_sampling_request(
        &self,
        mut params: CreateMessageRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageRequestParams, ErrorObject>> {
        let outcome = if self.deny {
            Err(user_rejected())
        } else {
            let prompt = params.system_prompt.take().unwrap_or_default();
            params.system_prompt = Some(format!("{prompt} (reviewed)"));
            Ok(params)
        };
        Box::pin(std::future::ready(outcome))
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        self.seen
            .lock()
            .unwrap()
            .push(serde_json::to_value(&params).unwrap());
        Box::pin(async { Ok(reply("raw model text")) })
    }

    fn review_sampling_result(
        &self,
        _result: CreateMessageResult,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        Box::pin(async { Ok(reply("approved text")) })
    }
}

fn reply(text: &str) -> CreateMessageResult {
    serde_json::from_value(json!({
        "role": "assistant", "content": {"type": "text", "text": text}, "model": "m"
    }))
    .unwrap()
}

fn sampling_config(version: ProtocolVersion, tools: bool) -> ClientConfig {
    let mut config = config().pinned(version);
    let sampling = if tools {
        json!({"tools": {}, "context": {}})
    } else {
        json!({})
    };
    config.capabilities.sampling = Some(serde_json::from_value(sampling).unwrap());
    config
}

async fn connect(server: &Server, config: ClientConfig, host: Host) -> Client {
    Client::builder(config)
        .handler(host)
        .connect(serve(server))
        .await
        .unwrap()
}

#[tokio::test]
async fn every_field_reaches_the_model_and_both_reviews_apply_in_both_eras() {
    bounded(async {
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let server = sampling_server(rich_request());
            let host = std::sync::Arc::new(Host::default());
            let client = Client::builder(sampling_config(version, true))
                .handler(Shared(host.clone()))
                .connect(serve(&server))
                .await
                .unwrap();
            let result = client
                .call_tool_with_input(CallToolRequestParams::new("ask"))
                .await
                .unwrap();
            assert_eq!(
                result.content,
                CallToolResult::text("approved text").content
            );
            let seen = host.seen.lock().unwrap().pop().unwrap();
            let mut expected = rich_request();
            expected["systemPrompt"] = json!("Be brief. (reviewed)");
            assert_eq!(seen, expected, "{version}");
            client.close().await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_denied_request_never_reaches_the_model_samp_13() {
    bounded(async {
        let simple = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
        // Handshake era: the server's request is answered -1.
        let server = sampling_server(simple.clone());
        let host = Host {
            deny: true,
            ..Host::default()
        };
        let client = connect(&server, sampling_config(ProtocolVersion::V2025_06_18, false), host).await;
        let error = client.call_tool("ask", ()).await.unwrap_err();
        assert!(error.to_string().contains("User rejected"), "{error}");
        // 2026-07-28: the input request fails on the client, nothing is retried.
        let host = Host {
            deny: true,
            ..Host::default()
        };
        let client = connect(&server, sampling_config(ProtocolVersion::V2026_07_28, false), host).await;
        match client.call_tool_with_input(CallToolRequestParams::new("ask")).await {
            Err(ClientError::InputFailed { key, error }) => {
                assert_eq!((key.as_str(), error.code.code()), ("q", -1));
            }
            other => panic!("expected InputFailed, got {other:?}"),
        }
    })
    .await;
}

#[tokio::test]
async fn tools_in_sampling_need_the_sampling_tools_capability_samp_04_samp_05() {
    bounded(async {
        // The server leaves the request out for a client without
        // `sampling.tools`, so nothing is left to ask: -32021.
        let server = sampling_server(rich_request());
        let client = connect(
            &server,
            sampling_config(ProtocolVersion::V2026_07_28, false),
            Host::default(),
        )
        .await;
        let error = client
            .call_tool_with_input(CallToolRequestParams::new("ask"))
            .await
            .unwrap_err();
        assert!(crate::support::is_peer_error(&error, -32021), "{error:?}");
        // A server that sends tools anyway gets -32602 from the client.
        let input: InputRequiredResult = serde_json::from_value(json!({
            "resultType": "input_required",
            "inputRequests": {"q": {"method": "sampling/createMessage", "params": rich_request()}}
        }))
        .unwrap();
        match client.fulfil_input(&input).await {
            Err(ClientError::InputFailed { error, .. }) => assert_eq!(error.code.code(), -32602),
            other => panic!("expected InputFailed, got {other:?}"),
        }
    })
    .await;
}

/// A handler shared with the test, which reads what it recorded.
struct Shared(std::sync::Arc<Host>);

impl ClientHandler for Shared {
    fn review_sampling_request(
        &self,
        params: CreateMessageRequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageRequestParams, ErrorObject>> {
        self.0.review_sampling_request(params, context)
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        self.0.create_message(params, context)
    }

    fn review_sampling_result(
        &self,
        result: CreateMessageResult,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        self.0.review_sampling_result(result, context)
    }
}

/// A request whose `tool_result` answers no earlier `tool_use` (SAMP-10).
fn disordered_request() -> Value {
    json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "user", "content": {"type": "tool_result", "toolUseId": "ghost", "content": []}}
        ],
        "maxTokens": 5
    })
}

#[tokio::test]
async fn tool_blocks_out_of_order_never_reach_the_model_samp_07_08_10() {
    bounded(async {
        // The client side: a server that sends such a request gets -32602,
        // and the host's model is never called.
        let server = sampling_server(rich_request());
        let host = std::sync::Arc::new(Host::default());
        let client = Client::builder(sampling_config(ProtocolVersion::V2026_07_28, true))
            .handler(Shared(host.clone()))
            .connect(serve(&server))
            .await
            .unwrap();
        let input: InputRequiredResult = serde_json::from_value(json!({
            "resultType": "input_required",
            "inputRequests": {"q": {"method": "sampling/createMessage", "params": disordered_request()}}
        }))
        .unwrap();
        match client.fulfil_input(&input).await {
            Err(ClientError::InputFailed { error, .. }) => {
                assert_eq!(error.code.code(), -32602);
                assert!(error.message.contains("SAMP-10"), "{}", error.message);
            }
            other => panic!("expected InputFailed, got {other:?}"),
        }
        assert!(host.seen.lock().unwrap().is_empty());
        client.close().await;
        // The server side, in both eras: the handler's request is never
        // sent; the call fails with an error naming the rule.
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let server = sampling_server(disordered_request());
            let host = std::sync::Arc::new(Host::default());
            let client = Client::builder(sampling_config(version, true))
                .handler(Shared(host.clone()))
                .connect(serve(&server))
                .await
                .unwrap();
            let error = client
                .call_tool_with_input(CallToolRequestParams::new("ask"))
                .await
                .unwrap_err();
            assert!(error.to_string().contains("SAMP-10"), "{version}: {error}");
            assert!(host.seen.lock().unwrap().is_empty(), "{version}");
            client.close().await;
        }
    })
    .await;
}
