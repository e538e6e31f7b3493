//! The notes server: notes you can add, search, delete, read as resources
//! and summarize with a prompt; served over stdio by the `notes-server`
//! example, over HTTP by `notes-http`, and (with more tools) by `mcpwire
//! demo`. The idiomatic showcase of the builder: typed tools whose schemas
//! are derived from their Rust types, shared state, chainable definitions,
//! plain `async fn` handlers.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use mcpwire::prelude::*;
use mcpwire::server::{
    BuildError, DerivedOutput, IntoToolResult, ServerBuilder, TemplateVariables,
};
use mcpwire::types::{ContentBlock, LoggingLevel};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// A notebook holding one note (id 0), so that a fresh server has
    /// something to list, read and search.
    pub fn with_note(title: impl Into<String>, body: impl Into<String>) -> Self {
        let notebook = Self::default();
        notebook.add(title.into(), body.into());
        notebook
    }

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

/// A tool's answer in two forms: a line for people (the text block) and
/// `T` for programs (`structuredContent`, its `outputSchema` derived from
/// `T`).
#[derive(Debug)]
pub struct Noted<T> {
    /// What a person reads.
    pub text: String,
    /// What a program reads.
    pub value: T,
}

impl<T: Serialize + Send + 'static> IntoToolResult for Noted<T> {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        let mut result = Structured(self.value).into_tool_result()?;
        result.content = vec![ContentBlock::text(self.text)];
        Ok(result)
    }
}

impl<T: Serialize + JsonSchema + Send + 'static> DerivedOutput for Noted<T> {
    fn output_schema() -> Option<Value> {
        Structured::<T>::output_schema()
    }
}

/// Builds the notes server over `notebook`.
///
/// # Errors
///
/// Never in practice: the catalog is fixed and valid.
pub fn build(notebook: Notebook) -> Result<Server, BuildError> {
    builder("notes-server", notebook)
        .instructions("Keeps short notes. Add them with add_note, find them with search_notes.")
        .build()
}

/// A server builder named `name` that already holds the notes catalog
/// (tools, resources, the note template and its completions, the prompt)
/// over `notebook`, for a server that offers more.
pub fn builder(name: &str, notebook: Notebook) -> ServerBuilder {
    Server::builder(name, env!("CARGO_PKG_VERSION"))
        .state(notebook)
        .derived_tool(
            Tool::named("add_note").description("Adds a note and returns its id."),
            add_note,
        )
        .derived_tool(
            Tool::named("search_notes")
                .description("Finds notes containing the query, reporting progress."),
            search,
        )
        .derived_tool(
            Tool::named("delete_note")
                .description("Deletes a note by id (an error when there is none)."),
            delete,
        )
        .resource(
            Resource::new("notes://all", "all-notes")
                .description("Every note, as a Markdown list.")
                .mime_type("text/markdown"),
            all_notes,
        )
        .resource_template(
            ResourceTemplate::new("notes://note/{id}", "note")
                .description("One note by id.")
                .mime_type("text/plain"),
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
}

async fn add_note(ctx: Context, note: AddNote) -> Result<Noted<NoteId>, HandlerError> {
    let id = ctx.state::<Notebook>()?.add(note.title, note.body);
    ctx.server().resource_updated("notes://all");
    let text = format!("added note {id}");
    ctx.log(LoggingLevel::Info, Some("notes"), text).await;
    let text = format!("Added note {id}.");
    Ok(Noted {
        text,
        value: NoteId { id },
    })
}

async fn search(ctx: Context, search: Search) -> Result<Noted<Found>, HandlerError> {
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
    let lines: Vec<String> = matches
        .iter()
        .map(|found| format!("{}: {}", found.id, found.title))
        .collect();
    let text = format!(
        "{} note(s) match {:?}\n{}",
        lines.len(),
        search.query,
        lines.join("\n")
    );
    Ok(Noted {
        text,
        value: Found { matches },
    })
}

async fn delete(ctx: Context, NoteId { id }: NoteId) -> Result<String, HandlerError> {
    if ctx.state::<Notebook>()?.book().notes.remove(&id).is_none() {
        return Err(HandlerError::tool(format!("there is no note {id}")));
    }
    ctx.server().resource_updated("notes://all");
    Ok(format!("Deleted note {id}."))
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
