//! Session records of the handshake era: the session id, what the server
//! remembers of a session, and the [`SessionStore`] that keeps them with
//! idle deadlines.

use core::fmt;
use core::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use mcpwire_types::ProtocolVersion;

use crate::{StoreError, StoreFuture};

/// The id of a handshake-era session, as sent in `Mcp-Session-Id`.
///
/// Generated ids are 32 bytes from the operating system's CSPRNG written
/// as 64 lowercase hex digits (HTTP-34, HTTP-35, SEC-09).
///
/// Its hash reads the first and last eight bytes and the length, not the
/// whole id: the server looks an id up in several tables per request, and
/// the ids it stores are its own, random throughout (an id a peer makes up
/// is only looked up, and a miss costs what the stored ids make it cost).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SessionId(Arc<str>);

impl Hash for SessionId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Self::hash_text(&self.0, state);
    }
}

impl SessionId {
    /// Hashes `text` as the id it spells hashes, so that a table of ids
    /// can be searched with the text of one (a key type whose `Hash` calls
    /// this and whose equality compares the text).
    pub fn hash_text<H: Hasher>(text: &str, state: &mut H) {
        let bytes = text.as_bytes();
        match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
            (Some(first), Some(last)) if bytes.len() > 16 => {
                state.write_u64(u64::from_le_bytes(*first));
                state.write_u64(u64::from_le_bytes(*last));
                state.write_usize(bytes.len());
            }
            _ => state.write(bytes),
        }
    }
}

impl SessionId {
    /// Reads an id (for example one a store kept): it must be 1 to 256
    /// visible ASCII characters (0x21 to 0x7E).
    pub fn parse(text: &str) -> Option<Self> {
        if text.is_empty() || text.len() > 256 {
            return None;
        }
        // A fold rather than `all`: without the early exit the check
        // compiles to a vector loop (this runs on every request).
        let visible = text
            .bytes()
            .fold(true, |visible, b| visible & b.is_ascii_graphic());
        visible.then(|| Self(Arc::from(text)))
    }

    /// A fresh random id: 32 bytes from the operating system's CSPRNG, in
    /// hex (64 characters). `None` when the operating system offers no
    /// randomness.
    pub fn generate() -> Option<Self> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).ok()?;
        let mut text = String::with_capacity(64);
        for byte in bytes {
            text.push(hex_digit(byte >> 4));
            text.push(hex_digit(byte & 0x0f));
        }
        Some(Self(Arc::from(text)))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn hex_digit(nibble: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(nibble & 0x0f)])
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A session id is a bearer secret for the session: keep it out of logs.
        let shown = self.0.get(..8).unwrap_or(&self.0);
        write!(f, "SessionId({shown}…)")
    }
}

/// What the server remembers of a session between requests.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The session.
    pub id: SessionId,
    /// The revision `initialize` negotiated, once the answer went out.
    pub version: Option<ProtocolVersion>,
    /// Who created the session, when its `initialize` carried a
    /// [`RequestIdentity`](crate::RequestIdentity) ([`RequestIdentity::owner_key`](crate::RequestIdentity::owner_key)): only the same
    /// identity may use the session afterwards.
    pub owner: Option<String>,
}

impl SessionRecord {
    /// A record of `id` with the negotiated `version`, if known.
    pub fn new(id: SessionId, version: Option<ProtocolVersion>) -> Self {
        Self {
            id,
            version,
            owner: None,
        }
    }

    /// With the identity the session is bound to.
    #[must_use]
    pub fn owned_by(mut self, owner: Option<String>) -> Self {
        self.owner = owner;
        self
    }

    /// Whether a request carrying `caller` (its [`RequestIdentity::owner_key`](crate::RequestIdentity::owner_key))
    /// may use the session: anyone when the session is bound to nobody,
    /// otherwise only the identity that created it. A session id is not
    /// authentication (SEC-10): a leaked one is useless to another user.
    pub fn admits(&self, caller: Option<&str>) -> bool {
        self.owner.is_none() || self.owner.as_deref() == caller
    }
}

