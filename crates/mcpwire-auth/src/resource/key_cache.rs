//! The JSON Web Key Set cache of [`JwtVerifier`](super::JwtVerifier):
//! refetched when old or when a token names an unknown key, one fetch in
//! flight at a time shared by every request waiting for it, at most one
//! attempt per minimum interval, and the keys last fetched kept in use
//! while the issuer cannot be reached (issue 17 item 9).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use futures_util::FutureExt as _;
use futures_util::future::{BoxFuture, Shared};
use jsonwebtoken::jwk::{Jwk, JwkSet};

use super::verify::{KeySource, VerifyError};

/// A fetch in flight; every waiter polls the same one.
type Flight = Shared<BoxFuture<'static, Result<(), String>>>;

/// What the cache holds.
#[derive(Default)]
struct State {
    keys: Option<JwkSet>,
    /// When `keys` were fetched.
    fetched_at: Option<Instant>,
    /// When the last fetch started, successful or not.
    attempted_at: Option<Instant>,
    in_flight: Option<Flight>,
}

/// The key set of a [`KeySource`], cached.
pub(crate) struct KeyCache {
    source: Arc<dyn KeySource>,
    pub(crate) max_age: Duration,
    pub(crate) min_refetch_interval: Duration,
    state: Arc<Mutex<State>>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // Every change is a few assignments that cannot panic halfway.
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The key with id `kid` in `set`, or its only key for a token without one.
fn find(set: Option<&JwkSet>, kid: Option<&str>) -> Option<Jwk> {
    let set = set?;
    match kid {
        Some(kid) => set.find(kid).cloned(),
        None if set.keys.len() == 1 => set.keys.first().cloned(),
        None => None,
    }
}

impl KeyCache {
    pub(crate) fn new(source: Arc<dyn KeySource>) -> Self {
        Self {
            source,
            max_age: Duration::from_secs(300),
            min_refetch_interval: Duration::from_secs(10),
            state: Arc::default(),
        }
    }

    /// The key a token names.
    ///
    /// A fresh cached key is answered at once. Otherwise (no keys yet, keys
    /// older than `max_age`, or an unknown `kid`) the set is fetched, unless
    /// a fetch started less than `min_refetch_interval` ago: then the
    /// cached key, stale or not, is used as is. Concurrent callers share
    /// one fetch. When a fetch fails, the keys held are used (stale); only
    /// without any is the token refused as unverifiable.
    pub(crate) async fn key(&self, kid: Option<&str>) -> Result<Jwk, VerifyError> {
        let flight = {
            let mut state = lock(&self.state);
            let now = Instant::now();
            let key = find(state.keys.as_ref(), kid);
            let fresh = state
                .fetched_at
                .is_some_and(|at| now.duration_since(at) < self.max_age);
            if let (Some(key), true) = (&key, fresh) {
                return Ok(key.clone());
            }
            match &state.in_flight {
                Some(flight) => flight.clone(),
                None => {
                    let may_fetch = state
                        .attempted_at
                        .is_none_or(|at| now.duration_since(at) >= self.min_refetch_interval);
                    if !may_fetch {
                        return key.ok_or_else(unknown_key);
                    }
                    state.attempted_at = Some(now);
                    let flight = self.start_fetch();
                    state.in_flight = Some(flight.clone());
                    flight
                }
            }
        };
        let fetched = flight.await;
        let state = lock(&self.state);
        match (find(state.keys.as_ref(), kid), fetched) {
            (Some(key), _) => Ok(key),
            (None, Err(error)) if state.keys.is_none() => Err(VerifyError::Unavailable(error)),
            (None, _) => Err(unknown_key()),
        }
    }

    /// A fetch that stores what it gets and clears itself from the state.
    fn start_fetch(&self) -> Flight {
        let source = Arc::clone(&self.source);
        let state = Arc::clone(&self.state);
        async move {
            let outcome = source.fetch().await;
            let mut state = lock(&state);
            state.in_flight = None;
            match outcome {
                Ok(keys) => {
                    state.keys = Some(keys);
                    state.fetched_at = Some(Instant::now());
                    Ok(())
                }
                Err(error) => {
                    tracing::warn!(%error, "the JWKS could not be fetched; the keys held stay in use");
                    Err(error.to_string())
                }
            }
        }
        .boxed()
        .shared()
    }
}

fn unknown_key() -> VerifyError {
    VerifyError::Invalid("the token's signing key is unknown".to_owned())
}
