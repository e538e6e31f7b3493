//! Sealing the `requestState` of multi round-trip requests: the client gets
//! an opaque, integrity-protected string and must echo it unchanged; on the
//! retry the server verifies it before any handler sees the state.
//!
//! A sealed state is `base64url(tag || issued || state)` without padding:
//! `issued` is the time of sealing (seconds since the Unix epoch, 8 bytes
//! big-endian), and `tag` is HMAC-SHA256, under the server's key, over the
//! request it belongs to (method and tool, prompt or resource name, and the
//! identity that sent it when there is one: the runtime's binding,
//! length-prefixed), `issued` and the state. So a state issued for one tool
//! or one user cannot be replayed into another, and none opens after
//! [`STATE_TTL`]. The
//! key is random per server (`mcpwire_server::Server`) unless the
//! builder is given one: several instances behind one load balancer must
//! share the key, or a retry that lands on another instance is rejected.
//!
//! Keys rotate through a [`StateKeyRing`]: the current key seals, and the
//! current and a few previous keys open, so that a round started just
//! before a rotation still completes after it.

use std::collections::VecDeque;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The length of the HMAC-SHA256 tag at the front of a sealed state.
const TAG_LEN: usize = 32;

/// The length of the time of sealing after the tag.
const ISSUED_LEN: usize = 8;

/// How long a sealed state stays valid: long enough for a user to answer
/// an elicitation, short enough to limit replays.
const STATE_TTL: Duration = Duration::from_secs(60 * 60);

/// How far in the future a time of sealing may lie (clocks of instances
/// sharing a key differ a little).
const CLOCK_SKEW: Duration = Duration::from_secs(60);

/// The key that seals and opens request states, kept as a keyed HMAC that
/// each use clones.
#[derive(Clone)]
struct StateKey(Hmac<Sha256>);

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key never appears in logs.
        f.write_str("StateKey(..)")
    }
}

impl StateKey {
    /// A fresh key from the operating system's CSPRNG.
    fn random() -> Result<Self, String> {
        let mut key = [0_u8; 32];
        getrandom::fill(&mut key).map_err(|error| error.to_string())?;
        Self::from_bytes(key)
    }

    /// The given key.
    fn from_bytes(key: [u8; 32]) -> Result<Self, String> {
        // HMAC takes keys of any length; the error cannot happen in practice.
        <Hmac<Sha256> as Mac>::new_from_slice(&key)
            .map(Self)
            .map_err(|error| error.to_string())
    }

    /// The given key, for callers that cannot report an error.
    fn from_key(key: [u8; 32]) -> Self {
        #[expect(
            clippy::expect_used,
            reason = "HMAC accepts keys of any length (RFC 2104 hashes long ones), so a 32-byte key never fails"
        )]
        Self::from_bytes(key).expect("HMAC-SHA256 accepts a 32-byte key")
    }

    fn tag(&self, binding: &str, state: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.0.clone();
        mac.update(&(binding.len() as u64).to_be_bytes());
        mac.update(binding.as_bytes());
        mac.update(state);
        mac
    }

    /// Seals `state` for the request described by `binding`.
    fn seal(&self, binding: &str, state: &[u8]) -> String {
        self.seal_at(binding, state, unix_seconds(SystemTime::now()))
    }

    fn seal_at(&self, binding: &str, state: &[u8], issued: u64) -> String {
        let mut payload = Vec::with_capacity(ISSUED_LEN + state.len());
        payload.extend_from_slice(&issued.to_be_bytes());
        payload.extend_from_slice(state);
        let tag = self.tag(binding, &payload).finalize().into_bytes();
        let mut bytes = Vec::with_capacity(TAG_LEN + payload.len());
        bytes.extend_from_slice(&tag);
        bytes.extend_from_slice(&payload);
        base64url::encode(&bytes)
    }

    /// The state inside `sealed`, if this key sealed it for `binding` and
    /// it has not expired (the runtime opens through a [`StateKeyRing`]).
    #[cfg(test)]
    fn open(&self, binding: &str, sealed: &str) -> Option<Vec<u8>> {
        self.open_at(binding, sealed, unix_seconds(SystemTime::now()))
    }

    fn open_at(&self, binding: &str, sealed: &str, now: u64) -> Option<Vec<u8>> {
        let bytes = base64url::decode(sealed)?;
        if bytes.len() < TAG_LEN + ISSUED_LEN {
            return None;
        }
        let (tag, payload) = bytes.split_at(TAG_LEN);
        // `verify_slice` compares in constant time.
        self.tag(binding, payload).verify_slice(tag).ok()?;
        let (issued, state) = payload.split_at(ISSUED_LEN);
        let issued = u64::from_be_bytes(issued.try_into().ok()?);
        let fresh = issued <= now.saturating_add(CLOCK_SKEW.as_secs())
            && now <= issued.saturating_add(STATE_TTL.as_secs());
        fresh.then(|| state.to_vec())
    }
}

