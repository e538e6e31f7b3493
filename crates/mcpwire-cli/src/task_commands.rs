//! The task commands (2025-11-25): `call --task`, which starts a tool call
//! as a task and follows it to its end, and `tasks list|get|result|cancel`.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use mcpwire::client::Client;
use mcpwire::types::{LoggingLevel, ProtocolVersion, Task, TaskStatus};
use serde_json::{Map, Value, json};

use crate::cli::{GlobalOptions, TargetArgs, TaskIdArgs, TasksAction};
use crate::commands::{no_more_words, output_dir, print_call, render_result};
use crate::error::{CliError, CliResult};
use crate::output::{line, print_json, table, to_json};
use crate::session;
use crate::target::resolve;

/// The revision whose tasks (`tasks/get`, `tasks/result`, `tasks/list`,
/// `tasks/cancel`) these commands speak.
const TASKS_REVISION: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// How long to wait between polls when the server suggests nothing.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// The shortest and longest wait between polls, whatever the server says.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(5));

/// How many pages of `tasks/list` are read at most.
const MAX_LIST_PAGES: usize = 100;

/// `global` pinned to the tasks revision.
///
/// # Errors
///
/// A usage error when `--protocol-version` names another revision.
pub(crate) fn with_tasks_revision(global: &GlobalOptions) -> CliResult<GlobalOptions> {
    let tasks = TASKS_REVISION.to_string();
    match &global.protocol_version {
        Some(pinned) if *pinned != tasks => Err(CliError::usage(format!(
            "tasks need protocol revision {tasks}, not {pinned}"
        ))),
        _ => {
            let mut pinned = global.clone();
            pinned.protocol_version = Some(tasks);
            Ok(pinned)
        }
    }
}

/// One task as a line of text: `ID status (message)`.
fn task_line(task: &Task) -> String {
    let status = status_name(task.status);
    match &task.status_message {
        Some(message) => format!("task {} {status} ({message})", task.task_id),
        None => format!("task {} {status}", task.task_id),
    }
}

/// A status by its protocol name.
fn status_name(status: TaskStatus) -> String {
    to_json(&status).as_str().unwrap_or_default().to_owned()
}

/// The wait before the next poll of `task`.
fn poll_interval(task: &Task) -> Duration {
    task.poll_interval
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(POLL_BOUNDS.0, POLL_BOUNDS.1)
}

/// Starts `tool` as a task, prints its id (and each status change) on
/// stderr, polls until it is over, and prints its result like `call`.
/// Ctrl-C cancels the task (`tasks/cancel`) and exits 130.
///
/// # Errors
///
/// A connection error when the server refuses the task or a request fails;
/// [`CliError::ToolFailed`] when the task failed or the tool reported an
/// error; [`CliError::Interrupted`] on Ctrl-C.
pub(crate) async fn call_as_task(
    client: &Client,
    tool: &str,
    arguments: Map<String, Value>,
    dir: &Path,
    json_mode: bool,
) -> CliResult {
    let task = client.call_tool_as_task(tool, arguments, None).await?;
    eprintln!("{}", task_line(&task));
    let task_id = task.task_id.clone();
    let following = follow(client, task);
    tokio::pin!(following);
    let finished = tokio::select! {
        finished = &mut following => finished?,
        _ = tokio::signal::ctrl_c() => {
            // Stop the task on the server too, not only our polling of it.
            match client.cancel_task(task_id.as_str()).await {
                Ok(task) => eprintln!("{}", task_line(&task)),
                Err(error) => eprintln!("warning: cancelling task {task_id} failed: {error}"),
            }
            return Err(CliError::Interrupted);
        }
    };
    match finished.status {
        TaskStatus::Completed | TaskStatus::Failed => {
            // A failed tool call still has its result (isError) to show.
            let result = client.task_tool_result(task_id.as_str()).await?;
            print_call(&render_result(&result, dir)?, tool, json_mode)
        }
        _ => Err(CliError::connection(format!(
            "task {task_id} ended {}",
            status_name(finished.status)
        ))),
    }
}

/// Polls `task` until its status is terminal or it waits for input,
/// printing each change on stderr; returns its last state. The polling
/// ends at the latest when the server forgets the task (its `ttl`), as
/// `tasks/get` then fails, or on Ctrl-C in the caller.
async fn follow(client: &Client, mut task: Task) -> CliResult<Task> {
    loop {
        if task.status.is_terminal() || task.status == TaskStatus::InputRequired {
            // `tasks/result` delivers the server's requests of an
            // input_required task, and waits for the end of the rest.
            return Ok(task);
        }
        tokio::time::sleep(poll_interval(&task)).await;
        let next = client.get_task(task.task_id.as_str()).await?;
        if next.status != task.status || next.status_message != task.status_message {
            eprintln!("{}", task_line(&next));
        }
        task = next;
    }
}

/// `tasks list|get|result|cancel`.
pub(crate) async fn tasks(action: &TasksAction, global: &GlobalOptions) -> CliResult {
    let global = with_tasks_revision(global)?;
    match action {
        TasksAction::List(args) => list(args, &global).await,
        TasksAction::Get(args) => get(args, &global).await,
        TasksAction::Result(args) => result(args, &global).await,
        TasksAction::Cancel(args) => cancel(args, &global).await,
    }
}

