//! Tasks from the client side (2025-11-25, experimental): calling a tool
//! as a task, polling it (`tasks/get`), fetching its result
//! (`tasks/result`), listing (`tasks/list`) and cancelling
//! (`tasks/cancel`), and receiving `notifications/tasks/status`.
//!
//! A `tools/call` answered with a task handle (in either revision) reads
//! as a [`CallToolResult`] without content; [`task_of`] tells such a
//! handle apart and gives the task.
//!
//! In 2026-07-28 tasks are the extension `io.modelcontextprotocol/tasks`:
//! a client declares it with [`with_tasks_extension`], then polls with
//! [`Client::get_extension_task`], supplies input with
//! [`Client::update_extension_task`] and cancels with
//! [`Client::cancel_extension_task`].

use mcpwire_session::ClientConfig;
use mcpwire_types::methods::{
    CallTool, CancelTask, GetTask, GetTaskPayload, ListTasks, ServerNotification,
};
use mcpwire_types::tasks_extension::{
    CreatedTask, DetailedTask, TASKS_EXTENSION, TASKS_EXTENSION_METHODS, TaskAck,
    UpdateTaskRequestParams,
};
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, CancelTaskRequestParams, Cursor,
    GetTaskPayloadRequestParams, GetTaskPayloadResult, GetTaskRequestParams, InputResponses,
    ListTasksResult, PaginatedRequestParams, ResultType, Task, TaskMetadata,
    TaskStatusNotificationParams,
};
use serde_json::{Map, Value};
use tokio::sync::broadcast;

use crate::{Client, ClientError, RequestOptions};

/// The task a `tools/call` result announces instead of the tool's result,
/// when the server ran the call as a task: `{task: {...}}` (2025-11-25) or
/// a flat handle with `resultType: "task"` (2026-07-28 extension).
pub fn task_of(result: &CallToolResult) -> Option<Task> {
    if let Some(task) = result.extra.get("task") {
        return serde_json::from_value(task.clone()).ok();
    }
    if result.result_type != Some(ResultType::Task) {
        return None;
    }
    let mut fields = result.extra.clone();
    fields.insert("resultType".into(), Value::from("task"));
    let created: CreatedTask = serde_json::from_value(Value::Object(fields)).ok()?;
    let mut task = Task::new(created.task_id, created.status, created.created_at);
    task.last_updated_at = created.last_updated_at;
    task.status_message = created.status_message;
    task.ttl = created.ttl_ms;
    task.poll_interval = created.poll_interval_ms;
    Some(task)
}

/// `config` declaring the 2026-07-28 tasks extension (in the `_meta`
/// capabilities of every request, which lets the server turn calls into
/// tasks) and allowed to send its `tasks/get`, `tasks/update` and
/// `tasks/cancel`.
pub fn with_tasks_extension(config: ClientConfig) -> ClientConfig {
    config.with_extension(TASKS_EXTENSION, &TASKS_EXTENSION_METHODS)
}

/// `serializable` as a JSON object, the params of an extension request.
fn params_of(serializable: &impl serde::Serialize) -> Result<Map<String, Value>, ClientError> {
    match serde_json::to_value(serializable) {
        Ok(Value::Object(params)) => Ok(params),
        Ok(other) => Err(ClientError::InvalidResult(format!(
            "params must be a JSON object, not {other}"
        ))),
        Err(error) => Err(ClientError::InvalidResult(error.to_string())),
    }
}

/// An extension request's JSON result read as `T`.
fn read_result<T: serde::de::DeserializeOwned>(result: Value) -> Result<T, ClientError> {
    serde_json::from_value(result).map_err(|error| ClientError::InvalidResult(error.to_string()))
}

impl Client {
    /// `tasks/get` of the 2026-07-28 tasks extension: the task's state,
    /// with the original request's `result` (completed) or `error`
    /// (failed) inline, or the `inputRequests` it waits on
    /// (`input_required`). Poll it until the status is terminal.
    ///
    /// # Errors
    ///
    /// As [`Client::request_extension`] (-32602 for an unknown or expired
    /// task), or [`ClientError::InvalidResult`] when the answer is not a task.
    pub async fn get_extension_task(
        &self,
        task_id: impl Into<String>,
    ) -> Result<DetailedTask, ClientError> {
        let params = params_of(&GetTaskRequestParams::new(task_id))?;
        let result = self
            .request_extension("tasks/get", params, RequestOptions::default())
            .await?;
        read_result(result)
    }

    /// `tasks/update` of the 2026-07-28 tasks extension: answers some or
    /// all of the task's input requests, under their keys. The server
    /// acknowledges at once; poll to see the task go on.
    ///
    /// # Errors
    ///
    /// As [`Client::request_extension`] (-32602 for an unknown task or a
    /// key it does not wait on).
    pub async fn update_extension_task(
        &self,
        task_id: impl Into<String>,
        input_responses: InputResponses,
    ) -> Result<TaskAck, ClientError> {
        let params = params_of(&UpdateTaskRequestParams::new(task_id, input_responses))?;
        let result = self
            .request_extension("tasks/update", params, RequestOptions::default())
            .await?;
        read_result(result)
    }

    /// `tasks/cancel` of the 2026-07-28 tasks extension: asks the server to
    /// stop the task. The acknowledgement carries no task; poll to see it
    /// `cancelled`.
    ///
    /// # Errors
    ///
    /// As [`Client::request_extension`] (-32602 for an unknown task).
    pub async fn cancel_extension_task(
        &self,
        task_id: impl Into<String>,
    ) -> Result<TaskAck, ClientError> {
        let params = params_of(&CancelTaskRequestParams::new(task_id))?;
        let result = self
            .request_extension("tasks/cancel", params, RequestOptions::default())
            .await?;
        read_result(result)
    }

