//! Tasks as the `io.modelcontextprotocol/tasks` extension of 2026-07-28
//! (SEP-2663): flat task handles (`resultType: "task"`), `tasks/get` with
//! the outcome inline, `tasks/update` for input, and empty acknowledgements.
//!
//! The core tasks of 2025-11-25 (`{task: {...}}`, `tasks/result`,
//! `tasks/list`) are modelled in `tasks.rs`; the two share [`TaskStatus`].

use serde::{Deserialize, Serialize};

use crate::{Extra, InputRequests, InputResponses, Meta, ResultType, TaskStatus};

/// The extension's identifier, the key under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The request methods the extension adds to 2026-07-28.
pub const TASKS_EXTENSION_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// The answer to a request the server chose to run as a task: a flat
/// handle (`resultType: "task"`), never the result itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedTask {
    /// Always `task`.
    pub result_type: ResultType,
    /// Identifies the task in `tasks/get`, `tasks/update` and `tasks/cancel`.
    pub task_id: String,
    /// Where the task is (normally `working`).
    pub status: TaskStatus,
    /// A human-readable note on the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created, as an ISO 8601 timestamp.
    pub created_at: String,
    /// When the task last changed, as an ISO 8601 timestamp.
    pub last_updated_at: String,
    /// How long, in milliseconds from creation, the task is kept; `null`
    /// (always written) means without limit.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// How often, in milliseconds, the client should poll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of `tasks/get`: the task's state and, once it is over, its
/// outcome inline (`result` when completed, `error` when failed), or the
/// requests it waits on when `input_required`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// Always `complete`: this is the final answer to `tasks/get`.
    pub result_type: ResultType,
    /// The task.
    pub task_id: String,
    /// Where the task is.
    pub status: TaskStatus,
    /// A human-readable note on the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created, as an ISO 8601 timestamp.
    pub created_at: String,
    /// When the task last changed, as an ISO 8601 timestamp.
    pub last_updated_at: String,
    /// How long, in milliseconds from creation, the task is kept (`null`:
    /// without limit).
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// How often, in milliseconds, the client should poll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// The original request's result, when `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    /// The JSON-RPC error the request failed with, when `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<serde_json::Value>,
    /// What the task waits for, when `input_required`; answer with `tasks/update`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Params of `tasks/update`: answers to some or all of a task's
/// outstanding input requests, by key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskRequestParams {
    /// The task.
    pub task_id: String,
    /// The answers, under the keys of the requests they answer.
    #[serde(default)]
    pub input_responses: InputResponses,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl UpdateTaskRequestParams {
    /// Answers for the task `task_id`.
    pub fn new(task_id: impl Into<String>, input_responses: InputResponses) -> Self {
        Self {
            task_id: task_id.into(),
            input_responses,
            meta: None,
            extra: Extra::new(),
        }
    }
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`
/// (`{"resultType": "complete"}`, no task fields).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskAck {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_created_task_is_flat_and_typed_task() {
        let wire = json!({ "resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:00Z",
            "ttlMs": 60000, "pollIntervalMs": 500 });
        let parsed: CreatedTask = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(parsed.result_type, ResultType::Task);
        assert_eq!(serde_json::to_value(parsed).unwrap(), wire);
    }

    #[test]
    fn the_ack_is_only_a_result_type() {
        let ack = serde_json::to_value(TaskAck::default()).unwrap();
        assert_eq!(ack, json!({ "resultType": "complete" }));
    }

    #[test]
    fn update_params_read_answers_by_key() {
        let wire = json!({ "taskId": "t", "inputResponses": {
            "confirm": { "action": "accept", "content": { "confirm": true } } } });
        let parsed: UpdateTaskRequestParams = serde_json::from_value(wire).unwrap();
        assert!(parsed.input_responses.get("confirm").is_some());
    }
}
