//! The notes example server: notes you can add, search, delete, read as
//! resources and summarize with a prompt; served over stdio by
//! `notes-server` and over HTTP by `notes-http`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcpwire::server::{Context, HandlerError, Server};
use mcpwire::types::{
    CallToolResult, ContentBlock, GetPromptResult, LoggingLevel, Prompt, PromptArgument,
    PromptMessage, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Tool,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// One note.
#[derive(Debug, Clone)]
struct Note {
    title: String,
    body: String,
}

/// The notes, by id; shared by every handler.
#[derive(Debug, Default)]
pub struct Notebook {
    next_id: u64,
    notes: BTreeMap<u64, Note>,
}

/// The notebook shared by every handler (and every session).
pub type Notes = Arc<Mutex<Notebook>>;

fn lock(notes: &Notes) -> std::sync::MutexGuard<'_, Notebook> {
    // A handler that panicked mid-update leaves at worst one note half
    // written; the notebook itself stays usable.
    notes.lock().unwrap_or_else(PoisonError::into_inner)
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[derive(Deserialize)]
struct AddNote {
    title: String,
    body: String,
}

#[derive(Deserialize)]
struct Search {
    query: String,
}

#[derive(Deserialize)]
struct Delete {
    id: u64,
}

fn text_resource(uri: &str, mime: &str, text: String) -> ReadResourceResult {
    ReadResourceResult::new(vec![ResourceContents::text(uri, mime, text)])
}

/// Builds the notes server over `notes`.
///
/// # Errors
///
/// Never in practice: the catalog is fixed and valid.
pub fn build(notes: &Notes) -> Result<Server, mcpwire::server::BuildError> {
    let mut add = Tool::new(
        "add_note",
        object(json!({
            "type": "object",
            "properties": {"title": {"type": "string", "minLength": 1}, "body": {"type": "string"}},
            "required": ["title", "body"]
        })),
    );
    add.description = Some("Adds a note and returns its id.".into());
    add.output_schema = Some(object(json!({
        "type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]
    })));

    let mut search = Tool::new(
        "search_notes",
        object(json!({
            "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]
        })),
    );
    search.description = Some("Finds notes whose title or body contains the query.".into());

    let mut delete = Tool::new(
        "delete_note",
        object(json!({
            "type": "object", "properties": {"id": {"type": "integer", "minimum": 0}}, "required": ["id"]
        })),
    );
    delete.description = Some("Deletes a note by id.".into());

    let mut all = Resource::new("notes://all", "all-notes");
    all.description = Some("Every note, as a Markdown list.".into());
    all.mime_type = Some("text/markdown".into());

    let mut one = ResourceTemplate::new("notes://note/{id}", "note");
    one.description = Some("One note by id.".into());
    one.mime_type = Some("text/plain".into());

    let mut summarize = Prompt::new("summarize_note");
    summarize.description = Some("Asks the model to summarize one note.".into());
    let mut id_argument = PromptArgument::new("id");
    id_argument.required = Some(true);
    summarize.arguments = Some(vec![id_argument]);

    let (n1, n2, n3, n4, n5, n6, n7) = (
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes.clone(),
    );
    Server::builder("notes-server", env!("CARGO_PKG_VERSION"))
        .instructions("Keeps short notes. Add them with add_note, find them with search_notes.")
        .typed_tool(add, move |ctx: Context, args: AddNote| {
            let notes = n1.clone();
            async move {
                let id = {
                    let mut book = lock(&notes);
                    let id = book.next_id;
                    book.next_id += 1;
                    book.notes.insert(
                        id,
                        Note {
                            title: args.title,
                            body: args.body,
                        },
                    );
                    id
                };
                ctx.server().resource_updated("notes://all");
                ctx.log(
                    LoggingLevel::Info,
                    Some("notes"),
                    format!("added note {id}"),
                )
                .await;
                let mut result = CallToolResult::structured(json!({ "id": id }));
                result.content = vec![ContentBlock::text(format!("Added note {id}."))];
                Ok(result)
            }
        })
        .typed_tool(search, move |ctx: Context, args: Search| {
            let notes = n2.clone();
            async move {
                let snapshot: Vec<(u64, Note)> = lock(&notes)
                    .notes
                    .iter()
                    .map(|(id, n)| (*id, n.clone()))
                    .collect();
                let total = snapshot.len() as f64;
                let needle = args.query.to_lowercase();
                let mut matches = Vec::new();
                for (done, (id, note)) in snapshot.into_iter().enumerate() {
                    ctx.progress(done as f64 + 1.0, Some(total), Some("searching"))
                        .await;
                    let haystack = format!("{} {}", note.title, note.body).to_lowercase();
                    if haystack.contains(&needle) {
                        matches.push(json!({ "id": id, "title": note.title }));
                    }
                }
                let summary = format!("{} note(s) match {:?}.", matches.len(), args.query);
                let mut result = CallToolResult::structured(json!({ "matches": matches }));
                result.content.insert(0, ContentBlock::text(summary));
                Ok(result)
            }
        })
        .typed_tool(delete, move |ctx: Context, args: Delete| {
            let notes = n3.clone();
            async move {
                if lock(&notes).notes.remove(&args.id).is_none() {
                    return Err(HandlerError::tool(format!("there is no note {}", args.id)));
                }
                ctx.server().resource_updated("notes://all");
                Ok(CallToolResult::text(format!("Deleted note {}.", args.id)))
            }
        })
        .resource(all, move |_ctx, uri| {
            let notes = n4.clone();
            async move {
                let list: String = lock(&notes)
                    .notes
                    .iter()
                    .map(|(id, note)| format!("- {id}: {}\n", note.title))
                    .collect();
                Ok(text_resource(&uri, "text/markdown", list))
            }
        })
        .resource_template(one, move |_ctx, uri, vars| {
            let notes = n5.clone();
            async move {
                let note = vars
                    .get("id")
                    .and_then(|id| id.parse::<u64>().ok())
                    .and_then(|id| lock(&notes).notes.get(&id).cloned());
                match note {
                    Some(note) => Ok(text_resource(
                        &uri,
                        "text/plain",
                        format!("{}\n\n{}", note.title, note.body),
                    )),
                    None => Err(HandlerError::NotFound(uri)),
                }
            }
        })
        .template_completion("notes://note/{id}", "id", {
            let notes = n6.clone();
            move |_ctx, partial, _others| {
                let notes = notes.clone();
                async move { Ok(ids_starting_with(&notes, &partial)) }
            }
        })
        .prompt(summarize, move |_ctx, args| {
            let notes = n7.clone();
            async move {
                let id = args.get("id").cloned().unwrap_or_default();
                let note = id
                    .parse::<u64>()
                    .ok()
                    .and_then(|id| lock(&notes).notes.get(&id).cloned());
                let Some(note) = note else {
                    return Err(HandlerError::InvalidParams(format!(
                        "there is no note {id}"
                    )));
                };
                let text = format!(
                    "Summarize this note in one sentence.\n\n# {}\n\n{}",
                    note.title, note.body
                );
                let mut result = GetPromptResult::new(vec![PromptMessage::user_text(text)]);
                result.description = Some(format!("Summary of note {id}"));
                Ok(result)
            }
        })
        .prompt_completion("summarize_note", "id", {
            let notes = notes.clone();
            move |_ctx, partial, _others| {
                let notes = notes.clone();
                async move { Ok(ids_starting_with(&notes, &partial)) }
            }
        })
        .build()
}

fn ids_starting_with(notes: &Notes, partial: &str) -> Vec<String> {
    lock(notes)
        .notes
        .keys()
        .map(u64::to_string)
        .filter(|id| id.starts_with(partial))
        .collect()
}
