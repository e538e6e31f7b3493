//! JSON-RPC 2.0 for MCP: messages, classification, framing, transports.
