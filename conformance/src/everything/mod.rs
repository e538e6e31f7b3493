//! The everything-server: every tool, resource, template, prompt and
//! completion the conformance runner's server scenarios exercise, under the
//! exact names and shapes the runner matches on.
//!
//! The catalogue follows `CONTRACT.md` A.2 (runner 0.1.16) and the
//! 2026-07-28 additions of `CONTRACT-0.2.md` that the runtime can already
//! serve (the stateless diagnostic tools, a tool with an `x-mcp-header`
//! parameter, the multi round-trip `input_required` fixtures) and the task
//! fixtures of the `tasks-*` scenarios, and the skills of the
//! `sep-2640-skills-*` scenarios (`skills.rs`).
//!
//! Tools are registered in a fixed order and `test_simple_text` comes
//! first, because `http-header-validation` calls the first listed tool with
//! `{}`.

mod content;
mod interactive;
mod mrtr;
mod prompts;
mod resources;
mod schemas;
pub mod skills;
mod stateless;
mod tasks;

use mcpwire_server::{BuildError, Server, ServerBuilder};
use mcpwire_types::Tool;
use serde_json::Value;

pub use content::{PNG_BASE64, WAV_BASE64};

/// The name the everything-server gives in `serverInfo`.
pub const SERVER_NAME: &str = "mcpwire-everything-server";

/// Builds the everything-server.
///
/// # Errors
///
/// When a fixture is rejected by the builder (an invalid tool name or
/// schema, a duplicate, a bad template): a bug in this crate or a
/// regression in `mcpwire-server`.
pub fn server() -> Result<Server, BuildError> {
    builder().build()
}

/// The everything-server's builder, every fixture registered and tasks on
/// (in-memory task store), for callers that configure more before
/// building: the scale-out mode gives it a shared task store and
/// `requestState` key (`crate::scale_out`).
pub fn builder() -> ServerBuilder {
    let builder = Server::builder(SERVER_NAME, env!("CARGO_PKG_VERSION")).instructions(
        "The mcpwire everything-server: every fixture the MCP conformance runner exercises.",
    );
    let builder = content::register(builder);
    let builder = interactive::register(builder);
    let builder = resources::register(builder);
    let builder = prompts::register(builder);
    // Last, so that its tools follow the runner's fixtures in every list.
    let builder = stateless::register(builder);
    let builder = mrtr::register(builder);
    let builder = skills::register(builder);
    tasks::register(builder).tasks(mcpwire_server::tasks::TaskOptions::new())
}

/// A tool called `name` described by `description`, taking arguments that
/// follow `input_schema` (a JSON object; anything else gives an empty schema,
/// which the builder then rejects).
fn tool(name: &str, description: &str, input_schema: Value) -> Tool {
    let mut tool = Tool::new(name, input_schema);
    tool.description = Some(description.to_owned());
    tool
}

/// A tool taking no arguments. Its schema is `{"type": "object"}`: the
/// runner calls `test_simple_text` with no `arguments` at all and others
/// with `{}`, and neither may be refused.
fn tool_without_arguments(name: &str, description: &str) -> Tool {
    tool(name, description, serde_json::json!({"type": "object"}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_builds_and_lists_test_simple_text_first() {
        let server = server().unwrap();
        let names = server.tool_names();
        assert_eq!(names.first().map(String::as_str), Some("test_simple_text"));
    }

    #[test]
    fn every_tool_the_runner_calls_is_registered() {
        let names = server().unwrap().tool_names();
        for expected in [
            "test_simple_text",
            "test_image_content",
            "test_audio_content",
            "test_embedded_resource",
            "test_multiple_content_types",
            "test_tool_with_logging",
            "test_tool_with_progress",
            "test_error_handling",
            "test_sampling",
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
            "json_schema_2020_12_tool",
            "test_reconnection",
            "test_missing_capability",
            "test_streaming_elicitation",
            "test_logging_tool",
            "test_trigger_tool_change",
            "test_trigger_prompt_change",
            "greet",
            "slow_compute",
            "failing_job",
            "protocol_error_job",
            "confirm_delete",
            "multi_input",
            "test_tool_with_task",
        ] {
            assert!(
                names.iter().any(|name| name == expected),
                "{expected} missing"
            );
        }
    }
}
