//! Tasks as they are in the core protocol of 2025-11-25 (experimental):
//! requests that run in the background and are polled for their result.
//!
//! 2026-07-28 moved tasks to the `io.modelcontextprotocol/tasks` extension,
//! which is modelled elsewhere.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::revision::keep_if;
use crate::{Cursor, Extra, ForRevision, Meta, ProtocolVersion, meta_keys};

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for input from the requestor.
    InputRequired,
    /// Finished successfully; the result can be fetched.
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has finished and its status can no longer change.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// The state of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Identifies the task.
    pub task_id: String,
    /// Where the task is.
    pub status: TaskStatus,
    /// A human-readable note on the status (why it failed, what it did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created, as an ISO 8601 timestamp.
    pub created_at: String,
    /// When the task last changed, as an ISO 8601 timestamp.
    pub last_updated_at: String,
    /// How long, in milliseconds from creation, the task is kept; `null`
    /// (always written) means without limit.
    #[serde(default)]
    pub ttl: Option<u64>,
    /// How often, in milliseconds, the requestor should poll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Task {
    /// A task `task_id` in `status`, created (and last updated) at `created_at`.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
    ) -> Self {
        let created_at = created_at.into();
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl: None,
            poll_interval: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for Task {
    /// Tasks exist in 2025-11-25 only, with the same shape throughout.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Asks for a request to run as a task: the `task` field of its params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// How long, in milliseconds from creation, the task should be kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for TaskMetadata {
    /// Same shape wherever it exists.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Ties a message to a task: the value under
/// [`meta_keys::RELATED_TASK`](crate::meta_keys::RELATED_TASK) in `_meta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task the message belongs to.
    pub task_id: String,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl RelatedTaskMetadata {
    /// Ties a message to the task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            extra: Extra::new(),
        }
    }

    /// The related task named in `meta`, if present and well formed.
    pub fn from_meta(meta: &Meta) -> Option<Self> {
        meta.get_as(meta_keys::RELATED_TASK)
    }

    /// Writes this into `meta` under its reserved key.
    pub fn insert_into(&self, meta: &mut Meta) {
        let mut value = self.extra.clone();
        value.insert("taskId".into(), self.task_id.clone().into());
        meta.insert(meta_keys::RELATED_TASK, value);
    }
}

impl ForRevision for RelatedTaskMetadata {
    /// Same shape wherever it exists.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of a request that may ask to run as a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskAugmentedRequestParams {
    /// Asks for the request to run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for TaskAugmentedRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_core_tasks(), &mut self.task);
    }
}

/// The answer to a request that was accepted as a task: the task, not yet
/// the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The new task.
    pub task: Task,
    /// Metadata; may carry [`CreateTaskResult::MODEL_IMMEDIATE_RESPONSE`].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CreateTaskResult {
    /// The `_meta` key of a text a host may hand the model as the immediate
    /// tool result while a `tools/call` task runs (provisional guidance).
    pub const MODEL_IMMEDIATE_RESPONSE: &'static str =
        "io.modelcontextprotocol/model-immediate-response";

    /// The result announcing `task`.
    pub fn new(task: Task) -> Self {
        Self {
            task,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The immediate response for the model, if the server gave one.
    pub fn model_immediate_response(&self) -> Option<&str> {
        self.meta
            .as_ref()
            .and_then(|m| m.get_str(Self::MODEL_IMMEDIATE_RESPONSE))
    }
}

impl ForRevision for CreateTaskResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.task.fit_to(version);
    }
}

/// Defines the params of a request that names one task.
macro_rules! task_id_params {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// The task.
            pub task_id: String,
            /// Metadata.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<Meta>,
            /// Fields this model does not name.
            #[serde(flatten)]
            pub extra: Extra,
        }

        impl $name {
            /// Params naming the task `task_id`.
            pub fn new(task_id: impl Into<String>) -> Self {
                Self { task_id: task_id.into(), meta: None, extra: Extra::new() }
            }
        }

        impl ForRevision for $name {
            /// Same shape wherever it exists.
            fn fit_to(&mut self, _version: ProtocolVersion) {}
        }
    };
}

task_id_params!(
    /// Params of `tasks/get`: the task whose state to read.
    GetTaskRequestParams
);
task_id_params!(
    /// Params of `tasks/result`: the task whose result to fetch (the call
    /// waits until the task finishes).
    GetTaskPayloadRequestParams
);
task_id_params!(
    /// Params of `tasks/cancel`: the task to cancel.
    CancelTaskRequestParams
);

/// Defines a result or params made of a [`Task`] plus `_meta`.
///
/// Unknown fields land in the task's `extra`, the only open map here.
macro_rules! task_with_meta {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        pub struct $name {
            /// The task's state (its fields sit at the top level on the wire).
            #[serde(flatten)]
            pub task: Task,
            /// Metadata.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<Meta>,
        }

        impl From<Task> for $name {
            fn from(task: Task) -> Self {
                Self { task, meta: None }
            }
        }

        impl ForRevision for $name {
            fn fit_to(&mut self, version: ProtocolVersion) {
                self.task.fit_to(version);
            }
        }
    };
}

task_with_meta!(
    /// The result of `tasks/get`: the task's current state.
    GetTaskResult
);
task_with_meta!(
    /// The result of `tasks/cancel`: the task's state after cancelling.
    CancelTaskResult
);
task_with_meta!(
    /// Params of `notifications/tasks/status`: a task's new state.
    TaskStatusNotificationParams
);

