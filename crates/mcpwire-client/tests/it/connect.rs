//! Connecting: revision negotiation in both eras, and failures (LIFE-07..12, LIFE-19).

use mcpwire_client::{Client, ClientError, ConnectError};
use mcpwire_types::methods::CallTool;
use mcpwire_types::{CallToolRequestParams, ProtocolVersion};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use crate::support::{
    bounded, config, connect, everything, pinned, scripted, serve, with_slow_tool,
};

#[tokio::test]
async fn auto_mode_ends_in_2026_07_28_with_a_server_speaking_every_revision() {
    bounded(async {
        let server = everything().build().unwrap();
        let client = connect(&server, config()).await;
        let view = client.server();
        assert_eq!(view.version, ProtocolVersion::V2026_07_28);
        assert_eq!(view.info.as_ref().unwrap().name, "everything");
        assert_eq!(view.instructions.as_deref(), Some("Use the tools."));
        assert!(view.capabilities.tools.is_some());
        let tools = client.list_all_tools().await.unwrap();
        assert!(tools.iter().any(|tool| tool.name == "echo"));
    })
    .await;
}

#[tokio::test]
async fn a_pinned_client_speaks_exactly_its_revision_and_can_call() {
    bounded(async {
        let server = everything().build().unwrap();
        for version in ProtocolVersion::ALL {
            let client = connect(&server, pinned(version)).await;
            assert_eq!(client.server().version, version, "pinned to {version}");
            let result = client
                .call_tool("echo", json!({"text": "hi"}))
                .await
                .unwrap();
            assert_eq!(
                result.content,
                mcpwire_types::CallToolResult::text("hi").content
            );
            client.close().await;
        }
    })
    .await;
}

#[tokio::test]
async fn auto_mode_falls_back_to_initialize_when_the_server_speaks_no_stateless_revision() {
    bounded(async {
        let server = everything()
            .versions([ProtocolVersion::V2025_06_18])
            .build()
            .unwrap();
        let client = connect(&server, config()).await;
        assert_eq!(client.server().version, ProtocolVersion::V2025_06_18);
        client.ping().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn connecting_fails_when_the_server_chooses_a_revision_the_client_does_not_speak() {
    bounded(async {
        // LIFE-12: the server answers initialize with its own revision.
        let server = everything()
            .versions([ProtocolVersion::V2025_11_25])
            .build()
            .unwrap();
        let error = Client::connect(serve(&server), pinned(ProtocolVersion::V2024_11_05))
            .await
            .unwrap_err();
        assert!(matches!(error, ConnectError::Failed(_)), "{error:?}");
    })
    .await;
}

#[tokio::test]
async fn connecting_fails_when_the_transport_ends_before_the_handshake() {
    bounded(async {
        let (transport, mut peer) = scripted();
        let script = async move {
            peer.expect("initialize").await;
            peer.hang_up();
            peer
        };
        let connecting = Client::connect(transport, pinned(ProtocolVersion::V2025_06_18));
        let (outcome, _peer) = tokio::join!(connecting, script);
        assert!(
            matches!(outcome, Err(ConnectError::TransportClosed)),
            "{outcome:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn close_fails_pending_calls_and_ends_the_session() {
    bounded(async {
        // The server lets running requests finish for a while after its
        // client stopped sending; the slow tool never would.
        let drain = std::time::Duration::from_millis(50);
        let (builder, mut started) = with_slow_tool(everything().drain_timeout(drain));
        let server = builder.build().unwrap();
        let client = connect(&server, pinned(ProtocolVersion::V2025_11_25)).await;
        let mut notifications = client.notifications();
        let caller = client.clone();
        let pending = tokio::spawn(async move {
            caller
                .request::<CallTool>(CallToolRequestParams::new("slow"), Default::default())
                .await
        });
        let cancellation = started.recv().await.unwrap();
        client.close().await;
        assert_eq!(pending.await.unwrap().unwrap_err(), ClientError::Closed);
        assert!(client.is_closed());
        assert_eq!(client.ping().await.unwrap_err(), ClientError::Closed);
        assert_eq!(notifications.recv().await.unwrap_err(), RecvError::Closed);
        assert_eq!(
            client.notifications().recv().await.unwrap_err(),
            RecvError::Closed
        );
        // The server saw its transport end, which stops the tool once its
        // drain time is up.
        cancellation.cancelled().await;
        // Closing twice is harmless.
        client.close().await;
    })
    .await;
}

#[tokio::test]
async fn dropping_every_client_handle_closes_the_transport() {
    bounded(async {
        let server = everything().build().unwrap();
        let (client_end, server_end) = mcpwire_jsonrpc::memory::pair(16);
        let serving = tokio::spawn({
            let server = server.clone();
            async move { server.serve(server_end).await }
        });
        let client = Client::connect(client_end, config()).await.unwrap();
        let clone = client.clone();
        drop(client);
        clone.list_tools(None).await.unwrap();
        drop(clone);
        // The server's serve loop ends when the client's end closes.
        serving.await.unwrap().unwrap();
    })
    .await;
}
