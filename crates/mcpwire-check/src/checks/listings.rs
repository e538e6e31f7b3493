//! Resources, resource templates and prompts: every page of each listing
//! against the revision's schema, a few reads and argument-free prompts,
//! and `completion/complete` for prompt arguments and template variables
//! (at most 100 values, COMP-02) when the server declares completions.

use mcpwire_jsonrpc::Transport;
use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};

use super::{Run, check_schema, with_meta};
use crate::probe::{Answer, Probe};
use crate::{Level, Options};

/// How many resources are read and argument-free prompts fetched, per
/// connection: enough to see their shape, few enough to stay quick.
const MAX_SAMPLES: usize = 3;

/// How many prompts and templates get a completion request, per connection.
const MAX_COMPLETIONS: usize = 5;

/// The most values a completion may give (COMP-02).
const MAX_COMPLETION_VALUES: usize = 100;

/// One paginated listing: its method, result definition, item key and rule.
struct Listing {
    method: &'static str,
    result: &'static str,
    items: &'static str,
    rule: &'static str,
}

const RESOURCES: Listing = Listing {
    method: "resources/list",
    result: "ListResourcesResult",
    items: "resources",
    rule: "RES-04",
};

const TEMPLATES: Listing = Listing {
    method: "resources/templates/list",
    result: "ListResourceTemplatesResult",
    items: "resourceTemplates",
    rule: "RES-04",
};

const PROMPTS: Listing = Listing {
    method: "prompts/list",
    result: "ListPromptsResult",
    items: "prompts",
    rule: "PROMPT-07",
};

pub(super) async fn check<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
    meta: Option<&Value>,
    capabilities: &Value,
    options: &Options,
) {
    let declares = |name: &str| capabilities.get(name).is_some_and(Value::is_object);
    let completions = declares("completions");
    if declares("resources") {
        let resources = list(probe, run, version, meta, &RESOURCES, options).await;
        for resource in resources.iter().take(MAX_SAMPLES) {
            read(probe, run, version, meta, resource).await;
        }
        let templates = list(probe, run, version, meta, &TEMPLATES, options).await;
        if completions {
            for template in templates.iter().take(MAX_COMPLETIONS) {
                let Some(uri) = template.get("uriTemplate").and_then(Value::as_str) else {
                    continue;
                };
                let Some(variable) = template_variables(uri).into_iter().next() else {
                    continue;
                };
                let reference = json!({"type": "ref/resource", "uri": uri});
                complete(probe, run, (version, meta), reference, &variable).await;
            }
        }
    }
    if declares("prompts") {
        let prompts = list(probe, run, version, meta, &PROMPTS, options).await;
        let free = prompts.iter().filter(|p| !has_required_argument(p));
        for prompt in free.take(MAX_SAMPLES) {
            get_prompt(probe, run, version, meta, prompt).await;
        }
        if completions {
            for prompt in prompts.iter().take(MAX_COMPLETIONS) {
                let name = prompt.get("name").and_then(Value::as_str);
                let argument = prompt
                    .get("arguments")
                    .and_then(Value::as_array)
                    .and_then(|a| a.first())
                    .and_then(|a| a.get("name"))
                    .and_then(Value::as_str);
                if let (Some(name), Some(argument)) = (name, argument) {
                    let reference = json!({"type": "ref/prompt", "name": name});
                    complete(probe, run, (version, meta), reference, argument).await;
                }
            }
        }
    }
}

/// Reads every page of `listing`; the items, for the checks that follow.
async fn list<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
    meta: Option<&Value>,
    listing: &Listing,
    options: &Options,
) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..options.max_pages {
        let params = with_meta(
            cursor
                .take()
                .map_or_else(|| json!({}), |c| json!({"cursor": c})),
            meta,
        );
        let fix = "answer every listing of a declared capability, page by page";
        let result = match probe.call(listing.method, &params).await {
            Ok(Answer::Result(result)) => result,
            Ok(answer) => {
                let message = format!(
                    "{} failed although its capability is declared",
                    listing.method
                );
                run.find(
                    (listing.rule, Level::Fail),
                    message,
                    (Some(&params), Some(answer.to_json())),
                    fix,
                );
                return items;
            }
            Err(error) => {
                let message = format!("{}: {error}", listing.method);
                run.find(
                    (listing.rule, Level::Fail),
                    message,
                    (Some(&params), None),
                    fix,
                );
                return items;
            }
        };
        check_schema(run, version, listing.result, &params, &result, listing.rule);
        if let Some(page) = result.get(listing.items).and_then(Value::as_array) {
            items.extend(page.iter().cloned());
        }
        match result.get("nextCursor") {
            Some(next @ Value::String(_)) => cursor = Some(next.clone()),
            _ => return items,
        }
    }
    items
}

