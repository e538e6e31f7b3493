//! The README's typed client: spawns the todo server (the program named by
//! its first argument), calls `add` and reads the typed result. The README
//! shows this file from its `use` lines on; `tests/notes_over_stdio.rs` checks it.
#![allow(clippy::print_stdout)]
use mcpwire::prelude::*;
use mcpwire::stdio::StdioClient;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct Added {
    id: usize,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = std::env::args().nth(1).unwrap_or("todo-server".into());
    let (transport, child) = StdioClient::new(server).spawn()?;
    let client = Client::connect(transport, ClientConfig::named("todo", "1.0.0")).await?;
    let added: Added = client.call_tool_as("add", json!({"text": "docs"})).await?;
    println!("added todo #{}", added.id);
    client.close().await;
    child.shutdown().await?;
    Ok(())
}
