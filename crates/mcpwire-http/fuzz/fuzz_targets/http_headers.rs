//! Fuzz target: the server's request header parsers (`Accept`,
//! `Mcp-Session-Id`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! `Mcp-Param-*`) and the client's encoding of them (the property is in
//! `checks/http_headers.rs`).

#![no_main]

#[path = "../checks/http_headers.rs"]
mod http_headers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| http_headers::check(data));
