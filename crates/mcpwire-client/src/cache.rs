//! An opt-in cache of results by their cache hints (2026-07-28): `ttlMs`
//! says how long a result stays fresh, `cacheScope` who may reuse it. Off
//! by default; turned on with [`ClientBuilder::cache`](crate::ClientBuilder::cache).
//!
//! Cached are `server/discover`, the four list methods (per cursor) and
//! `resources/read` (per URI). An entry is dropped when its time is up, and
//! early when the server announces a change: `notifications/tools/list_changed`
//! (and the prompt and resource ones) drop the matching list, and
//! `notifications/resources/updated` drops the reads of that URI. Results
//! without hints (every revision before 2026-07-28) are immediately stale,
//! so they are never cached.
//!
//! The cache is bounded in entries and in bytes, since one result may be a
//! message of several MiB: when either bound would be passed, the entries
//! whose time is up go first, then the soonest to expire.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use mcpwire_types::methods::{ClientRequest, ServerNotification, ServerResult};
use mcpwire_types::{CacheHint, CacheScope};
use tokio::time::Instant;

use crate::weight::json_len;

/// How many entries a cache holds at most; when full, the entries whose
/// time is up are dropped first, then the soonest to expire.
const DEFAULT_CAPACITY: usize = 1024;

/// How many bytes a cache's entries weigh at most by default: room for a
/// few results of the transports' largest message (4 MiB), and for the
/// full 1,024 entries when they average 16 KiB.
const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;

/// What an entry weighs besides its result's JSON and its key's text: the
/// key, the entry and the map's bookkeeping, so that many small entries
/// weigh too.
const ENTRY_OVERHEAD: usize = 128;

/// The longest a result is kept, whatever its `ttlMs` says: a client may
/// always take a result as stale sooner, and a server's "forever"
/// (`ttlMs` up to 2^64 - 1) must neither pin a result for good nor reach
/// past what the clock can count.
const MAX_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// Results kept by their cache hints, shareable between the clients of one
/// server.
///
/// A `private` result is reused only by the client that received it (one
/// authorization context); a `public` one by every client sharing this
/// cache, so share a cache only between clients of the same server.
/// Cheap to clone: clones share their entries.
#[derive(Debug, Clone)]
pub struct ResultCache {
    inner: Arc<CacheInner>,
}

#[derive(Debug)]
struct CacheInner {
    entries: Mutex<Entries>,
    capacity: usize,
    max_bytes: usize,
    next_owner: AtomicU64,
}

/// The entries and what they weigh together, kept in step: every removal
/// goes through [`Entries::remove`], [`Entries::retain`] or
/// [`Entries::clear`].
#[derive(Debug, Default)]
struct Entries {
    map: HashMap<Key, Entry>,
    bytes: usize,
}

/// What a cached result answers: who may reuse it (`None` for anyone), the
/// method, and its cursor or URI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    owner: Option<u64>,
    method: &'static str,
    argument: String,
}

#[derive(Debug)]
struct Entry {
    result: ServerResult,
    expires: Instant,
    /// What it weighs: see [`weight`].
    weight: usize,
}

impl Default for ResultCache {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }
}

