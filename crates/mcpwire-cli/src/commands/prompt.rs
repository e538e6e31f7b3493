//! `prompt`: gets a prompt with its arguments and prints its messages.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcpwire::types::LoggingLevel;
use serde_json::Value;

use crate::arguments;
use crate::cli::{GlobalOptions, PromptArgs};
use crate::error::{CliError, CliResult};
use crate::output::{self, line, print_json, to_json};
use crate::session::{self};
use crate::target::resolve;

use super::report::text;

/// `prompt`.
pub(crate) async fn prompt(args: &PromptArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    let Some((name, words)) = rest.split_first() else {
        return Err(CliError::usage("name the prompt to get"));
    };
    let arguments: BTreeMap<String, String> = arguments::pairs(words)?.into_iter().collect();
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            let result = client.get_prompt(name.clone(), arguments).await?;
            let mut value = to_json(&result);
            if json_mode {
                print_json(&value);
                return Ok(());
            }
            if let Some(description) = value.get("description").and_then(Value::as_str) {
                line(format!("# {description}"));
            }
            let dir = PathBuf::from(".");
            for message in value
                .get_mut("messages")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                let role = text(message, "role");
                let mut blocks = vec![message.get("content").cloned().unwrap_or_default()];
                for rendered in output::render_content(&mut blocks, &dir)? {
                    line(format!("{role}: {rendered}"));
                }
            }
            Ok(())
        },
    )
    .await
}
