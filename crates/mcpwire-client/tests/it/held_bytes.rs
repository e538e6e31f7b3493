//! What a server can make the client hold is bounded in bytes, over a real
//! TCP socket on 127.0.0.1: a whole list read page by page
//! (`ClientBuilder::max_listed_bytes`), and the result cache
//! (`ResultCache::with_limits`), whose results may each be a message of
//! several MiB.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcpwire_client::{Client, ClientBuilder, ClientError, ResultCache};
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_stdio::StdioTransport;
use mcpwire_types::{CacheHint, ProtocolVersion, ReadResourceResult, Resource, ResourceContents};
use serde_json::json;
use tokio::net::TcpStream;

use crate::support::{bounded, loopback, pinned, tool_pages_server};

/// A server of [`tool_pages_server`] listing `pages` pages of one tool
/// each, whose description is `text` bytes long. Returns how many pages
/// were asked for, once the client hangs up.
async fn list_server(stream: TcpStream, pages: usize, text: usize) -> usize {
    let tool = |n: usize| {
        json!({
            "name": format!("tool-{n}"),
            "description": "x".repeat(text),
            "inputSchema": {"type": "object"}
        })
    };
    tool_pages_server(stream, pages, tool, None).await
}

/// Lists all tools of a [`list_server`] through a client built by
/// `builder`; returns their names (not the tools, whose descriptions would
/// flood a failure's message) and how many pages the server served.
async fn list_all(
    builder: ClientBuilder,
    pages: usize,
    text: usize,
) -> (Result<Vec<String>, ClientError>, usize) {
    let (client_end, server_end) = loopback().await;
    let server = tokio::spawn(list_server(server_end, pages, text));
    let (read, write) = client_end.into_split();
    let client = builder
        .connect(StdioTransport::new(read, write))
        .await
        .unwrap();
    let listed = client.list_all_tools().await;
    let listed = listed.map(|tools| tools.into_iter().map(|tool| tool.name).collect());
    client.close().await;
    (listed, server.await.unwrap())
}

#[tokio::test]
async fn a_whole_list_past_the_byte_bound_fails_instead_of_growing() {
    bounded(async {
        const LIMIT: usize = 1024 * 1024;
        // 40 pages of 256 KiB: 10 MiB in all, ten times the bound. Before
        // the bound the client took every page and returned them all.
        let builder = Client::builder(pinned(ProtocolVersion::V2025_06_18)).max_listed_bytes(LIMIT);
        let (listed, served) = list_all(builder, 40, 256 * 1024).await;
        assert_eq!(
            listed.unwrap_err(),
            ClientError::ListTooLarge {
                method: "tools/list",
                limit: LIMIT
            }
        );
        // The fourth page takes it past 1 MiB (each weighs a little more
        // than its text); no page is asked for after that.
        assert_eq!(served, 4);
    })
    .await;
}

#[tokio::test]
async fn a_list_within_the_default_bound_is_read_whole() {
    bounded(async {
        // 5 pages of 512 KiB: 2.5 MiB, well within the default 64 MiB.
        let builder = Client::builder(pinned(ProtocolVersion::V2025_06_18));
        let (listed, served) = list_all(builder, 5, 512 * 1024).await;
        assert_eq!(
            listed.unwrap(),
            ["tool-1", "tool-2", "tool-3", "tool-4", "tool-5"]
        );
        assert_eq!(served, 5);
    })
    .await;
}

/// The size of each resource's text: three of them are more than the
/// cache's bytes in the test below, two are less.
const RESOURCE_TEXT: usize = 400 * 1024;

/// A 2026-07-28 server with resources `file:///a`, `b` and `c` of
/// [`RESOURCE_TEXT`] bytes each, fresh for a minute, counting its reads.
fn big_resources(reads: &Arc<AtomicUsize>) -> Server {
    let mut builder = Server::builder("big", "1.0.0");
    for name in ["a", "b", "c"] {
        let uri = format!("file:///{name}");
        let reads = Arc::clone(reads);
        builder = builder
            .resource_cache_hint(&uri, CacheHint::public(Duration::from_secs(60)))
            .resource(Resource::new(&uri, name), move |_ctx: Context, uri| {
                reads.fetch_add(1, Ordering::SeqCst);
                async move {
                    let text = "x".repeat(RESOURCE_TEXT);
                    let contents = ResourceContents::text(uri, "text/plain", text);
                    Ok::<_, HandlerError>(ReadResourceResult::new(vec![contents]))
                }
            });
    }
    builder.build().unwrap()
}

#[tokio::test]
async fn the_cache_drops_the_soonest_to_expire_when_its_bytes_are_full() {
    bounded(async {
        let reads = Arc::new(AtomicUsize::new(0));
        let (client_end, server_end) = loopback().await;
        let server = big_resources(&reads);
        let (read, write) = server_end.into_split();
        tokio::spawn(server.serve(StdioTransport::new(read, write)));

        // Room for two results, not three: before the byte bound the cache
        // kept all three (1,024 entries, counted in entries only).
        let cache = ResultCache::with_limits(1024, 1024 * 1024);
        let (read, write) = client_end.into_split();
        let client = Client::builder(pinned(ProtocolVersion::V2026_07_28))
            .cache(cache.clone())
            .connect(StdioTransport::new(read, write))
            .await
            .unwrap();
        for uri in ["file:///a", "file:///b", "file:///c"] {
            client.read_resource(uri).await.unwrap();
        }
        assert_eq!(cache.len(), 2);
        assert!(
            cache.total_bytes() <= 1024 * 1024,
            "{}",
            cache.total_bytes()
        );
        assert!(
            cache.total_bytes() > 2 * RESOURCE_TEXT,
            "{}",
            cache.total_bytes()
        );

        // `c` (and `b`) are answered from the cache; `a`, read first and so
        // the soonest to expire, was dropped and is read again.
        client.read_resource("file:///c").await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 3);
        client.read_resource("file:///a").await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 4);
        client.close().await;
    })
    .await;
}
