//! Prompts: prompt templates, their arguments, `prompts/list` and `prompts/get`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::result::{fit_cache_hints, fit_result_type};
use crate::revision::keep_if;
use crate::{
    CacheScope, ContentBlock, Cursor, Extra, ForRevision, Icon, InputResponses, Meta,
    ProtocolVersion, ResultType, Role,
};

/// A prompt or prompt template the server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Programmatic name.
    pub name: String,
    /// Display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt provides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments the template takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Prompt {
    /// A prompt called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: None,
            icons: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for Prompt {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_titles(), &mut self.title);
        keep_if(version.has_icons(), &mut self.icons);
        keep_if(version.has_object_meta(), &mut self.meta);
        self.arguments.fit_to(version);
    }
}

/// An argument a prompt template takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Programmatic name.
    pub name: String,
    /// Display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given (absent means optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl PromptArgument {
    /// An argument called `name` (optional unless [`PromptArgument::required`] built it).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            required: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for PromptArgument {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_titles(), &mut self.title);
    }
}

/// One message of a prompt, from the user or the assistant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl PromptMessage {
    /// A message from `role` holding `content`.
    pub fn new(role: Role, content: ContentBlock) -> Self {
        Self {
            role,
            content,
            extra: Extra::new(),
        }
    }

    /// A text message from the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, ContentBlock::text(text))
    }

    /// A text message from the assistant.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, ContentBlock::text(text))
    }
}

impl ForRevision for PromptMessage {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.content.fit_to(version);
    }
}

/// The result of `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// The prompts on this page.
    pub prompts: Vec<Prompt>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// How long the client may consider this fresh, in milliseconds (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache this (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The kind of result (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ListPromptsResult {
    /// A single, last page holding `prompts`.
    pub fn new(prompts: Vec<Prompt>) -> Self {
        Self {
            prompts,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            result_type: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ListPromptsResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.prompts.fit_to(version);
        fit_cache_hints(&mut self.ttl_ms, &mut self.cache_scope, version);
        fit_result_type(&mut self.result_type, version);
    }
}

/// Params of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptRequestParams {
    /// The prompt or template to get.
    pub name: String,
    /// Values for the template's arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Answers to the input requests of an earlier `input_required` result
    /// (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The opaque state an earlier `input_required` result asked to be sent
    /// back (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl GetPromptRequestParams {
    /// Params getting prompt `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            arguments: None,
            input_responses: None,
            request_state: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for GetPromptRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_multi_round_trip(), &mut self.input_responses);
        keep_if(version.has_multi_round_trip(), &mut self.request_state);
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The prompt's messages.
    pub messages: Vec<PromptMessage>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The kind of result (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl GetPromptResult {
    /// A result holding `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            description: None,
            messages,
            meta: None,
            result_type: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for GetPromptResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.messages.fit_to(version);
        fit_result_type(&mut self.result_type, version);
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

    fn fit_json<T: Serialize + for<'de> Deserialize<'de> + ForRevision>(
        value: &Value,
        version: ProtocolVersion,
    ) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(fitted(parsed, version)).unwrap()
    }

    fn code_review_list() -> Value {
        json!({
            "resultType": "complete",
            "prompts": [{
                "name": "code_review",
                "title": "Request Code Review",
                "description": "Asks the LLM to analyze code quality and suggest improvements",
                "arguments": [{ "name": "code", "description": "The code to review", "required": true }],
                "icons": [{ "src": "https://example.com/review-icon.svg", "mimeType": "image/svg+xml", "sizes": ["any"] }]
            }],
            "nextCursor": "next-page-cursor",
            "ttlMs": 600000,
            "cacheScope": "public"
        })
    }

    #[test]
    fn spec_examples_round_trip() {
        let list = code_review_list();
        assert_eq!(round_trip::<ListPromptsResult>(&list), list);

        let get = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { "name": "ExampleClient", "version": "1.0.0" },
                "io.modelcontextprotocol/clientCapabilities": {}
            },
            "name": "code_review",
            "arguments": { "code": "def hello():\n    print('world')" }
        });
        assert_eq!(round_trip::<GetPromptRequestParams>(&get), get);

        let result = json!({
            "resultType": "complete",
            "description": "Code review prompt",
            "messages": [{
                "role": "user",
                "content": { "type": "text", "text": "Please review this Python code:\ndef hello():\n    print('world')" }
            }]
        });
        assert_eq!(round_trip::<GetPromptResult>(&result), result);
        let built = GetPromptResult {
            description: Some("Code review prompt".into()),
            ..GetPromptResult::new(vec![PromptMessage::user_text(
                "Please review this Python code:\ndef hello():\n    print('world')",
            )])
        };
        assert_eq!(
            serde_json::to_value(fitted(built, ProtocolVersion::V2026_07_28)).unwrap(),
            result
        );
    }

    #[test]
    fn prompt_fields_disappear_for_revisions_that_lack_them() {
        let prompt = json!({
            "name": "p",
            "title": "P",
            "arguments": [{ "name": "a", "title": "A", "required": false }],
            "icons": [{ "src": "https://example.com/p.png" }],
            "_meta": { "k": true }
        });
        assert_eq!(
            fit_json::<Prompt>(&prompt, ProtocolVersion::V2026_07_28),
            prompt
        );
        let v2025_06 = fit_json::<Prompt>(&prompt, ProtocolVersion::V2025_06_18);
        assert!(v2025_06.get("icons").is_none());
        assert_eq!(v2025_06["arguments"][0]["title"], json!("A"));
        assert_eq!(
            fit_json::<Prompt>(&prompt, ProtocolVersion::V2025_03_26),
            json!({ "name": "p", "arguments": [{ "name": "a", "required": false }] })
        );

        let old_list =
            fit_json::<ListPromptsResult>(&code_review_list(), ProtocolVersion::V2025_11_25);
        for gone in ["ttlMs", "cacheScope", "resultType"] {
            assert!(old_list.get(gone).is_none(), "{gone} should be gone");
        }
        assert!(old_list["prompts"][0].get("icons").is_some());
    }

    #[test]
    fn prompt_messages_fit_their_content() {
        let message = json!({
            "role": "assistant",
            "content": { "type": "audio", "data": "AAAA", "mimeType": "audio/wav" }
        });
        let old = fit_json::<PromptMessage>(&message, ProtocolVersion::V2024_11_05);
        assert_eq!(old["content"]["type"], json!("text"));
        assert_eq!(
            fit_json::<PromptMessage>(&message, ProtocolVersion::V2025_03_26),
            message
        );
    }

    #[test]
    fn get_params_drop_retry_fields_before_2026_07_28() {
        let params = json!({ "name": "p", "requestState": "opaque" });
        assert_eq!(
            fit_json::<GetPromptRequestParams>(&params, ProtocolVersion::V2026_07_28),
            params
        );
        assert_eq!(
            fit_json::<GetPromptRequestParams>(&params, ProtocolVersion::V2025_06_18),
            json!({ "name": "p" })
        );
    }

    #[test]
    fn unknown_fields_survive() {
        let prompt =
            json!({ "name": "p", "arguments": [{ "name": "a", "x-arg": 1 }], "x-vendor": "v" });
        assert_eq!(round_trip::<Prompt>(&prompt), prompt);
        let message =
            json!({ "role": "user", "content": { "type": "text", "text": "hi" }, "x-vendor": 1 });
        assert_eq!(round_trip::<PromptMessage>(&message), message);
    }
}
