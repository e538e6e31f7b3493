//! A client for the notes server: spawns it over stdio, then adds, searches,
//! reads and summarizes notes, printing what it sees.
//!
//! `notes-client [--protocol REVISION] [SERVER-PROGRAM | URL]`: a program
//! is spawned and spoken to over stdio (default: the `notes-server` binary
//! next to this one); an `http://` URL is reached over Streamable HTTP,
//! falling back to the legacy HTTP+SSE transport when the server has only that.

// A command-line client: its report goes to stdout.
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcpwire::client::{Client, ClientConfig};
use mcpwire::http_legacy::auto::{AutoOptions, connect_auto};
use mcpwire::stdio::StdioClient;
use mcpwire::types::{
    ClientCapabilities, CompleteArgument, CompletionReference, Implementation, ProtocolVersion,
    ResourceContents,
};
use mcpwire_examples::notes::{AddNote, Found, NoteId, Search};
use serde_json::json;

/// The first argument that is neither an option nor a revision.
fn target(args: &[String]) -> Option<&String> {
    args.iter()
        .find(|a| !a.starts_with("--") && ProtocolVersion::parse(a).is_err())
}

/// The server program: the target, else `notes-server` beside us.
fn server_program(args: &[String]) -> PathBuf {
    match target(args) {
        Some(path) => PathBuf::from(path),
        None => std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|dir| dir.join("notes-server")))
            .unwrap_or_else(|| PathBuf::from("notes-server")),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pinned = args
        .iter()
        .position(|a| a == "--protocol")
        .and_then(|i| args.get(i + 1))
        .map(|v| ProtocolVersion::parse(v))
        .transpose()?;

    let info = Implementation::new("notes-client", env!("CARGO_PKG_VERSION"));
    let mut config = ClientConfig::new(info, ClientCapabilities::default());
    if let Some(version) = pinned {
        config = config.pinned(version);
    }
    let url = target(&args).filter(|t| t.starts_with("http://") || t.starts_with("https://"));
    let (client, child) = match url {
        Some(url) => {
            let transport = connect_auto(url, AutoOptions::default())?;
            let choice = transport.choice();
            let client = Client::connect(transport, config).await?;
            println!("transport: {:?}", choice.get());
            (client, None)
        }
        None => {
            let (transport, child) = StdioClient::new(server_program(&args)).spawn()?;
            (Client::connect(transport, config).await?, Some(child))
        }
    };
    let server = client.server();
    let name = server.info.as_ref().map_or("?", |info| info.name.as_str());
    println!("connected to {name} speaking {}", server.version);

    let tools = client.list_all_tools().await?;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    println!("tools: {}", names.join(", "));

    for (title, body) in [
        ("Groceries", "eggs, milk"),
        ("Ideas", "a faster JSON parser"),
    ] {
        let note = AddNote {
            title: title.into(),
            body: body.into(),
        };
        let added = client.call_tool("add_note", note).await?;
        println!("add_note: {}", added.structured_content.unwrap_or_default());
    }

    let search = Search {
        query: "json".into(),
    };
    let found = client.call_tool("search_notes", search).await?;
    println!(
        "search_notes: {}",
        found.structured_content.unwrap_or_default()
    );
    if client.server().version.has_structured_output() {
        let typed: Found = client
            .call_tool_as("search_notes", json!({"query": "eggs"}))
            .await?;
        println!("typed search: {typed:?}");
    }

    let refused = client.call_tool("delete_note", NoteId { id: 99 }).await?;
    let text = refused
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default();
    println!(
        "delete_note 99: error={} {text}",
        refused.is_error == Some(true)
    );

    let listing = client.read_resource("notes://all").await?;
    for contents in &listing.contents {
        if let ResourceContents::Text(text) = contents {
            println!("notes://all:\n{}", text.text.trim_end());
        }
    }

    let completion = client
        .complete(
            CompletionReference::resource_template("notes://note/{id}"),
            CompleteArgument::new("id", ""),
        )
        .await?;
    println!("note ids: {}", completion.completion.values.join(", "));

    let prompt = client
        .get_prompt(
            "summarize_note",
            BTreeMap::from([("id".to_owned(), "1".to_owned())]),
        )
        .await?;
    println!("prompt: {}", prompt.description.unwrap_or_default());

    client.close().await;
    if let Some(child) = child {
        let ended = child.shutdown().await?;
        println!("server ended: {ended:?}");
    }
    Ok(())
}
