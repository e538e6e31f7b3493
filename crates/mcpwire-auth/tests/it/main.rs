//! mcpwire-auth's integration tests, one binary (one link, one copy of the
//! support code): each module is one concern, gated by the feature it needs.
//! Every test names the AUTH rule(s) of `../shared/spec/REQUIREMENTS.md` it
//! checks, or says which RFC it holds the code to where MCP names none.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod support;

#[cfg(feature = "authorization-server")]
mod authorization_server_flow;
#[cfg(feature = "authorization-server")]
mod authorization_server_limits;
#[cfg(feature = "client")]
mod fuzz_corpus;
#[cfg(feature = "authorization-server")]
mod jwks_cache;
#[cfg(feature = "client")]
mod loopback_redirect;
#[cfg(feature = "client")]
mod oauth_client;
#[cfg(feature = "authorization-server")]
mod resource_layer;
#[cfg(feature = "authorization-server")]
mod slow_peers;
