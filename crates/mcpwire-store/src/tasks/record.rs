//! What a task store keeps about one task, and the status transitions a
//! store applies to it (TASK-14..16), as plain serialisable data so that a
//! shared store (Redis, a database) can hold it.

use mcpwire_jsonrpc::{ErrorCode, ErrorObject};
use mcpwire_types::{InputRequests, InputResponses, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One task as a store keeps it. Everything needed to answer `tasks/get`,
/// `tasks/result` and `tasks/list` is here: reading a task needs no handle
/// into the process that runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id: random, high-entropy (TASK-12, TASK-13, TASK-48).
    pub task_id: String,
    /// The requestor the task is bound to (a session or an authorization
    /// context), when there is one; others cannot see it (TASK-47).
    pub owner: Option<String>,
    /// The method the task runs, e.g. `tools/call`.
    pub method: String,
    /// Where it is.
    pub status: TaskStatus,
    /// A human-readable note on the status.
    pub status_message: Option<String>,
    /// Creation time, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Time of the last change, in milliseconds since the Unix epoch.
    pub last_updated_at_ms: u64,
    /// How long the task is kept after creation (`None`: without limit).
    pub ttl_ms: Option<u64>,
    /// How often the requestor should poll.
    pub poll_interval_ms: Option<u64>,
    /// The result of the original request (as JSON, not yet fitted to a
    /// revision), once there is one.
    pub result: Option<Value>,
    /// The JSON-RPC error the request failed with, when it failed with one.
    pub error: Option<TaskFailure>,
    /// The input requests the task waits on (`input_required`), by key.
    pub input_requests: Option<InputRequests>,
    /// The answers gathered so far for the current round of input.
    pub input_responses: InputResponses,
    /// The handler's own state for its next round, as it gave it.
    pub state: Option<Vec<u8>>,
    /// Grows with every change, so that a watcher can tell one apart.
    pub revision: u64,
}

impl TaskRecord {
    /// A new task, `working` (TASK-14).
    pub fn new(task_id: String, method: impl Into<String>, now_ms: u64) -> Self {
        Self {
            task_id,
            owner: None,
            method: method.into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now_ms,
            last_updated_at_ms: now_ms,
            ttl_ms: None,
            poll_interval_ms: None,
            result: None,
            error: None,
            input_requests: None,
            input_responses: InputResponses::new(),
            state: None,
            revision: 0,
        }
    }

    /// Whether its time to live has run out at `now_ms` (TASK-18).
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.ttl_ms
            .is_some_and(|ttl| now_ms >= self.created_at_ms.saturating_add(ttl))
    }

    /// Whether `owner` may see it: an unbound task is seen by anyone who
    /// knows its id; a bound one only by its owner (TASK-47).
    pub fn visible_to(&self, owner: Option<&str>) -> bool {
        self.owner.is_none() || self.owner.as_deref() == owner
    }

    /// Applies `change` at `now_ms`; returns whether anything changed.
    /// A terminal task never changes again (TASK-16, TASK-43).
    pub fn apply(&mut self, change: TaskChange, now_ms: u64) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        match change {
            TaskChange::InputRequired { requests, state } => {
                // Answers to keys asked again are stale: the handler wants new ones.
                for key in requests.0.keys() {
                    self.input_responses.0.remove(key);
                }
                self.status = TaskStatus::InputRequired;
                self.input_requests = Some(requests);
                self.state = state;
            }
            TaskChange::Answer(responses) => {
                let Some(outstanding) = self.input_requests.as_mut() else {
                    return false;
                };
                let mut answered = false;
                for (key, response) in responses.0 {
                    // Answers to unknown or already-answered keys are ignored.
                    if outstanding.0.remove(&key).is_some() {
                        self.input_responses.0.insert(key, response);
                        answered = true;
                    }
                }
                if !answered {
                    return false;
                }
                if outstanding.is_empty() {
                    // TASK-29: all the input is there, back to work.
                    self.input_requests = None;
                    self.status = TaskStatus::Working;
                }
            }
            TaskChange::Complete { result, message } => {
                self.status = TaskStatus::Completed;
                self.result = Some(result);
                self.status_message = message;
                self.input_requests = None;
            }
            TaskChange::Fail {
                error,
                result,
                message,
            } => {
                self.status = TaskStatus::Failed;
                self.error = error;
                self.result = result;
                self.status_message = message;
                self.input_requests = None;
            }
            TaskChange::Cancel => {
                self.status = TaskStatus::Cancelled;
                self.status_message = Some("The task was cancelled.".to_owned());
                self.input_requests = None;
            }
        }
        self.last_updated_at_ms = now_ms.max(self.last_updated_at_ms);
        self.revision += 1;
        true
    }
}

