//! The opt-in result cache against a real server: results are reused while
//! their `ttlMs` lasts (2026-07-28), never without hints (older
//! revisions), never when the cache is off, and the hints are readable on
//! the results.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcpwire_client::{Client, ResultCache};
use mcpwire_server::{Context, HandlerError, Server};
use mcpwire_types::{
    CacheHint, CacheScope, ProtocolVersion, ReadResourceResult, Resource, ResourceContents,
};

use crate::support::{bounded, config, serve};

/// A server whose resource counts its reads, hinted fresh for `ttl`.
fn counting_server(reads: Arc<AtomicUsize>, ttl: Duration) -> Server {
    Server::builder("counting", "1.0.0")
        .resource_cache_hint("file:///n", CacheHint::public(ttl))
        .resource(
            Resource::new("file:///n", "n"),
            move |_ctx: Context, uri: String| {
                let reads = reads.clone();
                async move {
                    let n = reads.fetch_add(1, Ordering::SeqCst);
                    let contents = ResourceContents::text(uri, "text/plain", n.to_string());
                    Ok::<_, HandlerError>(ReadResourceResult::new(vec![contents]))
                }
            },
        )
        .build()
        .unwrap()
}

async fn client(server: &Server, version: ProtocolVersion, cache: Option<ResultCache>) -> Client {
    let mut builder = Client::builder(config().pinned(version));
    if let Some(cache) = cache {
        builder = builder.cache(cache);
    }
    builder.connect(serve(server)).await.unwrap()
}

#[tokio::test]
async fn a_fresh_result_is_reused_until_its_ttl_ends_2026_07_28() {
    bounded(async {
        let reads = Arc::new(AtomicUsize::new(0));
        let server = counting_server(reads.clone(), Duration::from_millis(300));
        let cache = ResultCache::new();
        let client = client(&server, ProtocolVersion::V2026_07_28, Some(cache.clone())).await;
        let first = client.read_resource("file:///n").await.unwrap();
        assert_eq!(
            CacheHint::of(first.ttl_ms, first.cache_scope),
            CacheHint {
                ttl_ms: 300,
                scope: CacheScope::Public
            }
        );
        let second = client.read_resource("file:///n").await.unwrap();
        assert_eq!((first, reads.load(Ordering::SeqCst)), (second, 1));
        assert_eq!(cache.len(), 1);
        tokio::time::sleep(Duration::from_millis(400)).await;
        client.read_resource("file:///n").await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    })
    .await;
}

#[tokio::test]
async fn nothing_is_cached_when_the_cache_is_off_or_the_revision_has_no_hints() {
    bounded(async {
        let reads = Arc::new(AtomicUsize::new(0));
        let server = counting_server(reads.clone(), Duration::from_secs(60));
        let off = client(&server, ProtocolVersion::V2026_07_28, None).await;
        off.read_resource("file:///n").await.unwrap();
        off.read_resource("file:///n").await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 2);

        let cache = ResultCache::new();
        let old = client(&server, ProtocolVersion::V2025_11_25, Some(cache.clone())).await;
        let result = old.read_resource("file:///n").await.unwrap();
        assert_eq!((result.ttl_ms, result.cache_scope), (None, None));
        old.read_resource("file:///n").await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 4);
        assert!(cache.is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_public_result_is_shared_between_clients_of_one_cache() {
    bounded(async {
        let reads = Arc::new(AtomicUsize::new(0));
        let server = counting_server(reads.clone(), Duration::from_secs(60));
        let cache = ResultCache::new();
        let one = client(&server, ProtocolVersion::V2026_07_28, Some(cache.clone())).await;
        let two = client(&server, ProtocolVersion::V2026_07_28, Some(cache)).await;
        one.read_resource("file:///n").await.unwrap();
        two.read_resource("file:///n").await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    })
    .await;
}
