//! The failure every store, bus and log reports, the boxed future their
//! methods return, and that future already resolved without allocating.

use core::error::Error as StdError;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

/// The future every store method returns: boxed, so that the traits are
/// object safe and an implementation may do network I/O (Redis, SQL, ...).
/// The workspace's one boxed-future shape (`mcpwire_jsonrpc::BoxFuture`).
pub type StoreFuture<'a, T> = mcpwire_jsonrpc::BoxFuture<'a, Result<T, StoreError>>;

/// `Ok(())` as a [`StoreFuture`], without an allocation: what an
/// in-memory store returns from a method that finished before returning.
/// (The future is zero-sized, and boxing a zero-sized value allocates
/// nothing; `Box::pin(async { Ok(()) })` allocates for every call.)
///
/// ```
/// use mcpwire_store::{StoreFuture, done};
///
/// fn forget_everything() -> StoreFuture<'static, ()> {
///     // ... the work, done at once ...
///     done()
/// }
/// let _ = forget_everything();
/// ```
pub fn done() -> StoreFuture<'static, ()> {
    Box::pin(Done)
}

/// `Ok(value)` as a [`StoreFuture`], without an allocation (see [`done`]).
pub fn answered(value: bool) -> StoreFuture<'static, bool> {
    if value {
        Box::pin(Answered::<true>)
    } else {
        Box::pin(Answered::<false>)
    }
}

/// A store future already resolved to `Ok(())`; zero-sized.
struct Done;

impl Future for Done {
    type Output = Result<(), StoreError>;

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(Ok(()))
    }
}

/// A store future already resolved to `Ok(VALUE)`; zero-sized.
struct Answered<const VALUE: bool>;

impl<const VALUE: bool> Future for Answered<VALUE> {
    type Output = Result<bool, StoreError>;

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(Ok(VALUE))
    }
}

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
