//! Roots set on the client: only `file://` URIs (ROOTS-03), announced with
//! `notifications/roots/list_changed` (ROOTS-02), and answered to
//! `roots/list` in both eras; a handler's non-file root is not sent.

use mcpwire_client::{BoxFuture, Client, ClientError, ClientHandler, HandlerContext};
use mcpwire_jsonrpc::ErrorObject;
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, ListRootsResult, ProtocolVersion, RequestParams, Root,
    Tool,
};
use serde_json::json;

use crate::support::{bounded, config, scripted, serve};

fn roots_config(version: ProtocolVersion, list_changed: bool) -> mcpwire_client::ClientConfig {
    let mut config = config().pinned(version);
    config.capabilities.roots =
        Some(serde_json::from_value(json!({"listChanged": list_changed})).unwrap());
    config
}

#[tokio::test]
async fn only_file_uris_can_be_set_as_roots_roots_03() {
    bounded(async {
        let web = vec![Root::new("https://example.com/repo")];
        let builder = Client::builder(roots_config(ProtocolVersion::V2025_06_18, true));
        assert!(matches!(
            builder.roots(web.clone()),
            Err(ClientError::InvalidRoot(_))
        ));

        let (transport, mut peer) = scripted();
        let script = async move {
            peer.handshake("2025-06-18", json!({})).await;
            peer
        };
        let connect = Client::builder(roots_config(ProtocolVersion::V2025_06_18, true))
            .roots(vec![Root::new("file:///start")])
            .unwrap()
            .connect(transport);
        let (client, mut peer) = tokio::join!(connect, script);
        let client = client.unwrap();
        assert!(matches!(
            client.set_roots(web).await,
            Err(ClientError::InvalidRoot(_))
        ));
        assert_eq!(client.roots().unwrap(), [Root::new("file:///start")]);

        // A valid change is announced, and `roots/list` answers it.
        client
            .set_roots(vec![Root::new("file:///work").with_name("work")])
            .await
            .unwrap();
        peer.expect("notifications/roots/list_changed").await;
        peer.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}));
        let answer = peer.next().await.unwrap();
        assert_eq!(answer["id"], 9);
        assert_eq!(
            answer["result"]["roots"],
            json!([{"uri": "file:///work", "name": "work"}])
        );
    })
    .await;
}

#[tokio::test]
async fn without_list_changed_a_change_is_not_announced_roots_02() {
    bounded(async {
        let (transport, mut peer) = scripted();
        let script = async move {
            peer.handshake("2025-06-18", json!({})).await;
            peer
        };
        let connect = Client::connect(transport, roots_config(ProtocolVersion::V2025_06_18, false));
        let (client, mut peer) = tokio::join!(connect, script);
        let client = client.unwrap();
        client
            .set_roots(vec![Root::new("file:///a")])
            .await
            .unwrap();
        // The next thing the peer sees is the answer to its own request.
        peer.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
        let answer = peer.next().await.unwrap();
        assert_eq!(answer["result"]["roots"], json!([{"uri": "file:///a"}]));
    })
    .await;
}

/// A server whose tool `roots` asks for the roots through `input_required`.
fn roots_server() -> Server {
    Server::builder("roots", "1.0.0")
        .tool(
            Tool::without_arguments("roots"),
            |ctx: Context, _| async move {
                match ctx.roots_response("r") {
                    Some(result) => Ok(CallToolResult::text(
                        result
                            .roots
                            .iter()
                            .map(|r| r.uri.as_str())
                            .collect::<Vec<_>>()
                            .join(","),
                    )),
                    None => Err::<CallToolResult, HandlerError>(
                        ctx.input_required().list_roots("r").into(),
                    ),
                }
            },
        )
        .build()
        .unwrap()
}

struct WebRoots;

