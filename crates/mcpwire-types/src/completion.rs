//! Argument completion: `completion/complete` for prompt arguments and
//! resource template variables.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::result::fit_result_type;
use crate::revision::keep_if;
use crate::{Extra, ForRevision, Meta, ProtocolVersion, ResultType};

/// Params of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteRequestParams {
    /// What is being completed: a prompt or a resource template.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed and what the user typed so far.
    pub argument: CompleteArgument,
    /// Arguments already chosen (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompleteContext>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CompleteRequestParams {
    /// Params completing argument `name`, typed so far as `value`, of `reference`.
    pub fn new(
        reference: CompletionReference,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        Self {
            reference,
            argument: CompleteArgument::new(name, value),
            context: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for CompleteRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_completion_context(), &mut self.context);
        self.reference.fit_to(version);
    }
}

/// What a completion request is about, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// `ref/prompt`: an argument of a prompt.
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
    /// `ref/resource`: a variable of a resource template.
    #[serde(rename = "ref/resource")]
    ResourceTemplate(ResourceTemplateReference),
}

impl CompletionReference {
    /// A reference to the prompt called `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        Self::Prompt(PromptReference::new(name))
    }

    /// A reference to the resource template `uri_template`.
    pub fn resource_template(uri_template: impl Into<String>) -> Self {
        Self::ResourceTemplate(ResourceTemplateReference::new(uri_template))
    }
}

impl ForRevision for CompletionReference {
    fn fit_to(&mut self, version: ProtocolVersion) {
        match self {
            Self::Prompt(prompt) => prompt.fit_to(version),
            Self::ResourceTemplate(template) => template.fit_to(version),
        }
    }
}

/// Names a prompt (`ref/prompt`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptReference {
    /// The prompt's name.
    pub name: String,
    /// Its display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl PromptReference {
    /// A reference to the prompt called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for PromptReference {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_titles(), &mut self.title);
    }
}

/// Names a resource template (`ref/resource`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplateReference {
    /// The URI or URI template.
    pub uri: String,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The name 2024-11-05 and 2025-03-26 gave [`ResourceTemplateReference`].
pub type ResourceReference = ResourceTemplateReference;

impl ResourceTemplateReference {
    /// A reference to the resource template `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ResourceTemplateReference {
    /// `uri` exists in every revision, so nothing changes.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteArgument {
    /// The argument's name.
    pub name: String,
    /// What has been typed so far, to match completions against.
    pub value: String,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CompleteArgument {
    /// Argument `name` typed so far as `value`.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            extra: Extra::new(),
        }
    }
}

/// What else is known when completing (2025-06-18 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteContext {
    /// Values of arguments or template variables already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The suggested values.
    pub completion: Completion,
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

impl CompleteResult {
    /// A result suggesting `values` (more than [`Completion::MAX_VALUES`] are
    /// cut when the result is fitted to a revision).
    pub fn new(values: Vec<String>) -> Self {
        Self {
            completion: Completion::new(values),
            meta: None,
            result_type: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for CompleteResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.completion.fit_to(version);
        fit_result_type(&mut self.result_type, version);
    }
}

/// Suggested values for the argument being completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The suggestions, at most [`Completion::MAX_VALUES`].
    pub values: Vec<String>,
    /// How many suggestions exist in all; may exceed `values.len()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more suggestions exist than were sent, even if the total is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Completion {
    /// The most values one result may carry.
    pub const MAX_VALUES: usize = 100;

    /// Suggestions `values`, with no total given.
    pub fn new(values: Vec<String>) -> Self {
        Self {
            values,
            total: None,
            has_more: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for Completion {
    /// Every revision allows at most 100 values: extra ones are cut, and the
    /// result then says that more exist (and how many, if it did not say).
    fn fit_to(&mut self, _version: ProtocolVersion) {
        if self.values.len() > Self::MAX_VALUES {
            let all = u64::try_from(self.values.len()).unwrap_or(u64::MAX);
            self.total.get_or_insert(all);
            self.has_more = Some(true);
            self.values.truncate(Self::MAX_VALUES);
        }
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
    fn spec_examples_round_trip() {
        let params = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { "name": "ExampleClient", "version": "1.0.0" },
                "io.modelcontextprotocol/clientCapabilities": {}
            },
            "ref": { "type": "ref/prompt", "name": "code_review" },
            "argument": { "name": "framework", "value": "fla" },
            "context": { "arguments": { "language": "python" } }
        });
        assert_eq!(round_trip::<CompleteRequestParams>(&params), params);

        let result = json!({
            "resultType": "complete",
            "completion": { "values": ["python", "pytorch", "pyside"], "total": 10, "hasMore": true }
        });
        assert_eq!(round_trip::<CompleteResult>(&result), result);
    }

    #[test]
    fn references_are_chosen_by_type() {
        let params: CompleteRequestParams = serde_json::from_value(json!({
            "ref": { "type": "ref/resource", "uri": "file:///{path}" },
            "argument": { "name": "path", "value": "src/" }
        }))
        .unwrap();
        assert_eq!(
            params.reference,
            CompletionReference::resource_template("file:///{path}")
        );
        let unknown = serde_json::from_value::<CompletionReference>(
            json!({ "type": "ref/tool", "name": "x" }),
        );
        assert!(unknown.is_err());
    }

    #[test]
    fn context_and_reference_titles_disappear_before_2025_06_18() {
        let mut params = CompleteRequestParams::new(
            CompletionReference::Prompt(PromptReference {
                title: Some("Review".into()),
                ..PromptReference::new("review")
            }),
            "language",
            "py",
        );
        params.context = Some(CompleteContext {
            arguments: Some(BTreeMap::from([(
                "framework".to_owned(),
                "flask".to_owned(),
            )])),
            extra: Extra::new(),
        });
        let kept =
            serde_json::to_value(fitted(params.clone(), ProtocolVersion::V2025_06_18)).unwrap();
        assert_eq!(kept["context"]["arguments"]["framework"], json!("flask"));
        assert_eq!(kept["ref"]["title"], json!("Review"));
        let old = serde_json::to_value(fitted(params, ProtocolVersion::V2025_03_26)).unwrap();
        assert_eq!(
            old,
            json!({ "ref": { "type": "ref/prompt", "name": "review" }, "argument": { "name": "language", "value": "py" } })
        );
    }

    #[test]
    fn more_than_100_values_are_cut_and_marked_as_more() {
        let values: Vec<String> = (0..150).map(|i| format!("v{i}")).collect();
        let result = fitted(CompleteResult::new(values), ProtocolVersion::V2024_11_05);
        assert_eq!(result.completion.values.len(), Completion::MAX_VALUES);
        assert_eq!(result.completion.total, Some(150));
        assert_eq!(result.completion.has_more, Some(true));
        assert_eq!(result.result_type, None);

        let few = fitted(
            CompleteResult::new(vec!["flask".into()]),
            ProtocolVersion::V2026_07_28,
        );
        assert_eq!(few.completion, Completion::new(vec!["flask".into()]));
        assert_eq!(few.result_type, Some(ResultType::Complete));
    }

    #[test]
    fn unknown_fields_survive() {
        let result = json!({ "completion": { "values": [], "x-c": 1 }, "x-vendor": 2 });
        assert_eq!(round_trip::<CompleteResult>(&result), result);
        let reference = json!({ "type": "ref/prompt", "name": "p", "x-vendor": 3 });
        assert_eq!(round_trip::<CompletionReference>(&reference), reference);
    }
}
