//! With `--call-tools` only: every tool called once with arguments
//! synthesized from its `inputSchema` and a progress token; each result
//! checked against `CallToolResult` of the revision and its
//! `structuredContent` against the tool's `outputSchema` (TOOL-14), the
//! progress it sent judged, and cancellation tried on a tool that runs long
//! enough to be cancelled safely (CANCEL-05).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use mcpwire_jsonrpc::Transport;
use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};

use super::{Run, check_schema, progress};
use crate::probe::{Answer, Probe};
use crate::{Level, Options, schema, synth};

/// The most tools called in one run.
const MAX_CALLS: usize = 100;

/// How long a tool must still run after its first progress notification
/// to be cancelled: the cancellation must surely reach it while it runs
/// (CANCEL-07 allows an answer that crossed the cancellation).
const CANCELLABLE: Duration = Duration::from_millis(250);

/// A tool that ran long enough, with progress, to try cancellation on.
struct Cancellable {
    name: String,
    arguments: Value,
    /// From its first progress notification to its answer.
    remaining: Duration,
}

pub(super) async fn check<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
    options: &Options,
) {
    let tools = all_tools(probe, options).await;
    let mut answered = BTreeMap::new();
    let mut cancellable: Option<Cancellable> = None;
    for (index, tool) in tools.iter().take(MAX_CALLS).enumerate() {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let input = tool.get("inputSchema").cloned().unwrap_or(json!({}));
        let arguments = match synth::arguments(&input, version.defaults_to_json_schema_2020_12()) {
            Ok(arguments) => arguments,
            Err(why) => {
                let why = format!(
                    "tool {name:?} not called: no arguments found for its inputSchema: {why}"
                );
                run.skip(
                    "TOOL-14",
                    why,
                    "give simpler input schemas, or check this tool by hand",
                );
                continue;
            }
        };
        let token = format!("mcpwire-check-{index}");
        let params =
            json!({"name": name, "arguments": arguments, "_meta": {"progressToken": token}});
        let seen = probe.notifications.len();
        let started = Instant::now();
        let answer = match probe.send("tools/call", &params).await {
            Ok(id) => probe.wait(&id, options.timeout).await,
            Err(error) => Err(error),
        };
        let done = Instant::now();
        answered.insert(token.clone(), probe.notifications.len());
        let during = probe.notifications.get(seen..).unwrap_or_default().to_vec();
        progress::judge_call(run, (name, &params), &token, &during);
        let values = progress::values(&during, &token);
        if let (Some(first), true) = (values.first(), values.len() >= 2) {
            let remaining = done.duration_since(first.1);
            if remaining >= CANCELLABLE && cancellable.is_none() {
                cancellable = Some(Cancellable {
                    name: name.to_owned(),
                    arguments: arguments.clone(),
                    remaining,
                });
            }
        }
        match answer {
            Ok(Answer::Result(result)) => judge_result(run, version, tool, &params, &result),
            Ok(answer) => {
                let why =
                    format!("tool {name:?} answered a protocol error to synthesized arguments");
                let fix = "report failures of the tool itself as a result with isError: true";
                run.find(
                    ("TOOL-16", Level::Info),
                    why,
                    (Some(&params), Some(answer.to_json())),
                    fix,
                );
            }
            Err(error) => {
                let took = started.elapsed();
                let why = format!("tool {name:?} gave no answer ({error}, after {took:?})");
                run.skip("TOOL-14", why, "raise --timeout for slow tools");
            }
        }
    }
    let notes = probe.notifications.clone();
    progress::judge_tokens(run, &notes, &answered);
    match cancellable {
        Some(tool) => cancel(probe, run, &tool, options).await,
        None => {
            let why = "cancellation not tried: no tool sent progress and then ran long enough \
                       to be cancelled safely"
                .to_owned();
            run.skip(
                "CANCEL-05",
                why,
                "give a slow tool progress notifications to have it checked",
            );
        }
    }
    let notes = std::mem::take(&mut probe.notifications);
    progress::well_formed(run, version, &notes);
}

/// Every page of `tools/list`, without judging it (the revision's own
/// connection did).
async fn all_tools<T: Transport>(probe: &mut Probe<T>, options: &Options) -> Vec<Value> {
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..options.max_pages {
        let params = cursor
            .take()
            .map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let Ok(Answer::Result(result)) = probe.call("tools/list", &params).await else {
            return tools;
        };
        if let Some(page) = result.get("tools").and_then(Value::as_array) {
            tools.extend(page.iter().cloned());
        }
        match result.get("nextCursor") {
            Some(next @ Value::String(_)) => cursor = Some(next.clone()),
            _ => break,
        }
    }
    tools
}

