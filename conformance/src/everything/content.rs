//! Tools that return fixed content: text, image, audio, an embedded
//! resource, a mix of them, and a tool execution error.

use mcpwire_server::{Arguments, Context, HandlerError, ServerBuilder};
use mcpwire_types::{
    CallToolResult, ContentBlock, EmbeddedResource, Extra, MediaContent, ResourceContents,
};

use super::schemas::json_schema_2020_12;
use super::{tool, tool_without_arguments};

/// A 1x1 transparent PNG, base64-encoded.
pub const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// A WAV file of eight silent 8-bit mono samples at 8 kHz, base64-encoded.
pub const WAV_BASE64: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// The text of `test_error_handling`'s error result.
const ERROR_TEXT: &str = "This tool intentionally returns an error for testing";

/// Adds the fixed-content tools, `test_simple_text` first.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            tool_without_arguments(
                "test_simple_text",
                "Returns one text block. Callable with no arguments at all.",
            ),
            simple_text,
        )
        .tool(
            tool_without_arguments("test_image_content", "Returns one PNG image block."),
            image_content,
        )
        .tool(
            tool_without_arguments("test_audio_content", "Returns one audio/wav block."),
            audio_content,
        )
        .tool(
            tool_without_arguments(
                "test_embedded_resource",
                "Returns one embedded text resource, test://embedded-resource.",
            ),
            embedded_resource,
        )
        .tool(
            tool_without_arguments(
                "test_multiple_content_types",
                "Returns a text block, an image and an embedded JSON resource.",
            ),
            multiple_content_types,
        )
        .tool(
            tool_without_arguments(
                "test_error_handling",
                "Always fails as a tool execution error (isError: true), not a protocol error.",
            ),
            error_handling,
        )
        .tool(
            tool(
                "json_schema_2020_12_tool",
                "Takes arguments described in JSON Schema 2020-12, listed exactly as written.",
                json_schema_2020_12(),
            ),
            json_schema_tool,
        )
}

fn image() -> ContentBlock {
    ContentBlock::Image(MediaContent::new(PNG_BASE64, "image/png"))
}

fn embedded(contents: ResourceContents) -> ContentBlock {
    ContentBlock::Resource(EmbeddedResource {
        resource: contents,
        annotations: None,
        meta: None,
        extra: Extra::new(),
    })
}

async fn simple_text(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    Ok(CallToolResult::text(
        "This is a simple text response for testing.",
    ))
}

async fn image_content(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    Ok(CallToolResult::new(vec![image()]))
}

async fn audio_content(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    let audio = ContentBlock::Audio(MediaContent::new(WAV_BASE64, "audio/wav"));
    Ok(CallToolResult::new(vec![audio]))
}

async fn embedded_resource(
    _ctx: Context,
    _args: Arguments,
) -> Result<CallToolResult, HandlerError> {
    let contents = ResourceContents::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    );
    Ok(CallToolResult::new(vec![embedded(contents)]))
}

async fn multiple_content_types(
    _ctx: Context,
    _args: Arguments,
) -> Result<CallToolResult, HandlerError> {
    let json = ResourceContents::text(
        "test://mixed-content-resource",
        "application/json",
        r#"{"test":"data","value":123}"#,
    );
    Ok(CallToolResult::new(vec![
        ContentBlock::text("Multiple content types test:"),
        image(),
        embedded(json),
    ]))
}

async fn error_handling(_ctx: Context, _args: Arguments) -> Result<CallToolResult, HandlerError> {
    Err(HandlerError::tool(ERROR_TEXT))
}

async fn json_schema_tool(_ctx: Context, args: Arguments) -> Result<CallToolResult, HandlerError> {
    let arguments = serde_json::Value::Object(args);
    Ok(CallToolResult::text(format!(
        "Arguments accepted by the 2020-12 schema: {arguments}"
    )))
}
