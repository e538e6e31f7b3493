//! Serving the task methods: `tasks/get`, `tasks/result`, `tasks/list` and
//! `tasks/cancel` of 2025-11-25, and `tasks/get`, `tasks/update` and
//! `tasks/cancel` of the 2026-07-28 extension.

use mcpwire_jsonrpc::{ErrorObject, RawJson};
use mcpwire_session::ExtensionCall;
use mcpwire_types::methods::{ClientRequest, ServerResult};
use mcpwire_types::tasks_extension::{DetailedTask, TaskAck, UpdateTaskRequestParams};
use mcpwire_types::{
    CancelTaskResult, Extra, ForRevision, GetTaskPayloadResult, GetTaskRequestParams,
    GetTaskResult, ListTasksResult, PaginatedRequestParams, ProtocolVersion, RelatedTaskMetadata,
    ResultType, TaskStatus,
};
use serde::de::DeserializeOwned;

use super::clock::{iso8601, now_ms};
use super::start::{fitted_result, to_core_task};
use super::{TaskChange, TaskRecord, Tasks};
use crate::Server;
use crate::error::invalid_params;

impl Server {
    /// Serves a 2025-11-25 task request for the session of `ctx`.
    pub(crate) async fn serve_core_task_request(
        &self,
        request: ClientRequest,
        ctx: &crate::Context,
    ) -> Result<ServerResult, ErrorObject> {
        let Some(tasks) = self.inner.tasks.as_deref() else {
            return Err(ErrorObject::method_not_found(request.method()));
        };
        let owner = tasks.owner_for(ctx.transport_context(), Some(ctx.scope()));
        let owner = owner.as_deref();
        match request {
            ClientRequest::GetTask(params) => {
                let record = tasks.visible(&params.task_id, owner).await?;
                let result = GetTaskResult::from(to_core_task(&record));
                Ok(ServerResult::GetTask(Box::new(result)))
            }
            ClientRequest::GetTaskPayload(params) => {
                tasks.visible(&params.task_id, owner).await?;
                // TASK-24: wait until the task is over (bounded by its ttl).
                let record = tasks
                    .wait_until(&params.task_id, |r| r.status.is_terminal())
                    .await
                    .ok_or_else(|| unknown_task(&params.task_id))?;
                payload(&record, ctx.version()).map(|p| ServerResult::GetTaskPayload(Box::new(p)))
            }
            ClientRequest::ListTasks(params) => {
                let result = tasks.list(&params, owner).await?;
                Ok(ServerResult::ListTasks(Box::new(result)))
            }
            ClientRequest::CancelTask(params) => {
                let record = tasks.visible(&params.task_id, owner).await?;
                if record.status.is_terminal() {
                    // TASK-41.
                    return Err(invalid_params(format!(
                        "task {} is already {} and cannot be cancelled",
                        params.task_id,
                        status_name(record.status)
                    )));
                }
                let record = tasks.cancel(&params.task_id).await?;
                let result = CancelTaskResult::from(to_core_task(&record));
                Ok(ServerResult::CancelTask(Box::new(result)))
            }
            other => Err(ErrorObject::method_not_found(other.method())),
        }
    }

    /// Serves a request of the 2026-07-28 tasks extension; the answer is
    /// already shaped for `version`.
    pub(crate) async fn serve_extension(
        &self,
        call: ExtensionCall,
        version: ProtocolVersion,
        transport: Option<&(dyn std::any::Any + Send + Sync)>,
    ) -> Result<RawJson, ErrorObject> {
        if let Some(answer) = self.serve_skills(&call, version).await {
            return answer;
        }
        let Some(tasks) = self.inner.tasks.as_deref() else {
            return Err(ErrorObject::method_not_found(&call.method));
        };
        // Stateless requests have no session: a task is bound to its named
        // requestor or to nobody (TASK-47, TASK-48).
        let owner = tasks.owner_for(transport, None);
        let owner = owner.as_deref();
        let ack = || encode(&TaskAck::default());
        match call.method.as_str() {
            "tasks/get" => {
                let params: GetTaskRequestParams = read_params(&call)?;
                let record = tasks.visible(&params.task_id, owner).await?;
                encode(&detailed(&record, version)?)
            }
            "tasks/update" => {
                let params: UpdateTaskRequestParams = read_params(&call)?;
                tasks.visible(&params.task_id, owner).await?;
                // Answers for unknown or already-answered keys are ignored;
                // the acknowledgement is the same either way.
                let change = TaskChange::Answer(params.input_responses);
                tasks.apply(&params.task_id, change).await?;
                ack()
            }
            "tasks/cancel" => {
                let params: GetTaskRequestParams = read_params(&call)?;
                tasks.visible(&params.task_id, owner).await?;
                // Cancelling a finished task is acknowledged alike (SEP-2663).
                tasks.cancel(&params.task_id).await?;
                ack()
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }
}

impl Tasks {
    /// The task `task_id` if `owner` may see it; -32602 otherwise, the same
    /// as for an unknown id so that ids of others cannot be probed (TASK-45, TASK-47).
    async fn visible(&self, task_id: &str, owner: Option<&str>) -> Result<TaskRecord, ErrorObject> {
        let record = self
            .store()
            .get(task_id.to_owned(), now_ms())
            .await
            .map_err(|error| ErrorObject::internal_error(error.to_string()))?;
        record
            .filter(|r| r.visible_to(owner))
            .ok_or_else(|| unknown_task(task_id))
    }

    async fn apply(&self, task_id: &str, change: TaskChange) -> Result<TaskRecord, ErrorObject> {
        let updated = self
            .store()
            .update(task_id.to_owned(), change, now_ms())
            .await
            .map_err(|error| ErrorObject::internal_error(error.to_string()))?;
        let (record, changed) = updated.ok_or_else(|| unknown_task(task_id))?;
        if changed {
            tracing::info!(task = task_id, status = ?record.status, "task status changed");
            self.announce_change(task_id);
        }
        Ok(record)
    }

    /// Marks the task cancelled (before answering: TASK-42) and stops its
    /// handler if it runs here.
    async fn cancel(&self, task_id: &str) -> Result<TaskRecord, ErrorObject> {
        let record = self.apply(task_id, TaskChange::Cancel).await?;
        self.stop(task_id);
        Ok(record)
    }

    async fn list(
        &self,
        params: &PaginatedRequestParams,
        owner: Option<&str>,
    ) -> Result<ListTasksResult, ErrorObject> {
        // TASK-45: an invalid cursor is invalid params.
        let after = match params.cursor.as_deref() {
            Some(cursor) => Some(
                decode_cursor(cursor)
                    .ok_or_else(|| invalid_params("invalid cursor for tasks/list"))?,
            ),
            None => None,
        };
        let page = self
            .store()
            .list(owner.map(str::to_owned), after, LIST_PAGE, now_ms())
            .await
            .map_err(|error| ErrorObject::internal_error(error.to_string()))?;
        Ok(ListTasksResult {
            tasks: page.tasks.iter().map(to_core_task).collect(),
            // TASK-38: a cursor while more tasks exist.
            next_cursor: page.next_after.as_deref().map(encode_cursor),
            meta: None,
            extra: Extra::new(),
        })
    }
}

/// The opaque cursor after the task `task_id` (TASK-39: clients never read it).
pub(crate) fn encode_cursor(task_id: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("after:{task_id}"))
}

pub(crate) fn decode_cursor(cursor: &str) -> Option<String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    text.strip_prefix("after:").map(str::to_owned)
}

