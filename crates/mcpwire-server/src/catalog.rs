//! What a server offers: tools, resources, templates, prompts and
//! completers, kept in registration order so that lists are deterministic.

use std::sync::Arc;

use mcpwire_types::{Prompt, Resource, ResourceTemplate, Tool, validate_tool_name};

use crate::BuildError;
use crate::handler::{CompleteFn, PromptFn, ResourceFn, TemplateFn, ToolFn};
use crate::schema::DeferredSchema;
use crate::uri_template::UriTemplate;

/// A tool with its compiled schemas and handler.
pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    pub(crate) input: DeferredSchema,
    pub(crate) output: Option<DeferredSchema>,
    pub(crate) handler: ToolFn,
}

impl ToolEntry {
    pub(crate) fn new(tool: Tool, handler: ToolFn) -> Result<Self, BuildError> {
        validate_tool_name(&tool.name).map_err(|error| BuildError::ToolName {
            name: tool.name.clone(),
            reason: error.to_string(),
        })?;
        let schema_error = |which, error: crate::schema::SchemaError| BuildError::Schema {
            tool: tool.name.clone(),
            which,
            reason: error.to_string(),
        };
        if let Some((which, schema)) = tool.schema_not_an_object() {
            return Err(BuildError::Schema {
                tool: tool.name.clone(),
                which,
                reason: format!(
                    "it must be a JSON object (a schema with \"type\": \"object\"), but {}",
                    not_an_object(schema)
                ),
            });
        }
        let input_schema = serde_json::Value::Object(tool.input_schema.clone());
        let input =
            DeferredSchema::tool_input(input_schema).map_err(|e| schema_error("inputSchema", e))?;
        let output = match &tool.output_schema {
            Some(schema) => Some(
                DeferredSchema::new(serde_json::Value::Object(schema.clone()))
                    .map_err(|e| schema_error("outputSchema", e))?,
            ),
            None => None,
        };
        Ok(Self {
            tool,
            input,
            output,
            handler,
        })
    }
}

/// Why `schema` is not an object schema, as a short phrase.
fn not_an_object(schema: &serde_json::Value) -> String {
    match crate::schema::require_object_schema(schema) {
        Err(crate::schema::SchemaError::NotAnObjectSchema { found }) => found,
        _ => "it is not a JSON object".to_owned(),
    }
}

/// Refuses an `outputSchema` whose root is not an object schema when the
/// server speaks a revision (2025-06-18, 2025-11-25) whose clients accept
/// only object-shaped structured content: such a tool's structured output
/// would silently vanish for them. 2026-07-28 allows any root.
pub(crate) fn check_output_for_versions(
    tool: &Tool,
    versions: &[mcpwire_types::ProtocolVersion],
) -> Result<(), BuildError> {
    let Some(schema) = &tool.output_schema else {
        return Ok(());
    };
    let schema = serde_json::Value::Object(schema.clone());
    if crate::schema::require_object_schema(&schema).is_ok() {
        return Ok(());
    }
    let picky = versions.iter().find(|v| {
        v.has_structured_output() && !v.at_least(mcpwire_types::ProtocolVersion::V2026_07_28)
    });
    match picky {
        None => Ok(()),
        Some(version) => Err(BuildError::Schema {
            tool: tool.name.clone(),
            which: "outputSchema",
            reason: format!(
                "clients of {version} accept only structured content that is a JSON object, so \
                 its root must have \"type\": \"object\", but {}; wrap the value in a struct, \
                 or serve only 2026-07-28 (ServerBuilder::versions)",
                not_an_object(&schema)
            ),
        }),
    }
}

/// A listed resource with its reader.
pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) handler: ResourceFn,
}

/// A resource template with its parsed form, reader and completers.
pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) handler: TemplateFn,
    pub(crate) completers: Vec<(String, CompleteFn)>,
}

/// A prompt with its renderer and argument completers.
pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) handler: PromptFn,
    pub(crate) completers: Vec<(String, CompleteFn)>,
}

/// Everything offered, in registration order.
#[derive(Default)]
pub(crate) struct Catalog {
    pub(crate) tools: Vec<Arc<ToolEntry>>,
    pub(crate) resources: Vec<Arc<ResourceEntry>>,
    pub(crate) templates: Vec<Arc<TemplateEntry>>,
    pub(crate) prompts: Vec<Arc<PromptEntry>>,
}

impl Catalog {
    pub(crate) fn tool(&self, name: &str) -> Option<Arc<ToolEntry>> {
        self.tools.iter().find(|t| t.tool.name == name).cloned()
    }

    pub(crate) fn prompt(&self, name: &str) -> Option<Arc<PromptEntry>> {
        self.prompts.iter().find(|p| p.prompt.name == name).cloned()
    }

    pub(crate) fn resource(&self, uri: &str) -> Option<Arc<ResourceEntry>> {
        self.resources
            .iter()
            .find(|r| r.resource.uri == uri)
            .cloned()
    }

    pub(crate) fn template(&self, uri_template: &str) -> Option<Arc<TemplateEntry>> {
        self.templates
            .iter()
            .find(|t| t.template.uri_template == uri_template)
            .cloned()
    }

    /// The first template (in registration order) matching `uri`, with its variables.
    pub(crate) fn match_template(
        &self,
        uri: &str,
    ) -> Option<(Arc<TemplateEntry>, crate::handler::TemplateVariables)> {
        self.templates.iter().find_map(|entry| {
            let vars = entry.parsed.match_uri(uri)?;
            let vars = vars
                .into_iter()
                .filter_map(|(name, value)| value.as_str().map(|v| (name, v.to_owned())))
                .collect();
            Some((entry.clone(), vars))
        })
    }

    /// Whether `uri` names a listed resource or matches a template.
    pub(crate) fn knows_uri(&self, uri: &str) -> bool {
        self.resource(uri).is_some()
            || self
                .templates
                .iter()
                .any(|t| t.parsed.match_uri(uri).is_some())
    }

    pub(crate) fn add_tool(&mut self, entry: ToolEntry) -> Result<(), BuildError> {
        if self.tool(&entry.tool.name).is_some() {
            return Err(BuildError::Duplicate {
                kind: "tool",
                name: entry.tool.name.clone(),
            });
        }
        self.tools.push(Arc::new(entry));
        Ok(())
    }

    pub(crate) fn add_resource(&mut self, entry: ResourceEntry) -> Result<(), BuildError> {
        if self.resource(&entry.resource.uri).is_some() {
            return Err(BuildError::Duplicate {
                kind: "resource",
                name: entry.resource.uri.clone(),
            });
        }
        self.resources.push(Arc::new(entry));
        Ok(())
    }

    pub(crate) fn add_template(&mut self, entry: TemplateEntry) -> Result<(), BuildError> {
        if self.template(&entry.template.uri_template).is_some() {
            let name = entry.template.uri_template.clone();
            return Err(BuildError::Duplicate {
                kind: "resource template",
                name,
            });
        }
        self.templates.push(Arc::new(entry));
        Ok(())
    }

    pub(crate) fn add_prompt(&mut self, entry: PromptEntry) -> Result<(), BuildError> {
        if self.prompt(&entry.prompt.name).is_some() {
            return Err(BuildError::Duplicate {
                kind: "prompt",
                name: entry.prompt.name.clone(),
            });
        }
        self.prompts.push(Arc::new(entry));
        Ok(())
    }
}
