//! Entry points into parsers that are otherwise private, for the fuzz
//! targets in `fuzz/` and the tests that replay their corpora. Not part of
//! the API: hidden from the documentation and free to change.

use http::{HeaderMap, HeaderValue};
use mcpwire_jsonrpc::{Message, Packet};
use serde_json::Value;

use crate::server::ToolParamHeaders;

/// The server's reading of `Accept`: whether every type of `media` is
/// admitted (as the checks of POST and GET use it).
pub fn accepts_all(headers: &HeaderMap, media: &[&str]) -> bool {
    crate::server::security::accepts_all(headers, media)
}

/// The server's check that a POST accepts both JSON and SSE (with its
/// shortcut for the usual value).
pub fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    crate::server::security::accepts_json_and_sse(headers)
}

/// The server's check of the 2026-07-28 request headers (`MCP-Protocol-Version`,
/// `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) against a message, as a
/// stateless POST runs it.
pub fn check_request_headers(
    headers: &HeaderMap,
    message: &Message,
    tools: &dyn ToolParamHeaders,
) -> Result<(), String> {
    crate::server::validate::check_message_headers(headers, message, tools)
}

/// The server's decoding of an `Mcp-Name` / `Mcp-Param-*` header value
/// (trimmed, `=?base64?...?=` decoded strictly).
pub fn decode_header_value(headers: &HeaderMap, name: &str) -> Result<Option<String>, String> {
    crate::server::validate::encoded_header(headers, name)
}

/// The client's encoding of a value for `Mcp-Name` / `Mcp-Param-*`.
pub fn encode_header_value(text: &str) -> HeaderValue {
    crate::client::metadata::encode_value(text)
}

/// The metadata headers the client adds to a POST of `message`
/// (`Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-*` headers of the
/// `x-mcp-header` parameters `input_schema` declares); `None` when the
/// client would refuse the schema.
pub fn client_request_headers(message: Message, input_schema: &Value) -> Option<HeaderMap> {
    let params = crate::client::tool_headers::header_params(input_schema).ok()?;
    let outgoing = crate::client::metadata::Outgoing::inspect(&Packet::Single(message));
    let mut headers = HeaderMap::new();
    crate::client::metadata::add_request_metadata(&mut headers, &outgoing, Some(&params));
    Some(headers)
}
