//! The benchmark's MCP server on mcpwire's public API, shared by the
//! `bench-server` and `stdio-server` binaries: one tool, `echo`, taking
//! `{"text": string}` and answering `{"content":[{"type":"text","text":...}]}`.

use mcpwire_server::{BuildError, Context, HandlerError, Server};
use mcpwire_types::{CallToolResult, Tool};
use serde::Deserialize;
use serde_json::json;

/// The echo tool's arguments, read straight from the request's text.
#[derive(Deserialize)]
struct Echo {
    text: String,
}

/// The echo server, as its binaries serve it.
///
/// # Errors
///
/// When the server's catalog does not build (it always does).
pub fn server() -> Result<Server, BuildError> {
    let schema = json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    });
    let echo = Tool::new("echo", schema).description("Returns its text.");
    Server::builder("mcpwire-bench-server", env!("CARGO_PKG_VERSION"))
        .typed_tool(echo, |_ctx: Context, Echo { text }| async move {
            Ok::<_, HandlerError>(CallToolResult::text(text))
        })
        .build()
}
