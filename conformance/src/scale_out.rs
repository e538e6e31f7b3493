//! The everything-server as one of several instances sharing one Redis
//! (`everything-server --http ADDRESS --redis URL --state-key HEX`), which
//! `cargo xtask conformance scale-out` starts three times behind a
//! round-robin proxy.
//!
//! Each instance connects `mcpwire_redis::RedisStores` and gives them to
//! its Streamable HTTP endpoint (sessions, stream events, the message bus
//! between instances) and to its server (the task store, and the change
//! feed that carries list changes to the sessions and
//! `subscriptions/listen` requests of the other instances), and seals
//! `requestState` with the key every instance is given (or, without one,
//! with the key ring the instances share in Redis), so that a multi
//! round-trip retry or a task poll may land on any instance. The legacy
//! HTTP+SSE endpoint stays per instance: its stream and its POSTs are tied
//! to one process.

use std::fmt;
use std::net::SocketAddr;

use mcpwire_http::server::{Config, StoreError};
use mcpwire_redis::{RedisConfig, RedisStores};
use mcpwire_server::tasks::TaskOptions;

use crate::everything;
use crate::http::{self, Endpoints, HttpError};

/// How long a `requestState` key is, in bytes (HMAC-SHA256).
pub const STATE_KEY_BYTES: usize = 32;

/// What the instances of one deployment share.
#[derive(Clone, PartialEq, Eq)]
pub struct SharedState {
    /// The Redis URL, e.g. `redis://127.0.0.1:6379/`.
    pub redis_url: String,
    /// The key sealing `requestState` on every instance; `None` to use
    /// the key ring the instances keep in Redis (`RedisKeyRing`).
    pub state_key: Option<[u8; STATE_KEY_BYTES]>,
}

impl fmt::Debug for SharedState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The key is a secret: never in logs.
        f.debug_struct("SharedState")
            .field("redis_url", &self.redis_url)
            .finish_non_exhaustive()
    }
}

/// Reads a `requestState` key written as 64 hexadecimal digits.
///
/// # Errors
///
/// When `text` is not exactly 32 bytes of hex.
pub fn parse_state_key(text: &str) -> Result<[u8; STATE_KEY_BYTES], String> {
    let digits = text.trim().as_bytes();
    if digits.len() != STATE_KEY_BYTES * 2 {
        return Err(format!(
            "a state key is {} hex digits, got {}",
            STATE_KEY_BYTES * 2,
            digits.len()
        ));
    }
    let mut key = [0u8; STATE_KEY_BYTES];
    for (byte, pair) in key.iter_mut().zip(digits.chunks_exact(2)) {
        let pair = std::str::from_utf8(pair).map_err(|_| "a state key is ASCII hex")?;
        *byte = u8::from_str_radix(pair, 16)
            .map_err(|_| format!("{pair:?} is not a hex byte in the state key"))?;
    }
    Ok(key)
}

/// Why a shared instance stopped or never started.
#[derive(Debug)]
#[non_exhaustive]
pub enum ScaleOutError {
    /// Redis did not answer, or the fixtures did not build.
    Setup(String),
    /// Serving over HTTP failed.
    Http(HttpError),
}

impl fmt::Display for ScaleOutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Setup(message) => f.write_str(message),
            Self::Http(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ScaleOutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Setup(_) => None,
            Self::Http(error) => Some(error),
        }
    }
}

impl From<StoreError> for ScaleOutError {
    fn from(error: StoreError) -> Self {
        Self::Setup(format!("cannot use Redis: {error}"))
    }
}

/// Serves the everything-server on `address` with its state in the Redis
/// of `shared`, calling `announce` once the listener is bound.
///
/// # Errors
///
/// When Redis does not answer, the fixtures do not build, or serving fails.
pub async fn serve<F>(
    shared: &SharedState,
    address: SocketAddr,
    announce: F,
) -> Result<(), ScaleOutError>
where
    F: FnOnce(&Endpoints) -> std::io::Result<()>,
{
    let stores = RedisStores::connect(RedisConfig::new(shared.redis_url.clone())).await?;
    let builder = everything::builder()
        .tasks(TaskOptions::new().store(stores.tasks.clone()))
        .change_feed(stores.changes.clone());
    let builder = match shared.state_key {
        Some(key) => builder.request_state_key(key),
        None => builder.request_state_keys(stores.key_ring().await?.ring()),
    };
    let server = builder
        .build()
        .map_err(|error| ScaleOutError::Setup(format!("the fixtures do not build: {error}")))?;
    let config = stores.apply(Config::default());
    http::serve_with(server, config, address, announce)
        .await
        .map_err(ScaleOutError::Http)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_key_is_64_hex_digits() {
        let text = "00ff".repeat(16);
        let key = parse_state_key(&text).unwrap();
        assert_eq!(key[0], 0);
        assert_eq!(key[1], 0xff);
        assert_eq!(key[31], 0xff);
        assert!(parse_state_key("00ff").is_err());
        assert!(parse_state_key(&"zz".repeat(32)).is_err());
        assert!(parse_state_key(&"é".repeat(32)).is_err());
    }
}
