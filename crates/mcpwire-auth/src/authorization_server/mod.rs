//! An embedded OAuth 2.1 authorization server for development and tests (not a production identity provider).
//!
//! # ⚠ For development and tests only
//!
//! This server keeps everything in memory (clients, codes, refresh tokens,
//! signing keys: all lost on restart), has no user accounts and no login
//! page, and by default approves every authorization request
//! ([`AutoApprove`]). What callers can grow is bounded and expires (clients,
//! codes, refresh tokens, registrations per minute, request sizes, the time
//! a request body or a metadata document fetch may take; see the
//! [`AuthorizationServerBuilder`] methods and `docs/security.md`). It exists so that an MCP server protected by
//! [`BearerAuthLayer`](crate::resource::BearerAuthLayer) can be run, tried
//! and tested end to end without an external identity provider. Put a real
//! authorization server in front of anything that matters.
//!
//! # What it implements
//!
//! - RFC 8414 metadata at `/.well-known/oauth-authorization-server` (with
//!   `code_challenge_methods_supported: ["S256"]`,
//!   `authorization_response_iss_parameter_supported` and
//!   `client_id_metadata_document_supported`);
//! - the authorization endpoint `/authorize`: `response_type=code` with
//!   PKCE S256 only, RFC 8707 `resource`, a [`Consent`] hook deciding, and
//!   `iss` in every response (RFC 9207);
//! - the token endpoint `/token`: `authorization_code` (PKCE verified, the
//!   code single-use, the `resource` bound into the token's audience) and
//!   `refresh_token` (rotated on every use; a replayed one revokes its
//!   family), with client authentication `none`, `client_secret_basic` and
//!   `client_secret_post`;
//! - dynamic client registration (RFC 7591) at `/register`;
//! - client ID metadata documents: an `https` URL as `client_id` is fetched
//!   with the [`DocumentFetch`] given to the builder, never from an internal
//!   address (loopback, private or link-local IP literals, `localhost`;
//!   loopback, `http` too, only in test mode,
//!   [`AuthorizationServerBuilder::allow_loopback_metadata_documents`]),
//!   within [`AuthorizationServerBuilder::metadata_document_timeout`]
//!   whatever the fetcher's own bound, and why a fetch failed is logged,
//!   not sent to the caller;
//! - RFC 9068 JWT access tokens signed with ES256 by a key it generates,
//!   rotated with [`AuthorizationServer::rotate_keys`], published at `/jwks`.
//!
//! The server is a `tower::Service` over `http::Request`: serve it with
//! hyper, mount it in axum (`Router::fallback_service`), or call it in
//! tests. Its endpoints live under the issuer's path.

mod authorize;
mod clients;
mod consent;
mod keys;
mod service;
mod state;
mod tables;
mod token;

pub use clients::{Client, TokenAuthMethod};
pub use consent::{AutoApprove, Consent, ConsentDecision, ConsentRequest};
pub use keys::KeyError;
pub use state::{AuthorizationServer, AuthorizationServerBuilder, Grant};

#[cfg(doc)]
use crate::resource::DocumentFetch;