async fn read<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
    meta: Option<&Value>,
    resource: &Value,
) {
    let Some(uri) = resource.get("uri").and_then(Value::as_str) else {
        return;
    };
    let params = with_meta(json!({"uri": uri}), meta);
    match probe.call("resources/read", &params).await {
        Ok(Answer::Result(result)) => {
            check_schema(
                run,
                version,
                "ReadResourceResult",
                &params,
                &result,
                "RES-05",
            );
        }
        Ok(answer) => {
            let message = format!("resources/read of the listed resource {uri:?} failed");
            let fix = "let every resource that resources/list names be read";
            run.find(
                ("RES-05", Level::Warn),
                message,
                (Some(&params), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => {
            let fix = "answer resources/read promptly";
            let message = format!("resources/read {uri:?}: {error}");
            run.find(("RES-05", Level::Fail), message, (Some(&params), None), fix);
        }
    }
}

fn has_required_argument(prompt: &Value) -> bool {
    prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|a| a.get("required") == Some(&Value::Bool(true)))
}

async fn get_prompt<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
    meta: Option<&Value>,
    prompt: &Value,
) {
    let Some(name) = prompt.get("name").and_then(Value::as_str) else {
        return;
    };
    let params = with_meta(json!({"name": name}), meta);
    match probe.call("prompts/get", &params).await {
        Ok(Answer::Result(result)) => {
            check_schema(
                run,
                version,
                "GetPromptResult",
                &params,
                &result,
                "PROMPT-03",
            );
        }
        Ok(answer) => {
            let message = format!("prompts/get of {name:?}, which needs no argument, failed");
            let fix = "let every listed prompt without required arguments be fetched";
            run.find(
                ("PROMPT-05", Level::Warn),
                message,
                (Some(&params), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => {
            let fix = "answer prompts/get promptly";
            let message = format!("prompts/get {name:?}: {error}");
            run.find(
                ("PROMPT-05", Level::Fail),
                message,
                (Some(&params), None),
                fix,
            );
        }
    }
}

/// `completion/complete` of `argument` of `reference` with an empty
/// value: an answer has at most 100 values and fits the schema; an error
/// is allowed (the argument may have no completions).
async fn complete<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    (version, meta): (ProtocolVersion, Option<&Value>),
    reference: Value,
    argument: &str,
) {
    let params = with_meta(
        json!({"ref": reference, "argument": {"name": argument, "value": ""}}),
        meta,
    );
    let fix = "return at most 100 completion values; say hasMore/total for the rest";
    match probe.call("completion/complete", &params).await {
        Ok(Answer::Result(result)) => {
            let values = result
                .get("completion")
                .and_then(|c| c.get("values"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if values > MAX_COMPLETION_VALUES {
                let message = format!(
                    "completion/complete of {argument:?} gave {values} values (at most 100)"
                );
                run.find(
                    ("COMP-02", Level::Fail),
                    message,
                    (Some(&params), Some(result)),
                    fix,
                );
                return;
            }
            run.pass(
                "COMP-02",
                format!("completion of {argument:?}: {values} values"),
            );
            check_schema(run, version, "CompleteResult", &params, &result, "COMP-02");
        }
        Ok(_) => run.pass(
            "COMP-04",
            format!("completion of {argument:?} refused with an error"),
        ),
        Err(error) => {
            let message = format!("completion/complete of {argument:?}: {error}");
            run.find(
                ("COMP-02", Level::Fail),
                message,
                (Some(&params), None),
                fix,
            );
        }
    }
}

/// The variable names of an RFC 6570 template, in order.
fn template_variables(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(end) = rest[start..].find('}') else {
            break;
        };
        let expression = &rest[start + 1..start + end];
        let expression = expression.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for name in expression.split(',') {
            let name = name.trim_end_matches('*');
            let name = name.split(':').next().unwrap_or_default();
            if !name.is_empty() {
                names.push(name.to_owned());
            }
        }
        rest = &rest[start + end + 1..];
    }
    names
}

#[cfg(test)]
mod tests {
    use super::template_variables;

    #[test]
    fn template_variables_are_read_in_order_with_operators_and_modifiers() {
        assert_eq!(
            template_variables("notes://{+path}/{id}{?a,b*}{x:3}"),
            ["path", "id", "a", "b", "x"]
        );
        assert!(template_variables("plain://uri").is_empty());
        assert!(template_variables("broken://{open").is_empty());
    }
}
