//! A small but real MCP server over stdio: notes you can add, search,
//! delete, read as resources and summarize with a prompt.
//!
//! Run it as `cargo run -p mcpwire-examples --bin notes-server` and talk
//! MCP to it on stdin/stdout; logs go to stderr.

use mcpwire::prelude::*;
use mcpwire_examples::notes::{Notebook, build};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Only protocol messages may reach stdout: logs go to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .init();
    build(Notebook::default())?.serve_stdio().await?;
    Ok(())
}
