//! The commands that talk to one server: inspect, call, read, prompt,
//! complete, ping and logs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcpwire_client::{Client, ClientError, RequestOptions};
use mcpwire_types::methods::{CallTool, ServerNotification, SubscriptionsListen};
use mcpwire_types::{
    CallToolRequestParams, CompleteArgument, CompletionReference, InputRequestKind,
    InputRequiredResult, InputResponse, InputResponses, ListRootsResult, LoggingLevel,
    SubscriptionFilter, SubscriptionsListenRequestParams,
};
use serde_json::{Map, Value, json};
use tokio::sync::broadcast::error::RecvError;

use crate::arguments;
use crate::cli::{
    CallArgs, CompleteArgs, GlobalOptions, LogsArgs, PromptArgs, ReadArgs, TargetArgs,
};
use crate::error::{CliError, CliResult};
use crate::interact::Interactive;
use crate::output::{self, line, print_json, table, to_json};
use crate::session::{self, ProgressDisplay, log_line, parse_level};
use crate::target::resolve;
use crate::task_commands;

/// The directory binary contents are saved to.
pub(crate) fn output_dir(dir: Option<&PathBuf>) -> PathBuf {
    dir.cloned().unwrap_or_else(|| PathBuf::from("."))
}

/// Refuses words left over after a command took what it needs.
pub(crate) fn no_more_words(rest: &[String]) -> CliResult {
    match rest.first() {
        None => Ok(()),
        Some(word) => Err(CliError::usage(format!("unexpected argument {word:?}"))),
    }
}

/// A one-line summary of a JSON schema's properties:
/// `(title: string*, count: integer)`, `*` marking required ones.
pub(crate) fn schema_summary(schema: Option<&Value>) -> String {
    let Some(schema) = schema else {
        return String::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| {
                    let kind = match property.get("type") {
                        Some(Value::String(kind)) => kind.clone(),
                        Some(Value::Array(kinds)) => kinds
                            .iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("|"),
                        _ => "any".to_owned(),
                    };
                    let mark = if required.contains(&name.as_str()) {
                        "*"
                    } else {
                        ""
                    };
                    format!("{name}: {kind}{mark}")
                })
                .collect()
        })
        .unwrap_or_default();
    format!("({})", fields.join(", "))
}

fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// `inspect`.
pub(crate) async fn inspect(args: &TargetArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, transport| async move {
            let report = gather(&client, transport).await?;
            if json_mode {
                print_json(&report);
            } else {
                print_report(&report);
            }
            Ok(())
        },
    )
    .await
}

/// Everything `inspect` shows, as JSON.
pub(crate) async fn gather(client: &Client, transport: &str) -> CliResult<Value> {
    let server = client.server();
    let capabilities = to_json(&*server.capabilities);
    let has = |name: &str| capabilities.get(name).is_some_and(|v| !v.is_null());
    let tools = if has("tools") {
        to_json(&client.list_all_tools().await?)
    } else {
        json!([])
    };
    let resources = if has("resources") {
        to_json(&client.list_all_resources().await?)
    } else {
        json!([])
    };
    let templates = if has("resources") {
        to_json(&client.list_all_resource_templates().await?)
    } else {
        json!([])
    };
    let prompts = if has("prompts") {
        to_json(&client.list_all_prompts().await?)
    } else {
        json!([])
    };
    Ok(json!({
        "serverInfo": server.info.as_deref().map(to_json),
        "protocolVersion": server.version.to_string(),
        "transport": transport,
        "capabilities": capabilities,
        "instructions": server.instructions,
        "tools": tools,
        "resources": resources,
        "resourceTemplates": templates,
        "prompts": prompts,
    }))
}

