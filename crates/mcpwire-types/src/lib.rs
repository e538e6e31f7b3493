//! The MCP vocabulary of every revision.