/// The result of `tasks/result`: the result of the original request (e.g. a
/// `CallToolResult` for `tools/call`), kept open until the caller reads it
/// as that type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetTaskPayloadResult {
    /// Metadata; normally names the task under
    /// [`meta_keys::RELATED_TASK`](crate::meta_keys::RELATED_TASK).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The fields of the original request's result.
    #[serde(flatten)]
    pub extra: Extra,
}

impl GetTaskPayloadResult {
    /// Reads the payload as the original request's result type `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_value(serde_json::to_value(self)?)
    }

    /// The task this result belongs to, from `_meta`.
    pub fn related_task(&self) -> Option<RelatedTaskMetadata> {
        self.meta.as_ref().and_then(RelatedTaskMetadata::from_meta)
    }
}

impl ForRevision for GetTaskPayloadResult {
    /// The payload is opaque here; the caller fits the typed result.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// The result of `tasks/list`: one page of tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// The tasks on this page.
    pub tasks: Vec<Task>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for ListTasksResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.tasks.fit_to(version);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::fitted;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(parsed).unwrap()
    }

    fn working_task() -> Value {
        json!({ "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840", "status": "working",
            "statusMessage": "The operation is now in progress.",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
            "ttl": 60000, "pollInterval": 5000 })
    }

    #[test]
    fn task_examples_from_the_2025_11_25_prose_round_trip() {
        let created = json!({ "task": working_task() });
        assert_eq!(round_trip::<CreateTaskResult>(&created), created);
        assert_eq!(round_trip::<GetTaskResult>(&working_task()), working_task());
        let status = json!({ "taskId": "t", "status": "completed",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:50:00Z",
            "ttl": 60000, "pollInterval": 5000 });
        assert_eq!(round_trip::<TaskStatusNotificationParams>(&status), status);
        let list = json!({ "tasks": [working_task()], "nextCursor": "next-page-cursor" });
        assert_eq!(round_trip::<ListTasksResult>(&list), list);
        let params = json!({ "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840" });
        assert_eq!(round_trip::<GetTaskRequestParams>(&params), params);
        assert_eq!(round_trip::<GetTaskPayloadRequestParams>(&params), params);
        assert_eq!(round_trip::<CancelTaskRequestParams>(&params), params);
    }

    #[test]
    fn an_unlimited_ttl_is_written_as_null() {
        let task = Task::new("t", TaskStatus::Working, "2025-11-25T10:30:00Z");
        let wire = serde_json::to_value(GetTaskResult::from(task)).unwrap();
        assert_eq!(wire["ttl"], Value::Null);
        let back: GetTaskResult = serde_json::from_value(wire).unwrap();
        assert_eq!(back.task.ttl, None);
    }

    #[test]
    fn meta_and_unknown_fields_of_flattened_tasks_are_kept_apart() {
        let mut wire = working_task();
        wire["_meta"] = json!({ "k": "v" });
        wire["x-vendor"] = json!(1);
        let parsed: CancelTaskResult = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(parsed.meta.as_ref().and_then(|m| m.get_str("k")), Some("v"));
        assert_eq!(parsed.task.extra.get("x-vendor"), Some(&json!(1)));
        assert!(!parsed.task.extra.contains_key("_meta"));
        assert_eq!(serde_json::to_value(parsed).unwrap(), wire);
    }

    #[test]
    fn payload_result_is_read_as_the_original_result_type() {
        let wire = json!({ "content": [{ "type": "text", "text": "72°F" }], "isError": false,
            "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "t1" } } });
        let payload: GetTaskPayloadResult = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(serde_json::to_value(&payload).unwrap(), wire);
        assert_eq!(payload.related_task().map(|t| t.task_id), Some("t1".into()));
        let as_map: serde_json::Map<String, Value> = payload.parse().unwrap();
        assert_eq!(as_map["isError"], json!(false));
    }

    #[test]
    fn related_task_is_written_under_its_reserved_key() {
        let mut meta = Meta::new();
        RelatedTaskMetadata::new("t9").insert_into(&mut meta);
        assert_eq!(
            meta.get(meta_keys::RELATED_TASK),
            Some(&json!({ "taskId": "t9" }))
        );
        assert_eq!(
            RelatedTaskMetadata::from_meta(&meta),
            Some(RelatedTaskMetadata::new("t9"))
        );
    }

    #[test]
    fn only_finished_statuses_are_terminal() {
        let statuses: Vec<TaskStatus> = serde_json::from_value(json!([
            "working",
            "input_required",
            "completed",
            "failed",
            "cancelled"
        ]))
        .unwrap();
        let terminal: Vec<bool> = statuses.iter().map(|s| s.is_terminal()).collect();
        assert_eq!(terminal, [false, false, true, true, true]);
    }

    #[test]
    fn task_augmentation_exists_in_2025_11_25_only() {
        let params = TaskAugmentedRequestParams {
            task: Some(TaskMetadata {
                ttl: Some(60000),
                extra: Extra::new(),
            }),
            ..Default::default()
        };
        assert!(
            fitted(params.clone(), ProtocolVersion::V2025_11_25)
                .task
                .is_some()
        );
        assert!(
            fitted(params.clone(), ProtocolVersion::V2025_06_18)
                .task
                .is_none()
        );
        assert!(fitted(params, ProtocolVersion::V2026_07_28).task.is_none());
    }

    #[test]
    fn model_immediate_response_is_read_from_meta() {
        let task: Task = serde_json::from_value(working_task()).unwrap();
        let mut result = CreateTaskResult::new(task);
        result.meta = Some(Meta::new());
        if let Some(meta) = &mut result.meta {
            meta.insert(CreateTaskResult::MODEL_IMMEDIATE_RESPONSE, "Working on it.");
        }
        assert_eq!(result.model_immediate_response(), Some("Working on it."));
    }
}
