//! `call`: calls a tool (showing progress, answering input requests on
//! the way), renders its result and saves binary content.

use mcpwire::client::{Client, ClientError, RequestOptions};
use mcpwire::types::methods::CallTool;
use mcpwire::types::{CallToolRequestParams, LoggingLevel};
use serde_json::{Map, Value};

use crate::arguments;
use crate::cli::{CallArgs, GlobalOptions};
use crate::error::{CliError, CliResult};
use crate::output::{self, line, print_json, to_json};
use crate::session::{self, ProgressDisplay};
use crate::target::resolve;
use crate::task_commands;

use super::input_rounds::answer_inputs;
use super::output_dir;

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
    result: &mcpwire::types::CallToolResult,
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
