//! Client and server capabilities: what each side declares it supports, and
//! the queries used to gate features on those declarations.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::revision::keep_if;
use crate::{Extra, ForRevision, ProtocolVersion};

/// The capabilities a client declares: in `initialize` (handshake
/// revisions) or in every request's `_meta` (2026-07-28).
///
/// The set is open: capabilities this model does not name are kept in
/// `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Present if the client can list its roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Present if the client can sample an LLM for the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Present if the client can ask its user for input (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Which task operations the client supports (2025-11-25 only; tasks
    /// became an extension in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Experimental, non-standard capabilities, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Extensions the client supports, by identifier, each with its settings
    /// object (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The client's `roots` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// Whether the client notifies the server when its roots change (every
    /// revision before 2026-07-28, which has no such notification).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The client's `sampling` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingCapability {
    /// Present if the client honours `includeContext` values other than
    /// `none` (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    /// Present if the client accepts `tools` and `toolChoice` (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Map<String, Value>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The client's `elicitation` capability (2025-06-18 on).
///
/// An object with neither `form` nor `url` means form mode only, which is
/// all that 2025-06-18 knows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Present if the client supports form mode (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Map<String, Value>>,
    /// Present if the client supports URL mode (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Map<String, Value>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ElicitationCapability {
    /// Whether form mode is supported: declared, or implied by declaring no mode.
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// Whether URL mode is supported.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// The client's `tasks` capability (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientTasksCapability {
    /// Present if the client answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<Map<String, Value>>,
    /// Present if the client answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<Map<String, Value>>,
    /// Which of the client's requests may be run as tasks; a request not
    /// listed may not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequests>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The client requests that may be augmented with a task (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientTaskRequests {
    /// Sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingTaskRequests>,
    /// Elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationTaskRequests>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Which sampling requests may run as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingTaskRequests {
    /// Present if `sampling/createMessage` may run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<Map<String, Value>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Which elicitation requests may run as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationTaskRequests {
    /// Present if `elicitation/create` may run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<Map<String, Value>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ClientCapabilities {
    /// Whether the client can list roots.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// Whether the client notifies the server when its roots change.
    pub fn supports_roots_list_changed(&self) -> bool {
        self.roots
            .as_ref()
            .and_then(|r| r.list_changed)
            .unwrap_or(false)
    }

    /// Whether the client can sample an LLM.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Whether sampling requests may carry `tools` and `toolChoice`.
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Whether sampling requests may ask for `includeContext` other than `none`.
    pub fn supports_sampling_context(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.context.is_some())
    }

    /// Whether the client supports elicitation in any mode.
    pub fn supports_elicitation(&self) -> bool {
        self.elicitation.is_some()
    }

    /// Whether the client supports form-mode elicitation.
    pub fn supports_form_elicitation(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(ElicitationCapability::supports_form)
    }

    /// Whether the client supports URL-mode elicitation.
    pub fn supports_url_elicitation(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(ElicitationCapability::supports_url)
    }

    /// Whether the client answers `tasks/list`.
    pub fn supports_task_list(&self) -> bool {
        self.tasks.as_ref().is_some_and(|t| t.list.is_some())
    }

    /// Whether the client answers `tasks/cancel`.
    pub fn supports_task_cancel(&self) -> bool {
        self.tasks.as_ref().is_some_and(|t| t.cancel.is_some())
    }

    /// Whether `sampling/createMessage` may be sent to the client as a task.
    pub fn supports_sampling_tasks(&self) -> bool {
        self.task_requests()
            .and_then(|r| r.sampling.as_ref())
            .is_some_and(|s| s.create_message.is_some())
    }

    /// Whether `elicitation/create` may be sent to the client as a task.
    pub fn supports_elicitation_tasks(&self) -> bool {
        self.task_requests()
            .and_then(|r| r.elicitation.as_ref())
            .is_some_and(|e| e.create.is_some())
    }

    /// Whether the client declares the extension `id`.
    pub fn supports_extension(&self, id: &str) -> bool {
        self.extension(id).is_some()
    }

    /// The settings the client declares for the extension `id`, if it declares it.
    pub fn extension(&self, id: &str) -> Option<&Value> {
        self.extensions.as_ref().and_then(|e| e.get(id))
    }

    fn task_requests(&self) -> Option<&ClientTaskRequests> {
        self.tasks.as_ref().and_then(|t| t.requests.as_ref())
    }
}