    /// `tools/call` of `name` as a task (2025-11-25), asking that the task
    /// be kept `ttl_ms` milliseconds: the server answers at once with the
    /// task; poll it with [`Client::get_task`] and fetch the tool's result
    /// with [`Client::task_tool_result`].
    ///
    /// # Errors
    ///
    /// As [`Client::request`] (-32601 when the tool forbids tasks: TASK-06),
    /// or [`ClientError::InvalidResult`] when the server answered with the
    /// tool's result instead of a task.
    pub async fn call_tool_as_task(
        &self,
        name: impl Into<String>,
        arguments: Map<String, Value>,
        ttl_ms: Option<u64>,
    ) -> Result<Task, ClientError> {
        let mut params = CallToolRequestParams::with_arguments(name, arguments);
        params.task = Some(TaskMetadata {
            ttl: ttl_ms,
            ..TaskMetadata::default()
        });
        let result = self
            .request::<CallTool>(params, RequestOptions::default())
            .await?;
        task_of(&result).ok_or_else(|| {
            ClientError::InvalidResult("the server answered with a result, not a task".to_owned())
        })
    }

    /// `tasks/get`: the task's current state.
    ///
    /// # Errors
    ///
    /// As [`Client::request`] (-32602 for an unknown or expired task).
    pub async fn get_task(&self, task_id: impl Into<String>) -> Result<Task, ClientError> {
        let params = GetTaskRequestParams::new(task_id);
        let result = self
            .request::<GetTask>(params, RequestOptions::default())
            .await?;
        Ok(result.task)
    }

    /// `tasks/result`: waits until the task is over and returns the result
    /// of the original request (with the related-task `_meta`).
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; the original request's error when it failed.
    pub async fn task_result(
        &self,
        task_id: impl Into<String>,
    ) -> Result<GetTaskPayloadResult, ClientError> {
        let params = GetTaskPayloadRequestParams::new(task_id);
        self.request::<GetTaskPayload>(params, RequestOptions::default())
            .await
    }

    /// `tasks/result` of a `tools/call` task, read as the tool's result.
    ///
    /// # Errors
    ///
    /// As [`Client::task_result`], or [`ClientError::InvalidResult`] when
    /// the payload is not a `CallToolResult`.
    pub async fn task_tool_result(
        &self,
        task_id: impl Into<String>,
    ) -> Result<CallToolResult, ClientError> {
        let payload = self.task_result(task_id).await?;
        payload
            .parse()
            .map_err(|error| ClientError::InvalidResult(error.to_string()))
    }

    /// `tasks/list`: one page of the tasks this client may see, starting at
    /// `cursor` (the first page for `None`).
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn list_tasks(&self, cursor: Option<Cursor>) -> Result<ListTasksResult, ClientError> {
        let params = PaginatedRequestParams {
            cursor,
            ..PaginatedRequestParams::default()
        };
        self.request::<ListTasks>(params, RequestOptions::default())
            .await
    }

    /// `tasks/cancel`: asks the server to stop the task; returns its state
    /// afterwards (normally `cancelled`).
    ///
    /// # Errors
    ///
    /// As [`Client::request`] (-32602 when the task is already over: TASK-41).
    pub async fn cancel_task(&self, task_id: impl Into<String>) -> Result<Task, ClientError> {
        let params = CancelTaskRequestParams::new(task_id);
        let result = self
            .request::<CancelTask>(params, RequestOptions::default())
            .await?;
        Ok(result.task)
    }

    /// The `notifications/tasks/status` the server sends from now on. They
    /// are optional and may skip transitions (TASK-35): keep polling.
    pub fn task_status_updates(&self) -> TaskStatusUpdates {
        TaskStatusUpdates {
            notifications: self.notifications(),
        }
    }
}

/// The task status notifications of one client, in the order they came.
#[derive(Debug)]
pub struct TaskStatusUpdates {
    notifications: broadcast::Receiver<ServerNotification>,
}

impl TaskStatusUpdates {
    /// The next status notification; `None` once the session is over. A
    /// reader that lags loses the oldest notifications, not the session.
    pub async fn next(&mut self) -> Option<TaskStatusNotificationParams> {
        loop {
            match self.notifications.recv().await {
                Ok(ServerNotification::TaskStatus(params)) => return Some(*params),
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn task_handles_of_both_revisions_are_recognised() {
        let core: CallToolResult = serde_json::from_value(json!({ "content": [],
            "task": { "taskId": "a", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
                      "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 1000 } }))
        .unwrap();
        assert_eq!(task_of(&core).map(|t| t.task_id), Some("a".to_owned()));
        let extension: CallToolResult = serde_json::from_value(json!({ "content": [],
            "resultType": "task", "taskId": "b", "status": "working",
            "createdAt": "2026-07-28T10:30:00Z", "lastUpdatedAt": "2026-07-28T10:30:00Z",
            "ttlMs": 1000, "pollIntervalMs": 50 }))
        .unwrap();
        let task = task_of(&extension).unwrap();
        assert_eq!((task.task_id.as_str(), task.poll_interval), ("b", Some(50)));
        assert!(task_of(&CallToolResult::text("plain")).is_none());
    }
}
