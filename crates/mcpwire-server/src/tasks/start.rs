//! Starting tasks: deciding whether a `tools/call` runs as a task (asked
//! for in 2025-11-25, chosen by the server in 2026-07-28), creating its
//! record, and running its handler in the background while recording each
//! status transition.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use mcpwire_jsonrpc::{ErrorObject, RawJson};
use mcpwire_types::methods::{ServerNotification, ServerResult};
use mcpwire_types::tasks_extension::{CreatedTask, TASKS_EXTENSION};
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, CreateTaskResult, ForRevision,
    McpErrorCode, MissingRequiredClientCapabilityData, ProtocolVersion, ResultType, Task,
    TaskMetadata, TaskStatusNotificationParams, TaskSupport,
};

use super::clock::{iso8601, now_ms};
use super::{Local, TaskChange, TaskFailure, TaskRecord, Tasks, new_task_id};
use crate::catalog::ToolEntry;
use crate::dispatch::{ToolArguments, check_arguments, conclude_tool, unknown_tool};
use crate::input::{Answer, Retry, Round};
use crate::{BoxFuture, Context, HandlerError, Server};
use mcpwire_session::CancelHandle;

/// What serving a request produced: a result the engine fits to the
/// request's revision, or one already shaped (a task handle, a tool's
/// result).
pub(crate) enum Reply {
    Typed(ServerResult),
    Raw(RawJson),
}

impl From<ServerResult> for Reply {
    fn from(result: ServerResult) -> Self {
        Self::Typed(result)
    }
}

/// How a tool call runs.
enum Mode {
    /// As a plain request.
    Plain,
    /// As the task the client asked for (2025-11-25).
    Requested(TaskMetadata),
    /// As a task if the handler does not finish at once (2026-07-28).
    ServerDirected,
}

/// A tool call that may become a task: its params, decoded, and as they
/// came (see [`ToolArguments`]).
struct Call {
    params: Box<CallToolRequestParams>,
    raw_params: Option<RawJson>,
}

/// What the first round of a server-directed call gave.
enum Started {
    Done(CallToolResult),
    Task(CreatedTask),
}

/// The future of one handler round.
type Round0 = BoxFuture<'static, Result<CallToolResult, HandlerError>>;

impl Server {
    /// Serves `tools/call`, as a task when the revision, the tool and the
    /// client say so.
    pub(crate) async fn call_tool_reply(
        &self,
        params: Box<CallToolRequestParams>,
        raw_params: Option<RawJson>,
        ctx: Context,
    ) -> Result<Reply, ErrorObject> {
        // Looked up once for the whole call.
        let Some(entry) = self.catalog().tool(&params.name) else {
            return Err(unknown_tool(&params.name));
        };
        let tasked = match &self.inner.tasks {
            Some(tasks) => match task_mode(&entry, &params, &ctx)? {
                Mode::Plain => None,
                mode => Some((Arc::clone(tasks), mode)),
            },
            None => None,
        };
        match tasked {
            None => self.call_tool_plain(entry, params, raw_params, ctx).await,
            // Boxed, so that a plain call's future stays small (it is
            // moved to the heap once per call).
            Some((tasks, mode)) => {
                let call = Call { params, raw_params };
                Box::pin(self.call_tool_tasked(entry, &tasks, mode, call, ctx)).await
            }
        }
    }

    /// Whether a call of `entry` with `params` runs as a plain request
    /// (no task now or later), or the error its task fields earn.
    pub(crate) fn runs_plain(
        &self,
        entry: &ToolEntry,
        params: &CallToolRequestParams,
        ctx: &Context,
    ) -> Result<bool, ErrorObject> {
        match &self.inner.tasks {
            Some(_) => Ok(matches!(task_mode(entry, params, ctx)?, Mode::Plain)),
            None => Ok(true),
        }
    }

    /// A call that becomes a task, or may.
    async fn call_tool_tasked(
        &self,
        entry: Arc<ToolEntry>,
        tasks: &Arc<Tasks>,
        mode: Mode,
        call: Call,
        ctx: Context,
    ) -> Result<Reply, ErrorObject> {
        match mode {
            Mode::Plain => {
                self.call_tool_plain(entry, call.params, call.raw_params, ctx)
                    .await
            }
            Mode::Requested(metadata) => {
                let created = self
                    .start_requested(entry, tasks, call, metadata, ctx)
                    .await?;
                encode(&created)
            }
            Mode::ServerDirected => self.call_tool_directed(tasks, entry, call, ctx).await,
        }
    }