/// How many previous keys a ring keeps for opening after rotations.
pub const MAX_PREVIOUS_KEYS: usize = 4;

/// The keys that seal and open the `requestState` of multi round-trip
/// answers, with rotation.
///
/// A ring is a handle: its clones share the same keys. The current key
/// seals; it and up to [`MAX_PREVIOUS_KEYS`] previous keys open, newest
/// first. Rotate at run time with [`StateKeyRing::rotate`] (on a timer, or
/// when the configuration every instance shares announces a new key): a
/// state sealed just before the rotation still opens after it, until the
/// previous key is retired or pushed out. Instances that share traffic must
/// hold the same keys.
#[derive(Clone)]
pub struct StateKeyRing(Arc<RwLock<Keys>>);

struct Keys {
    current: StateKey,
    previous: VecDeque<StateKey>,
}

impl std::fmt::Debug for StateKeyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys never appear in logs; how many are held does.
        let keys = self.0.read().unwrap_or_else(PoisonError::into_inner);
        write!(
            f,
            "StateKeyRing(1 current, {} previous)",
            keys.previous.len()
        )
    }
}

impl StateKeyRing {
    /// A ring whose current key is `current`, with no previous keys.
    pub fn new(current: [u8; 32]) -> Self {
        Self::with_key(StateKey::from_key(current))
    }

    /// A ring with a fresh key from the operating system's CSPRNG; an
    /// error when the operating system offers no randomness.
    pub fn random() -> Result<Self, String> {
        StateKey::random().map(Self::with_key)
    }

    fn with_key(current: StateKey) -> Self {
        Self(Arc::new(RwLock::new(Keys {
            current,
            previous: VecDeque::new(),
        })))
    }

    /// Makes `next` the sealing key; the current one is kept for opening
    /// (the oldest previous key is dropped beyond [`MAX_PREVIOUS_KEYS`]).
    pub fn rotate(&self, next: [u8; 32]) {
        let next = StateKey::from_key(next);
        let mut keys = self.0.write().unwrap_or_else(PoisonError::into_inner);
        let retired = std::mem::replace(&mut keys.current, next);
        keys.previous.push_front(retired);
        keys.previous.truncate(MAX_PREVIOUS_KEYS);
    }

    /// Replaces every key at once: `current` seals, and it and `previous`
    /// (newest first, at most [`MAX_PREVIOUS_KEYS`] kept) open. For a ring
    /// that follows keys kept elsewhere (`mcpwire-redis`'s `RedisKeyRing`),
    /// so that no seal ever uses a half-updated ring.
    pub fn replace(&self, current: [u8; 32], previous: &[[u8; 32]]) {
        let current = StateKey::from_key(current);
        let previous = previous
            .iter()
            .take(MAX_PREVIOUS_KEYS)
            .map(|key| StateKey::from_key(*key))
            .collect();
        let mut keys = self.0.write().unwrap_or_else(PoisonError::into_inner);
        *keys = Keys { current, previous };
    }

    /// Forgets every previous key: states they sealed no longer open (after
    /// a key leaked, say).
    pub fn retire_previous(&self) {
        let mut keys = self.0.write().unwrap_or_else(PoisonError::into_inner);
        keys.previous.clear();
    }

    /// Seals `state` for the request described by `binding` with the
    /// current key: the runtime's side of `requestState` (the binding names
    /// the request, and its owner when the request carried an identity).
    pub fn seal(&self, binding: &str, state: &[u8]) -> String {
        let key = self.current();
        key.seal(binding, state)
    }

    /// The state inside `sealed`, if a key of the ring sealed it for
    /// `binding` and it has not expired.
    pub fn open(&self, binding: &str, sealed: &str) -> Option<Vec<u8>> {
        self.open_at(binding, sealed, unix_seconds(SystemTime::now()))
    }

    fn open_at(&self, binding: &str, sealed: &str, now: u64) -> Option<Vec<u8>> {
        let keys = self.0.read().unwrap_or_else(PoisonError::into_inner);
        std::iter::once(&keys.current)
            .chain(keys.previous.iter())
            .find_map(|key| key.open_at(binding, sealed, now))
    }

    fn current(&self) -> StateKey {
        let keys = self.0.read().unwrap_or_else(PoisonError::into_inner);
        keys.current.clone()
    }
}

/// Seconds since the Unix epoch (0 for a clock set before it).
fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or(0)
}

