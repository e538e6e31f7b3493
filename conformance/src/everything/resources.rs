//! Resources: a static text and a static binary resource, a subscribable
//! one, and the template `test://template/{id}/data` with completion of `id`.

use mcpwire_server::{Context, HandlerError, ServerBuilder, TemplateVariables};
use mcpwire_types::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::json;

use super::content::PNG_BASE64;

/// The URI template of the template resource.
const DATA_TEMPLATE: &str = "test://template/{id}/data";

/// The ids `id` completes to.
const KNOWN_IDS: [&str; 4] = ["100", "123", "200", "456"];

/// A listed resource with a title, description and MIME type.
fn resource(uri: &str, name: &str, title: &str, description: &str, mime_type: &str) -> Resource {
    let mut resource = Resource::new(uri, name);
    resource.title = Some(title.to_owned());
    resource.description = Some(description.to_owned());
    resource.mime_type = Some(mime_type.to_owned());
    resource
}

/// Adds the resources and the template.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    let mut template = ResourceTemplate::new(DATA_TEMPLATE, "template-data");
    template.title = Some("Template Data".to_owned());
    template.description = Some("JSON data for any id.".to_owned());
    template.mime_type = Some("application/json".to_owned());
    builder
        .resource(
            resource(
                "test://static-text",
                "static-text",
                "Static Text Resource",
                "A fixed text resource.",
                "text/plain",
            ),
            static_text,
        )
        .resource(
            resource(
                "test://static-binary",
                "static-binary",
                "Static Binary Resource",
                "A fixed PNG image.",
                "image/png",
            ),
            static_binary,
        )
        .resource(
            resource(
                "test://watched-resource",
                "watched-resource",
                "Watched Resource",
                "A resource clients may subscribe to.",
                "text/plain",
            ),
            watched,
        )
        .resource_template(template, template_data)
        .template_completion(
            DATA_TEMPLATE,
            "id",
            |_ctx, partial: String, _others| async move {
                Ok(KNOWN_IDS
                    .iter()
                    .filter(|id| id.starts_with(partial.as_str()))
                    .map(|id| (*id).to_owned())
                    .collect())
            },
        )
}

async fn static_text(_ctx: Context, uri: String) -> Result<ReadResourceResult, HandlerError> {
    let text = "This is the content of the static text resource.";
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        uri,
        "text/plain",
        text,
    )]))
}

async fn static_binary(_ctx: Context, uri: String) -> Result<ReadResourceResult, HandlerError> {
    Ok(ReadResourceResult::new(vec![ResourceContents::blob(
        uri,
        "image/png",
        PNG_BASE64,
    )]))
}

async fn watched(_ctx: Context, uri: String) -> Result<ReadResourceResult, HandlerError> {
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        uri,
        "text/plain",
        "Watched resource content.",
    )]))
}

async fn template_data(
    _ctx: Context,
    uri: String,
    variables: TemplateVariables,
) -> Result<ReadResourceResult, HandlerError> {
    let id = variables.get("id").map(String::as_str).unwrap_or_default();
    let data = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        uri,
        "application/json",
        data.to_string(),
    )]))
}