    async fn call_tool_plain(
        &self,
        entry: Arc<ToolEntry>,
        params: Box<CallToolRequestParams>,
        raw_params: Option<RawJson>,
        ctx: Context,
    ) -> Result<Reply, ErrorObject> {
        Ok(
            match self.call_tool(entry, params, raw_params, ctx).await? {
                Answer::Complete(result) => ServerResult::CallTool(Box::new(result)).into(),
                Answer::InputRequired(input) => ServerResult::InputRequired(Box::new(input)).into(),
            },
        )
    }

    /// 2025-11-25: creates the task the client asked for and answers with
    /// it at once (TASK-21, TASK-22); the call runs in the background,
    /// exactly as it would have run synchronously.
    async fn start_requested(
        &self,
        entry: Arc<ToolEntry>,
        tasks: &Arc<Tasks>,
        call: Call,
        metadata: TaskMetadata,
        ctx: Context,
    ) -> Result<CreateTaskResult, ErrorObject> {
        let Call {
            mut params,
            raw_params,
        } = call;
        params.task = None;
        let owner = tasks.owner_for(ctx.transport_context(), Some(ctx.scope()));
        let record = tasks.create_record(owner, metadata.ttl).await?;
        let task_id = record.task_id.clone();
        let (cancel, cancellation) = CancelHandle::new();
        let task_ctx = ctx.for_task(cancellation, Some(&task_id));
        let server = self.clone();
        let worker_tasks = Arc::clone(tasks);
        let id = task_id.clone();
        tasks.register(&task_id, cancel);
        let worker = tokio::spawn(async move {
            let version = task_ctx.version();
            let outcome = server
                .call_tool(entry, params, raw_params, task_ctx.clone())
                .await;
            let change = match outcome {
                Ok(Answer::Complete(result)) => requested_outcome(&result),
                Ok(Answer::InputRequired(_)) => TaskChange::Fail {
                    error: Some(TaskFailure::from_error(&ErrorObject::internal_error(
                        format!(
                            "the tool asked for input in {version}, which cannot carry input_required"
                        ),
                    ))),
                    result: None,
                    message: None,
                },
                Err(error) => failure(&error),
            };
            worker_tasks.record(&id, change, Some(&task_ctx)).await;
            worker_tasks.forget(&id);
        });
        tasks.set_abort(&task_id, worker.abort_handle());
        Ok(CreateTaskResult::new(to_core_task(&record)))
    }

    /// 2026-07-28: runs the handler's first round here; if it finishes or
    /// asks for input at once, that is the answer (a multi round-trip
    /// exchange may come before the task), otherwise the call becomes a
    /// task and the round goes on in the background.
    async fn call_tool_directed(
        &self,
        tasks: &Arc<Tasks>,
        entry: Arc<ToolEntry>,
        call: Call,
        ctx: Context,
    ) -> Result<Reply, ErrorObject> {
        let version = ctx.version();
        let Call { params, raw_params } = call;
        let mut arguments = params.arguments.unwrap_or_default();
        if let Some(refusal) = check_arguments(&entry, &mut arguments, version)? {
            return Ok(ServerResult::CallTool(Box::new(refusal)).into());
        }
        let retry = Retry {
            responses: params.input_responses,
            state: params.request_state,
        };
        // A server-directed call speaks 2026-07-28, where `run_rounds` runs
        // the handler once (an input round goes back to the client): that
        // one run takes the arguments, and with them what the task's later
        // rounds read theirs from.
        let mut arguments = Some(ToolArguments::new(arguments, raw_params));
        let answer = self
            .run_rounds("tools/call", &params.name, retry, ctx, |round_ctx| {
                let entry = Arc::clone(&entry);
                let tasks = Arc::clone(tasks);
                let arguments = arguments.take();
                let server = self.clone();
                async move {
                    let Some(mut arguments) = arguments else {
                        return Err(HandlerError::Internal(
                            "a server-directed tool call ran its first round twice".to_owned(),
                        ));
                    };
                    // The handler gets the task's own cancellation signal
                    // from the start: should it become a task, the request
                    // that started it ends long before it does.
                    let (cancel, cancellation) = CancelHandle::new();
                    let task_ctx = round_ctx.for_task(cancellation, None);
                    let mut first = arguments.run(&entry.handler, task_ctx.clone());
                    match poll_once(&mut first).await {
                        Poll::Ready(Ok(result)) => Ok(Started::Done(result)),
                        Poll::Ready(Err(error)) => Err(error),
                        Poll::Pending => server
                            .spawn_directed(&tasks, first, cancel, entry, arguments, task_ctx)
                            .await
                            .map(Started::Task)
                            .map_err(HandlerError::Rpc),
                    }
                }
            })
            .await;
        Ok(match answer {
            Ok(Answer::Complete(Started::Task(created))) => return encode(&created),
            Ok(Answer::Complete(Started::Done(result))) => {
                let result = conclude_tool(&entry, Ok(result), version)?;
                ServerResult::CallTool(Box::new(result)).into()
            }
            Ok(Answer::InputRequired(input)) => ServerResult::InputRequired(Box::new(input)).into(),
            Err(error) => {
                let result = conclude_tool(&entry, Err(error), version)?;
                ServerResult::CallTool(Box::new(result)).into()
            }
        })
    }

