//! The MCP server runtime (under construction).
//!
//! So far this crate holds the runtime's building blocks: [`schema`] validates tool arguments
//! and structured results against a tool's JSON Schemas, [`uri_template`] expands and matches
//! the RFC 6570 URI templates of resource templates, and [`cursor`] pages `*/list` results
//! behind opaque cursors.

pub mod cursor;
pub mod schema;
// pub mod uri_template;