/// Connects to the server of `args` and hands `body` the client and the
/// task id.
async fn with_task_id<F, Fut>(args: &TaskIdArgs, global: &GlobalOptions, body: F) -> CliResult
where
    F: FnOnce(Client, String) -> Fut,
    Fut: Future<Output = CliResult>,
{
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    let Some((task_id, rest)) = rest.split_first() else {
        return Err(CliError::usage("name the task (its id)"));
    };
    no_more_words(rest)?;
    let task_id = task_id.clone();
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| body(client, task_id),
    )
    .await
}

/// Prints one task: as JSON, or as its fields.
fn print_task(task: &Task, json_mode: bool) {
    if json_mode {
        print_json(&to_json(task));
        return;
    }
    line(format!("Task:         {}", task.task_id));
    line(format!("Status:       {}", status_name(task.status)));
    if let Some(message) = &task.status_message {
        line(format!("Message:      {message}"));
    }
    line(format!("Created:      {}", task.created_at));
    line(format!("Updated:      {}", task.last_updated_at));
    let ttl = task
        .ttl
        .map_or_else(|| "unlimited".to_owned(), |ms| format!("{ms} ms"));
    line(format!("Kept for:     {ttl}"));
}

/// Refuses a server that does not declare the tasks capability.
fn require_tasks(client: &Client) -> CliResult {
    if client.server().capabilities.tasks.is_none() {
        return Err(CliError::connection(
            "the server does not support tasks (no `tasks` capability)",
        ));
    }
    Ok(())
}

/// `tasks list`.
async fn list(args: &TargetArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            require_tasks(&client)?;
            let mut tasks = Vec::new();
            let mut cursor = None;
            for _ in 0..MAX_LIST_PAGES {
                let page = client.list_tasks(cursor.take()).await?;
                tasks.extend(page.tasks);
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            if json_mode {
                print_json(&json!({ "tasks": to_json(&tasks) }));
                return Ok(());
            }
            line(format!("Tasks ({}):", tasks.len()));
            if !tasks.is_empty() {
                let rows: Vec<Vec<String>> = tasks
                    .iter()
                    .map(|task| {
                        vec![
                            task.task_id.clone(),
                            status_name(task.status),
                            task.last_updated_at.clone(),
                            task.status_message.clone().unwrap_or_default(),
                        ]
                    })
                    .collect();
                line(table(&["ID", "STATUS", "UPDATED", "MESSAGE"], &rows));
            }
            Ok(())
        },
    )
    .await
}

/// `tasks get`.
async fn get(args: &TaskIdArgs, global: &GlobalOptions) -> CliResult {
    let json_mode = global.json;
    with_task_id(args, global, |client, task_id| async move {
        require_tasks(&client)?;
        let task = client.get_task(task_id).await?;
        print_task(&task, json_mode);
        Ok(())
    })
    .await
}

/// `tasks result`.
async fn result(args: &TaskIdArgs, global: &GlobalOptions) -> CliResult {
    let json_mode = global.json;
    let dir = output_dir(args.output_dir.as_ref());
    with_task_id(args, global, |client, task_id| async move {
        require_tasks(&client)?;
        let result = client.task_tool_result(task_id.as_str()).await?;
        print_call(&render_result(&result, &dir)?, &task_id, json_mode)
    })
    .await
}

/// `tasks cancel`.
async fn cancel(args: &TaskIdArgs, global: &GlobalOptions) -> CliResult {
    let json_mode = global.json;
    with_task_id(args, global, |client, task_id| async move {
        require_tasks(&client)?;
        let task = client.cancel_task(task_id).await?;
        print_task(&task, json_mode);
        Ok(())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn global(revision: Option<&str>) -> GlobalOptions {
        GlobalOptions {
            json: false,
            config: None,
            protocol_version: revision.map(str::to_owned),
            headers: Vec::new(),
            timeout: 60,
            token_file: None,
        }
    }

    #[test]
    fn task_commands_pin_2025_11_25_and_refuse_another_pinned_revision() {
        let pinned = with_tasks_revision(&global(None)).unwrap();
        assert_eq!(pinned.protocol_version.as_deref(), Some("2025-11-25"));
        assert!(with_tasks_revision(&global(Some("2025-11-25"))).is_ok());
        assert!(matches!(
            with_tasks_revision(&global(Some("2025-06-18"))),
            Err(CliError::Usage(_))
        ));
    }

    #[test]
    fn polling_follows_the_suggested_interval_within_bounds() {
        let mut task = Task::new("t", TaskStatus::Working, "2026-01-01T00:00:00Z");
        assert_eq!(poll_interval(&task), DEFAULT_POLL);
        task.poll_interval = Some(250);
        assert_eq!(poll_interval(&task), Duration::from_millis(250));
        task.poll_interval = Some(0);
        assert_eq!(poll_interval(&task), POLL_BOUNDS.0);
        task.poll_interval = Some(3_600_000);
        assert_eq!(poll_interval(&task), POLL_BOUNDS.1);
    }
}
