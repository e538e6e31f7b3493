//! The HTTP GET the resource server and the embedded authorization server
//! need (a JWKS, a client ID metadata document), as a trait the host
//! implements with its own HTTP client: this crate brings none of its own
//! to the server side.

use bytes::Bytes;

use super::verify::BoxFuture;

/// Why a document could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FetchError {
    message: String,
}

impl FetchError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// Fetches a document with an HTTP GET.
///
/// Implementations answer the body of a 2xx response and an error for
/// anything else, and bound the size and the time they spend.
pub trait DocumentFetch: Send + Sync + 'static {
    /// The body at `url`.
    fn get<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Bytes, FetchError>>;
}
