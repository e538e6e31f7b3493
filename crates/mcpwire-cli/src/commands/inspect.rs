//! `inspect`: connects, gathers everything a server offers (info,
//! capabilities, tools, resources, templates, prompts) into one JSON report.

use mcpwire::client::Client;
use mcpwire::types::LoggingLevel;
use serde_json::{Value, json};

use crate::cli::{GlobalOptions, TargetArgs};
use crate::error::CliResult;
use crate::output::{print_json, to_json};
use crate::session::{self};
use crate::target::resolve;

use super::no_more_words;
use super::report::print_report;

/// `inspect`.
pub(crate) async fn inspect(args: &TargetArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, transport| async move {
            let report = gather(&client, transport).await?;
            if json_mode {
                print_json(&report);
            } else {
                print_report(&report);
            }
            Ok(())
        },
    )
    .await
}

/// Everything `inspect` shows, as JSON.
pub(crate) async fn gather(client: &Client, transport: &str) -> CliResult<Value> {
    let server = client.server();
    let capabilities = to_json(&*server.capabilities);
    let has = |name: &str| capabilities.get(name).is_some_and(|v| !v.is_null());
    let tools = if has("tools") {
        to_json(&client.list_all_tools().await?)
    } else {
        json!([])
    };
    let resources = if has("resources") {
        to_json(&client.list_all_resources().await?)
    } else {
        json!([])
    };
    let templates = if has("resources") {
        to_json(&client.list_all_resource_templates().await?)
    } else {
        json!([])
    };
    let prompts = if has("prompts") {
        to_json(&client.list_all_prompts().await?)
    } else {
        json!([])
    };
    Ok(json!({
        "serverInfo": server.info.as_deref().map(to_json),
        "protocolVersion": server.version.to_string(),
        "transport": transport,
        "capabilities": capabilities,
        "instructions": server.instructions,
        "tools": tools,
        "resources": resources,
        "resourceTemplates": templates,
        "prompts": prompts,
    }))
}