    /// Creates the record of a server-directed task and lets its first
    /// round go on in the background.
    async fn spawn_directed(
        &self,
        tasks: &Arc<Tasks>,
        first: Round0,
        cancel: CancelHandle,
        entry: Arc<ToolEntry>,
        arguments: ToolArguments,
        ctx: Context,
    ) -> Result<CreatedTask, ErrorObject> {
        // A stateless request has no session: the task is bound to its named
        // requestor, or to nobody, its random id then being the capability
        // (TASK-47, TASK-48).
        let owner = tasks.owner_for(ctx.transport_context(), None);
        let record = tasks.create_record(owner, None).await?;
        let task_id = record.task_id.clone();
        tasks.register(&task_id, cancel);
        let worker_tasks = Arc::clone(tasks);
        let id = task_id.clone();
        let worker = tokio::spawn(async move {
            worker_tasks
                .drive_directed(&id, first, &entry, arguments, ctx)
                .await;
            worker_tasks.forget(&id);
        });
        tasks.set_abort(&task_id, worker.abort_handle());
        Ok(to_created(&record))
    }
}

impl Tasks {
    /// Creates and stores the record of a new `tools/call` task.
    async fn create_record(
        &self,
        owner: Option<String>,
        requested_ttl: Option<u64>,
    ) -> Result<TaskRecord, ErrorObject> {
        let now = now_ms();
        // Expired records go now and then, when new ones come (TASK-50).
        if let Err(error) = self.store().purge_expired(now).await {
            tracing::debug!(%error, "expired tasks not purged");
        }
        let limit = self.options.max_per_requestor;
        let held = self
            .store()
            .count_owned(owner.clone(), limit, now)
            .await
            .map_err(|error| ErrorObject::internal_error(error.to_string()))?;
        if held >= limit {
            let error = ErrorObject::invalid_request(format!(
                "this requestor holds the most tasks allowed ({limit}); wait for some to expire"
            ));
            // A map of one number always serializes.
            return Err(error
                .clone()
                .with_data(&serde_json::json!({ "limit": limit }))
                .unwrap_or(error));
        }
        let task_id = new_task_id().map_err(ErrorObject::internal_error)?;
        let mut record = TaskRecord::new(task_id, "tools/call", now);
        record.owner = owner;
        record.ttl_ms = Some(self.options.ttl_ms(requested_ttl));
        record.poll_interval_ms = Some(super::millis(self.options.poll_interval));
        self.store()
            .create(record.clone())
            .await
            .map_err(|error| ErrorObject::internal_error(error.to_string()))?;
        tracing::info!(task = %record.task_id, "task created");
        Ok(record)
    }

    fn register(&self, task_id: &str, cancel: CancelHandle) {
        let local = Local {
            cancel,
            changed: Arc::default(),
            abort: None,
        };
        self.local().insert(task_id.to_owned(), local);
    }

    fn set_abort(&self, task_id: &str, abort: tokio::task::AbortHandle) {
        // A worker that already finished has removed its entry: nothing to stop.
        if let Some(local) = self.local().get_mut(task_id) {
            local.abort = Some(abort);
        }
    }