/// Base64url without padding (RFC 4648 section 5), strict on decoding: any
/// character outside the alphabet, padding, or non-zero trailing bits make
/// the input invalid, so that one state has exactly one spelling.
mod base64url {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    pub(super) fn encode(bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub(super) fn decode(text: &str) -> Option<Vec<u8>> {
        URL_SAFE_NO_PAD.decode(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_sealed_before_a_rotation_still_opens_after_it_until_retired() {
        let ring = StateKeyRing::new([1; 32]);
        let before = ring.seal("b", b"round=1");
        ring.rotate([2; 32]);
        let after = ring.seal("b", b"round=2");
        assert_eq!(ring.open("b", &before), Some(b"round=1".to_vec()));
        assert_eq!(ring.open("b", &after), Some(b"round=2".to_vec()));
        // A ring holding only the new key opens only the new state.
        let fresh = StateKeyRing::new([2; 32]);
        assert_eq!(fresh.open("b", &before), None);
        assert_eq!(fresh.open("b", &after), Some(b"round=2".to_vec()));
        ring.retire_previous();
        assert_eq!(ring.open("b", &before), None);
        assert_eq!(ring.open("b", &after), Some(b"round=2".to_vec()));
    }

    #[test]
    fn a_ring_keeps_a_bounded_number_of_previous_keys() {
        let ring = StateKeyRing::new([0; 32]);
        let oldest = ring.seal("b", b"s");
        for key in 1..=MAX_PREVIOUS_KEYS {
            ring.rotate([key as u8; 32]);
        }
        assert_eq!(ring.open("b", &oldest), Some(b"s".to_vec()));
        ring.rotate([0xff; 32]);
        assert_eq!(ring.open("b", &oldest), None);
        // Clones share the keys: a rotation through one is seen by all.
        let clone = ring.clone();
        clone.rotate([0xee; 32]);
        assert_eq!(ring.open("b", &clone.seal("b", b"t")), Some(b"t".to_vec()));
    }

    #[test]
    fn replacing_the_keys_seals_with_the_new_current_and_opens_only_the_given_keys() {
        let ring = StateKeyRing::new([1; 32]);
        let by_one = ring.seal("b", b"one");
        let by_nine = StateKeyRing::new([9; 32]).seal("b", b"nine");
        ring.replace([3; 32], &[[2; 32], [9; 32]]);
        assert_eq!(
            ring.open("b", &by_one),
            None,
            "a key left out no longer opens"
        );
        assert_eq!(ring.open("b", &by_nine), Some(b"nine".to_vec()));
        let sealed = ring.seal("b", b"three");
        assert_eq!(
            StateKeyRing::new([3; 32]).open("b", &sealed),
            Some(b"three".to_vec())
        );
        let many = [[5; 32]; MAX_PREVIOUS_KEYS + 3];
        ring.replace([4; 32], &many);
        assert!(format!("{ring:?}").contains(&format!("{MAX_PREVIOUS_KEYS} previous")));
    }

    #[test]
    fn base64url_round_trips_every_length_and_rejects_non_canonical_text() {
        for len in 0..40_u8 {
            let bytes: Vec<u8> = (0..len).map(|b| b.wrapping_mul(37)).collect();
            let text = base64url::encode(&bytes);
            assert!(!text.contains('='));
            assert_eq!(base64url::decode(&text), Some(bytes));
        }
        assert_eq!(base64url::encode(b"hi?"), "aGk_");
        assert_eq!(base64url::decode("aGk="), None);
        assert_eq!(base64url::decode("aGl"), None, "trailing bits set");
        assert_eq!(base64url::decode("a"), None);
    }

    #[test]
    fn a_sealed_state_opens_only_with_its_key_and_binding() {
        let key = StateKey::from_bytes([7; 32]).unwrap();
        let sealed = key.seal("tools/call\nt", b"round=2");
        assert_eq!(
            key.open("tools/call\nt", &sealed),
            Some(b"round=2".to_vec())
        );
        assert_eq!(key.open("tools/call\nother", &sealed), None);
        assert_eq!(
            StateKey::from_bytes([8; 32])
                .unwrap()
                .open("tools/call\nt", &sealed),
            None
        );
        assert_eq!(
            key.open("tools/call\nt", &format!("{sealed}-TAMPERED")),
            None
        );
        let mut flipped = base64url::decode(&sealed).unwrap();
        if let Some(last) = flipped.last_mut() {
            *last ^= 1;
        }
        assert_eq!(
            key.open("tools/call\nt", &base64url::encode(&flipped)),
            None
        );
    }

    #[test]
    fn a_sealed_state_expires_after_its_time_to_live() {
        let key = StateKey::from_bytes([7; 32]).unwrap();
        let issued = 1_000_000;
        let sealed = key.seal_at("b", b"s", issued);
        let ttl = STATE_TTL.as_secs();
        assert_eq!(key.open_at("b", &sealed, issued + ttl), Some(b"s".to_vec()));
        assert_eq!(key.open_at("b", &sealed, issued + ttl + 1), None);
        assert_eq!(
            key.open_at("b", &sealed, issued - CLOCK_SKEW.as_secs()),
            Some(b"s".to_vec())
        );
        assert_eq!(
            key.open_at("b", &sealed, issued - CLOCK_SKEW.as_secs() - 1),
            None
        );
    }

    #[test]
    fn random_keys_differ() {
        let a = StateKey::random().unwrap();
        let b = StateKey::random().unwrap();
        assert_ne!(a.seal("x", b"s"), b.seal("x", b"s"));
    }
}
