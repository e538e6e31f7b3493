//! The MCP stdio transport.
