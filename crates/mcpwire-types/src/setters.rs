//! Chainable setters for the definitions a server offers (tools, resources,
//! templates, prompts, prompt arguments) and for `Implementation`, so that
//! `Tool::new(..).description(..).annotations(..)` reads as one expression.

use crate::{
    Annotations, Icon, Implementation, Meta, Prompt, PromptArgument, Resource, ResourceTemplate,
    Tool, ToolAnnotations, ToolExecution,
};

/// Writes `pub fn FIELD(mut self, value: impl Into<T>) -> Self` setters that
/// fill the optional field of the same name.
macro_rules! setters {
    ($ty:ty { $($(#[$doc:meta])* $field:ident: $value:ty),* $(,)? }) => {
        impl $ty {
            $(
                $(#[$doc])*
                pub fn $field(mut self, value: impl Into<$value>) -> Self {
                    self.$field = Some(value.into());
                    self
                }
            )*
        }
    };
}

setters!(Tool {
    /// Sets the display name (2025-06-18 on).
    title: String,
    /// Sets what the tool does; a hint to the model.
    description: String,
    /// Sets the hints about the tool's behaviour (2025-03-26 on).
    annotations: ToolAnnotations,
    /// Sets the icons (2025-11-25 on).
    icons: Vec<Icon>,
    /// Sets how the tool runs (task support, 2025-11-25).
    execution: ToolExecution,
    /// Sets the metadata (2025-06-18 on).
    meta: Meta,
});

setters!(Resource {
    /// Sets the display name (2025-06-18 on).
    title: String,
    /// Sets what the resource is; a hint to the model.
    description: String,
    /// Sets its MIME type.
    mime_type: String,
    /// Sets its raw size in bytes.
    size: u64,
    /// Sets the icons (2025-11-25 on).
    icons: Vec<Icon>,
    /// Sets the display hints.
    annotations: Annotations,
    /// Sets the metadata (2025-06-18 on).
    meta: Meta,
});

setters!(ResourceTemplate {
    /// Sets the display name (2025-06-18 on).
    title: String,
    /// Sets what the resources are; a hint to the model.
    description: String,
    /// Sets the MIME type every matching resource shares.
    mime_type: String,
    /// Sets the icons (2025-11-25 on).
    icons: Vec<Icon>,
    /// Sets the display hints.
    annotations: Annotations,
    /// Sets the metadata (2025-06-18 on).
    meta: Meta,
});

setters!(Prompt {
    /// Sets the display name (2025-06-18 on).
    title: String,
    /// Sets what the prompt provides.
    description: String,
    /// Sets the icons (2025-11-25 on).
    icons: Vec<Icon>,
    /// Sets the metadata (2025-06-18 on).
    meta: Meta,
});

impl Prompt {
    /// Adds an argument the template takes.
    pub fn argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.get_or_insert_with(Vec::new).push(argument);
        self
    }
}

setters!(PromptArgument {
    /// Sets the display name (2025-06-18 on).
    title: String,
    /// Sets what the argument is for.
    description: String,
});

impl PromptArgument {
    /// An argument called `name` that must be given.
    pub fn required(name: impl Into<String>) -> Self {
        Self {
            required: Some(true),
            ..Self::new(name)
        }
    }
}

setters!(Implementation {
    /// Sets the display name (2025-06-18 on).
    title: String,
    /// Sets the human-readable description (2025-11-25 on).
    description: String,
    /// Sets the icons (2025-11-25 on).
    icons: Vec<Icon>,
    /// Sets the website (2025-11-25 on).
    website_url: String,
});

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn chained_setters_fill_the_fields_they_name() {
        let tool = Tool::new("add", json!({"type": "object"}))
            .title("Add")
            .description("Adds.")
            .output_schema(json!({"type": "object"}));
        assert_eq!(
            serde_json::to_value(&tool).unwrap(),
            json!({"name": "add", "title": "Add", "description": "Adds.",
                   "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}})
        );
        let prompt = Prompt::new("p").argument(PromptArgument::required("id").description("which"));
        assert_eq!(
            serde_json::to_value(&prompt).unwrap(),
            json!({"name": "p", "arguments": [{"name": "id", "description": "which", "required": true}]})
        );
        let resource = Resource::new("a://b", "b").mime_type("text/plain");
        assert_eq!(resource.mime_type.as_deref(), Some("text/plain"));
    }

    #[test]
    fn a_schema_that_is_not_an_object_is_kept_aside_not_turned_into_an_empty_one() {
        let tool = Tool::new("t", json!(true));
        assert_eq!(
            tool.schema_not_an_object(),
            Some(("inputSchema", &json!(true)))
        );
        assert!(tool.input_schema.is_empty());
        let tool = Tool::named("t").output_schema(json!([1]));
        assert_eq!(
            tool.schema_not_an_object(),
            Some(("outputSchema", &json!([1])))
        );
        assert_eq!(Tool::named("t").schema_not_an_object(), None);
    }
}