impl ResultCache {
    /// An empty cache holding up to 1024 results and 16 MiB.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty cache holding up to `capacity` results and 16 MiB.
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_limits(capacity, DEFAULT_MAX_BYTES)
    }

    /// An empty cache holding up to `capacity` results weighing `max_bytes`
    /// together. A result weighs its length as JSON (counted again from the
    /// parsed result, since the bytes it came in are not kept) plus its
    /// cursor or URI and a fixed overhead; one weighing more than
    /// `max_bytes` on its own is not cached.
    pub fn with_limits(capacity: usize, max_bytes: usize) -> Self {
        Self {
            inner: Arc::new(CacheInner {
                entries: Mutex::new(Entries::default()),
                capacity: capacity.max(1),
                max_bytes,
                next_owner: AtomicU64::new(0),
            }),
        }
    }

    /// How many results it holds (fresh or not yet swept).
    pub fn len(&self) -> usize {
        self.entries().map.len()
    }

    /// What the results it holds weigh together, in bytes (see
    /// [`with_limits`](Self::with_limits)).
    pub fn total_bytes(&self) -> usize {
        self.entries().bytes
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every entry.
    pub fn clear(&self) {
        self.entries().clear();
    }

    /// A new owner id, one per client, for its private entries.
    pub(crate) fn new_owner(&self) -> u64 {
        self.inner.next_owner.fetch_add(1, Ordering::Relaxed)
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.inner
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A fresh result for `request`, if any: the owner's private one, else
    /// a public one.
    pub(crate) fn lookup(&self, owner: u64, request: &ClientRequest) -> Option<ServerResult> {
        let (method, argument) = cache_key(request)?;
        let now = Instant::now();
        let entries = self.entries();
        [Some(owner), None].into_iter().find_map(|owner| {
            let key = Key {
                owner,
                method,
                argument: argument.clone(),
            };
            entries
                .map
                .get(&key)
                .filter(|entry| entry.expires > now)
                .map(|entry| entry.result.clone())
        })
    }

    /// Keeps `result` for `request` as long as its hint allows.
    pub(crate) fn store(&self, owner: u64, request: &ClientRequest, result: &ServerResult) {
        let Some((method, argument)) = cache_key(request) else {
            return;
        };
        let Some(hint) = hint_of(result) else {
            return;
        };
        if hint.ttl_ms == 0 {
            return;
        }
        let now = Instant::now();
        let key = Key {
            owner: (hint.scope == CacheScope::Private).then_some(owner),
            method,
            argument,
        };
        let weight = weight(&key, result);
        let mut entries = self.entries();
        // The result replaces what the key held, whether it is kept or not.
        entries.remove(&key);
        if weight > self.inner.max_bytes {
            tracing::debug!(
                method,
                weight,
                "a result too large for the cache is not kept"
            );
            return;
        }
        let fits = |entries: &Entries| {
            entries.map.len() < self.inner.capacity
                && entries.bytes.saturating_add(weight) <= self.inner.max_bytes
        };
        if !fits(&entries) {
            entries.retain(|_, entry| entry.expires > now);
        }
        // Ends: every pass removes an entry, and an empty cache fits.
        while !fits(&entries) {
            let soonest = entries
                .map
                .iter()
                .min_by_key(|(_, entry)| entry.expires)
                .map(|(key, _)| key.clone());
            let Some(soonest) = soonest else {
                break;
            };
            entries.remove(&soonest);
        }
        let entry = Entry {
            result: result.clone(),
            expires: now + hint.ttl().min(MAX_TTL),
            weight,
        };
        entries.insert(key, entry);
    }

    /// Drops what `notification` says has changed.
    pub(crate) fn invalidate(&self, notification: &ServerNotification) {
        let (method, uri) = match notification {
            ServerNotification::ToolListChanged(_) => ("tools/list", None),
            ServerNotification::PromptListChanged(_) => ("prompts/list", None),
            ServerNotification::ResourceListChanged(_) => {
                // The templates may have changed with the resources.
                self.entries()
                    .retain(|key, _| key.method != "resources/templates/list");
                ("resources/list", None)
            }
            ServerNotification::ResourceUpdated(params) => {
                ("resources/read", Some(params.uri.as_str()))
            }
            _ => return,
        };
        self.entries()
            .retain(|key, _| key.method != method || uri.is_some_and(|uri| key.argument != uri));
    }
}

impl Entries {
    fn insert(&mut self, key: Key, entry: Entry) {
        self.bytes = self.bytes.saturating_add(entry.weight);
        if let Some(old) = self.map.insert(key, entry) {
            self.bytes = self.bytes.saturating_sub(old.weight);
        }
    }

    fn clear(&mut self) {
        self.map.clear();
        self.bytes = 0;
    }

    fn remove(&mut self, key: &Key) {
        if let Some(old) = self.map.remove(key) {
            self.bytes = self.bytes.saturating_sub(old.weight);
        }
    }

    fn retain(&mut self, mut keep: impl FnMut(&Key, &Entry) -> bool) {
        let mut dropped = 0usize;
        self.map.retain(|key, entry| {
            let kept = keep(key, entry);
            if !kept {
                dropped = dropped.saturating_add(entry.weight);
            }
            kept
        });
        self.bytes = self.bytes.saturating_sub(dropped);
    }
}

/// What an entry weighs: its result as JSON, its key's text, and a fixed
/// overhead for the rest.
fn weight(key: &Key, result: &ServerResult) -> usize {
    let json = match result {
        ServerResult::Discover(r) => json_len(r),
        ServerResult::ListTools(r) => json_len(r),
        ServerResult::ListPrompts(r) => json_len(r),
        ServerResult::ListResources(r) => json_len(r),
        ServerResult::ListResourceTemplates(r) => json_len(r),
        ServerResult::ReadResource(r) => json_len(r),
        // Never cached (they carry no hint); encoded only to be complete.
        other => other.encode().map_or(usize::MAX, |raw| raw.get().len()),
    };
    json.saturating_add(key.argument.len())
        .saturating_add(ENTRY_OVERHEAD)
}

/// The method and argument a cacheable request is keyed by.
fn cache_key(request: &ClientRequest) -> Option<(&'static str, String)> {
    let cursor =
        |params: &mcpwire_types::PaginatedRequestParams| params.cursor.clone().unwrap_or_default();
    let argument = match request {
        ClientRequest::Discover(_) => String::new(),
        ClientRequest::ListTools(params)
        | ClientRequest::ListPrompts(params)
        | ClientRequest::ListResources(params)
        | ClientRequest::ListResourceTemplates(params) => cursor(params),
        ClientRequest::ReadResource(params) if params.input_responses.is_none() => {
            params.uri.clone()
        }
        _ => return None,
    };
    Some((request.method(), argument))
}

/// The cache hint a result carries, for the results that can carry one.
pub(crate) fn hint_of(result: &ServerResult) -> Option<CacheHint> {
    let (ttl, scope) = match result {
        ServerResult::Discover(r) => (r.ttl_ms, r.cache_scope),
        ServerResult::ListTools(r) => (r.ttl_ms, r.cache_scope),
        ServerResult::ListPrompts(r) => (r.ttl_ms, r.cache_scope),
        ServerResult::ListResources(r) => (r.ttl_ms, r.cache_scope),
        ServerResult::ListResourceTemplates(r) => (r.ttl_ms, r.cache_scope),
        ServerResult::ReadResource(r) => (r.ttl_ms, r.cache_scope),
        _ => return None,
    };
    Some(CacheHint::of(ttl, scope))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcpwire_types::{
        ListToolsResult, ReadResourceRequestParams, ReadResourceResult,
        ResourceUpdatedNotificationParams,
    };

    use super::*;

    fn tools(hint: CacheHint) -> ServerResult {
        let mut result = ListToolsResult::new(Vec::new());
        hint.write_to(&mut result.ttl_ms, &mut result.cache_scope);
        ServerResult::ListTools(Box::new(result))
    }

    fn list_tools() -> ClientRequest {
        ClientRequest::ListTools(Box::default())
    }

    #[tokio::test(start_paused = true)]
    async fn a_servers_endless_ttl_is_kept_a_day_at_most() {
        let cache = ResultCache::new();
        let mut result = ListToolsResult::new(Vec::new());
        result.ttl_ms = Some(u64::MAX);
        let result = ServerResult::ListTools(Box::new(result));
        cache.store(1, &list_tools(), &result);
        assert_eq!(cache.lookup(1, &list_tools()), Some(result));
        tokio::time::advance(MAX_TTL + Duration::from_secs(1)).await;
        assert_eq!(cache.lookup(1, &list_tools()), None);
    }

    #[tokio::test(start_paused = true)]
    async fn an_entry_lives_as_long_as_its_ttl() {
        let cache = ResultCache::new();
        let result = tools(CacheHint::private(Duration::from_secs(2)));
        cache.store(1, &list_tools(), &result);
        assert_eq!(cache.lookup(1, &list_tools()), Some(result));
        tokio::time::advance(Duration::from_secs(3)).await;
        assert_eq!(cache.lookup(1, &list_tools()), None);
    }

    #[tokio::test(start_paused = true)]
    async fn private_entries_stay_with_their_owner_and_public_ones_are_shared() {
        let cache = ResultCache::new();
        cache.store(
            1,
            &list_tools(),
            &tools(CacheHint::private(Duration::from_secs(9))),
        );
        assert!(cache.lookup(2, &list_tools()).is_none());
        cache.store(
            1,
            &list_tools(),
            &tools(CacheHint::public(Duration::from_secs(9))),
        );
        assert!(cache.lookup(2, &list_tools()).is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn stale_results_are_not_kept_and_notifications_invalidate() {
        let cache = ResultCache::new();
        cache.store(1, &list_tools(), &tools(CacheHint::STALE));
        assert!(cache.is_empty());
        cache.store(
            1,
            &list_tools(),
            &tools(CacheHint::public(Duration::from_secs(9))),
        );
        let read =
            |uri: &str| ClientRequest::ReadResource(Box::new(ReadResourceRequestParams::new(uri)));
        let mut contents = ReadResourceResult::new(Vec::new());
        CacheHint::public(Duration::from_secs(9))
            .write_to(&mut contents.ttl_ms, &mut contents.cache_scope);
        let contents = ServerResult::ReadResource(Box::new(contents));
        cache.store(1, &read("file:///a"), &contents);
        cache.store(1, &read("file:///b"), &contents);
        let updated = ResourceUpdatedNotificationParams::new("file:///a");
        cache.invalidate(&ServerNotification::ResourceUpdated(Box::new(updated)));
        assert!(cache.lookup(1, &read("file:///a")).is_none());
        assert!(cache.lookup(1, &read("file:///b")).is_some());
        assert!(cache.lookup(1, &list_tools()).is_some());
        cache.invalidate(&ServerNotification::ToolListChanged(Box::default()));
        assert!(cache.lookup(1, &list_tools()).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_cache_makes_room_by_dropping_the_soonest_to_expire() {
        let cache = ResultCache::with_capacity(1);
        cache.store(
            1,
            &list_tools(),
            &tools(CacheHint::public(Duration::from_secs(9))),
        );
        let prompts = ClientRequest::ListPrompts(Box::default());
        let mut result = mcpwire_types::ListPromptsResult::new(Vec::new());
        CacheHint::public(Duration::from_secs(9))
            .write_to(&mut result.ttl_ms, &mut result.cache_scope);
        cache.store(1, &prompts, &ServerResult::ListPrompts(Box::new(result)));
        assert_eq!(cache.len(), 1);
        assert!(cache.lookup(1, &prompts).is_some());
    }

    fn read(uri: &str) -> ClientRequest {
        ClientRequest::ReadResource(Box::new(ReadResourceRequestParams::new(uri)))
    }

    /// A `resources/read` result of `size` bytes of text, fresh for `ttl`.
    fn text_of(size: usize, ttl: Duration) -> ServerResult {
        let text =
            mcpwire_types::ResourceContents::text("file:///x", "text/plain", "x".repeat(size));
        let mut result = ReadResourceResult::new(vec![text]);
        CacheHint::public(ttl).write_to(&mut result.ttl_ms, &mut result.cache_scope);
        ServerResult::ReadResource(Box::new(result))
    }

    #[tokio::test(start_paused = true)]
    async fn a_cache_full_in_bytes_makes_room_by_dropping_the_soonest_to_expire() {
        let cache = ResultCache::with_limits(100, 10_000);
        cache.store(
            1,
            &read("file:///a"),
            &text_of(4_000, Duration::from_secs(5)),
        );
        cache.store(
            1,
            &read("file:///b"),
            &text_of(4_000, Duration::from_secs(9)),
        );
        assert_eq!(cache.len(), 2);
        cache.store(
            1,
            &read("file:///c"),
            &text_of(4_000, Duration::from_secs(20)),
        );
        assert!(cache.lookup(1, &read("file:///a")).is_none());
        assert!(cache.lookup(1, &read("file:///b")).is_some());
        assert!(cache.lookup(1, &read("file:///c")).is_some());
        assert!(cache.total_bytes() <= 10_000, "{}", cache.total_bytes());
        assert!(cache.total_bytes() > 8_000, "{}", cache.total_bytes());
    }

    #[tokio::test(start_paused = true)]
    async fn a_result_larger_than_the_whole_cache_is_not_kept_and_replaces_the_old_one() {
        let cache = ResultCache::with_limits(100, 1_000);
        cache.store(1, &read("file:///a"), &text_of(10, Duration::from_secs(9)));
        assert_eq!(cache.len(), 1);
        cache.store(
            1,
            &read("file:///a"),
            &text_of(2_000, Duration::from_secs(9)),
        );
        assert!(cache.is_empty());
        assert_eq!(cache.total_bytes(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn the_weight_follows_every_removal() {
        let cache = ResultCache::new();
        cache.store(1, &read("file:///a"), &text_of(500, Duration::from_secs(9)));
        cache.store(1, &read("file:///b"), &text_of(700, Duration::from_secs(9)));
        let both = cache.total_bytes();
        // Storing a key again replaces its weight rather than adding to it.
        cache.store(1, &read("file:///b"), &text_of(700, Duration::from_secs(9)));
        assert_eq!(cache.total_bytes(), both);
        let updated = ResourceUpdatedNotificationParams::new("file:///b");
        cache.invalidate(&ServerNotification::ResourceUpdated(Box::new(updated)));
        assert!(cache.total_bytes() < both && cache.total_bytes() > 500);
        cache.clear();
        assert_eq!(cache.total_bytes(), 0);
    }
}