/// Session records (handshake era).
///
/// Records expire when idle: every method that refreshes a record takes the
/// idle timeout, as a key-value store with per-key TTLs (Redis `EXPIRE`)
/// would. A record that expired or was removed is gone for good: the
/// server then answers 404 for its id (HTTP-39).
pub trait SessionStore: Send + Sync + 'static {
    /// Records a new session that expires after `idle` without a touch.
    fn create(&self, id: &SessionId, idle: Duration) -> StoreFuture<'_, ()>;

    /// The record of `id`, its idle deadline pushed to `idle` from now;
    /// `None` when unknown, expired or removed.
    fn touch(&self, id: &SessionId, idle: Duration) -> StoreFuture<'_, Option<SessionRecord>>;

    /// The record of `id` without refreshing it; `None` when unknown,
    /// expired or removed.
    fn get(&self, id: &SessionId) -> StoreFuture<'_, Option<SessionRecord>>;

    /// Records the revision `initialize` negotiated.
    fn set_version(&self, id: &SessionId, version: ProtocolVersion) -> StoreFuture<'_, ()>;

    /// Binds the session to the identity that created it, which its
    /// records then carry in [`SessionRecord::owner`]. The default keeps
    /// nothing, so that sessions of a store that does not implement it are
    /// bound to nobody (`docs/security.md` lists the stores that do).
    fn set_owner(&self, id: &SessionId, owner: &str) -> StoreFuture<'_, ()> {
        let _ = (id, owner);
        crate::done()
    }

    /// Allocates the number of a new stream of the session (1, 2, ...; 0 is
    /// the standalone GET stream); `None` when the session is gone. Numbers
    /// are never reused within a session, which keeps event ids unique
    /// across its streams (HTTP-31).
    fn next_stream(&self, id: &SessionId) -> StoreFuture<'_, Option<u64>>;

    /// What a POST holding a request needs of the store, in one round
    /// trip: touches `id` as [`SessionStore::touch`] does and, when the
    /// session is live and [admits](SessionRecord::admits) `caller`,
    /// allocates the number of a new stream as
    /// [`SessionStore::next_stream`] does. `None` when the session is
    /// unknown, expired or removed, or bound to another identity; then no
    /// stream number is taken.
    ///
    /// The default calls `touch` then `next_stream`; a store that can do
    /// both at once (under one lock, in one script) should.
    fn touch_and_open_stream(
        &self,
        id: &SessionId,
        idle: Duration,
        caller: Option<&str>,
    ) -> StoreFuture<'_, Option<(SessionRecord, u64)>> {
        let id = id.clone();
        let caller = caller.map(str::to_owned);
        Box::pin(async move {
            let Some(record) = self
                .touch(&id, idle)
                .await?
                .filter(|record| record.admits(caller.as_deref()))
            else {
                return Ok(None);
            };
            Ok(self.next_stream(&id).await?.map(|stream| (record, stream)))
        })
    }

    /// [`SessionStore::touch_and_open_stream`] for a store that can answer
    /// at once, without a future (an in-memory store): `None` when it
    /// cannot, and the caller then calls `touch_and_open_stream`. The
    /// default is `None`.
    fn touch_and_open_stream_now(
        &self,
        id: &SessionId,
        idle: Duration,
        caller: Option<&str>,
    ) -> Option<Result<Option<(SessionRecord, u64)>, StoreError>> {
        let _ = (id, idle, caller);
        None
    }

    /// Removes a session; `true` if it existed.
    fn remove(&self, id: &SessionId) -> StoreFuture<'_, bool>;

    /// Removes every session past its idle deadline and returns their ids,
    /// so that the caller frees what they held elsewhere. A store whose
    /// records vanish by themselves (native TTLs) may return nothing: the
    /// server also checks its own sessions with [`SessionStore::get`].
    fn take_expired(&self) -> StoreFuture<'_, Vec<SessionId>>;

    /// How many session records are held (live ones, and expired ones
    /// not yet swept).
    fn count(&self) -> StoreFuture<'_, usize>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_session_ids_are_64_visible_hex_characters_and_differ() {
        let a = SessionId::generate().unwrap();
        let b = SessionId::generate().unwrap();
        assert_eq!(a.as_str().len(), 64);
        assert!(a.as_str().bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(SessionId::parse(a.as_str()), Some(a));
    }

    #[test]
    fn parse_refuses_invisible_and_empty_ids() {
        for bad in ["", "a b", "tab\t", "é", "\u{7f}"] {
            assert_eq!(SessionId::parse(bad), None, "{bad:?}");
        }
        assert!(SessionId::parse("!~").is_some());
    }

    #[test]
    fn debug_output_hides_most_of_the_id() {
        let id = SessionId::parse("0123456789abcdef").unwrap();
        assert_eq!(format!("{id:?}"), "SessionId(01234567…)");
    }
}
