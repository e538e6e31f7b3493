//! The MCP server runtime.