    /// Forgets a worker that is over, waking whoever waits on its task.
    fn forget(&self, task_id: &str) {
        if let Some(local) = self.local().remove(task_id) {
            local.changed.notify_waiters();
        }
    }

    /// Applies `change` and tells waiters; in a handshake session, also the
    /// client (`notifications/tasks/status`, optional: TASK-35).
    pub(super) async fn record(&self, task_id: &str, change: TaskChange, ctx: Option<&Context>) {
        let updated = self
            .store()
            .update(task_id.to_owned(), change, now_ms())
            .await;
        match updated {
            Ok(Some((record, true))) => {
                tracing::info!(task = task_id, status = ?record.status, "task status changed");
                // The notification is queued before waiters are woken, so
                // that it reaches the client before a `tasks/result` answer.
                if let Some(ctx) = ctx.filter(|c| c.version().has_core_tasks()) {
                    let params = TaskStatusNotificationParams::from(to_core_task(&record));
                    ctx.notify_session(ServerNotification::TaskStatus(Box::new(params)))
                        .await;
                }
                self.announce_change(task_id);
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(task = task_id, %error, "task status not recorded"),
        }
    }

    /// Runs a server-directed task to its end: each time the handler asks
    /// for input, the task waits in `input_required` until `tasks/update`
    /// brought every answer, then the handler runs again with them.
    async fn drive_directed(
        &self,
        task_id: &str,
        first: Round0,
        entry: &ToolEntry,
        mut arguments: ToolArguments,
        ctx: Context,
    ) {
        let version = ctx.version();
        let mut outcome = first.await;
        loop {
            let input = match outcome {
                Err(HandlerError::InputRequired(input)) => *input,
                done => {
                    // SEP-2663: a tool error is a completed call whose
                    // result says so; only a protocol error fails the task.
                    let change = match conclude_tool(entry, done, version) {
                        Ok(result) => TaskChange::Complete {
                            result: to_value(&result),
                            message: None,
                        },
                        Err(error) => failure(&error),
                    };
                    return self.record(task_id, change, None).await;
                }
            };
            if let Some(error) = input.unfulfillable(version.has_multi_round_trip()) {
                return self.record(task_id, failure(&error), None).await;
            }
            let (requests, state) = input.into_parts();
            if requests.is_empty() {
                let error =
                    ErrorObject::internal_error("the handler asked for input but named no request");
                return self.record(task_id, failure(&error), None).await;
            }
            let change = TaskChange::InputRequired { requests, state };
            self.record(task_id, change, None).await;
            let resumed = self
                .wait_until(task_id, |record| {
                    record.status != mcpwire_types::TaskStatus::InputRequired
                })
                .await;
            let Some(record) = resumed.filter(|r| !r.status.is_terminal()) else {
                return;
            };
            let round = Round::new(record.input_responses, record.state);
            outcome = arguments.run(&entry.handler, ctx.with_round(round)).await;
        }
    }

    /// Waits until the task satisfies `done`, and returns it then; `None`
    /// when it is gone (expired, so the wait is bounded by its ttl).
    pub(super) async fn wait_until(
        &self,
        task_id: &str,
        done: impl Fn(&TaskRecord) -> bool,
    ) -> Option<TaskRecord> {
        let changed = self.changed(task_id);
        loop {
            let notified = changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let record = match self.store().get(task_id.to_owned(), now_ms()).await {
                Ok(record) => record?,
                Err(error) => {
                    tracing::warn!(task = task_id, %error, "task not read");
                    return None;
                }
            };
            if done(&record) {
                return Some(record);
            }
            // Changes made by another instance sharing the store come
            // without a signal: poll for them too.
            let poll = self.options.poll_interval;
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep(poll) => {}
            }
        }
    }
}

