//! Sampling: a server asking the client's LLM for a message
//! (`sampling/createMessage`), with model preferences and, from 2025-11-25,
//! tools.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::revision::keep_if;
use crate::{
    Extra, ForRevision, Meta, ProtocolVersion, Role, SamplingContent, TaskMetadata, TextContent,
    Tool,
};

/// Params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation to continue.
    pub messages: Vec<SamplingMessage>,
    /// Which model the server would like; the client may ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may modify or omit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP servers' context to attach; the client may ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to sample; the client may sample fewer.
    pub max_tokens: u64,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata passed through to the LLM provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may use (2025-11-25 on; needs the client's
    /// `sampling.tools` capability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use the tools (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Asks for the request to run as a task (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Metadata (every handshake revision; 2026-07-28 carries these params
    /// inside an input request, which has no `_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CreateMessageRequestParams {
    /// A request to continue `messages`, sampling at most `max_tokens`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            task: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for CreateMessageRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.messages.fit_to(version);
        keep_if(version.has_sampling_tools(), &mut self.tools);
        keep_if(version.has_sampling_tools(), &mut self.tool_choice);
        self.tools.fit_to(version);
        keep_if(version.has_core_tasks(), &mut self.task);
        keep_if(version.has_server_requests(), &mut self.meta);
    }
}

/// A message sent to or received from an LLM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said: one block, or (2025-11-25 on) several.
    pub content: SamplingMessageContent,
    /// Metadata (2025-11-25 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl SamplingMessage {
    /// A message from `role` with one block of `content`.
    pub fn new(role: Role, content: SamplingContent) -> Self {
        Self {
            role,
            content: SamplingMessageContent::Single(content),
            meta: None,
            extra: Extra::new(),
        }
    }

    /// A user message holding `text`.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, SamplingContent::Text(TextContent::new(text)))
    }
}

impl ForRevision for SamplingMessage {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.content.fit_to(version);
        // `_meta` on sampling messages arrived with sampling tools, in 2025-11-25.
        keep_if(version.has_sampling_tools(), &mut self.meta);
    }
}

/// The `content` of a sampling message or result: a single block, or from
/// 2025-11-25 an array of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingMessageContent {
    /// One block (every revision).
    Single(SamplingContent),
    /// Several blocks (2025-11-25 on).
    Multiple(Vec<SamplingContent>),
}

impl SamplingMessageContent {
    /// The blocks, whichever form they came in.
    pub fn blocks(&self) -> &[SamplingContent] {
        match self {
            Self::Single(block) => std::slice::from_ref(block),
            Self::Multiple(blocks) => blocks,
        }
    }

    /// The blocks, owned.
    pub fn into_blocks(self) -> Vec<SamplingContent> {
        match self {
            Self::Single(block) => vec![block],
            Self::Multiple(blocks) => blocks,
        }
    }
}

impl From<SamplingContent> for SamplingMessageContent {
    fn from(block: SamplingContent) -> Self {
        Self::Single(block)
    }
}

impl From<Vec<SamplingContent>> for SamplingMessageContent {
    fn from(blocks: Vec<SamplingContent>) -> Self {
        Self::Multiple(blocks)
    }
}

impl<'de> Deserialize<'de> for SamplingMessageContent {
    /// Chooses by the JSON kind (array or object), not by trying each form.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match Value::deserialize(deserializer)? {
            Value::Array(items) => items
                .into_iter()
                .map(SamplingContent::deserialize)
                .collect::<Result<Vec<_>, _>>()
                .map(Self::Multiple)
                .map_err(D::Error::custom),
            other => SamplingContent::deserialize(other)
                .map(Self::Single)
                .map_err(D::Error::custom),
        }
    }
}

impl ForRevision for SamplingMessageContent {
    /// Before 2025-11-25 content is a single block: one block is unwrapped,
    /// and several become one text block that joins their text (kinds the
    /// revision lacks already turned into notes by the block's own fitting).
    fn fit_to(&mut self, version: ProtocolVersion) {
        match self {
            Self::Single(block) => block.fit_to(version),
            Self::Multiple(blocks) => blocks.fit_to(version),
        }
        if version.has_sampling_tools() {
            return;
        }
        if let Self::Multiple(blocks) = self {
            let single = match blocks.len() {
                1 => blocks.remove(0),
                _ => SamplingContent::Text(TextContent::new(joined_text(blocks))),
            };
            *self = Self::Single(single);
        }
    }
}

