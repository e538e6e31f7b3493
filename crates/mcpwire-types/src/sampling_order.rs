//! The ordering rules of `tool_use` / `tool_result` blocks in the messages
//! of a sampling request (SAMP-07..10), shared by the server (before it
//! sends a request) and the client (before it hands one to its model).

use std::collections::HashSet;
use std::fmt;

use crate::{Role, SamplingContent, SamplingMessage};

/// Why the messages of a sampling request break SAMP-07..10: which message,
/// which rule, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolOrderingError {
    /// Index of the message at fault (or of the unanswered `tool_use`).
    pub index: usize,
    /// The rule broken: `"SAMP-07"`, `"SAMP-08"` or `"SAMP-10"`.
    pub rule: &'static str,
    /// What is wrong, naming the message and the rule.
    pub detail: String,
}

impl fmt::Display for ToolOrderingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for ToolOrderingError {}

fn broken(index: usize, rule: &'static str, detail: String) -> ToolOrderingError {
    ToolOrderingError {
        index,
        rule,
        detail,
    }
}

/// Checks `messages` against SAMP-07..10: `tool_result` blocks only in user
/// messages of nothing else, every assistant `tool_use` answered by the very
/// next message, and every result answering an earlier call.
pub fn check_tool_ordering(messages: &[SamplingMessage]) -> Result<(), ToolOrderingError> {
    let mut used: HashSet<&str> = HashSet::new();
    // The `tool_use` ids of the previous message, when it was an assistant
    // message with some: the next message must answer every one.
    let mut awaited: Option<(usize, Vec<&str>)> = None;
    for (index, message) in messages.iter().enumerate() {
        let blocks = message.content.blocks();
        let results: Vec<&str> = blocks
            .iter()
            .filter_map(|block| match block {
                SamplingContent::ToolResult(result) => Some(result.tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        let uses: Vec<&str> = blocks
            .iter()
            .filter_map(|block| match block {
                SamplingContent::ToolUse(call) => Some(call.id.as_str()),
                _ => None,
            })
            .collect();
        let only_results = !results.is_empty() && results.len() == blocks.len();
        if let Some((previous, ids)) = awaited.take() {
            // SAMP-08, SAMP-09: answered at once, by a user message made
            // only of results, for every call.
            let answered = ids.iter().all(|id| results.contains(id));
            if message.role != Role::User || !only_results || !answered {
                return Err(broken(
                    index,
                    "SAMP-08",
                    format!(
                        "message {index} must be a user message of only tool_result blocks answering every tool_use of message {previous} (SAMP-08)"
                    ),
                ));
            }
        }
        if !results.is_empty() {
            if !only_results || message.role != Role::User {
                return Err(broken(
                    index,
                    "SAMP-07",
                    format!(
                        "message {index} holds tool_result blocks beside other content or outside a user message (SAMP-07)"
                    ),
                ));
            }
            if let Some(id) = results.iter().find(|id| !used.contains(**id)) {
                return Err(broken(
                    index,
                    "SAMP-10",
                    format!(
                        "the tool_result of message {index} answers {id:?}, which no earlier tool_use has (SAMP-10)"
                    ),
                ));
            }
        }
        if !uses.is_empty() && message.role == Role::Assistant {
            awaited = Some((index, uses.clone()));
        }
        used.extend(uses);
    }
    match awaited {
        Some((previous, _)) => Err(broken(
            previous,
            "SAMP-08",
            format!(
                "the tool_use blocks of the last message {previous} are not answered (SAMP-08)"
            ),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use crate::{SamplingMessageContent, TextContent, ToolResultContent, ToolUseContent};

    use super::*;

    fn message(role: Role, blocks: Vec<SamplingContent>) -> SamplingMessage {
        let mut message = SamplingMessage::user_text("");
        message.role = role;
        message.content = SamplingMessageContent::Multiple(blocks);
        message
    }

    fn call(id: &str) -> SamplingContent {
        let json = serde_json::json!({"type": "tool_use", "id": id, "name": "t", "input": {}});
        SamplingContent::ToolUse(serde_json::from_value::<ToolUseContent>(json).unwrap())
    }

    fn result(id: &str) -> SamplingContent {
        let json = serde_json::json!({"type": "tool_result", "toolUseId": id, "content": []});
        SamplingContent::ToolResult(serde_json::from_value::<ToolResultContent>(json).unwrap())
    }

    fn text() -> SamplingContent {
        SamplingContent::Text(TextContent::new("hi"))
    }

    #[test]
    fn samp_07_to_10_a_well_ordered_exchange_passes() {
        let messages = [
            message(Role::User, vec![text()]),
            message(Role::Assistant, vec![text(), call("a"), call("b")]),
            message(Role::User, vec![result("b"), result("a")]),
            message(Role::Assistant, vec![text()]),
            message(Role::User, vec![text()]),
        ];
        assert_eq!(check_tool_ordering(&messages), Ok(()));
    }

    #[test]
    fn samp_07_results_mixed_with_other_content_are_refused() {
        let messages = [
            message(Role::Assistant, vec![call("a")]),
            message(Role::User, vec![result("a"), text()]),
        ];
        assert!(
            check_tool_ordering(&messages)
                .unwrap_err()
                .detail
                .contains("SAMP-08")
        );
        let messages = [message(Role::User, vec![result("a"), text()])];
        assert!(check_tool_ordering(&messages).is_err());
    }

    #[test]
    fn samp_08_09_every_call_is_answered_by_the_next_message() {
        let unanswered = [
            message(Role::Assistant, vec![call("a"), call("b")]),
            message(Role::User, vec![result("a")]),
        ];
        assert!(
            check_tool_ordering(&unanswered)
                .unwrap_err()
                .detail
                .contains("SAMP-08")
        );
        let late = [
            message(Role::Assistant, vec![call("a")]),
            message(Role::User, vec![text()]),
            message(Role::User, vec![result("a")]),
        ];
        assert!(check_tool_ordering(&late).is_err());
        let trailing = [message(Role::Assistant, vec![call("a")])];
        assert!(check_tool_ordering(&trailing).is_err());
    }

    #[test]
    fn samp_10_a_result_must_answer_an_earlier_call() {
        let messages = [message(Role::User, vec![result("ghost")])];
        assert!(
            check_tool_ordering(&messages)
                .unwrap_err()
                .detail
                .contains("SAMP-10")
        );
    }
}
