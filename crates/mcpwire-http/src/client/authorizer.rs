//! The hook through which the client transport gets credentials: an
//! [`Authorizer`] adds headers to each request and decides, on a 401 or 403,
//! whether to retry with new ones.
//!
//! It uses only `http` types, so an OAuth implementation (mcpwire-auth's
//! `OAuthClient`, or another) plugs in without this crate depending on it.

use std::fmt;

use http::{HeaderMap, Method, StatusCode, Uri};

/// A boxed, sendable future, as [`Authorizer`] methods return: the
/// workspace's one shape, [`mcpwire_jsonrpc::BoxFuture`].
pub type AuthFuture<'a, T> = mcpwire_jsonrpc::BoxFuture<'a, T>;

/// What to do after a 401 or 403.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Retry {
    /// New credentials are in place: send the request again.
    Retry,
    /// Nothing more can be done: the answer stands.
    GiveUp,
}

/// Supplies credentials to the Streamable HTTP client (set with
/// [`ClientOptions::authorizer`](super::ClientOptions::authorizer)).
///
/// The transport calls [`headers`](Self::headers) before every HTTP
/// request (POST, GET stream, DELETE), and [`challenged`](Self::challenged)
/// when a POST is answered 401 or 403, then retries that POST at most
/// [`MAX_AUTH_RETRIES`] times.
pub trait Authorizer: Send + Sync + fmt::Debug {
    /// The headers to add to a request about to be sent (for example
    /// `Authorization`, or a DPoP proof bound to `method` and `uri`). An
    /// error is logged and the request goes without them.
    fn headers<'a>(
        &'a self,
        method: &'a Method,
        uri: &'a Uri,
    ) -> AuthFuture<'a, Result<HeaderMap, String>>;

    /// A request was answered `status` (401 or 403) with `headers` (the
    /// `WWW-Authenticate` challenge among them). An error is logged and
    /// treated as [`Retry::GiveUp`].
    fn challenged<'a>(
        &'a self,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> AuthFuture<'a, Result<Retry, String>>;

    /// A request was accepted (2xx) with `headers`; lets the authorizer
    /// reset retry counters or pick up server nonces. Does nothing by
    /// default.
    fn accepted(&self, headers: &HeaderMap) {
        let _ = headers;
    }
}

/// How many times one POST is retried after [`Authorizer::challenged`]
/// says so, whatever it says next.
pub const MAX_AUTH_RETRIES: usize = 3;