/// The result against `CallToolResult`, and `structuredContent` against
/// the tool's `outputSchema`.
fn judge_result(
    run: &mut Run,
    version: ProtocolVersion,
    tool: &Value,
    params: &Value,
    result: &Value,
) {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
    check_schema(run, version, "CallToolResult", params, result, "BASE-07");
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    let structured = result.get("structuredContent");
    if let Some(structured) = structured
        && !is_error
    {
        let text_matches = result
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .any(|text| serde_json::from_str::<Value>(text).is_ok_and(|v| &v == structured));
        if text_matches {
            run.pass(
                "TOOL-13",
                format!("tool {name:?} repeats structuredContent as text"),
            );
        } else {
            let message = format!(
                "tool {name:?} returned structuredContent without its JSON as a text block"
            );
            let fix =
                "add a text content block holding the JSON of structuredContent, for older clients";
            run.find(
                ("TOOL-13", Level::Warn),
                message,
                (Some(params), Some(result.clone())),
                fix,
            );
        }
    }
    let Some(output) = tool.get("outputSchema") else {
        return;
    };
    if is_error {
        return;
    }
    let fix = "return structuredContent that the tool's outputSchema accepts";
    let Some(structured) = structured else {
        let message =
            format!("tool {name:?} declares an outputSchema but returned no structuredContent");
        return run.find(
            ("TOOL-14", Level::Fail),
            message,
            (Some(params), Some(result.clone())),
            fix,
        );
    };
    let Ok(validator) = schema::tool_validator(version, output) else {
        // An outputSchema that does not compile was reported (TOOL-05).
        return;
    };
    let problems = schema::violations(&validator, structured);
    if problems.is_empty() {
        run.pass(
            "TOOL-14",
            format!("tool {name:?}: structuredContent fits its outputSchema"),
        );
    } else {
        let message = format!(
            "tool {name:?}: structuredContent does not fit its outputSchema: {}",
            problems.join("; ")
        );
        run.find(
            ("TOOL-14", Level::Fail),
            message,
            (Some(params), Some(result.clone())),
            fix,
        );
    }
}

/// Calls `tool` again, cancels it after its first progress notification,
/// and expects no answer for it (CANCEL-05).
async fn cancel<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    tool: &Cancellable,
    options: &Options,
) {
    let token = "mcpwire-check-cancel";
    let params =
        json!({"name": tool.name, "arguments": tool.arguments, "_meta": {"progressToken": token}});
    let seen = probe.notifications.len();
    let Ok(id) = probe.send("tools/call", &params).await else {
        return;
    };
    let first_progress = |method: &str, params: &Value| {
        method == "notifications/progress"
            && params.get("progressToken").and_then(Value::as_str) == Some(token)
    };
    if !probe
        .wait_notification(seen, first_progress, options.timeout)
        .await
    {
        let why = format!(
            "cancellation not tried: the second call of {:?} sent no progress",
            tool.name
        );
        let _ = probe.wait(&id, options.timeout).await;
        return run.skip(
            "CANCEL-05",
            why,
            "send progress consistently for a progressToken",
        );
    }
    let id_json = serde_json::to_value(&id).unwrap_or(Value::Null);
    let cancelled = json!({"requestId": id_json, "reason": "mcpwire-check: cancellation test"});
    if let Err(error) = probe.notify("notifications/cancelled", &cancelled).await {
        return run.skip(
            "CANCEL-05",
            format!("cancellation not sent: {error}"),
            "keep the connection open",
        );
    }
    // Had the cancellation been ignored, the answer would come after
    // about `remaining`; twice that and two seconds more is a generous
    // bound for a loaded machine.
    let bound = (tool.remaining * 2 + Duration::from_secs(2)).min(options.timeout);
    let sent = json!({"request": params, "then": {"method": "notifications/cancelled", "params": cancelled}});
    match probe.wait(&id, bound).await {
        Ok(answer) => {
            let message = format!("tool {:?} was answered after its cancellation", tool.name);
            let fix =
                "on notifications/cancelled stop the request's work and send no response for it";
            run.find(
                ("CANCEL-05", Level::Warn),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
        Err(_) => run.pass(
            "CANCEL-05",
            format!("the cancelled call of {:?} got no answer", tool.name),
        ),
    }
}