impl ClientHandler for WebRoots {
    fn list_roots(
        &self,
        _params: RequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<ListRootsResult, ErrorObject>> {
        Box::pin(async { Ok(ListRootsResult::new(vec![Root::new("https://example.com")])) })
    }
}

#[tokio::test]
async fn set_roots_answer_the_server_in_both_eras_and_a_handlers_web_root_is_refused() {
    bounded(async {
        for version in [ProtocolVersion::V2025_03_26, ProtocolVersion::V2026_07_28] {
            let client = Client::builder(roots_config(version, true))
                .handler(WebRoots)
                .connect(serve(&roots_server()))
                .await
                .unwrap();
            // The handler's answer is refused (-32603, ROOTS-04).
            let refused = client
                .call_tool_with_input(CallToolRequestParams::new("roots"))
                .await
                .unwrap_err();
            assert!(
                refused.to_string().contains("not a file:// URI"),
                "{version}: {refused}"
            );
            // Set roots take over; 2026-07-28 has no list_changed, which is fine.
            client
                .set_roots(vec![Root::new("file:///a"), Root::new("file:///b")])
                .await
                .unwrap();
            let result = client
                .call_tool_with_input(CallToolRequestParams::new("roots"))
                .await
                .unwrap();
            assert_eq!(
                result.content,
                CallToolResult::text("file:///a,file:///b").content
            );
        }
    })
    .await;
}

/// ROOTS-02 on the server: its `on_roots_list_changed` hook runs one run at
/// a time, once more after every change (changes during a run merge into
/// the next), and can ask the client for the roots.
#[tokio::test]
async fn the_server_hook_runs_one_at_a_time_and_its_last_run_lists_the_last_roots_roots_02() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    bounded(async {
        let (seen, mut seen_rx) = tokio::sync::mpsc::unbounded_channel();
        let running = Arc::new(AtomicUsize::new(0));
        let overlapped = Arc::new(AtomicUsize::new(0));
        let (running_hook, overlapped_hook) = (Arc::clone(&running), Arc::clone(&overlapped));
        let server = Server::builder("roots-hook", "1")
            .on_roots_list_changed(move |ctx: mcpwire_server::RootsContext| {
                let (seen, running, overlapped) = (
                    seen.clone(),
                    Arc::clone(&running_hook),
                    Arc::clone(&overlapped_hook),
                );
                async move {
                    if running.fetch_add(1, Ordering::SeqCst) > 0 {
                        overlapped.fetch_add(1, Ordering::SeqCst);
                    }
                    // Slow enough that a second run would start meanwhile
                    // if runs were not serialized.
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    let roots = ctx.list_roots(Default::default()).await.unwrap();
                    let uris: Vec<String> = roots.roots.into_iter().map(|r| r.uri).collect();
                    running.fetch_sub(1, Ordering::SeqCst);
                    let _ = seen.send(uris);
                }
            })
            .build()
            .unwrap();
        let client = Client::builder(roots_config(ProtocolVersion::V2025_06_18, true))
            .roots(vec![Root::new("file:///start")])
            .unwrap()
            .connect(serve(&server))
            .await
            .unwrap();
        for uri in ["file:///a", "file:///b", "file:///c"] {
            client.set_roots(vec![Root::new(uri)]).await.unwrap();
        }
        // The last run started after the last change, so it lists it;
        // the first started after the first: at most three runs.
        let mut runs = 0;
        loop {
            runs += 1;
            assert!(runs <= 3, "more runs than changes");
            if seen_rx.recv().await.unwrap() == ["file:///c"] {
                break;
            }
        }
        assert_eq!(overlapped.load(Ordering::SeqCst), 0, "runs overlapped");
        client.close().await;
    })
    .await;
}

/// A client that floods `notifications/roots/list_changed` while the hook
/// runs costs the server one more run, not one per notification: nothing
/// it holds grows with the flood.
#[tokio::test]
async fn a_flood_of_roots_changes_during_a_run_is_merged_into_one_more_run() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const FLOOD: usize = 2_000;
    bounded(async {
        let runs = Arc::new(AtomicUsize::new(0));
        let (started, mut started_rx) = tokio::sync::mpsc::unbounded_channel();
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        let (runs_hook, gate_hook) = (Arc::clone(&runs), Arc::clone(&gate));
        let server = Server::builder("roots-flood", "1")
            .on_roots_list_changed(move |_ctx: mcpwire_server::RootsContext| {
                let (runs, gate, started) = (
                    Arc::clone(&runs_hook),
                    Arc::clone(&gate_hook),
                    started.clone(),
                );
                async move {
                    let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
                    let _ = started.send(run);
                    // The first run waits until the flood has been sent.
                    if run == 1 {
                        let _permit = gate.acquire().await;
                    }
                }
            })
            .build()
            .unwrap();
        let client = Client::builder(roots_config(ProtocolVersion::V2025_06_18, true))
            .connect(serve(&server))
            .await
            .unwrap();
        client
            .set_roots(vec![Root::new("file:///first")])
            .await
            .unwrap();
        assert_eq!(started_rx.recv().await, Some(1));
        for n in 0..FLOOD {
            client
                .set_roots(vec![Root::new(format!("file:///{n}"))])
                .await
                .unwrap();
        }
        // A ping's answer comes after the server has taken every
        // notification sent before it.
        client.ping().await.unwrap();
        gate.add_permits(1);
        assert_eq!(started_rx.recv().await, Some(2));
        // Anything else the runner had would start at once; a quiet
        // 300 ms (ample on a loaded machine for a run that is due) shows
        // there is none.
        let more =
            tokio::time::timeout(std::time::Duration::from_millis(300), started_rx.recv()).await;
        assert!(more.is_err(), "a third run started: {more:?}");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        client.close().await;
    })
    .await;
}
