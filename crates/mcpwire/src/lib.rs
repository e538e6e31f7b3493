//! mcpwire: the Model Context Protocol in Rust, one facade over layered crates.
//!
//! This crate holds no code of its own. It re-exports the layers so that an
//! application can depend on one crate and pick what it needs with features:
//!
//! | module | crate | what it is |
//! |---|---|---|
//! | [`jsonrpc`] | `mcpwire-jsonrpc` | JSON-RPC 2.0 messages, framing, the `Transport` trait |
//! | [`types`] | `mcpwire-types` | the MCP vocabulary of every revision |

pub use mcpwire_jsonrpc as jsonrpc;
pub use mcpwire_types as types;
