//! `read`: reads a resource, printing text and saving binary contents.

use mcpwire::types::LoggingLevel;
use serde_json::Value;

use crate::cli::{GlobalOptions, ReadArgs};
use crate::error::{CliError, CliResult};
use crate::output::{self, line, print_json, to_json};
use crate::session::{self};
use crate::target::resolve;

use super::{no_more_words, output_dir};

/// `read`.
pub(crate) async fn read(args: &ReadArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    let Some((uri, rest)) = rest.split_first() else {
        return Err(CliError::usage("name the resource URI to read"));
    };
    no_more_words(rest)?;
    let dir = output_dir(args.output_dir.as_ref());
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            let result = client.read_resource(uri.clone()).await?;
            let mut value = to_json(&result);
            let mut contents = value
                .get_mut("contents")
                .and_then(Value::as_array_mut)
                .map(std::mem::take)
                .unwrap_or_default();
            let lines = output::render_resource_contents(&mut contents, &dir)?;
            if let Some(slot) = value.get_mut("contents") {
                *slot = Value::Array(contents);
            }
            if json_mode {
                print_json(&value);
            } else {
                lines.iter().for_each(line);
            }
            Ok(())
        },
    )
    .await
}