/// Decides how a call runs (TASK-04..09, SEP-2663).
fn task_mode(
    entry: &ToolEntry,
    params: &CallToolRequestParams,
    ctx: &Context,
) -> Result<Mode, ErrorObject> {
    let support = entry
        .tool
        .execution
        .as_ref()
        .and_then(|e| e.task_support)
        .unwrap_or(TaskSupport::Forbidden);
    let version = ctx.version();
    if version.has_core_tasks() {
        return match (&params.task, support) {
            // TASK-06: a task for a tool that forbids them.
            (Some(_), TaskSupport::Forbidden) => Err(ErrorObject::method_not_found(&format!(
                "tools/call as a task (tool {} does not support tasks)",
                entry.tool.name
            ))),
            (Some(metadata), _) => Ok(Mode::Requested(metadata.clone())),
            // TASK-08: a tool that must run as a task, called without one.
            (None, TaskSupport::Required) => Err(ErrorObject::method_not_found(&format!(
                "tools/call without a task (tool {} must run as a task)",
                entry.tool.name
            ))),
            (None, _) => Ok(Mode::Plain),
        };
    }
    if !version.has_extensions() {
        return Ok(Mode::Plain);
    }
    let declared = ctx
        .client_capabilities()
        .supports_extension(TASKS_EXTENSION);
    match support {
        TaskSupport::Forbidden => Ok(Mode::Plain),
        _ if declared => Ok(Mode::ServerDirected),
        TaskSupport::Optional => Ok(Mode::Plain),
        TaskSupport::Required => Err(missing_tasks_extension()),
    }
}

/// -32021 naming the tasks extension, for a tool that only runs as a task
/// called by a client that did not declare it.
fn missing_tasks_extension() -> ErrorObject {
    let mut extensions = serde_json::Map::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), serde_json::json!({}));
    let required = ClientCapabilities {
        extensions: Some(extensions),
        ..ClientCapabilities::default()
    };
    let error = MissingRequiredClientCapabilityData::new(required).to_error();
    debug_assert_eq!(
        error.code,
        McpErrorCode::MissingRequiredClientCapability.error_code()
    );
    error
}

/// The end of a task asked for in 2025-11-25: a tool error fails the task
/// (TASK-46) but `tasks/result` still gives the result as it was (TASK-25).
fn requested_outcome(result: &CallToolResult) -> TaskChange {
    if result.is_error == Some(true) {
        TaskChange::Fail {
            error: None,
            result: Some(to_value(result)),
            message: Some("The tool reported an error.".to_owned()),
        }
    } else {
        TaskChange::Complete {
            result: to_value(result),
            message: None,
        }
    }
}

fn failure(error: &ErrorObject) -> TaskChange {
    TaskChange::Fail {
        error: Some(TaskFailure::from_error(error)),
        result: None,
        message: Some(error.message.clone()),
    }
}

fn to_value(result: &CallToolResult) -> serde_json::Value {
    // A result the runtime built always serializes.
    serde_json::to_value(result).unwrap_or_default()
}

/// Polls `future` once: its output if it is ready at once.
async fn poll_once<F: Future + Unpin>(future: &mut F) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *future).poll(cx))).await
}

fn encode<T: serde::Serialize>(value: &T) -> Result<Reply, ErrorObject> {
    RawJson::from_serialize(value)
        .map(Reply::Raw)
        .map_err(|error| ErrorObject::internal_error(error.to_string()))
}

/// A record as a 2025-11-25 `Task`.
pub(super) fn to_core_task(record: &TaskRecord) -> Task {
    let mut task = Task::new(
        record.task_id.clone(),
        record.status,
        iso8601(record.created_at_ms),
    );
    task.last_updated_at = iso8601(record.last_updated_at_ms);
    task.status_message = record.status_message.clone();
    task.ttl = record.ttl_ms;
    task.poll_interval = record.poll_interval_ms;
    task
}

/// A record as the 2026-07-28 extension's task handle.
fn to_created(record: &TaskRecord) -> CreatedTask {
    CreatedTask {
        result_type: ResultType::Task,
        task_id: record.task_id.clone(),
        status: record.status,
        status_message: record.status_message.clone(),
        created_at: iso8601(record.created_at_ms),
        last_updated_at: iso8601(record.last_updated_at_ms),
        ttl_ms: record.ttl_ms,
        poll_interval_ms: record.poll_interval_ms,
        meta: None,
        extra: mcpwire_types::Extra::new(),
    }
}

/// Fits a stored `tools/call` result to `version`.
pub(super) fn fitted_result(
    value: &serde_json::Value,
    version: ProtocolVersion,
) -> Result<serde_json::Value, ErrorObject> {
    let mut result: CallToolResult = serde_json::from_value(value.clone()).map_err(|error| {
        ErrorObject::internal_error(format!("the stored result is unreadable: {error}"))
    })?;
    result.fit_to(version);
    serde_json::to_value(result).map_err(|error| ErrorObject::internal_error(error.to_string()))
}
