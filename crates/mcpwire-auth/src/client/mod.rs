//! The OAuth client side of MCP authorization.