impl ForRevision for ClientCapabilities {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.roots.fit_to(version);
        self.sampling.fit_to(version);
        // Before 2025-11-25 the elicitation capability is an empty object
        // meaning form mode, so a client supporting URL mode only has
        // nothing it can declare there.
        let declarable = version.has_url_elicitation()
            || self
                .elicitation
                .as_ref()
                .is_some_and(ElicitationCapability::supports_form);
        if !version.has_elicitation() || !declarable {
            self.elicitation = None;
        }
        self.elicitation.fit_to(version);
        keep_if(version.has_core_tasks(), &mut self.tasks);
        keep_if(version.has_extensions(), &mut self.extensions);
    }
}

impl ForRevision for RootsCapability {
    /// `listChanged` goes with `notifications/roots/list_changed`, which
    /// only the handshake revisions have.
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_handshake(), &mut self.list_changed);
    }
}

impl ForRevision for SamplingCapability {
    /// `context` arrived with `tools`, in 2025-11-25.
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_sampling_tools(), &mut self.context);
        keep_if(version.has_sampling_tools(), &mut self.tools);
    }
}

impl ForRevision for ElicitationCapability {
    /// Before 2025-11-25 there are no modes to name.
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_url_elicitation(), &mut self.form);
        keep_if(version.has_url_elicitation(), &mut self.url);
    }
}

impl ForRevision for ClientTasksCapability {
    /// Exists in 2025-11-25 only; its parent removes it elsewhere.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// The capabilities a server declares: in the `initialize` result
/// (handshake revisions) or the `server/discover` result (2026-07-28).
///
/// The set is open: capabilities this model does not name are kept in
/// `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Present if the server sends log messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// Present if the server offers argument completion (2025-03-26 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    /// Present if the server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// Present if the server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Present if the server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Which task operations the server supports (2025-11-25 only; tasks
    /// became an extension in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Experimental, non-standard capabilities, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Extensions the server supports, by identifier, each with its settings
    /// object (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The server's `prompts` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptsCapability {
    /// Whether the server notifies when its prompt list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The server's `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Whether clients may subscribe to updates of single resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether the server notifies when its resource list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The server's `tools` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// Whether the server notifies when its tool list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The server's `tasks` capability (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTasksCapability {
    /// Present if the server answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<Map<String, Value>>,
    /// Present if the server answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<Map<String, Value>>,
    /// Which of the server's requests may be run as tasks; a request not
    /// listed may not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequests>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The server requests that may be augmented with a task (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTaskRequests {
    /// Tool requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsTaskRequests>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Which tool requests may run as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolsTaskRequests {
    /// Present if `tools/call` may run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Map<String, Value>>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ServerCapabilities {
    /// Whether the server sends log messages.
    pub fn supports_logging(&self) -> bool {
        self.logging.is_some()
    }

    /// Whether the server offers argument completion.
    pub fn supports_completions(&self) -> bool {
        self.completions.is_some()
    }

    /// Whether the server offers prompts.
    pub fn supports_prompts(&self) -> bool {
        self.prompts.is_some()
    }

    /// Whether the server notifies when its prompt list changes.
    pub fn supports_prompts_list_changed(&self) -> bool {
        self.prompts
            .as_ref()
            .and_then(|p| p.list_changed)
            .unwrap_or(false)
    }

    /// Whether the server offers resources.
    pub fn supports_resources(&self) -> bool {
        self.resources.is_some()
    }

