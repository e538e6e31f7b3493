//! Resources: their descriptions and templates, listing, reading,
//! subscribing, and the notification that one changed.

use serde::{Deserialize, Serialize};

use crate::result::{fit_cache_hints, fit_result_type};
use crate::revision::keep_if;
use crate::{
    Annotations, CacheScope, Cursor, Extra, ForRevision, Icon, InputResponses, Meta,
    ProtocolVersion, ResourceContents, ResultType,
};

/// A resource the server can read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is; a hint to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its raw size in bytes (before base64 encoding), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Resource {
    /// The resource at `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: None,
            annotations: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for Resource {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_titles(), &mut self.title);
        keep_if(version.has_icons(), &mut self.icons);
        keep_if(version.has_object_meta(), &mut self.meta);
        self.annotations.fit_to(version);
    }
}

/// A family of resources whose URIs follow an RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template, e.g. `file:///{path}`.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are; a hint to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every matching resource, when they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ResourceTemplate {
    /// The template `uri_template` called `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: None,
            annotations: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ResourceTemplate {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_titles(), &mut self.title);
        keep_if(version.has_icons(), &mut self.icons);
        keep_if(version.has_object_meta(), &mut self.meta);
        self.annotations.fit_to(version);
    }
}

/// The result of `resources/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// The resources on this page.
    pub resources: Vec<Resource>,
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

impl ListResourcesResult {
    /// A single, last page holding `resources`.
    pub fn new(resources: Vec<Resource>) -> Self {
        Self {
            resources,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            result_type: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ListResourcesResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.resources.fit_to(version);
        fit_cache_hints(&mut self.ttl_ms, &mut self.cache_scope, version);
        fit_result_type(&mut self.result_type, version);
    }
}

/// The result of `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// The templates on this page.
    pub resource_templates: Vec<ResourceTemplate>,
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

impl ListResourceTemplatesResult {
    /// A single, last page holding `resource_templates`.
    pub fn new(resource_templates: Vec<ResourceTemplate>) -> Self {
        Self {
            resource_templates,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            result_type: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ListResourceTemplatesResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.resource_templates.fit_to(version);
        fit_cache_hints(&mut self.ttl_ms, &mut self.cache_scope, version);
        fit_result_type(&mut self.result_type, version);
    }
}

/// The params every request about one resource shares (named in 2025-11-25 on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRequestParams {
    /// The resource's URI.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ResourceRequestParams {
    /// Params naming the resource at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ResourceRequestParams {
    /// `uri` and `_meta` exist in every revision, so nothing changes.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceRequestParams {
    /// The resource to read.
    pub uri: String,
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

impl ReadResourceRequestParams {
    /// Params reading the resource at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            input_responses: None,
            request_state: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ReadResourceRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_multi_round_trip(), &mut self.input_responses);
        keep_if(version.has_multi_round_trip(), &mut self.request_state);
    }
}

/// The result of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// The contents: one entry for a plain resource, several when the URI
    /// names a collection (e.g. a directory).
    pub contents: Vec<ResourceContents>,
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

impl ReadResourceResult {
    /// A result holding `contents`.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        Self {
            contents,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            result_type: None,
            extra: Extra::new(),
        }
    }

    /// A result holding one text resource: `text` at `uri`, of `mime_type`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::new(vec![ResourceContents::text(uri, mime_type, text)])
    }
}

impl ForRevision for ReadResourceResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.contents.fit_to(version);
        fit_cache_hints(&mut self.ttl_ms, &mut self.cache_scope, version);
        fit_result_type(&mut self.result_type, version);
    }
}

/// Params of `resources/subscribe` (before 2026-07-28, which uses
/// `subscriptions/listen` instead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeRequestParams {
    /// The resource to watch.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl SubscribeRequestParams {
    /// Params watching the resource at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for SubscribeRequestParams {
    /// Every field exists wherever the request does.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of `resources/unsubscribe` (before 2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsubscribeRequestParams {
    /// The resource to stop watching.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl UnsubscribeRequestParams {
    /// Params to stop watching the resource at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for UnsubscribeRequestParams {
    /// Every field exists wherever the request does.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of `notifications/resources/updated`: a watched resource changed
