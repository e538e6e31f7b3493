//! Rendering of the `inspect` report as text and tables, with the one-line
//! summaries of JSON schemas (`(title: string*, count: integer)`).

use serde_json::Value;

use crate::output::{line, table};

/// A one-line summary of a JSON schema's properties:
/// `(title: string*, count: integer)`, `*` marking required ones.
pub(crate) fn schema_summary(schema: Option<&Value>) -> String {
    let Some(schema) = schema else {
        return String::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| {
                    let kind = match property.get("type") {
                        Some(Value::String(kind)) => kind.clone(),
                        Some(Value::Array(kinds)) => kinds
                            .iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("|"),
                        _ => "any".to_owned(),
                    };
                    let mark = if required.contains(&name.as_str()) {
                        "*"
                    } else {
                        ""
                    };
                    format!("{name}: {kind}{mark}")
                })
                .collect()
        })
        .unwrap_or_default();
    format!("({})", fields.join(", "))
}

pub(super) fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

pub(super) fn items(report: &Value, key: &str) -> Vec<Value> {
    report
        .get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Prints an `inspect` report as text and tables.
pub(crate) fn print_report(report: &Value) {
    let info = report.get("serverInfo").cloned().unwrap_or_default();
    line(format!(
        "Server:       {} {}",
        text(&info, "name"),
        text(&info, "version")
    ));
    line(format!(
        "Protocol:     {} over {}",
        text(report, "protocolVersion"),
        text(report, "transport")
    ));
    let capabilities: Vec<String> = report
        .get("capabilities")
        .and_then(Value::as_object)
        .map(|caps| {
            caps.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| match v.as_object() {
                    Some(flags) if !flags.is_empty() => {
                        let flags: Vec<&str> = flags.keys().map(String::as_str).collect();
                        format!("{k} ({})", flags.join(", "))
                    }
                    _ => k.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    line(format!("Capabilities: {}", capabilities.join(", ")));
    if let Some(instructions) = report.get("instructions").and_then(Value::as_str) {
        line(format!("Instructions: {instructions}"));
    }
    let tools = items(report, "tools");
    line(format!("\nTools ({}):", tools.len()));
    if !tools.is_empty() {
        let rows: Vec<Vec<String>> = tools
            .iter()
            .map(|tool| {
                let output = tool
                    .get("outputSchema")
                    .map(|s| format!(" -> {}", schema_summary(Some(s))))
                    .unwrap_or_default();
                vec![
                    text(tool, "name"),
                    format!("{}{output}", schema_summary(tool.get("inputSchema"))),
                    text(tool, "description"),
                ]
            })
            .collect();
        line(table(
            &["NAME", "ARGUMENTS -> OUTPUT", "DESCRIPTION"],
            &rows,
        ));
    }
    let resources = items(report, "resources");
    line(format!("\nResources ({}):", resources.len()));
    if !resources.is_empty() {
        let rows: Vec<Vec<String>> = resources
            .iter()
            .map(|r| {
                vec![
                    text(r, "uri"),
                    text(r, "name"),
                    text(r, "mimeType"),
                    text(r, "description"),
                ]
            })
            .collect();
        line(table(&["URI", "NAME", "MIME TYPE", "DESCRIPTION"], &rows));
    }
    let templates = items(report, "resourceTemplates");
    line(format!("\nResource templates ({}):", templates.len()));
    if !templates.is_empty() {
        let rows: Vec<Vec<String>> = templates
            .iter()
            .map(|t| {
                vec![
                    text(t, "uriTemplate"),
                    text(t, "name"),
                    text(t, "mimeType"),
                    text(t, "description"),
                ]
            })
            .collect();
        line(table(
            &["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"],
            &rows,
        ));
    }
    let prompts = items(report, "prompts");
    line(format!("\nPrompts ({}):", prompts.len()));
    if !prompts.is_empty() {
        let rows: Vec<Vec<String>> = prompts
            .iter()
            .map(|p| {
                let arguments: Vec<String> = p
                    .get("arguments")
                    .and_then(Value::as_array)
                    .map(|list| {
                        list.iter()
                            .map(|a| {
                                let mark =
                                    if a.get("required").and_then(Value::as_bool) == Some(true) {
                                        "*"
                                    } else {
                                        ""
                                    };
                                format!("{}{mark}", text(a, "name"))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                vec![
                    text(p, "name"),
                    arguments.join(", "),
                    text(p, "description"),
                ]
            })
            .collect();
        line(table(&["NAME", "ARGUMENTS", "DESCRIPTION"], &rows));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schema_summaries_mark_required_properties() {
        let schema = json!({"properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}, "c": {}}, "required": ["a"]});
        assert_eq!(
            schema_summary(Some(&schema)),
            "(a: string*, b: integer|null, c: any)"
        );
        assert_eq!(schema_summary(None), "");
    }
}