/// How many tasks one `tasks/list` page holds.
const LIST_PAGE: usize = 50;

fn unknown_task(task_id: &str) -> ErrorObject {
    invalid_params(format!("unknown task: {task_id} (it may have expired)"))
}

fn status_name(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
    }
}

/// The answer of `tasks/result` for a finished task: the original result
/// or error (TASK-23, TASK-25), with the related-task `_meta` (TASK-31).
fn payload(
    record: &TaskRecord,
    version: ProtocolVersion,
) -> Result<GetTaskPayloadResult, ErrorObject> {
    if let Some(result) = &record.result {
        let fitted = fitted_result(result, version)?;
        let mut payload: GetTaskPayloadResult = serde_json::from_value(fitted)
            .map_err(|error| ErrorObject::internal_error(error.to_string()))?;
        let mut meta = payload.meta.take().unwrap_or_default();
        RelatedTaskMetadata::new(record.task_id.clone()).insert_into(&mut meta);
        payload.meta = Some(meta);
        return Ok(payload);
    }
    Err(match (&record.error, record.status) {
        (Some(failure), _) => failure.to_error(),
        (None, TaskStatus::Cancelled) => ErrorObject::internal_error(format!(
            "task {} was cancelled before it finished",
            record.task_id
        )),
        (None, _) => ErrorObject::internal_error(format!("task {} has no result", record.task_id)),
    })
}

/// A record as the extension's `tasks/get` answer: the outcome inline,
/// without the related-task `_meta` (the result belongs to this answer).
fn detailed(record: &TaskRecord, version: ProtocolVersion) -> Result<DetailedTask, ErrorObject> {
    let result = match (&record.result, record.status) {
        (Some(result), TaskStatus::Completed) => Some(fitted_result(result, version)?),
        _ => None,
    };
    let error = match (&record.error, record.status) {
        (Some(failure), TaskStatus::Failed) => serde_json::to_value(failure).ok(),
        _ => None,
    };
    let input_requests = match (&record.input_requests, record.status) {
        (Some(requests), TaskStatus::InputRequired) => {
            let mut requests = requests.clone();
            requests.fit_to(version);
            Some(requests)
        }
        _ => None,
    };
    Ok(DetailedTask {
        result_type: ResultType::Complete,
        task_id: record.task_id.clone(),
        status: record.status,
        status_message: record.status_message.clone(),
        created_at: iso8601(record.created_at_ms),
        last_updated_at: iso8601(record.last_updated_at_ms),
        ttl_ms: record.ttl_ms,
        poll_interval_ms: record.poll_interval_ms,
        result,
        error,
        input_requests,
        meta: None,
        extra: Extra::new(),
    })
}

fn read_params<T: DeserializeOwned>(call: &ExtensionCall) -> Result<T, ErrorObject> {
    let text = call.params.as_ref().map_or("{}", RawJson::get);
    serde_json::from_str(text)
        .map_err(|error| invalid_params(format!("invalid params for {}: {error}", call.method)))
}

fn encode<T: serde::Serialize>(value: &T) -> Result<RawJson, ErrorObject> {
    RawJson::from_serialize(value).map_err(|error| ErrorObject::internal_error(error.to_string()))
}
