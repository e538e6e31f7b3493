//! The `demo` command, which starts `mcpwire serve-demo` as a child,
//! inspects it and calls one of its tools, and the hidden `serve-demo`
//! command, which serves the demo server (`mcpwire-demo`: the notes server
//! of the examples plus tools for progress, tasks, elicitation, sampling
//! and images) on stdio.

use std::collections::BTreeMap;

use mcpwire::types::LoggingLevel;
use serde_json::{Map, json};

use crate::cli::GlobalOptions;
use crate::commands::{call_rendered, gather, print_call, print_report};
use crate::error::{CliError, CliResult};
use crate::output::{line, print_json};
use crate::session;
use crate::target::Target;

/// `serve-demo`: the demo server on stdin/stdout until stdin closes.
pub(crate) async fn serve_demo() -> CliResult {
    let server = mcpwire_demo::demo_server().map_err(CliError::connection)?;
    server
        .serve(mcpwire::stdio::stdio())
        .await
        .map_err(CliError::connection)
}

/// `demo`: starts `mcpwire serve-demo` as a child, shows what `inspect`
/// shows, and calls `add_note`.
pub(crate) async fn demo(global: &GlobalOptions) -> CliResult {
    let exe = std::env::current_exe()
        .map_err(|error| CliError::connection(format!("cannot find this program: {error}")))?;
    let target = Target::Command {
        program: exe.display().to_string(),
        args: vec!["serve-demo".to_owned()],
        env: BTreeMap::new(),
        cwd: None,
    };
    let json_mode = global.json;
    session::run(&target, global, LoggingLevel::Info, true, |client, transport| async move {
        let report = gather(&client, transport).await?;
        let mut arguments = Map::new();
        arguments.insert("title".into(), "Hello".into());
        arguments.insert("body".into(), "written by mcpwire demo".into());
        let outcome = call_rendered(&client, "add_note", arguments, std::path::Path::new(".")).await?;
        if json_mode {
            print_json(&json!({"inspect": report, "call": outcome.value}));
            return Ok(());
        }
        line("$ mcpwire inspect -- mcpwire serve-demo");
        print_report(&report);
        line("\n$ mcpwire call add_note title=Hello body='written by mcpwire demo' -- mcpwire serve-demo");
        print_call(&outcome, "add_note", false)
    })
    .await
}
