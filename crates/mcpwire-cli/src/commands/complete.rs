//! `complete`: asks for completions of a prompt or template argument.

use mcpwire::types::{CompleteArgument, CompletionReference, LoggingLevel};

use crate::cli::{CompleteArgs, GlobalOptions};
use crate::error::{CliError, CliResult};
use crate::output::{line, print_json, to_json};
use crate::session::{self};
use crate::target::resolve;

use super::no_more_words;

/// `complete`.
pub(crate) async fn complete(args: &CompleteArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let reference = match (&args.prompt, &args.template) {
        (Some(prompt), None) => CompletionReference::prompt(prompt.clone()),
        (None, Some(template)) => CompletionReference::resource_template(template.clone()),
        _ => {
            return Err(CliError::usage(
                "give exactly one of --prompt and --template",
            ));
        }
    };
    let argument = CompleteArgument::new(args.argument.clone(), args.value.clone());
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            let result = client.complete(reference, argument).await?;
            if json_mode {
                print_json(&to_json(&result));
            } else {
                result.completion.values.iter().for_each(line);
                if result.completion.has_more == Some(true) {
                    eprintln!("(more values exist)");
                }
            }
            Ok(())
        },
    )
    .await
}