/// A change to a task, applied atomically by its store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[non_exhaustive]
pub enum TaskChange {
    /// The handler needs input: the task waits on `requests` (TASK-26).
    InputRequired {
        /// What it waits on, by key.
        requests: InputRequests,
        /// The handler's state for its next round.
        state: Option<Vec<u8>>,
    },
    /// The requestor answered some of the outstanding requests; when none
    /// is left the task is `working` again.
    Answer(InputResponses),
    /// The request finished with `result`.
    Complete {
        /// The original request's result.
        result: Value,
        /// A note on the status.
        message: Option<String>,
    },
    /// The request failed.
    Fail {
        /// The JSON-RPC error, when it failed with one.
        error: Option<TaskFailure>,
        /// The result, when it failed as a result (a tool error in 2025-11-25).
        result: Option<Value>,
        /// A note on the status (TASK-46).
        message: Option<String>,
    },
    /// The requestor cancelled the task (TASK-42).
    Cancel,
}

/// A JSON-RPC error, kept in a form every store can serialise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskFailure {
    /// The error code.
    pub code: i64,
    /// The message.
    pub message: String,
    /// The error's `data`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl TaskFailure {
    /// The failure of `error`.
    pub fn from_error(error: &ErrorObject) -> Self {
        Self {
            code: error.code.0,
            message: error.message.clone(),
            data: error
                .data
                .as_ref()
                .and_then(|raw| serde_json::from_str(raw.get()).ok()),
        }
    }

    /// The JSON-RPC error again.
    pub fn to_error(&self) -> ErrorObject {
        let error = ErrorObject::new(ErrorCode(self.code), self.message.clone());
        match &self.data {
            Some(data) => error.clone().with_data(data).unwrap_or(error),
            None => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_types::{ElicitRequestParams, InputRequestKind, InputResponse, RequestedSchema};
    use serde_json::json;

    use super::*;

    fn two_questions() -> InputRequests {
        let mut requests = InputRequests::new();
        for key in ["a", "b"] {
            let params = ElicitRequestParams::form("?", RequestedSchema::default());
            requests.insert(key, InputRequestKind::Elicit(params).into());
        }
        requests
    }

    fn answer(key: &str) -> InputResponses {
        let mut responses = InputResponses::new();
        let value = json!({ "action": "accept", "content": { "ok": true } });
        let response: InputResponse = serde_json::from_value(value).unwrap();
        responses.insert(key, response);
        responses
    }

    #[test]
    fn a_terminal_task_never_changes_again_task_16() {
        let mut record = TaskRecord::new("t".into(), "tools/call", 0);
        assert!(record.apply(TaskChange::Cancel, 1));
        let done = TaskChange::Complete {
            result: json!({}),
            message: None,
        };
        assert!(!record.apply(done, 2));
        assert_eq!(record.status, TaskStatus::Cancelled);
    }

    #[test]
    fn a_partial_answer_keeps_the_task_waiting_on_the_rest() {
        let mut record = TaskRecord::new("t".into(), "tools/call", 0);
        let ask = TaskChange::InputRequired {
            requests: two_questions(),
            state: None,
        };
        record.apply(ask, 1);
        assert!(record.apply(TaskChange::Answer(answer("a")), 2));
        assert_eq!(record.status, TaskStatus::InputRequired);
        let left: Vec<_> = record
            .input_requests
            .iter()
            .flat_map(|r| r.0.keys())
            .collect();
        assert_eq!(left, ["b"]);
        assert!(!record.apply(TaskChange::Answer(answer("zzz")), 3));
        assert!(record.apply(TaskChange::Answer(answer("b")), 4));
        assert_eq!(record.status, TaskStatus::Working);
        assert_eq!(record.input_responses.0.len(), 2);
    }

    #[test]
    fn a_task_expires_when_its_ttl_from_creation_has_passed() {
        let mut record = TaskRecord::new("t".into(), "tools/call", 1_000);
        record.ttl_ms = Some(500);
        assert!(!record.is_expired(1_499));
        assert!(record.is_expired(1_500));
    }

    #[test]
    fn records_survive_serialisation_for_shared_stores() {
        let mut record = TaskRecord::new("t".into(), "tools/call", 5);
        record.apply(
            TaskChange::InputRequired {
                requests: two_questions(),
                state: Some(b"s".to_vec()),
            },
            6,
        );
        let text = serde_json::to_string(&record).unwrap();
        let back: TaskRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, record);
    }
}