fn items(report: &Value, key: &str) -> Vec<Value> {
    report
        .get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Prints an `inspect` report as text and tables.
pub(crate) fn print_report(report: &Value) {
    let info = report.get("serverInfo").cloned().unwrap_or_default();
    line(format!(
        "Server:       {} {}",
        text(&info, "name"),
        text(&info, "version")
    ));
    line(format!(
        "Protocol:     {} over {}",
        text(report, "protocolVersion"),
        text(report, "transport")
    ));
    let capabilities: Vec<String> = report
        .get("capabilities")
        .and_then(Value::as_object)
        .map(|caps| {
            caps.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| match v.as_object() {
                    Some(flags) if !flags.is_empty() => {
                        let flags: Vec<&str> = flags.keys().map(String::as_str).collect();
                        format!("{k} ({})", flags.join(", "))
                    }
                    _ => k.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    line(format!("Capabilities: {}", capabilities.join(", ")));
    if let Some(instructions) = report.get("instructions").and_then(Value::as_str) {
        line(format!("Instructions: {instructions}"));
    }
    let tools = items(report, "tools");
    line(format!("\nTools ({}):", tools.len()));
    if !tools.is_empty() {
        let rows: Vec<Vec<String>> = tools
            .iter()
            .map(|tool| {
                let output = tool
                    .get("outputSchema")
                    .map(|s| format!(" -> {}", schema_summary(Some(s))))
                    .unwrap_or_default();
                vec![
                    text(tool, "name"),
                    format!("{}{output}", schema_summary(tool.get("inputSchema"))),
                    text(tool, "description"),
                ]
            })
            .collect();
        line(table(
            &["NAME", "ARGUMENTS -> OUTPUT", "DESCRIPTION"],
            &rows,
        ));
    }
    let resources = items(report, "resources");
    line(format!("\nResources ({}):", resources.len()));
    if !resources.is_empty() {
        let rows: Vec<Vec<String>> = resources
            .iter()
            .map(|r| {
                vec![
                    text(r, "uri"),
                    text(r, "name"),
                    text(r, "mimeType"),
                    text(r, "description"),
                ]
            })
            .collect();
        line(table(&["URI", "NAME", "MIME TYPE", "DESCRIPTION"], &rows));
    }
    let templates = items(report, "resourceTemplates");
    line(format!("\nResource templates ({}):", templates.len()));
    if !templates.is_empty() {
        let rows: Vec<Vec<String>> = templates
            .iter()
            .map(|t| {
                vec![
                    text(t, "uriTemplate"),
                    text(t, "name"),
                    text(t, "mimeType"),
                    text(t, "description"),
                ]
            })
            .collect();
        line(table(
            &["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"],
            &rows,
        ));
    }
    let prompts = items(report, "prompts");
    line(format!("\nPrompts ({}):", prompts.len()));
    if !prompts.is_empty() {
        let rows: Vec<Vec<String>> = prompts
            .iter()
            .map(|p| {
                let arguments: Vec<String> = p
                    .get("arguments")
                    .and_then(Value::as_array)
                    .map(|list| {
                        list.iter()
                            .map(|a| {
                                let mark =
                                    if a.get("required").and_then(Value::as_bool) == Some(true) {
                                        "*"
                                    } else {
                                        ""
                                    };
                                format!("{}{mark}", text(a, "name"))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                vec![
                    text(p, "name"),
                    arguments.join(", "),
                    text(p, "description"),
                ]
            })
            .collect();
        line(table(&["NAME", "ARGUMENTS", "DESCRIPTION"], &rows));
    }
}

/// `call`.
pub(crate) async fn call(args: &CallArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    let Some((tool, words)) = rest.split_first() else {
        return Err(CliError::usage("name the tool to call"));
    };
    let dir = output_dir(args.output_dir.as_ref());
    let json_mode = global.json;
    let task_global;
    let global = if args.task {
        task_global = task_commands::with_tasks_revision(global)?;
        &task_global
    } else {
        global
    };
    session::run_with_interrupt(
        &target,
        global,
        LoggingLevel::Info,
        true,
        args.task,
        |client, _transport| async move {
            // With --task the body watches Ctrl-C itself (to cancel the
            // task); until the task exists, Ctrl-C just stops.
            let tools = tokio::select! {
                tools = client.list_all_tools() => tools?,
                _ = tokio::signal::ctrl_c(), if args.task => return Err(CliError::Interrupted),
            };
            let Some(listed) = tools.iter().find(|t| &t.name == tool) else {
                let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                return Err(CliError::usage(format!(
                    "the server has no tool {tool:?} (it has: {})",
                    names.join(", ")
                )));
            };
            let schema = to_json(&listed.input_schema);
            let arguments = arguments::build(Some(&schema), words, args.args_json.as_deref())?;
            if args.task {
                return task_commands::call_as_task(&client, tool, arguments, &dir, json_mode)
                    .await;
            }
            let outcome = call_rendered(&client, tool, arguments, &dir).await?;
            print_call(&outcome, tool, json_mode)
        },
    )
    .await
}

/// How many rounds of input requests (2026-07-28) one call may take.
const MAX_INPUT_ROUNDS: usize = 8;

/// A tool's result, rendered.
pub(crate) struct CallOutcome {
    /// The result as JSON, binary data replaced by the files it was saved to.
    pub(crate) value: Value,
    /// The content as text lines.
    pub(crate) lines: Vec<String>,
    /// Whether the tool reported an error (`isError`).
    pub(crate) failed: bool,
}

/// Fulfils a server's input requests (2026-07-28 multi round-trip) by
/// asking the user, as server requests are answered in the other revisions.
async fn answer_inputs(input: &InputRequiredResult) -> CliResult<InputResponses> {
    let interactive = Interactive::new();
    let mut responses = InputResponses::default();
    for (key, request) in input
        .input_requests
        .iter()
        .flat_map(|requests| requests.0.iter())
    {
        let response = match &request.kind {
            InputRequestKind::Elicit(params) => interactive
                .ask_user(params.clone())
                .await
                .map(InputResponse::Elicit),
            InputRequestKind::CreateMessage(params) => interactive
                .sample(params.clone())
                .await
                .map(InputResponse::CreateMessage),
            // The CLI exposes no roots.
            InputRequestKind::ListRoots(_) => {
                Ok(InputResponse::ListRoots(ListRootsResult::new(Vec::new())))
            }
            InputRequestKind::Other { method, .. } => {
                return Err(CliError::connection(format!(
                    "the server asked for {method}, which mcpwire cannot answer"
                )));
            }
        };
        let response = response.map_err(|error| {
            CliError::connection(format!(
                "the server's request could not be answered: {}",
                error.message
            ))
        })?;
        responses.0.insert(key.clone(), response);
    }
    Ok(responses)
}

/// Calls `tool` showing progress (answering input requests on the way),
/// and renders its result, saving binary content into `dir`.
pub(crate) async fn call_rendered(
    client: &Client,
    tool: &str,
    arguments: Map<String, Value>,
    dir: &std::path::Path,
) -> CliResult<CallOutcome> {
    let mut params = CallToolRequestParams::with_arguments(tool, arguments);
    let mut display = ProgressDisplay::new();
    let mut rounds = 0;
    let result = loop {
        let (call, mut progress) =
            client.request_with_progress::<CallTool>(params.clone(), RequestOptions::default());
        tokio::pin!(call);
        let result = loop {
            tokio::select! {
                // Reports first: one that came with the answer is still shown.
                biased;
                Some(report) = progress.recv() => display.show(&report),
                result = &mut call => break result,
            }
        };
        while let Ok(report) = progress.try_recv() {
            display.show(&report);
        }
        display.finish();
        match result {
            Err(ClientError::InputRequired(input)) if rounds < MAX_INPUT_ROUNDS => {
                rounds += 1;
                params.input_responses = Some(answer_inputs(&input).await?);
                params.request_state = input.request_state.clone();
            }
            other => break other?,
        }
    };
    render_result(&result, dir)
}

/// Renders a tool's result, saving binary content into `dir`.
///
/// # Errors
///
/// When a binary block cannot be saved.
pub(crate) fn render_result(
    result: &mcpwire_types::CallToolResult,
    dir: &std::path::Path,
) -> CliResult<CallOutcome> {
    let failed = result.is_error == Some(true);
    let mut value = to_json(result);
    let mut blocks = value
        .get_mut("content")
        .and_then(Value::as_array_mut)
        .map(std::mem::take)
        .unwrap_or_default();
    let lines = output::render_content(&mut blocks, dir)?;
    if let Some(slot) = value.get_mut("content") {
        *slot = Value::Array(blocks);
    }
    Ok(CallOutcome {
        value,
        lines,
        failed,
    })
}

/// Prints a rendered result (unless `json_mode`, where the caller prints
/// the JSON) and maps `isError` to [`CliError::ToolFailed`].
pub(crate) fn print_call(outcome: &CallOutcome, tool: &str, json_mode: bool) -> CliResult {
    if json_mode {
        print_json(&outcome.value);
    } else {
        outcome.lines.iter().for_each(line);
        if let Some(structured) = outcome.value.get("structuredContent") {
            line("structured content:");
            line(serde_json::to_string_pretty(structured).unwrap_or_default());
        }
    }
    if outcome.failed {
        eprintln!("error: the tool {tool} reported an error");
        return Err(CliError::ToolFailed);
    }
    Ok(())
}

/// `read`.
pub(crate) async fn read(args: &ReadArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    let Some((uri, rest)) = rest.split_first() else {
        return Err(CliError::usage("name the resource URI to read"));
    };
    no_more_words(rest)?;
    let dir = output_dir(args.output_dir.as_ref());
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            let result = client.read_resource(uri.clone()).await?;
            let mut value = to_json(&result);
            let mut contents = value
                .get_mut("contents")
                .and_then(Value::as_array_mut)
                .map(std::mem::take)
                .unwrap_or_default();
            let lines = output::render_resource_contents(&mut contents, &dir)?;
            if let Some(slot) = value.get_mut("contents") {
                *slot = Value::Array(contents);
            }
            if json_mode {
                print_json(&value);
            } else {
                lines.iter().for_each(line);
            }
            Ok(())
        },
    )
    .await
}

/// `prompt`.
pub(crate) async fn prompt(args: &PromptArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    let Some((name, words)) = rest.split_first() else {
        return Err(CliError::usage("name the prompt to get"));
    };
    let arguments: BTreeMap<String, String> = arguments::pairs(words)?.into_iter().collect();
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            let result = client.get_prompt(name.clone(), arguments).await?;
            let mut value = to_json(&result);
            if json_mode {
                print_json(&value);
                return Ok(());
            }
            if let Some(description) = value.get("description").and_then(Value::as_str) {
                line(format!("# {description}"));
            }
            let dir = PathBuf::from(".");
            for message in value
                .get_mut("messages")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                let role = text(message, "role");
                let mut blocks = vec![message.get("content").cloned().unwrap_or_default()];
                for rendered in output::render_content(&mut blocks, &dir)? {
                    line(format!("{role}: {rendered}"));
                }
            }
            Ok(())
        },
    )
    .await
}

/// `complete`.
pub(crate) async fn complete(args: &CompleteArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let reference = match (&args.prompt, &args.template) {
        (Some(prompt), None) => CompletionReference::prompt(prompt.clone()),
        (None, Some(template)) => CompletionReference::resource_template(template.clone()),
        _ => {
            return Err(CliError::usage(
                "give exactly one of --prompt and --template",
            ));
        }
    };
    let argument = CompleteArgument::new(args.argument.clone(), args.value.clone());
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            let result = client.complete(reference, argument).await?;
            if json_mode {
                print_json(&to_json(&result));
            } else {
                result.completion.values.iter().for_each(line);
                if result.completion.has_more == Some(true) {
                    eprintln!("(more values exist)");
                }
            }
            Ok(())
        },
    )
    .await
}

/// `ping`.
pub(crate) async fn ping(args: &TargetArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            let started = Instant::now();
            // 2026-07-28 has no ping; `server/discover` is its liveness check.
            if client.server().version.has_handshake() {
                client.ping().await?;
            } else {
                client.discover().await?;
            }
            let millis = started.elapsed().as_secs_f64() * 1000.0;
            if json_mode {
                print_json(&json!({"ok": true, "milliseconds": millis}));
            } else {
                line(format!("pong in {millis:.1} ms"));
            }
            Ok(())
        },
    )
    .await
}

