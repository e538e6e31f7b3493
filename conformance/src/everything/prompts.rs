//! Prompts: a simple one, one with arguments (and completion of both), one
//! embedding a resource, and one with an image.

use mcpwire_server::{Context, HandlerError, PromptArguments, ServerBuilder};
use mcpwire_types::{
    ContentBlock, EmbeddedResource, Extra, GetPromptResult, MediaContent, Prompt, PromptArgument,
    PromptMessage, ResourceContents, Role,
};

use super::content::PNG_BASE64;

/// What `arg1` completes to.
const ARG1_VALUES: [&str; 3] = ["test", "testing", "tested"];

/// What `arg2` completes to.
const ARG2_VALUES: [&str; 3] = ["alpha", "beta", "gamma"];

fn prompt(name: &str, description: &str, arguments: Vec<PromptArgument>) -> Prompt {
    let mut prompt = Prompt::new(name);
    prompt.description = Some(description.to_owned());
    if !arguments.is_empty() {
        prompt.arguments = Some(arguments);
    }
    prompt
}

fn required(name: &str, description: &str) -> PromptArgument {
    let mut argument = PromptArgument::new(name);
    argument.description = Some(description.to_owned());
    argument.required = Some(true);
    argument
}

/// The values of `candidates` starting with `partial`.
fn completions(candidates: &[&str], partial: &str) -> Vec<String> {
    candidates
        .iter()
        .filter(|value| value.starts_with(partial))
        .map(|value| (*value).to_owned())
        .collect()
}

/// Adds the prompts and the completions of `test_prompt_with_arguments`.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .prompt(
            prompt("test_simple_prompt", "A prompt without arguments.", vec![]),
            simple,
        )
        .prompt(
            prompt(
                "test_prompt_with_arguments",
                "A prompt that repeats its two arguments.",
                vec![
                    required("arg1", "The first argument"),
                    required("arg2", "The second argument"),
                ],
            ),
            with_arguments,
        )
        .prompt(
            prompt(
                "test_prompt_with_embedded_resource",
                "A prompt embedding the resource it is given.",
                vec![required("resourceUri", "The URI of the resource to embed")],
            ),
            with_embedded_resource,
        )
        .prompt(
            prompt(
                "test_prompt_with_image",
                "A prompt holding an image.",
                vec![],
            ),
            with_image,
        )
        .prompt_completion(
            "test_prompt_with_arguments",
            "arg1",
            |_ctx, partial: String, _others| async move { Ok(completions(&ARG1_VALUES, &partial)) },
        )
        .prompt_completion(
            "test_prompt_with_arguments",
            "arg2",
            |_ctx, partial: String, _others| async move { Ok(completions(&ARG2_VALUES, &partial)) },
        )
}

async fn simple(_ctx: Context, _args: PromptArguments) -> Result<GetPromptResult, HandlerError> {
    Ok(GetPromptResult::new(vec![PromptMessage::user_text(
        "This is a simple prompt for testing.",
    )]))
}

async fn with_arguments(
    _ctx: Context,
    args: PromptArguments,
) -> Result<GetPromptResult, HandlerError> {
    let arg1 = args.get("arg1").map(String::as_str).unwrap_or_default();
    let arg2 = args.get("arg2").map(String::as_str).unwrap_or_default();
    Ok(GetPromptResult::new(vec![PromptMessage::user_text(
        format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
    )]))
}

async fn with_embedded_resource(
    _ctx: Context,
    args: PromptArguments,
) -> Result<GetPromptResult, HandlerError> {
    let uri = args.get("resourceUri").cloned().unwrap_or_default();
    let resource = ContentBlock::Resource(EmbeddedResource {
        resource: ResourceContents::text(
            uri,
            "text/plain",
            "Embedded resource content for testing.",
        ),
        annotations: None,
        meta: None,
        extra: Extra::new(),
    });
    Ok(GetPromptResult::new(vec![
        PromptMessage::new(Role::User, resource),
        PromptMessage::user_text("Please process the embedded resource above."),
    ]))
}

async fn with_image(
    _ctx: Context,
    _args: PromptArguments,
) -> Result<GetPromptResult, HandlerError> {
    let image = ContentBlock::Image(MediaContent::new(PNG_BASE64, "image/png"));
    Ok(GetPromptResult::new(vec![
        PromptMessage::new(Role::User, image),
        PromptMessage::user_text("Please analyze the image above."),
    ]))
}