    /// Whether clients may subscribe to updates of single resources.
    pub fn supports_resource_subscribe(&self) -> bool {
        self.resources
            .as_ref()
            .and_then(|r| r.subscribe)
            .unwrap_or(false)
    }

    /// Whether the server notifies when its resource list changes.
    pub fn supports_resources_list_changed(&self) -> bool {
        self.resources
            .as_ref()
            .and_then(|r| r.list_changed)
            .unwrap_or(false)
    }

    /// Whether the server offers tools.
    pub fn supports_tools(&self) -> bool {
        self.tools.is_some()
    }

    /// Whether the server notifies when its tool list changes.
    pub fn supports_tools_list_changed(&self) -> bool {
        self.tools
            .as_ref()
            .and_then(|t| t.list_changed)
            .unwrap_or(false)
    }

    /// Whether the server answers `tasks/list`.
    pub fn supports_task_list(&self) -> bool {
        self.tasks.as_ref().is_some_and(|t| t.list.is_some())
    }

    /// Whether the server answers `tasks/cancel`.
    pub fn supports_task_cancel(&self) -> bool {
        self.tasks.as_ref().is_some_and(|t| t.cancel.is_some())
    }

    /// Whether `tools/call` may be sent to the server as a task.
    pub fn supports_tool_call_tasks(&self) -> bool {
        self.tasks
            .as_ref()
            .and_then(|t| t.requests.as_ref())
            .and_then(|r| r.tools.as_ref())
            .is_some_and(|t| t.call.is_some())
    }

    /// Whether the server declares the extension `id`.
    pub fn supports_extension(&self, id: &str) -> bool {
        self.extension(id).is_some()
    }

    /// The settings the server declares for the extension `id`, if it declares it.
    pub fn extension(&self, id: &str) -> Option<&Value> {
        self.extensions.as_ref().and_then(|e| e.get(id))
    }
}

impl ForRevision for ServerCapabilities {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_completions_capability(), &mut self.completions);
        keep_if(version.has_core_tasks(), &mut self.tasks);
        keep_if(version.has_extensions(), &mut self.extensions);
    }
}

impl ForRevision for PromptsCapability {
    /// The same fields in every revision.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

impl ForRevision for ResourcesCapability {
    /// The same fields in every revision.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

impl ForRevision for ToolsCapability {
    /// The same fields in every revision.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

impl ForRevision for ServerTasksCapability {
    /// Exists in 2025-11-25 only; its parent removes it elsewhere.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
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
    fn spec_examples_of_both_capability_sets_round_trip() {
        // The schema examples of 2026-07-28 (examples-2026-07-28/*Capabilities).
        let client = [
            json!({ "elicitation": { "form": {}, "url": {} } }),
            json!({ "elicitation": {} }),
            json!({ "extensions": { "io.modelcontextprotocol/ui": {
                "mimeTypes": ["text/html;profile=mcp-app"] } } }),
            json!({ "roots": {} }),
            json!({ "sampling": { "context": {} } }),
            json!({ "sampling": {} }),
            json!({ "sampling": { "tools": {} } }),
        ];
        for example in client {
            assert_eq!(round_trip::<ClientCapabilities>(&example), example);
        }
        let server = [
            json!({ "completions": {} }),
            json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } }),
            json!({ "logging": {} }),
            json!({ "prompts": { "listChanged": true } }),
            json!({ "resources": { "subscribe": true, "listChanged": true } }),
            json!({ "resources": {} }),
            json!({ "tools": { "listChanged": true } }),
        ];
        for example in server {
            assert_eq!(round_trip::<ServerCapabilities>(&example), example);
        }
    }