/// The text of several blocks as one string; media becomes a short note.
fn joined_text(blocks: &[SamplingContent]) -> String {
    let parts: Vec<String> = blocks
        .iter()
        .map(|block| match block {
            SamplingContent::Text(t) => t.text.clone(),
            SamplingContent::Image(m) => format!("[image content ({}) omitted]", m.mime_type),
            SamplingContent::Audio(m) => format!("[audio content ({}) omitted]", m.mime_type),
            SamplingContent::ToolUse(u) => format!("[tool use {}: {}]", u.id, u.name),
            SamplingContent::ToolResult(r) => format!("[tool result for {}]", r.tool_use_id),
        })
        .collect();
    parts.join("\n\n")
}

/// Which MCP servers' context the client should attach to the prompt.
///
/// From 2025-11-25 the values other than `none` are soft-deprecated and need
/// the client's `sampling.context` capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context (the default).
    None,
    /// Context from the requesting server.
    ThisServer,
    /// Context from every connected server.
    AllServers,
}

/// The server's preferences for the model the client picks.
///
/// The priorities range from 0 (unimportant) to 1 (most important).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, tried in order; the first match wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much low cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much low latency matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for ModelPreferences {
    /// Every revision has the same preferences.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// A hint for model selection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A substring of a model name, e.g. `sonnet`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fields this model does not name; clients may interpret other keys.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for ModelHint {
    /// Every revision has the same hint.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

impl ModelHint {
    /// A hint naming (part of) a model name.
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: Some(name.into()),
            extra: Extra::new(),
        }
    }
}

