//! The failure every store, bus and log reports, and the boxed future
//! their methods return.

use core::error::Error as StdError;

/// The future every store method returns: boxed, so that the traits are
/// object safe and an implementation may do network I/O (Redis, SQL, ...).
/// The workspace's one boxed-future shape (`mcpwire_jsonrpc::BoxFuture`).
pub type StoreFuture<'a, T> = mcpwire_jsonrpc::BoxFuture<'a, Result<T, StoreError>>;

/// The failure of a store or bus (a lost connection to Redis, ...).
///
/// The in-memory defaults never fail.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct StoreError {
    message: String,
    #[source]
    source: Option<Box<dyn StdError + Send + Sync>>,
}

impl StoreError {
    /// An error explained by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }

    /// An error explained by `message`, caused by `source`.
    pub fn with_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn StdError + Send + Sync>>,
    ) -> Self {
        Self {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}
