//! Elicitation through the client's handler in both eras: defaults for
//! omitted fields (ELIC-13, SEP-1034), the schema check before sending
//! (ELIC-15), the declared modes (ELIC-09), URL mode handed to a hook that
//! gets the full URL (ELIC-31, ELIC-32), `notifications/elicitation/complete`,
//! and the -32042 error surfaced typed (ELIC-25).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcpwire_client::{BoxFuture, Client, ClientConfig, ClientError, ClientHandler, HandlerContext};
use mcpwire_jsonrpc::ErrorObject;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::methods::ServerNotification;
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, ElicitAction, ElicitRequestParams,
    ElicitRequestURLParams, ElicitResult, ElicitValue, InputRequiredResult, ProtocolVersion,
    RequestedSchema, Tool,
};
use serde_json::{Value, json};

use crate::support::{bounded, config, serve};

/// Every field shape of a form (2025-11-25), with defaults on most.
fn profile_schema() -> RequestedSchema {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "email": {"type": "string", "format": "email", "default": "a@example.com"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
            "subscribe": {"type": "boolean", "default": false},
            "plan": {"type": "string", "enum": ["free", "pro"], "default": "free"},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}], "default": "s"},
            "legacy": {"type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["a"]},
            "colors": {"type": "array", "items": {"anyOf": [{"const": "r", "title": "Red"}]}}
        },
        "required": ["name", "email"]
    }))
    .unwrap()
}

/// A server whose tool `profile` elicits the form (through
/// `input_required`) and reports the content it got; `login` requires a
/// URL elicitation (-32042) and `visit` asks for one; `done` announces
/// the completion of `e-7`.
fn eliciting_server() -> Server {
    Server::builder("elicitor", "1.0.0")
        .tool(
            Tool::without_arguments("profile"),
            |ctx: Context, _| async move {
                match ctx.checked_elicit_response("form", &profile_schema()) {
                    Some(Ok(answer)) => Ok(CallToolResult::text(
                        serde_json::to_string(&answer.content).unwrap(),
                    )),
                    Some(Err(mismatch)) => Ok(CallToolResult::text(format!("invalid {mismatch}"))),
                    None => Err::<CallToolResult, HandlerError>(
                        ctx.input_required()
                            .elicit(
                                "form",
                                ElicitRequestParams::form("Profile?", profile_schema()),
                            )
                            .into(),
                    ),
                }
            },
        )
        .tool(
            Tool::without_arguments("visit"),
            |ctx: Context, _| async move {
                match ctx.elicit_response("go") {
                    Some(answer) => Ok(CallToolResult::text(format!("{:?}", answer.action))),
                    None => Err::<CallToolResult, HandlerError>(
                        ctx.input_required()
                            .elicit("go", ElicitRequestParams::Url(url_params()))
                            .into(),
                    ),
                }
            },
        )
        .tool(
            Tool::without_arguments("login"),
            |_ctx: Context, _| async move {
                Err::<CallToolResult, _>(HandlerError::url_elicitation_required(vec![url_params()]))
            },
        )
        .tool(
            Tool::without_arguments("done"),
            |ctx: Context, _| async move {
                ctx.elicitation_complete("e-7")
                    .await
                    .map_err(HandlerError::internal)?;
                Ok(CallToolResult::text("done"))
            },
        )
        .build()
        .unwrap()
}

fn url_params() -> ElicitRequestURLParams {
    ElicitRequestURLParams::new(
        "Connect your account",
        "https://auth.example.com/connect?state=abc",
    )
    .with_elicitation_id("e-7")
}

