//! The built-in demo server (notes: tools, resources, a template, a prompt,
//! completions, progress, logs, elicitation, sampling, an image), served on
//! stdio by the hidden `serve-demo` command, and `demo`, which inspects it
//! and calls one of its tools.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcpwire_server::tasks::TaskOptions;
use mcpwire_server::{BuildError, Context, HandlerError, Server};
use mcpwire_types::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, ElicitRequestParams, GetPromptResult,
    LoggingLevel, Prompt, PromptArgument, PromptMessage, ReadResourceResult, RequestedSchema,
    Resource, ResourceContents, ResourceTemplate, TaskSupport, Tool, ToolExecution,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::cli::GlobalOptions;
use crate::commands::{call_rendered, gather, print_call, print_report};
use crate::error::{CliError, CliResult};
use crate::output::{line, print_json};
use crate::session;
use crate::target::Target;

/// A 1×1 PNG, the image the `pixel` tool returns.
const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// The notes, by id.
type Notebook = Arc<Mutex<BTreeMap<u64, (String, String)>>>;

fn lock(notes: &Notebook) -> std::sync::MutexGuard<'_, BTreeMap<u64, (String, String)>> {
    notes.lock().unwrap_or_else(PoisonError::into_inner)
}

fn tool(name: &str, description: &str, input: Value) -> Tool {
    let mut tool = Tool::new(name, input);
    tool.description = Some(description.to_owned());
    tool
}

#[derive(Deserialize)]
struct AddNote {
    title: String,
    body: String,
}

#[derive(Deserialize)]
struct Query {
    query: String,
}

#[derive(Deserialize)]
struct NoteId {
    id: u64,
}

#[derive(Deserialize)]
struct Countdown {
    seconds: u64,
}

#[derive(Deserialize)]
struct Text {
    text: String,
}

/// The ids of notes starting with `partial`.
fn ids_starting_with(notes: &Notebook, partial: &str) -> Vec<String> {
    lock(notes)
        .keys()
        .map(ToString::to_string)
        .filter(|id| id.starts_with(partial))
        .collect()
}

