//! The notes example server: notes you can add, search, delete, read as
//! resources and summarize with a prompt; served over stdio by
//! `notes-server` and over HTTP by `notes-http`. The idiomatic showcase of
//! the builder: typed tools whose schemas are derived from their Rust
//! types, shared state, chainable definitions, plain `async fn` handlers.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use mcpwire::prelude::*;
use mcpwire::server::{BuildError, TemplateVariables};
use mcpwire::types::LoggingLevel;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The arguments of `add_note`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct AddNote {
    /// A short title.
    #[schemars(length(min = 1))]
    pub title: String,
    /// The text of the note.
    pub body: String,
}

/// The arguments of `search_notes`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Search {
    /// Text to find in titles and bodies, ignoring case.
    pub query: String,
}

/// A note's id: what `add_note` and `delete_note` answer, and what
/// `delete_note` takes.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct NoteId {
    /// The note's id.
    pub id: u64,
}

/// What `search_notes` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Found {
    /// The notes that match, by id.
    pub matches: Vec<Match>,
}

/// One note that matched a search.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Match {
    /// The note's id.
    pub id: u64,
    /// Its title.
    pub title: String,
}

/// The notes, by id: the state every handler shares.
#[derive(Debug, Default)]
pub struct Notebook(Mutex<Book>);

#[derive(Debug, Default)]
struct Book {
    next_id: u64,
    notes: BTreeMap<u64, (String, String)>,
}

impl Notebook {
    fn book(&self) -> MutexGuard<'_, Book> {
        // A handler that panicked mid-update leaves at worst one note half
        // written; the notebook itself stays usable.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn add(&self, title: String, body: String) -> u64 {
        let mut book = self.book();
        let id = book.next_id;
        book.next_id += 1;
        book.notes.insert(id, (title, body));
        id
    }

    fn get(&self, id: &str) -> Option<(String, String)> {
        let id = id.parse::<u64>().ok()?;
        self.book().notes.get(&id).cloned()
    }
}

/// Builds the notes server over `notebook`.
///
/// # Errors
///
/// Never in practice: the catalog is fixed and valid.
pub fn build(notebook: Notebook) -> Result<Server, BuildError> {
    Server::builder("notes-server", env!("CARGO_PKG_VERSION"))
        .instructions("Keeps short notes. Add them with add_note, find them with search_notes.")
        .state(notebook)
        .derived_tool(
            Tool::named("add_note").description("Adds a note."),
            add_note,
        )
        .derived_tool(
            Tool::named("search_notes").description("Finds notes."),
            search,
        )
        .derived_tool(
            Tool::named("delete_note").description("Deletes a note."),
            delete,
        )
        .resource(
            Resource::new("notes://all", "all-notes")
                .description("Every note, as a Markdown list.")
                .mime_type("text/markdown"),
            all_notes,
        )
        .resource_template(
            ResourceTemplate::new("notes://note/{id}", "note").mime_type("text/plain"),
            one_note,
        )
        .template_completion("notes://note/{id}", "id", note_ids)
        .prompt(
            Prompt::new("summarize_note")
                .description("Asks the model to summarize one note.")
                .argument(PromptArgument::required("id")),
            summarize,
        )
        .prompt_completion("summarize_note", "id", note_ids)
        .build()
}

async fn add_note(ctx: Context, note: AddNote) -> Result<Structured<NoteId>, HandlerError> {
    let id = ctx.state::<Notebook>()?.add(note.title, note.body);
    ctx.server().resource_updated("notes://all");
    let text = format!("added note {id}");
    ctx.log(LoggingLevel::Info, Some("notes"), text).await;
    Ok(Structured(NoteId { id }))
}

async fn search(ctx: Context, search: Search) -> Result<Structured<Found>, HandlerError> {
    let notes = ctx.state::<Notebook>()?.book().notes.clone();
    let needle = search.query.to_lowercase();
    let mut matches = Vec::new();
    for (done, (id, (title, body))) in notes.iter().enumerate() {
        let total = Some(notes.len() as f64);
        ctx.progress(done as f64 + 1.0, total, Some("searching"))
            .await;
        if format!("{title} {body}").to_lowercase().contains(&needle) {
            let title = title.clone();
            matches.push(Match { id: *id, title });
        }
    }
    Ok(Structured(Found { matches }))
}

async fn delete(ctx: Context, NoteId { id }: NoteId) -> Result<Structured<NoteId>, HandlerError> {
    if ctx.state::<Notebook>()?.book().notes.remove(&id).is_none() {
        return Err(HandlerError::tool(format!("there is no note {id}")));
    }
    ctx.server().resource_updated("notes://all");
    Ok(Structured(NoteId { id }))
}

async fn all_notes(ctx: Context, uri: String) -> Result<ReadResourceResult, HandlerError> {
    let book = ctx.state::<Notebook>()?.book();
    let list: String = book
        .notes
        .iter()
        .map(|(id, (title, _))| format!("- {id}: {title}\n"))
        .collect();
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        &uri,
        "text/markdown",
        list,
    )]))
}

async fn one_note(
    ctx: Context,
    uri: String,
    vars: TemplateVariables,
) -> Result<ReadResourceResult, HandlerError> {
    let id = vars.get("id").map_or("", String::as_str);
    let Some((title, body)) = ctx.state::<Notebook>()?.get(id) else {
        return Err(HandlerError::NotFound(uri));
    };
    let text = format!("{title}\n\n{body}");
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        &uri,
        "text/plain",
        text,
    )]))
}

async fn summarize(
    ctx: Context,
    args: BTreeMap<String, String>,
) -> Result<GetPromptResult, HandlerError> {
    let id = args.get("id").map_or("", String::as_str);
    let Some((title, body)) = ctx.state::<Notebook>()?.get(id) else {
        return Err(HandlerError::InvalidParams(format!(
            "there is no note {id}"
        )));
    };
    let text = format!("Summarize this note in one sentence.\n\n# {title}\n\n{body}");
    let mut result = GetPromptResult::new(vec![PromptMessage::user_text(text)]);
    result.description = Some(format!("Summary of note {id}"));
    Ok(result)
}

async fn note_ids(
    ctx: Context,
    partial: String,
    _others: BTreeMap<String, String>,
) -> Result<Vec<String>, HandlerError> {
    let book = ctx.state::<Notebook>()?.book();
    let ids = book.notes.keys().map(u64::to_string);
    Ok(ids.filter(|id| id.starts_with(&partial)).collect())
}
