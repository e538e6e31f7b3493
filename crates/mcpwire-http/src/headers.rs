//! The HTTP header names MCP uses (header names are case-insensitive; these
//! are the spellings the spec prints).

/// The session a handshake-era request belongs to (2025-03-26 on).
pub const MCP_SESSION_ID: &str = "mcp-session-id";
/// The revision a request speaks (required from 2025-06-18).
pub const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The JSON-RPC method of a POST (required in 2026-07-28).
pub const MCP_METHOD: &str = "mcp-method";
/// The tool, prompt or resource a POST names (required in 2026-07-28 where one is named).
pub const MCP_NAME: &str = "mcp-name";
/// The prefix of custom headers carrying tool parameters (2026-07-28, `x-mcp-header`).
pub const MCP_PARAM_PREFIX: &str = "mcp-param-";
/// The last SSE event id a client saw, to resume a stream.
pub const LAST_EVENT_ID: &str = "last-event-id";
