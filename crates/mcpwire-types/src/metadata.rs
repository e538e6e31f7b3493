//! Display metadata in builder style: title, description, icons and
//! `_meta` entries (under checked [`MetaKey`]s) for everything the
//! 2025-11-25 schema lets carry them (tools, resources, resource
//! templates, prompts; title, description and icons on implementation
//! info). Fitting to an older revision removes what it does not know.

use serde_json::Value;

use crate::{Icon, Implementation, Meta, MetaKey, Prompt, Resource, ResourceTemplate, Tool};

/// Builder-style setters for the display metadata of a listed item or an
/// implementation.
///
/// ```
/// use mcpwire_types::{Icon, MetaKey, Tool, WithMetadata};
///
/// let key = MetaKey::new("com.example/", "team").unwrap();
/// let tool = Tool::without_arguments("deploy")
///     .with_title("Deploy")
///     .with_icon(Icon::new("https://example.com/deploy.png"))
///     .with_meta_entry(&key, "infra");
/// assert_eq!(tool.icons.as_ref().map(Vec::len), Some(1));
/// assert_eq!(tool.meta.unwrap().get_str("com.example/team"), Some("infra"));
/// ```
pub trait WithMetadata: Sized {
    /// The human-readable title.
    fn title_mut(&mut self) -> &mut Option<String>;
    /// The description.
    fn description_mut(&mut self) -> &mut Option<String>;
    /// The icons.
    fn icons_mut(&mut self) -> &mut Option<Vec<Icon>>;
    /// The `_meta` map, for the types that carry one.
    fn meta_mut(&mut self) -> Option<&mut Option<Meta>>;

    /// Sets the title.
    #[must_use]
    fn with_title(mut self, title: impl Into<String>) -> Self {
        *self.title_mut() = Some(title.into());
        self
    }

    /// Sets the description.
    #[must_use]
    fn with_description(mut self, description: impl Into<String>) -> Self {
        *self.description_mut() = Some(description.into());
        self
    }

    /// Adds an icon (2025-11-25 on).
    #[must_use]
    fn with_icon(mut self, icon: Icon) -> Self {
        self.icons_mut().get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Sets `_meta[key]`; `key` is checked against the key name rules
    /// (META-03) when it is built. Types without `_meta` ignore it.
    #[must_use]
    fn with_meta_entry(mut self, key: &MetaKey, value: impl Into<Value>) -> Self {
        if let Some(meta) = self.meta_mut() {
            meta.get_or_insert_with(Meta::new)
                .insert(key.as_str(), value.into());
        }
        self
    }
}

macro_rules! with_metadata {
    ($($item:ty),*) => {$(
        impl WithMetadata for $item {
            fn title_mut(&mut self) -> &mut Option<String> {
                &mut self.title
            }
            fn description_mut(&mut self) -> &mut Option<String> {
                &mut self.description
            }
            fn icons_mut(&mut self) -> &mut Option<Vec<Icon>> {
                &mut self.icons
            }
            fn meta_mut(&mut self) -> Option<&mut Option<Meta>> {
                Some(&mut self.meta)
            }
        }
    )*};
}

with_metadata!(Tool, Resource, ResourceTemplate, Prompt);

impl WithMetadata for Implementation {
    fn title_mut(&mut self) -> &mut Option<String> {
        &mut self.title
    }
    fn description_mut(&mut self) -> &mut Option<String> {
        &mut self.description
    }
    fn icons_mut(&mut self) -> &mut Option<Vec<Icon>> {
        &mut self.icons
    }
    fn meta_mut(&mut self) -> Option<&mut Option<Meta>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ForRevision, ProtocolVersion};

    #[test]
    fn icons_and_meta_set_by_the_builders_reach_2025_11_25_and_leave_older_revisions() {
        let key = MetaKey::new("com.example/", "k").unwrap();
        let prompt = Prompt::new("p")
            .with_icon(Icon::new("https://example.com/p.png"))
            .with_meta_entry(&key, 1);
        let mut latest = prompt.clone();
        latest.fit_to(ProtocolVersion::V2025_11_25);
        let latest = serde_json::to_value(&latest).unwrap();
        assert_eq!(
            latest["icons"],
            json!([{"src": "https://example.com/p.png"}])
        );
        assert_eq!(latest["_meta"], json!({"com.example/k": 1}));
        let mut old = prompt;
        old.fit_to(ProtocolVersion::V2025_06_18);
        assert!(serde_json::to_value(&old).unwrap().get("icons").is_none());

        let info = Implementation::new("server", "1.0")
            .with_title("Server")
            .with_icon(Icon::new("https://example.com/s.svg"));
        assert_eq!(info.icons.unwrap().len(), 1);
        let template = ResourceTemplate::new("file:///{path}", "files")
            .with_description("Files")
            .with_icon(Icon::new("https://example.com/f.png"));
        assert!(template.icons.is_some());
    }
}