/// How the model may use the tools of a sampling request (2025-11-25 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode; `auto` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ToolChoice {
    /// A choice with `mode`.
    pub fn new(mode: ToolChoiceMode) -> Self {
        Self {
            mode: Some(mode),
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ToolChoice {
    /// The same shape wherever it exists (2025-11-25 on).
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Whether the model may, must or must not use tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    Auto,
    /// The model must use at least one tool before finishing.
    Required,
    /// The model must not use tools.
    None,
}

/// The client's answer to `sampling/createMessage`: the sampled message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (normally the assistant).
    pub role: Role,
    /// The sampled content: one block, or (2025-11-25 on) several.
    pub content: SamplingMessageContent,
    /// The name of the model that produced it.
    pub model: String,
    /// Why sampling stopped, if known; an open string, see the `STOP_*` constants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CreateMessageResult {
    /// The assistant's turn ended naturally.
    pub const STOP_END_TURN: &'static str = "endTurn";
    /// A stop sequence was met.
    pub const STOP_STOP_SEQUENCE: &'static str = "stopSequence";
    /// The token limit was reached.
    pub const STOP_MAX_TOKENS: &'static str = "maxTokens";
    /// The model wants to use tools (2025-11-25 on).
    pub const STOP_TOOL_USE: &'static str = "toolUse";

    /// A result from `model` holding `content`, spoken by the assistant.
    pub fn new(model: impl Into<String>, content: impl Into<SamplingMessageContent>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
            model: model.into(),
            stop_reason: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for CreateMessageResult {
    /// No `resultType` here: in 2026-07-28 this travels as an input
    /// response, which the schema gives none.
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.content.fit_to(version);
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

    #[test]
    fn spec_examples_of_sampling_round_trip() {
        let with_preferences = json!({
            "messages": [{ "role": "user",
                "content": { "type": "text", "text": "What is the capital of France?" } }],
            "modelPreferences": { "hints": [{ "name": "claude-3-sonnet" }],
                "intelligencePriority": 0.8, "speedPriority": 0.5 },
            "systemPrompt": "You are a helpful assistant.",
            "maxTokens": 100
        });
        assert_eq!(
            round_trip::<CreateMessageRequestParams>(&with_preferences),
            with_preferences
        );
        let tool_loop = json!({
            "messages": [
                { "role": "user", "content": { "type": "text", "text": "Weather in Paris?" } },
                { "role": "assistant", "content": [{ "type": "tool_use", "id": "call_abc123",
                    "name": "get_weather", "input": { "city": "Paris" } }] },
                { "role": "user", "content": [{ "type": "tool_result", "toolUseId": "call_abc123",
                    "content": [{ "type": "text", "text": "18°C, partly cloudy" }] }] }
            ],
            "tools": [{ "name": "get_weather", "description": "Get current weather for a city",
                "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } },
                    "required": ["city"] } }],
            "toolChoice": { "mode": "auto" },
            "maxTokens": 1000
        });
        assert_eq!(
            round_trip::<CreateMessageRequestParams>(&tool_loop),
            tool_loop
        );
        let result = json!({ "role": "assistant",
            "content": [{ "type": "tool_use", "id": "call_abc123", "name": "get_weather",
                "input": { "city": "Paris" } }],
            "model": "claude-3-sonnet-20240307", "stopReason": "toolUse" });
        assert_eq!(round_trip::<CreateMessageResult>(&result), result);
    }

    #[test]
    fn content_array_becomes_a_single_block_before_2025_11_25() {
        let one: SamplingMessage = serde_json::from_value(json!({ "role": "user",
            "content": [{ "type": "text", "text": "hi" }] }))
        .unwrap();
        let one = fitted(one, ProtocolVersion::V2025_06_18);
        assert_eq!(
            serde_json::to_value(one).unwrap(),
            json!({ "role": "user", "content": { "type": "text", "text": "hi" } })
        );

        let many: CreateMessageResult = serde_json::from_value(json!({ "role": "assistant",
            "content": [{ "type": "text", "text": "Calling:" },
                { "type": "tool_use", "id": "c1", "name": "get_weather", "input": {} }],
            "model": "m", "stopReason": "toolUse" }))
        .unwrap();
        let many = fitted(many, ProtocolVersion::V2024_11_05);
        assert_eq!(
            serde_json::to_value(&many.content).unwrap(),
            json!({ "type": "text", "text": "Calling:\n\n[tool use c1: get_weather]" })
        );
    }

    #[test]
    fn content_arrays_are_kept_from_2025_11_25() {
        let blocks = vec![SamplingContent::Text(TextContent::new("a")); 2];
        let result = fitted(
            CreateMessageResult::new("m", blocks),
            ProtocolVersion::V2026_07_28,
        );
        assert_eq!(result.content.blocks().len(), 2);
    }

    #[test]
    fn request_fitted_to_old_revisions_loses_tools_task_and_message_meta() {
        let mut params: CreateMessageRequestParams = serde_json::from_value(json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": "q" },
                "_meta": { "k": 1 } }],
            "tools": [{ "name": "t", "inputSchema": { "type": "object" } }],
            "toolChoice": { "mode": "required" },
            "task": { "ttl": 1000 },
            "maxTokens": 10,
            "_meta": { "progressToken": 1 }
        }))
        .unwrap();
        params.fit_to(ProtocolVersion::V2025_06_18);
        assert_eq!(
            serde_json::to_value(&params).unwrap(),
            json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "q" } }],
                "maxTokens": 10, "_meta": { "progressToken": 1 } })
        );
    }

    #[test]
    fn request_in_2026_07_28_has_no_meta_or_task() {
        let mut params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("q")], 5);
        params.meta = Some(Meta::new());
        params.task = Some(TaskMetadata::default());
        params.fit_to(ProtocolVersion::V2026_07_28);
        assert_eq!(params.meta, None);
        assert_eq!(params.task, None);
    }

    #[test]
    fn a_malformed_content_block_is_rejected_with_its_reason() {
        let err = serde_json::from_value::<SamplingMessage>(
            json!({ "role": "user", "content": [{ "type": "video" }] }),
        )
        .unwrap_err();
        assert!(err.to_string().contains("video"), "{err}");
    }

    #[test]
    fn unknown_fields_survive_in_sampling_messages() {
        let params = json!({ "messages": [{ "role": "user",
            "content": { "type": "text", "text": "q" }, "x-m": 1 }],
            "maxTokens": 1, "includeContext": "thisServer", "x-vendor": true,
            "modelPreferences": { "hints": [{ "name": "a", "x-provider": "p" }] } });
        assert_eq!(round_trip::<CreateMessageRequestParams>(&params), params);
    }
}
