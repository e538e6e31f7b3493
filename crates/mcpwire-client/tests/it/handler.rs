//! Requests from the server answered by a `ClientHandler` (ROOTS-04,
//! ROOTS-09), the -32601 defaults, and cancellation by the server.

use std::time::Duration;

use mcpwire_client::{
    BoxFuture, Cancellation, Client, ClientConfig, ClientHandler, HandlerContext,
};
use mcpwire_jsonrpc::ErrorObject;
use mcpwire_server::{Context, HandlerError, PeerRequestError, Server};
use mcpwire_session::{RequestOptions, ResponseError};
use mcpwire_types::methods::{ClientResult, ServerRequest};
use mcpwire_types::{
    CallToolResult, ContentBlock, ListRootsResult, ProtocolVersion, RequestParams, Root, Tool,
};
use serde_json::Map;
use tokio::sync::mpsc;

use crate::support::{bounded, config, serve};

/// A server whose tool `roots` asks the client for its roots (with a
/// timeout of `timeout`) and reports what came back as text.
fn asking_server(timeout: Duration) -> Server {
    Server::builder("asking", "1.0.0")
        .tool(
            Tool::without_arguments("roots"),
            move |ctx: Context, _args| async move {
                let request = ServerRequest::ListRoots(Box::default());
                let options = RequestOptions::default().with_timeout(timeout);
                let text = match ctx.request(request, options).await {
                    Ok(ClientResult::ListRoots(result)) => {
                        let uris: Vec<&str> =
                            result.roots.iter().map(|root| root.uri.as_str()).collect();
                        uris.join(",")
                    }
                    Ok(other) => format!("unexpected {other:?}"),
                    Err(PeerRequestError::Failed(ResponseError::Peer(error))) => {
                        format!("error {}", error.code.code())
                    }
                    Err(PeerRequestError::Failed(ResponseError::TimedOut)) => {
                        "timed out".to_owned()
                    }
                    Err(other) => format!("failed: {other}"),
                };
                Ok::<_, HandlerError>(CallToolResult::text(text))
            },
        )
        .build()
        .unwrap()
}

fn with_roots_capability() -> ClientConfig {
    let mut config = config().pinned(ProtocolVersion::V2025_11_25);
    config.capabilities.roots = Some(Default::default());
    config
}

async fn call_roots(client: &Client) -> Vec<ContentBlock> {
    client.call_tool("roots", Map::new()).await.unwrap().content
}

struct TwoRoots;

impl ClientHandler for TwoRoots {
    fn list_roots(
        &self,
        _params: RequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<ListRootsResult, ErrorObject>> {
        assert_eq!(context.version(), ProtocolVersion::V2025_11_25);
        Box::pin(async {
            let roots = vec![
                Root::new("file:///a"),
                Root::new("file:///b").with_name("b"),
            ];
            Ok(ListRootsResult::new(roots))
        })
    }
}

#[tokio::test]
async fn an_installed_handler_answers_the_servers_request() {
    bounded(async {
        let server = asking_server(Duration::from_secs(10));
        let client = Client::builder(with_roots_capability())
            .handler(TwoRoots)
            .connect(serve(&server))
            .await
            .unwrap();
        assert_eq!(
            call_roots(&client).await,
            [ContentBlock::text("file:///a,file:///b")]
        );
    })
    .await;
}

#[tokio::test]
async fn without_a_handler_a_declared_capability_is_answered_method_not_found() {
    bounded(async {
        let server = asking_server(Duration::from_secs(10));
        let client = Client::connect(serve(&server), with_roots_capability())
            .await
            .unwrap();
        assert_eq!(
            call_roots(&client).await,
            [ContentBlock::text("error -32601")]
        );
    })
    .await;
}

/// Hands out the cancellation signal of each request, and never answers.
struct Stalling {
    started: mpsc::UnboundedSender<Cancellation>,
}

impl ClientHandler for Stalling {
    fn list_roots(
        &self,
        _params: RequestParams,
        context: HandlerContext,
    ) -> BoxFuture<'_, Result<ListRootsResult, ErrorObject>> {
        let _ = self.started.send(context.cancellation().clone());
        Box::pin(async move {
            context.cancellation().cancelled().await;
            Err(ErrorObject::internal_error("cancelled"))
        })
    }
}

#[tokio::test]
async fn a_request_the_server_gives_up_on_cancels_its_handler() {
    bounded(async {
        let server = asking_server(Duration::from_millis(200));
        let (started, mut handlers) = mpsc::unbounded_channel();
        let client = Client::builder(with_roots_capability())
            .handler(Stalling { started })
            .connect(serve(&server))
            .await
            .unwrap();
        assert_eq!(call_roots(&client).await, [ContentBlock::text("timed out")]);
        // The server's timeout sent notifications/cancelled (LIFE-16),
        // which fired the handler's signal while the session lives on.
        let cancellation = handlers.recv().await.unwrap();
        cancellation.cancelled().await;
        assert!(!client.is_closed());
    })
    .await;
}