    #[test]
    fn task_capabilities_from_the_2025_11_25_prose_round_trip() {
        let client = json!({ "tasks": { "list": {}, "cancel": {}, "requests": {
            "sampling": { "createMessage": {} }, "elicitation": { "create": {} } } } });
        assert_eq!(round_trip::<ClientCapabilities>(&client), client);
        let server = json!({ "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } } });
        assert_eq!(round_trip::<ServerCapabilities>(&server), server);

        let client: ClientCapabilities = serde_json::from_value(client).unwrap();
        assert!(client.supports_sampling_tasks() && client.supports_elicitation_tasks());
        let server: ServerCapabilities = serde_json::from_value(server).unwrap();
        assert!(server.supports_tool_call_tasks() && server.supports_task_list());
    }

    #[test]
    fn an_empty_elicitation_object_means_form_mode_only() {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": {} })).unwrap();
        assert!(caps.supports_form_elicitation());
        assert!(!caps.supports_url_elicitation());
        let caps: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": { "url": {} } })).unwrap();
        assert!(!caps.supports_form_elicitation());
        assert!(caps.supports_url_elicitation());
    }

    #[test]
    fn fitting_client_capabilities_removes_what_each_revision_lacks() {
        let full: ClientCapabilities = serde_json::from_value(json!({
            "roots": { "listChanged": true },
            "sampling": { "context": {}, "tools": {} },
            "elicitation": { "form": {}, "url": {} },
            "tasks": { "list": {} },
            "experimental": { "x": {} },
            "extensions": { "io.modelcontextprotocol/ui": {} }
        }))
        .unwrap();
        let fitted_json = |v| serde_json::to_value(fitted(full.clone(), v)).unwrap();
        assert_eq!(
            fitted_json(ProtocolVersion::V2024_11_05),
            json!({ "roots": { "listChanged": true }, "sampling": {}, "experimental": { "x": {} } })
        );
        assert_eq!(
            fitted_json(ProtocolVersion::V2025_06_18)["elicitation"],
            json!({}),
            "2025-06-18 declares elicitation as an empty object"
        );
        let v2025_11_25 = fitted_json(ProtocolVersion::V2025_11_25);
        assert_eq!(v2025_11_25["tasks"], json!({ "list": {} }));
        assert!(v2025_11_25.get("extensions").is_none());
        let latest = fitted_json(ProtocolVersion::V2026_07_28);
        assert_eq!(
            latest["roots"],
            json!({}),
            "2026-07-28 has no roots list_changed"
        );
        assert!(latest.get("tasks").is_none());
        assert_eq!(
            latest["extensions"],
            json!({ "io.modelcontextprotocol/ui": {} })
        );
    }

    #[test]
    fn url_only_elicitation_is_not_declared_to_revisions_without_url_mode() {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": { "url": {} } })).unwrap();
        let old = fitted(caps, ProtocolVersion::V2025_06_18);
        assert_eq!(old.elicitation, None);
    }

    #[test]
    fn fitting_server_capabilities_removes_completions_tasks_and_extensions() {
        let full: ServerCapabilities = serde_json::from_value(json!({
            "logging": {}, "completions": {}, "tools": { "listChanged": true },
            "tasks": { "list": {} }, "extensions": { "io.modelcontextprotocol/tasks": {} }
        }))
        .unwrap();
        let old = serde_json::to_value(fitted(full.clone(), ProtocolVersion::V2024_11_05)).unwrap();
        assert_eq!(
            old,
            json!({ "logging": {}, "tools": { "listChanged": true } })
        );
        let latest = fitted(full, ProtocolVersion::V2026_07_28);
        assert!(latest.supports_completions() && latest.tasks.is_none());
        assert!(latest.supports_extension("io.modelcontextprotocol/tasks"));
        assert!(latest.supports_tools_list_changed() && !latest.supports_prompts());
    }

    #[test]
    fn unknown_capabilities_survive_a_round_trip() {
        let caps =
            json!({ "tools": { "listChanged": false, "x-batch": true }, "x-vendor": { "a": 1 } });
        assert_eq!(round_trip::<ServerCapabilities>(&caps), caps);
        let caps = json!({ "sampling": { "x-future": {} }, "x-vendor": [] });
        assert_eq!(round_trip::<ClientCapabilities>(&caps), caps);
    }
}