/// and may be read again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUpdatedNotificationParams {
    /// The resource that changed; it may be a sub-resource of the one watched.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ResourceUpdatedNotificationParams {
    /// Params saying the resource at `uri` changed.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ResourceUpdatedNotificationParams {
    /// `uri` and `_meta` exist in every revision, so nothing changes.
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

    fn fit_json<T: Serialize + for<'de> Deserialize<'de> + ForRevision>(
        value: &Value,
        version: ProtocolVersion,
    ) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(fitted(parsed, version)).unwrap()
    }

    #[test]
    fn spec_examples_round_trip() {
        let resource = json!({
            "uri": "file:///project/README.md",
            "name": "README.md",
            "title": "Project Documentation",
            "mimeType": "text/markdown",
            "annotations": { "audience": ["user"], "priority": 0.8, "lastModified": "2025-01-12T15:00:58Z" }
        });
        assert_eq!(round_trip::<Resource>(&resource), resource);

        let list = json!({
            "resultType": "complete",
            "resources": [{
                "uri": "file:///project/src/main.rs",
                "name": "main.rs",
                "title": "Rust Software Application Main File",
                "description": "Primary application entry point",
                "mimeType": "text/x-rust",
                "icons": [{ "src": "https://example.com/rust-file-icon.png", "mimeType": "image/png", "sizes": ["48x48"] }]
            }],
            "nextCursor": "eyJwYWdlIjogM30=",
            "ttlMs": 600000,
            "cacheScope": "private"
        });
        assert_eq!(round_trip::<ListResourcesResult>(&list), list);

        let templates = json!({
            "resultType": "complete",
            "resourceTemplates": [{
                "uriTemplate": "file:///{path}",
                "name": "Project Files",
                "title": "📁 Project Files",
                "description": "Access files in the project directory",
                "mimeType": "application/octet-stream",
                "icons": [{ "src": "https://example.com/folder-icon.png", "mimeType": "image/png", "sizes": ["48x48"] }]
            }],
            "nextCursor": "next-page-cursor",
            "ttlMs": 3600000,
            "cacheScope": "public"
        });
        assert_eq!(
            round_trip::<ListResourceTemplatesResult>(&templates),
            templates
        );

        let read = json!({
            "resultType": "complete",
            "contents": [{
                "uri": "file:///project/src/main.rs",
                "mimeType": "text/x-rust",
                "text": "fn main() {\n    println!(\"Hello world!\");\n}"
            }],
            "ttlMs": 60000,
            "cacheScope": "private"
        });
        assert_eq!(round_trip::<ReadResourceResult>(&read), read);

        let updated = json!({ "uri": "file:///project/src/main.rs" });
        assert_eq!(
            round_trip::<ResourceUpdatedNotificationParams>(&updated),
            updated
        );
    }

    #[test]
    fn resource_fields_disappear_for_revisions_that_lack_them() {
        let resource = json!({
            "uri": "file:///a.txt",
            "name": "a.txt",
            "title": "A",
            "size": 12,
            "icons": [{ "src": "https://example.com/a.png" }],
            "annotations": { "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z" },
            "_meta": { "k": 1 }
        });
        assert_eq!(
            fit_json::<Resource>(&resource, ProtocolVersion::V2025_11_25),
            resource
        );
        let v2025_06 = fit_json::<Resource>(&resource, ProtocolVersion::V2025_06_18);
        assert!(v2025_06.get("icons").is_none());
        assert!(v2025_06.get("title").is_some());
        assert_eq!(
            fit_json::<Resource>(&resource, ProtocolVersion::V2024_11_05),
            json!({ "uri": "file:///a.txt", "name": "a.txt", "size": 12, "annotations": { "priority": 0.5 } })
        );

        let template = json!({
            "uriTemplate": "file:///{path}",
            "name": "files",
            "title": "Files",
            "icons": [{ "src": "https://example.com/f.png" }],
            "_meta": { "k": 1 }
        });
        assert_eq!(
            fit_json::<ResourceTemplate>(&template, ProtocolVersion::V2025_03_26),
            json!({ "uriTemplate": "file:///{path}", "name": "files" })
        );
    }

    #[test]
    fn cacheable_results_carry_hints_only_in_2026_07_28() {
        let read = ReadResourceResult::new(Vec::new());
        let latest =
            serde_json::to_value(fitted(read.clone(), ProtocolVersion::V2026_07_28)).unwrap();
        assert_eq!(
            latest,
            json!({ "contents": [], "ttlMs": 0, "cacheScope": "private", "resultType": "complete" })
        );
        let templates = ListResourceTemplatesResult {
            ttl_ms: Some(5),
            cache_scope: Some(CacheScope::Public),
            ..ListResourceTemplatesResult::new(Vec::new())
        };
        let old = serde_json::to_value(fitted(templates, ProtocolVersion::V2025_06_18)).unwrap();
        assert_eq!(old, json!({ "resourceTemplates": [] }));
        let list = fitted(
            ListResourcesResult::new(Vec::new()),
            ProtocolVersion::V2024_11_05,
        );
        assert_eq!(
            serde_json::to_value(list).unwrap(),
            json!({ "resources": [] })
        );
    }

    #[test]
    fn read_params_drop_retry_fields_before_2026_07_28() {
        let params = json!({ "uri": "file:///a", "requestState": "opaque" });
        assert_eq!(
            fit_json::<ReadResourceRequestParams>(&params, ProtocolVersion::V2026_07_28),
            params
        );
        assert_eq!(
            fit_json::<ReadResourceRequestParams>(&params, ProtocolVersion::V2025_11_25),
            json!({ "uri": "file:///a" })
        );
    }

    #[test]
    fn unknown_fields_survive() {
        let params = json!({ "uri": "file:///a", "_meta": { "progressToken": 1 }, "x-vendor": 2 });
        assert_eq!(round_trip::<ResourceRequestParams>(&params), params);
        assert_eq!(round_trip::<SubscribeRequestParams>(&params), params);
        assert_eq!(round_trip::<UnsubscribeRequestParams>(&params), params);
        let resource = json!({ "uri": "file:///a", "name": "a", "x-vendor": { "b": [] } });
        assert_eq!(round_trip::<Resource>(&resource), resource);
    }
}
