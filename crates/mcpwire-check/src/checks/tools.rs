//! Tools: every page of `tools/list` against the revision's schema, each
//! tool's name and its input and output schemas.

use mcpwire_jsonrpc::Transport;
use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};

use super::{Run, check_schema, with_meta};
use crate::probe::{Answer, Probe};
use crate::{Level, Options, schema};

/// Lists every page of tools and checks each page and each tool.
pub(super) async fn list_tools<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
    meta: Option<&Value>,
    options: &Options,
) {
    let mut cursor: Option<Value> = None;
    let mut names = std::collections::BTreeSet::new();
    for _ in 0..options.max_pages {
        let params = with_meta(
            cursor
                .take()
                .map_or_else(|| json!({}), |c| json!({"cursor": c})),
            meta,
        );
        let result = match probe.call("tools/list", &params).await {
            Ok(Answer::Result(result)) => result,
            Ok(answer) => {
                let fix = "answer tools/list when the tools capability is declared";
                let message = "tools/list failed although tools are declared".to_owned();
                return run.find(
                    ("TOOL-01", Level::Fail),
                    message,
                    (Some(&params), Some(answer.to_json())),
                    fix,
                );
            }
            Err(error) => {
                let fix = "answer tools/list promptly";
                return run.find(
                    ("TOOL-01", Level::Fail),
                    format!("tools/list: {error}"),
                    (Some(&params), None),
                    fix,
                );
            }
        };
        check_schema(run, version, "ListToolsResult", &params, &result, "TOOL-04");
        for tool in result
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            check_tool(run, version, tool, &mut names);
        }
        match result.get("nextCursor") {
            Some(next @ Value::String(_)) => cursor = Some(next.clone()),
            _ => return,
        }
    }
}

fn check_tool(
    run: &mut Run,
    version: ProtocolVersion,
    tool: &Value,
    names: &mut std::collections::BTreeSet<String>,
) {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if version.at_least(ProtocolVersion::V2025_11_25) {
        match mcpwire_types::validate_tool_name(&name) {
            Ok(()) => run.pass("TOOL-09", format!("tool {name:?} has a valid name")),
            Err(error) => {
                let fix = "name tools with 1-128 of A-Z a-z 0-9 _ - .";
                run.find(
                    ("TOOL-09", Level::Warn),
                    format!("tool {name:?}: {error}"),
                    (None, Some(tool.clone())),
                    fix,
                );
            }
        }
    }
    if names.insert(name.clone()) {
        run.pass("TOOL-10", format!("tool {name:?} is listed once"));
    } else {
        let fix = "give every tool a name of its own";
        run.find(
            ("TOOL-10", Level::Warn),
            format!("tool {name:?} is listed twice"),
            (None, None),
            fix,
        );
    }
    for key in ["inputSchema", "outputSchema"] {
        let Some(schema) = tool.get(key) else {
            continue;
        };
        if schema.get("type").and_then(Value::as_str) != Some("object")
            && (key == "inputSchema" || !version.at_least(ProtocolVersion::V2026_07_28))
        {
            let fix = "give the schema `\"type\": \"object\"` at its root";
            run.find(
                ("TOOL-04", Level::Fail),
                format!("tool {name:?}: {key} has no root \"type\": \"object\""),
                (None, Some(schema.clone())),
                fix,
            );
        } else {
            run.pass(
                "TOOL-04",
                format!("tool {name:?}: {key} has a root object type"),
            );
        }
        match schema::compile_error(version, schema) {
            None => run.pass("TOOL-05", format!("tool {name:?}: {key} compiles")),
            Some(error) => {
                let fix =
                    "publish a schema valid in its dialect (2020-12 unless $schema says otherwise)";
                run.find(
                    ("TOOL-05", Level::Fail),
                    format!("tool {name:?}: {key} is not a valid JSON Schema: {error}"),
                    (None, Some(schema.clone())),
                    fix,
                );
            }
        }
    }
}