/// A user who fills `fields` and leaves the rest to the defaults, and who
/// consents to every URL (recording it).
struct User {
    fields: Value,
    urls: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for User {
    fn elicit(
        &self,
        params: ElicitRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        assert!(matches!(params, ElicitRequestParams::Form(_)));
        let content: BTreeMap<String, ElicitValue> =
            serde_json::from_value(self.fields.clone()).unwrap();
        Box::pin(async move { Ok(ElicitResult::accept(content)) })
    }

    fn elicit_url(
        &self,
        params: ElicitRequestURLParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        self.urls.lock().unwrap().push(params.url);
        Box::pin(async { Ok(ElicitResult::new(ElicitAction::Accept)) })
    }
}

fn eliciting_config(version: ProtocolVersion, elicitation: Value) -> ClientConfig {
    let mut config = config().pinned(version);
    config.capabilities.elicitation = Some(serde_json::from_value(elicitation).unwrap());
    config
}

async fn connect(
    version: ProtocolVersion,
    elicitation: Value,
    fields: Value,
) -> (Client, Arc<Mutex<Vec<String>>>) {
    let urls = Arc::new(Mutex::new(Vec::new()));
    let user = User {
        fields,
        urls: urls.clone(),
    };
    let client = Client::builder(eliciting_config(version, elicitation))
        .handler(user)
        .connect(serve(&eliciting_server()))
        .await
        .unwrap();
    (client, urls)
}

async fn call(client: &Client, tool: &str) -> Result<String, ClientError> {
    let result = client
        .call_tool_with_input(CallToolRequestParams::new(tool))
        .await?;
    Ok(serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_owned())
}

#[tokio::test]
async fn omitted_fields_are_sent_with_their_defaults_in_both_eras_sep_1034() {
    bounded(async {
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let fields = json!({"name": "Ada", "legacy": "y", "colors": ["r"], "age": 36});
            let (client, _) = connect(version, json!({}), fields).await;
            let text = call(&client, "profile").await.unwrap();
            let content: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                content,
                json!({
                    "name": "Ada", "email": "a@example.com", "age": 36, "subscribe": false,
                    "plan": "free", "size": "s", "legacy": "y", "tags": ["a"], "colors": ["r"]
                }),
                "{version}"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn an_answer_that_breaks_the_schema_is_not_sent_elic_15() {
    bounded(async {
        let fields = json!({"name": "", "age": 200, "plan": "gold"});
        let (client, _) = connect(ProtocolVersion::V2025_11_25, json!({}), fields.clone()).await;
        let error = call(&client, "profile").await.unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("does not match the requested schema"),
            "{text}"
        );
        assert!(text.contains("age: must be at most 150"), "{text}");

        let (client, _) = connect(ProtocolVersion::V2026_07_28, json!({}), fields).await;
        match call(&client, "profile").await {
            Err(ClientError::InputFailed { key, error }) => {
                assert_eq!((key.as_str(), error.code.code()), ("form", -32603));
                assert!(error.message.contains("plan"), "{}", error.message);
            }
            other => panic!("expected InputFailed, got {other:?}"),
        }
    })
    .await;
}

#[tokio::test]
async fn url_mode_hands_the_full_url_to_the_hook_and_nothing_opens_it_elic_32() {
    bounded(async {
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let (client, urls) = connect(version, json!({"url": {}}), json!({})).await;
            assert_eq!(call(&client, "visit").await.unwrap(), "Accept");
            assert_eq!(
                *urls.lock().unwrap(),
                ["https://auth.example.com/connect?state=abc"],
                "{version}"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn a_mode_the_client_did_not_declare_is_refused_elic_09() {
    bounded(async {
        // An empty capability means form mode only: the server leaves the
        // URL request out, and a server that sends it anyway gets -32602.
        let (client, urls) = connect(ProtocolVersion::V2026_07_28, json!({}), json!({})).await;
        let error = call(&client, "visit").await.unwrap_err();
        assert!(crate::support::is_peer_error(&error, -32021), "{error:?}");
        let input: InputRequiredResult = serde_json::from_value(json!({
            "resultType": "input_required",
            "inputRequests": {"go": {"method": "elicitation/create", "params": {
                "mode": "url", "message": "m", "url": "https://example.com", "elicitationId": "x"
            }}}
        }))
        .unwrap();
        match client.fulfil_input(&input).await {
            Err(ClientError::InputFailed { error, .. }) => assert_eq!(error.code.code(), -32602),
            other => panic!("expected InputFailed, got {other:?}"),
        }
        assert!(urls.lock().unwrap().is_empty());
    })
    .await;
}

#[tokio::test]
async fn the_url_elicitation_required_error_is_typed_and_only_a_known_completion_is_notified_elic_22()
 {
    bounded(async {
        let (client, _) =
            connect(ProtocolVersion::V2025_11_25, json!({"url": {}}), json!({})).await;
        match client.call_tool("login", ()).await {
            Err(ClientError::UrlElicitationRequired(data)) => {
                assert_eq!(data.elicitations.len(), 1);
                assert_eq!(data.elicitations[0].elicitation_id.as_deref(), Some("e-7"));
                assert_eq!(data.elicitations[0].url, url_params().url);
            }
            other => panic!("expected UrlElicitationRequired, got {other:?}"),
        }
        let mut notifications = client.notifications();
        call(&client, "done").await.unwrap();
        match notifications.recv().await.unwrap() {
            ServerNotification::ElicitationComplete(params) => {
                assert_eq!(params.elicitation_id, "e-7");
            }
            other => panic!("expected the completion, got {other:?}"),
        }
        // Completed already: a second announcement is ignored (ELIC-22).
        call(&client, "done").await.unwrap();
        assert!(notifications.try_recv().is_err());
        // A client that never saw `e-7` ignores its completion too.
        let (fresh, _) = connect(ProtocolVersion::V2025_11_25, json!({"url": {}}), json!({})).await;
        let mut notifications = fresh.notifications();
        call(&fresh, "done").await.unwrap();
        assert!(notifications.try_recv().is_err());
    })
    .await;
}
