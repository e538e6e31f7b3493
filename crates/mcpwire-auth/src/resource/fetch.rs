//! The HTTP GET the resource server and the embedded authorization server
//! need (a JWKS, a client ID metadata document), as a trait the host
//! implements with its own HTTP client: this crate brings none of its own
//! to the server side. Every fetch the crate awaits goes through
//! `get_within`, so a host fetcher without a timeout of its own cannot
//! make a verifier or the authorization server wait forever.

use std::time::Duration;

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
/// anything else, and bound the size they read. The crate bounds the time
/// of every fetch it awaits itself (10 s by default, see
/// [`JwksUri::timeout`](super::JwksUri::timeout) and the authorization
/// server's `metadata_document_timeout`) and treats a fetch that takes
/// longer as failed; a fetcher may still use a shorter bound of its own.
/// The futures are awaited under a tokio runtime with its timer enabled.
pub trait DocumentFetch: Send + Sync + 'static {
    /// The body at `url`.
    fn get<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Bytes, FetchError>>;
}

/// How long a fetch may take unless configured otherwise: as long as
/// `HyperFetch` gives itself, so that the library's bound only bites for
/// fetchers that have none.
pub(crate) const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// `fetch.get(url)`, failed with a [`FetchError`] when it has not answered
/// within `timeout`: the peer chooses how long a fetch takes, and a hung
/// one must not hold its caller (and whoever shares its result) forever.
pub(crate) async fn get_within(
    fetch: &dyn DocumentFetch,
    url: &str,
    timeout: Duration,
) -> Result<Bytes, FetchError> {
    tokio::time::timeout(timeout, fetch.get(url))
        .await
        .unwrap_or_else(|_elapsed| {
            Err(FetchError::new(format!(
                "{url} did not answer within {timeout:?}"
            )))
        })
}
