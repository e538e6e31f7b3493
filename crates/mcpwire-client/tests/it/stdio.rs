//! Server requests over the stdio transport (newline-delimited JSON over
//! byte streams): a form elicitation with defaults (as each revision has
//! them) and a sampling request with an image go through the framing
//! intact, in a handshake revision and in 2026-07-28.

use std::collections::BTreeMap;

use mcpwire_client::{BoxFuture, Client, ClientHandler, HandlerContext};
use mcpwire_jsonrpc::ErrorObject;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_stdio::StdioTransport;
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitValue, ProtocolVersion, RequestedSchema, Tool,
};
use serde_json::json;

use crate::support::{bounded, config};

fn schema() -> RequestedSchema {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "lang": {"type": "string", "enum": ["en", "fr"], "default": "fr"}
        },
        "required": ["name"]
    }))
    .unwrap()
}

/// Asks for a form and a sample in one round, then reports both answers.
fn server() -> Server {
    Server::builder("stdio", "1.0.0")
        .tool(
            Tool::without_arguments("both"),
            |ctx: Context, _| async move {
                let form = ctx.checked_elicit_response("form", &schema());
                match (form, ctx.sampling_response("model")) {
                    (Some(Ok(form)), Some(reply)) => Ok(CallToolResult::text(format!(
                        "{} / {}",
                        serde_json::to_string(&form.content).unwrap(),
                        serde_json::to_value(&reply.content).unwrap()["text"]
                    ))),
                    _ => {
                        let sample: CreateMessageRequestParams = serde_json::from_value(json!({
                            "messages": [{"role": "user", "content":
                                {"type": "image", "data": "aW1hZ2U=", "mimeType": "image/png"}}],
                            "maxTokens": 10
                        }))
                        .unwrap();
                        Err::<CallToolResult, HandlerError>(
                            ctx.input_required()
                                .elicit("form", ElicitRequestParams::form("Name?", schema()))
                                .sample("model", sample)
                                .into(),
                        )
                    }
                }
            },
        )
        .build()
        .unwrap()
}

struct Host;

impl ClientHandler for Host {
    fn elicit(
        &self,
        _params: ElicitRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        let content = BTreeMap::from([("name".to_owned(), ElicitValue::String("Ada".to_owned()))]);
        Box::pin(async move { Ok(ElicitResult::accept(content)) })
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        let image = serde_json::to_value(&params.messages[0].content).unwrap();
        let text = format!("saw {}", image["mimeType"].as_str().unwrap_or("nothing"));
        Box::pin(async move {
            Ok(serde_json::from_value(json!({
                "role": "assistant", "content": {"type": "text", "text": text}, "model": "m"
            }))
            .unwrap())
        })
    }
}

#[tokio::test]
async fn elicitation_and_sampling_cross_the_stdio_framing_in_both_eras() {
    bounded(async {
        // Defaults exist from 2025-11-25 on: 2025-06-18 never sees them.
        for (version, form) in [
            (ProtocolVersion::V2025_06_18, r#"{"name":"Ada"}"#),
            (
                ProtocolVersion::V2026_07_28,
                r#"{"lang":"fr","name":"Ada"}"#,
            ),
        ] {
            let (client_end, server_end) = tokio::io::duplex(64 * 1024);
            let (server_read, server_write) = tokio::io::split(server_end);
            let (client_read, client_write) = tokio::io::split(client_end);
            let server = server();
            tokio::spawn(async move {
                server
                    .serve(StdioTransport::new(server_read, server_write))
                    .await
            });
            let mut config = config().pinned(version);
            config.capabilities.elicitation = Some(Default::default());
            config.capabilities.sampling = Some(Default::default());
            let client = Client::builder(config)
                .handler(Host)
                .connect(StdioTransport::new(client_read, client_write))
                .await
                .unwrap();
            let result = client
                .call_tool_with_input(CallToolRequestParams::new("both"))
                .await
                .unwrap();
            assert_eq!(
                result.content,
                CallToolResult::text(format!(r#"{form} / "saw image/png""#)).content,
                "{version}"
            );
            client.close().await;
        }
    })
    .await;
}
