//! The README's typed server: one tool with derived schemas, a resource,
//! shared state, over stdio. The README shows this file from its `use` lines
//! on, and `tests/notes_over_stdio.rs` checks that it does.
use mcpwire::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
struct Add {
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct Added {
    id: usize,
}

type Todos = std::sync::Mutex<Vec<String>>;

async fn add(ctx: Context, Add { text }: Add) -> Result<Structured<Added>, HandlerError> {
    let mut todos = ctx.state::<Todos>()?.lock()?;
    todos.push(text);
    Ok(Structured(Added { id: todos.len() }))
}

async fn all(ctx: Context, uri: String) -> Result<ReadResourceResult, HandlerError> {
    let todos = ctx.state::<Todos>()?.lock()?.join("\n");
    Ok(ReadResourceResult::text(uri, "text/plain", todos))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    Server::builder("todo", "1.0.0")
        .state(Todos::default())
        .derived_tool(Tool::named("add").description("Adds a todo."), add)
        .resource(Resource::new("todo://all", "todos"), all)
        .build()?
        .run_stdio()?;
    Ok(())
}
