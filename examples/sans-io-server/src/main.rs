//! A blocking MCP server on `std::io` that drives the sans-IO engine by hand,
//! with no async runtime: read a line, hand it to the session, answer the
//! requests it reports, write what it wants sent. It speaks every revision,
//! the handshake ones (`initialize`) and 2026-07-28 (`server/discover`,
//! stateless requests), which the engine negotiates and answers itself.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use mcpwire_jsonrpc::{ErrorObject, LineReader, write_line};
use mcpwire_session::{Event, ServerConfig, ServerSession};
use mcpwire_types::methods::{ClientRequest, ServerResult};
use mcpwire_types::{CallToolResult, Implementation, ListToolsResult, ServerCapabilities, Tool};
use serde_json::{Map, Value, json};

fn main() -> std::io::Result<()> {
    let capabilities = ServerCapabilities {
        tools: Some(Default::default()),
        ..Default::default()
    };
    let config = ServerConfig::new(Implementation::new("sans-io-server", "0.1.0"), capabilities);
    let mut session = ServerSession::new(Arc::new(config));
    let tools = tools().map_err(std::io::Error::other)?;
    let mut stdout = std::io::stdout().lock();
    for inbound in LineReader::new(std::io::stdin().lock()) {
        session.handle_inbound(inbound?, Instant::now());
        // Notifications (`initialized`, `cancelled`) need nothing here:
        // each request is answered before the next line is read.
        while let Some(event) = session.poll_event() {
            if let Event::Request(request) = event {
                // `respond` fails only for an id the engine does not track.
                let _ = session.respond(&request.id, serve(&tools, request.request.request));
            }
        }
        while let Some(transmit) = session.poll_transmit() {
            write_line(&mut stdout, &transmit.packet)?;
        }
        stdout.flush()?;
    }
    Ok(())
}

/// What the engine leaves to the server: its tools.
fn serve(tools: &[Tool], request: ClientRequest) -> Result<ServerResult, ErrorObject> {
    let call = match request {
        ClientRequest::CallTool(call) => call,
        // One page: any cursor is one this server never gave (PAGE-05).
        ClientRequest::ListTools(list) if list.cursor.is_some() => {
            return Err(ErrorObject::invalid_params("unknown cursor"));
        }
        ClientRequest::ListTools(_) => return Ok(ListToolsResult::new(tools.to_vec()).into()),
        other => return Err(ErrorObject::method_not_found(other.method())),
    };
    let args = call.arguments.unwrap_or_default();
    let result = match call.name.as_str() {
        "echo" => arg(&args, "text", Value::as_str).map(CallToolResult::text),
        "add" => arg(&args, "a", Value::as_f64)
            .and_then(|a| Ok(json!({"sum": a + arg(&args, "b", Value::as_f64)?})))
            .map(CallToolResult::structured),
        name => return Err(ErrorObject::invalid_params(format!("unknown tool: {name}"))),
    };
    // Bad arguments are the tool's failure, for the model to see (TOOL-16).
    Ok(result.unwrap_or_else(CallToolResult::error).into())
}

/// The tools, as `tools/list` shows them.
fn tools() -> serde_json::Result<Vec<Tool>> {
    let number = json!({"type": "number"});
    let tools = json!([{
        "name": "echo",
        "description": "Says the text back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    }, {
        "name": "add",
        "inputSchema": {"type": "object", "properties": {"a": number, "b": number}, "required": ["a", "b"]},
        "outputSchema": {"type": "object", "properties": {"sum": number}, "required": ["sum"]},
    }]);
    serde_json::from_value(tools)
}

fn arg<'a, T>(
    args: &'a Map<String, Value>,
    key: &str,
    read: fn(&'a Value) -> Option<T>,
) -> Result<T, String> {
    args.get(key)
        .and_then(read)
        .ok_or_else(|| format!("argument `{key}` is missing or mistyped"))
}
