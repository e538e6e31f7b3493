//! The resource-server side: bearer token validation as a tower layer.
//!
//! An MCP server that requires authorization wraps its HTTP service in
//! [`BearerAuthLayer`]. The layer serves the protected resource metadata
//! (RFC 9728) that tells clients where to get tokens, checks every
//! request's bearer token with a [`TokenVerifier`] ([`JwtVerifier`] for JWT
//! access tokens checked against the issuer's JWKS; implement the trait for
//! RFC 7662 introspection or anything else), checks the token's audience
//! (RFC 8707 resource binding), expiry and scopes, and answers 401 or 403
//! with the `WWW-Authenticate` challenge MCP clients act on.
//!
//! A request it lets through carries an [`AuthContext`] in its extensions
//! and **no longer carries the `Authorization` header**: the client's token
//! is for this server alone, and passing it on to another service is the
//! "token passthrough" MCP authorization forbids. A server that calls
//! upstream APIs gets tokens of its own for them.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use mcpwire_auth::metadata::ProtectedResourceMetadata;
//! # use mcpwire_auth::resource::{BearerAuthLayer, DocumentFetch, JwksUri, JwtVerifier};
//! # fn build(fetch: Arc<dyn DocumentFetch>) -> Result<(), Box<dyn std::error::Error>> {
//! let metadata = ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://as.example.com");
//! let keys = JwksUri::new("https://as.example.com/jwks", fetch);
//! let verifier = JwtVerifier::new(Arc::new(keys)).issuer("https://as.example.com");
//! let layer = BearerAuthLayer::new(metadata, Arc::new(verifier))?.required_scopes(["mcp:tools"]);
//! // tower::ServiceBuilder::new().layer(layer).service(mcp_service)
//! # let _ = layer;
//! # Ok(())
//! # }
//! ```

mod challenge;
pub(crate) mod fetch;
mod identity;
mod key_cache;
mod layer;
mod verify;

pub use fetch::{DocumentFetch, FetchError};
pub use identity::AuthContext;
pub use layer::{BearerAuth, BearerAuthLayer, BearerBody, ResourceUrlError};
pub use verify::{
    BoxFuture, JwksUri, JwtVerifier, KeySource, TokenTypes, TokenVerifier, VerifyError,
};

/// The JSON Web Key Set type of the `jsonwebtoken` crate, which
/// [`KeySource`] returns.
pub use jsonwebtoken::jwk::JwkSet;