/// Builds the demo server; it starts with one note (id 0).
///
/// # Errors
///
/// Never in practice: the catalog is fixed.
pub(crate) fn server() -> Result<Server, BuildError> {
    let notes: Notebook = Arc::new(Mutex::new(BTreeMap::from([(
        0,
        (
            "Welcome".to_owned(),
            "This note came with the demo server.".to_owned(),
        ),
    )])));
    let mut add = tool(
        "add_note",
        "Adds a note and returns its id.",
        json!({"type": "object", "properties": {
            "title": {"type": "string", "minLength": 1}, "body": {"type": "string"}},
            "required": ["title", "body"]}),
    );
    add = add.output_schema(json!({
        "type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]
    }));
    let search = tool(
        "search_notes",
        "Finds notes containing the query, reporting progress.",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    );
    let delete = tool(
        "delete_note",
        "Deletes a note by id (an error when there is none).",
        json!({"type": "object", "properties": {"id": {"type": "integer", "minimum": 0}}, "required": ["id"]}),
    );
    let mut countdown = tool(
        "countdown",
        "Counts down one second at a time, reporting progress.",
        json!({"type": "object", "properties": {"seconds": {"type": "integer", "minimum": 0, "maximum": 600}}, "required": ["seconds"]}),
    );
    // The countdown may run as a task (2025-11-25), for `call --task`.
    countdown.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
        ..ToolExecution::default()
    });
    let ask = tool(
        "ask_name",
        "Asks the user for their name (elicitation) and greets them.",
        json!({"type": "object", "properties": {}}),
    );
    let summarize = tool(
        "summarize",
        "Asks the client's model to summarize a text (sampling).",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    );
    let pixel = tool(
        "pixel",
        "Returns a one-pixel PNG image.",
        json!({"type": "object", "properties": {}}),
    );

    let mut all = Resource::new("notes://all", "all-notes");
    all.description = Some("Every note, as a Markdown list.".into());
    all.mime_type = Some("text/markdown".into());
    let mut one = ResourceTemplate::new("notes://note/{id}", "note");
    one.description = Some("One note by id.".into());
    one.mime_type = Some("text/plain".into());
    let mut summarize_note = Prompt::new("summarize_note");
    summarize_note.description = Some("Asks the model to summarize one note.".into());
    let mut id_argument = PromptArgument::new("id");
    id_argument.required = Some(true);
    summarize_note.arguments = Some(vec![id_argument]);

    let (n1, n2, n3, n4, n5, n6, n7, n8) = (
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes.clone(),
        notes,
    );
    Server::builder("mcpwire-demo", env!("CARGO_PKG_VERSION"))
        .tasks(TaskOptions::new())
        .instructions("A demo notes server. Add notes with add_note, find them with search_notes.")
        .typed_tool(add, move |ctx: Context, args: AddNote| {
            let notes = n1.clone();
            async move {
                let id = {
                    let mut book = lock(&notes);
                    let id = book.keys().next_back().map_or(0, |last| last + 1);
                    book.insert(id, (args.title, args.body));
                    id
                };
                ctx.server().resource_updated("notes://all");
                ctx.log(LoggingLevel::Info, Some("notes"), format!("added note {id}")).await;
                let mut result = CallToolResult::structured(json!({ "id": id }));
                result.content = vec![ContentBlock::text(format!("Added note {id}."))];
                Ok(result)
            }
        })
        .typed_tool(search, move |ctx: Context, args: Query| {
            let notes = n2.clone();
            async move {
                let snapshot: Vec<(u64, (String, String))> =
                    lock(&notes).iter().map(|(id, note)| (*id, note.clone())).collect();
                let total = snapshot.len() as f64;
                let needle = args.query.to_lowercase();
                let mut found = Vec::new();
                for (done, (id, (title, body))) in snapshot.into_iter().enumerate() {
                    ctx.progress(done as f64 + 1.0, Some(total), Some("searching")).await;
                    if format!("{title} {body}").to_lowercase().contains(&needle) {
                        found.push(format!("{id}: {title}"));
                    }
                }
                Ok(CallToolResult::text(format!("{} note(s) match {:?}\n{}", found.len(), args.query, found.join("\n"))))
            }
        })
        .typed_tool(delete, move |_ctx: Context, args: NoteId| {
            let notes = n3.clone();
            async move {
                if lock(&notes).remove(&args.id).is_none() {
                    return Err(HandlerError::tool(format!("there is no note {}", args.id)));
                }
                Ok(CallToolResult::text(format!("Deleted note {}.", args.id)))
            }
        })
        .typed_tool(countdown, |ctx: Context, args: Countdown| async move {
            for left in (1..=args.seconds).rev() {
                let done = (args.seconds - left) as f64;
                ctx.progress(done, Some(args.seconds as f64), Some(&format!("{left} s left"))).await;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Ok(CallToolResult::text("Liftoff."))
        })
        .tool(ask, |ctx: Context, _args| async move {
            let name = ctx
                .elicit_response("name")
                .and_then(|answer| answer.content.as_ref())
                .and_then(|content| content.get("name"))
                .map(|name| match serde_json::to_value(name) {
                    Ok(Value::String(text)) => text,
                    Ok(other) => other.to_string(),
                    Err(_) => String::new(),
                });
            if let Some(name) = name {
                return Ok(CallToolResult::text(format!("Hello, {name}!")));
            }
            if ctx.elicit_response("name").is_some() {
                return Ok(CallToolResult::text("Hello, stranger."));
            }
            let schema: RequestedSchema = serde_json::from_value(json!({
                "type": "object",
                "properties": {"name": {"type": "string", "title": "Your name"}},
                "required": ["name"]
            }))
            .map_err(|error| HandlerError::Internal(error.to_string()))?;
            Err(ctx.input_required().elicit("name", ElicitRequestParams::form("What is your name?", schema)).into())
        })
        .typed_tool(summarize, |ctx: Context, args: Text| async move {
            if let Some(answer) = ctx.sampling_response("summary") {
                let reply = serde_json::to_value(answer).unwrap_or_default();
                let text = reply.pointer("/content/text").and_then(Value::as_str).unwrap_or("(no text)");
                return Ok(CallToolResult::text(format!("Summary: {text}")));
            }
            let params: CreateMessageRequestParams = serde_json::from_value(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": format!("Summarize: {}", args.text)}}],
                "maxTokens": 200
            }))
            .map_err(|error| HandlerError::Internal(error.to_string()))?;
            Err(ctx.input_required().sample("summary", params).into())
        })
        .tool(pixel, |_ctx: Context, _args| async move {
            let image: ContentBlock = serde_json::from_value(json!({"type": "image", "data": PIXEL_PNG, "mimeType": "image/png"}))
                .map_err(|error| HandlerError::Internal(error.to_string()))?;
            let mut result = CallToolResult::text("A one-pixel image:");
            result.content.push(image);
            Ok(result)
        })
        .resource(all, move |_ctx, uri| {
            let notes = n4.clone();
            async move {
                let list: String = lock(&notes).iter().map(|(id, (title, _))| format!("- {id}: {title}\n")).collect();
                Ok(ReadResourceResult::new(vec![ResourceContents::text(&uri, "text/markdown", list)]))
            }
        })
        .resource_template(one, move |_ctx, uri, vars| {
            let notes = n5.clone();
            async move {
                let note = vars
                    .get("id")
                    .and_then(|id| id.parse::<u64>().ok())
                    .and_then(|id| lock(&notes).get(&id).cloned());
                match note {
                    Some((title, body)) => Ok(ReadResourceResult::new(vec![ResourceContents::text(
                        &uri, "text/plain", format!("{title}\n\n{body}"),
                    )])),
                    None => Err(HandlerError::NotFound(uri)),
                }
            }
        })
        .template_completion("notes://note/{id}", "id", move |_ctx, partial, _others| {
            let notes = n6.clone();
            async move { Ok(ids_starting_with(&notes, &partial)) }
        })
        .prompt(summarize_note, move |_ctx, args| {
            let notes = n7.clone();
            async move {
                let id = args.get("id").cloned().unwrap_or_default();
                let note = id.parse::<u64>().ok().and_then(|id| lock(&notes).get(&id).cloned());
                let Some((title, body)) = note else {
                    return Err(HandlerError::InvalidParams(format!("there is no note {id}")));
                };
                let text = format!("Summarize this note in one sentence.\n\n# {title}\n\n{body}");
                let mut result = GetPromptResult::new(vec![PromptMessage::user_text(text)]);
                result.description = Some(format!("Summary of note {id}"));
                Ok(result)
            }
        })
        .prompt_completion("summarize_note", "id", move |_ctx, partial, _others| {
            let notes = n8.clone();
            async move { Ok(ids_starting_with(&notes, &partial)) }
        })
        .build()
}

