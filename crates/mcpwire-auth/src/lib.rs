//! OAuth 2.1 for MCP: client, resource server and an embedded authorization server.
//!
//! | module | feature | what it is |
//! |---|---|---|
//! | [`metadata`] | always | RFC 8414 authorization server and RFC 9728 protected resource metadata documents |
//! | [`pkce`] | always | PKCE (RFC 7636) verifiers and S256 challenges |
//! | `client` | `client` | discovery, registration, authorization code + PKCE, tokens, refresh, step-up |
//! | `resource` | `resource-server` | a tower layer validating bearer tokens and serving resource metadata |
//! | `authorization_server` | `authorization-server` | a small embedded authorization server for development and tests |

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod metadata;
pub mod pkce;
mod random;

#[cfg(any(feature = "client", feature = "authorization-server"))]
mod address;

/// A boxed, sendable future, as the object-safe traits of this crate
/// (fetchers, verifiers, stores) return: the workspace's one shape.
pub use mcpwire_jsonrpc::BoxFuture;

#[cfg(feature = "authorization-server")]
pub mod authorization_server;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "resource-server")]
pub mod resource;

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
