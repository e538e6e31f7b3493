//! The MCP client runtime (being written).