/// `serve-demo`: the demo server on stdin/stdout until stdin closes.
pub(crate) async fn serve_demo() -> CliResult {
    let server = server().map_err(CliError::connection)?;
    server
        .serve(mcpwire_stdio::stdio())
        .await
        .map_err(CliError::connection)
}

/// `demo`: starts `mcpwire serve-demo` as a child, shows what `inspect`
/// shows, and calls `add_note`.
pub(crate) async fn demo(global: &GlobalOptions) -> CliResult {
    let exe = std::env::current_exe()
        .map_err(|error| CliError::connection(format!("cannot find this program: {error}")))?;
    let target = Target::Command {
        program: exe.display().to_string(),
        args: vec!["serve-demo".to_owned()],
        env: BTreeMap::new(),
        cwd: None,
    };
    let json_mode = global.json;
    session::run(&target, global, LoggingLevel::Info, true, |client, transport| async move {
        let report = gather(&client, transport).await?;
        let mut arguments = Map::new();
        arguments.insert("title".into(), "Hello".into());
        arguments.insert("body".into(), "written by mcpwire demo".into());
        let outcome = call_rendered(&client, "add_note", arguments, std::path::Path::new(".")).await?;
        if json_mode {
            print_json(&json!({"inspect": report, "call": outcome.value}));
            return Ok(());
        }
        line("$ mcpwire inspect -- mcpwire serve-demo");
        print_report(&report);
        line("\n$ mcpwire call add_note title=Hello body='written by mcpwire demo' -- mcpwire serve-demo");
        print_call(&outcome, "add_note", false)
    })
    .await
}
