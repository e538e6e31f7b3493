//! Cache hints (2026-07-28): the `ttlMs` and `cacheScope` a server puts on
//! `server/discover`, the list results and `resources/read`, configured
//! for the whole server and per tool, prompt, resource or template.
//!
//! A list page is as fresh as its least fresh item and private when any
//! item is; a read takes the hint of its resource (or of the template it
//! matched). What nobody configured is left out, and fitting the result to
//! 2026-07-28 fills the protocol default (0 ms, private); older revisions
//! never see the fields.

use std::collections::BTreeMap;

use mcpwire_types::{
    CacheHint, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, ReadResourceResult,
};

use crate::catalog::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use crate::{Server, ServerBuilder};

/// The cache hints a server gives, by what they concern.
#[derive(Debug, Clone, Default)]
pub(crate) struct CacheHints {
    /// For every cacheable result without a hint of its own.
    default: Option<CacheHint>,
    tools: BTreeMap<String, CacheHint>,
    prompts: BTreeMap<String, CacheHint>,
    resources: BTreeMap<String, CacheHint>,
    templates: BTreeMap<String, CacheHint>,
}

impl CacheHints {
    /// The server-wide hint, if one was configured.
    pub(crate) fn server_wide(&self) -> Option<CacheHint> {
        self.default
    }

    /// The hint of a page whose items have the hints `items` (each `None`
    /// when the item has none of its own).
    fn page(&self, items: impl Iterator<Item = Option<CacheHint>>) -> Option<CacheHint> {
        let mut hint = self.default;
        for item in items {
            hint = match (hint, item.or(self.default)) {
                (Some(a), Some(b)) => Some(a.combine(b)),
                // An item with no hint at all is immediately stale.
                (Some(_), None) | (None, Some(_)) => Some(CacheHint::STALE),
                (None, None) => None,
            };
        }
        hint
    }
}

impl ServerBuilder {
    /// The cache hint of every cacheable result (`server/discover`, the
    /// lists, `resources/read`) that has none of its own (2026-07-28;
    /// without it, results are immediately stale and private).
    pub fn cache_hint(mut self, hint: CacheHint) -> Self {
        self.cache_hints.default = Some(hint);
        self
    }

    /// The cache hint of `server/discover` alone.
    pub fn discover_cache_hint(mut self, hint: CacheHint) -> Self {
        self.discover_cache_hint = Some(hint);
        self
    }

    /// The cache hint of the tool `name`, which bounds the hint of every
    /// `tools/list` page listing it.
    pub fn tool_cache_hint(mut self, name: impl Into<String>, hint: CacheHint) -> Self {
        self.cache_hints.tools.insert(name.into(), hint);
        self
    }

    /// The cache hint of the prompt `name`, which bounds the hint of every
    /// `prompts/list` page listing it.
    pub fn prompt_cache_hint(mut self, name: impl Into<String>, hint: CacheHint) -> Self {
        self.cache_hints.prompts.insert(name.into(), hint);
        self
    }

    /// The cache hint of the resource `uri`: of its `resources/read`
    /// results and of every `resources/list` page listing it.
    pub fn resource_cache_hint(mut self, uri: impl Into<String>, hint: CacheHint) -> Self {
        self.cache_hints.resources.insert(uri.into(), hint);
        self
    }

    /// The cache hint of the resource template `uri_template`: of reads of
    /// the URIs it matches and of every `resources/templates/list` page
    /// listing it.
    pub fn template_cache_hint(mut self, uri_template: impl Into<String>, hint: CacheHint) -> Self {
        self.cache_hints.templates.insert(uri_template.into(), hint);
        self
    }
}

impl Server {
    pub(crate) fn hint_tools(
        &self,
        items: &[std::sync::Arc<ToolEntry>],
        result: &mut ListToolsResult,
    ) {
        let hints = &self.inner.cache_hints;
        let hint = hints.page(items.iter().map(|e| hints.tools.get(&e.tool.name).copied()));
        write(hint, &mut result.ttl_ms, &mut result.cache_scope);
    }

    pub(crate) fn hint_prompts(
        &self,
        items: &[std::sync::Arc<PromptEntry>],
        result: &mut ListPromptsResult,
    ) {
        let hints = &self.inner.cache_hints;
        let hint = hints.page(
            items
                .iter()
                .map(|e| hints.prompts.get(&e.prompt.name).copied()),
        );
        write(hint, &mut result.ttl_ms, &mut result.cache_scope);
    }

    pub(crate) fn hint_resources(
        &self,
        items: &[std::sync::Arc<ResourceEntry>],
        result: &mut ListResourcesResult,
    ) {
        let hints = &self.inner.cache_hints;
        let hint = hints.page(
            items
                .iter()
                .map(|e| hints.resources.get(&e.resource.uri).copied()),
        );
        write(hint, &mut result.ttl_ms, &mut result.cache_scope);
    }

    pub(crate) fn hint_templates(
        &self,
        items: &[std::sync::Arc<TemplateEntry>],
        result: &mut ListResourceTemplatesResult,
    ) {
        let hints = &self.inner.cache_hints;
        let hint = hints.page(
            items
                .iter()
                .map(|e| hints.templates.get(&e.template.uri_template).copied()),
        );
        write(hint, &mut result.ttl_ms, &mut result.cache_scope);
    }

    /// Hints a read of `uri`, unless its handler chose a hint itself.
    pub(crate) fn hint_read(&self, uri: &str, result: &mut ReadResourceResult) {
        if result.ttl_ms.is_some() || result.cache_scope.is_some() {
            return;
        }
        let hints = &self.inner.cache_hints;
        let own = hints.resources.get(uri).copied().or_else(|| {
            let catalog = self.catalog();
            let (entry, _) = catalog.match_template(uri)?;
            hints.templates.get(&entry.template.uri_template).copied()
        });
        write(
            own.or(hints.default),
            &mut result.ttl_ms,
            &mut result.cache_scope,
        );
    }
}

fn write(
    hint: Option<CacheHint>,
    ttl_ms: &mut Option<u64>,
    scope: &mut Option<mcpwire_types::CacheScope>,
) {
    if let Some(hint) = hint {
        hint.write_to(ttl_ms, scope);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_page_is_as_fresh_as_its_least_fresh_item() {
        let hints = CacheHints {
            default: Some(CacheHint::public(Duration::from_secs(60))),
            ..CacheHints::default()
        };
        let short = CacheHint::private(Duration::from_secs(1));
        assert_eq!(
            hints.page([None, Some(short)].into_iter()),
            Some(CacheHint {
                ttl_ms: 1000,
                scope: mcpwire_types::CacheScope::Private
            })
        );
        assert_eq!(hints.page(std::iter::empty()), hints.default);
        // Without a server default, an unhinted item makes the page stale.
        let no_default = CacheHints::default();
        assert_eq!(no_default.page([None].into_iter()), None);
        assert_eq!(
            no_default.page([None, Some(short)].into_iter()),
            Some(CacheHint::STALE)
        );
    }
}