/// `logs`: prints log messages and change notifications until Ctrl-C
/// (or `--duration`).
pub(crate) async fn logs(args: &LogsArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.target.words, &args.target.command, global)?;
    no_more_words(&rest)?;
    let level = parse_level(&args.level)?;
    let json_mode = global.json;
    let duration = args.duration.map(Duration::from_secs);
    session::run(
        &target,
        global,
        level,
        false,
        |client, _transport| async move {
            let mut notifications = client.notifications();
            // In 2026-07-28 change notifications flow only while a
            // `subscriptions/listen` request is open; hold one for as long as we follow.
            let listener = (!client.server().version.has_handshake()).then(|| {
                let client = client.clone();
                tokio::spawn(async move {
                    let filter = SubscriptionFilter {
                        tools_list_changed: Some(true),
                        prompts_list_changed: Some(true),
                        resources_list_changed: Some(true),
                        ..SubscriptionFilter::default()
                    };
                    // The request is held open until its timeout, then renewed,
                    // for as long as `logs` follows.
                    loop {
                        let params = SubscriptionsListenRequestParams::new(filter.clone());
                        let options = RequestOptions {
                            timeout: Some(Duration::from_secs(24 * 3600)),
                            ..RequestOptions::default()
                        };
                        match client.request::<SubscriptionsListen>(params, options).await {
                            Err(ClientError::TimedOut) => continue,
                            Err(error) => {
                                eprintln!("warning: subscriptions/listen failed: {error}");
                            }
                            Ok(_) => {}
                        }
                        break;
                    }
                })
            });
            if !json_mode {
                eprintln!(
                    "following {}; press Ctrl-C to stop",
                    client
                        .server()
                        .info
                        .as_ref()
                        .map_or("the server", |i| i.name.as_str())
                );
            }
            let follow = async {
                loop {
                    match notifications.recv().await {
                        Ok(notification) => print_notification(&notification, json_mode),
                        Err(RecvError::Lagged(missed)) => {
                            eprintln!("warning: {missed} notifications were missed");
                        }
                        Err(RecvError::Closed) => return,
                    }
                }
            };
            match duration {
                Some(duration) => {
                    let _ = tokio::time::timeout(duration, follow).await;
                }
                None => follow.await,
            }
            if let Some(listener) = listener {
                listener.abort();
            }
            Ok(())
        },
    )
    .await
}

/// Prints one notification of `logs`.
fn print_notification(notification: &ServerNotification, json_mode: bool) {
    let params: Value = notification
        .encode_params()
        .ok()
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or_default();
    if json_mode {
        let value = json!({"method": notification.method(), "params": params});
        line(serde_json::to_string(&value).unwrap_or_default());
        return;
    }
    match notification {
        ServerNotification::LoggingMessage(message) => {
            line(log_line(
                message.level,
                message.logger.as_deref(),
                &message.data,
            ));
        }
        ServerNotification::ResourceUpdated(updated) => {
            line(format!("{}: {}", notification.method(), updated.uri));
        }
        _ => line(notification.method()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_summaries_mark_required_properties() {
        let schema = json!({"properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}, "c": {}}, "required": ["a"]});
        assert_eq!(
            schema_summary(Some(&schema)),
            "(a: string*, b: integer|null, c: any)"
        );
        assert_eq!(schema_summary(None), "");
    }
}
