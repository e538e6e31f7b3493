//! The method table as data: every method of every revision with its
//! direction, kind, Rust params and result types and revision range,
//! derived from the schemas.

use std::collections::BTreeMap;

use serde_json::Value;

use super::spec::{INPUT_REQUEST_UNION, REVISIONS, Schema, ref_target};

/// Params types that the naming rules below would get wrong, by method.
/// Empty today: every method's params are either named by a schema (the
/// newest revision that has a `$ref` wins) or follow the rules in
/// [`params_type`]. Add `("method", "RustType")` with a comment saying why.
const PARAMS_OVERRIDES: &[(&str, &str)] = &[];

/// Result types that the naming rule in [`result_type`] would get wrong, by
/// method. Empty today; add `("method", "RustType")` with a comment.
const RESULT_OVERRIDES: &[(&str, &str)] = &[];

/// Whether a message is a request (answered) or a notification (not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A request.
    Request,
    /// A notification.
    Notification,
}

/// One method as the generator sees it.
#[derive(Debug, Clone)]
pub(crate) struct MethodSpec {
    /// The wire name, e.g. `tools/call`.
    pub(crate) name: String,
    /// The newest definition describing the message, e.g. `CallToolRequest`.
    pub(crate) definition: String,
    /// The Rust name of the marker type and of the routing variants, e.g. `CallTool`.
    pub(crate) variant: String,
    /// Request or notification.
    pub(crate) kind: Kind,
    /// Whether a client sends it in some revision.
    pub(crate) client_sends: bool,
    /// Whether a server sends it in some revision.
    pub(crate) server_sends: bool,
    /// Indexes into [`REVISIONS`] of the revisions that exchange it as a
    /// JSON-RPC message.
    pub(crate) revisions: Vec<usize>,
    /// The first revision that embeds it in an `InputRequiredResult`.
    pub(crate) input_request_since: Option<usize>,
    /// The first revision whose response may carry an `InputRequiredResult`.
    pub(crate) input_required_since: Option<usize>,
    /// The Rust params type, e.g. `CallToolRequestParams`.
    pub(crate) params_type: String,
    /// The Rust result type of a request, e.g. `CallToolResult`.
    pub(crate) result_type: Option<String>,
}

impl MethodSpec {
    /// The oldest revision that exchanges the method.
    pub(crate) fn first(&self) -> usize {
        self.revisions.first().copied().unwrap_or_default()
    }

    /// The newest revision that exchanges the method.
    pub(crate) fn last(&self) -> usize {
        self.revisions.last().copied().unwrap_or_default()
    }
}

/// Builds the method table from the schemas of every revision (oldest
/// first), sorted by method name.
pub(crate) fn methods(schemas: &[Schema]) -> Result<Vec<MethodSpec>, String> {
    let mut by_name: BTreeMap<String, MethodSpec> = BTreeMap::new();
    let mut problems = Vec::new();
    for (index, schema) in schemas.iter().enumerate() {
        let definitions = schema.method_definitions();
        let senders = [
            ("ClientRequest", Kind::Request, true),
            ("ServerRequest", Kind::Request, false),
            ("ClientNotification", Kind::Notification, true),
            ("ServerNotification", Kind::Notification, false),
        ];
        for (union, kind, from_client) in senders {
            for method in schema.union_methods(union) {
                let Some(definition) = definitions.get(&method) else {
                    problems.push(format!(
                        "{}: {union} names {method} without a definition",
                        schema.revision
                    ));
                    continue;
                };
                let spec = by_name.entry(method.clone()).or_insert_with(|| MethodSpec {
                    name: method.clone(),
                    definition: definition.clone(),
                    variant: String::new(),
                    kind,
                    client_sends: false,
                    server_sends: false,
                    revisions: Vec::new(),
                    input_request_since: None,
                    input_required_since: None,
                    params_type: String::new(),
                    result_type: None,
                });
                if spec.kind != kind {
                    problems.push(format!("{method} is both a request and a notification"));
                }
                spec.definition.clone_from(definition);
                if from_client {
                    spec.client_sends = true;
                } else {
                    spec.server_sends = true;
                }
                if spec.revisions.last() != Some(&index) {
                    spec.revisions.push(index);
                }
            }
        }
        for method in schema.union_methods(INPUT_REQUEST_UNION) {
            match by_name.get_mut(&method) {
                Some(spec) => {
                    spec.input_request_since.get_or_insert(index);
                }
                None => problems.push(format!(
                    "{}: {method} is an input request but no revision sends it as a request",
                    schema.revision
                )),
            }
        }
    }
    for spec in by_name.values_mut() {
        check_contiguous(spec, &mut problems);
        spec.variant = variant_name(&spec.definition, spec.kind);
        spec.params_type = params_type(spec, schemas);
        if spec.kind == Kind::Request {
            spec.result_type = Some(result_type(spec, schemas));
            spec.input_required_since = input_required_since(spec, schemas);
        }
    }
    if problems.is_empty() {
        Ok(by_name.into_values().collect())
    } else {
        Err(problems.join("\n"))
    }
}

/// A method must exist in one unbroken range of revisions, so that "first"
/// and "last" describe it fully.
fn check_contiguous(spec: &MethodSpec, problems: &mut Vec<String>) {
    let contiguous = spec.revisions.windows(2).all(|pair| pair[1] == pair[0] + 1);
    if !contiguous {
        let names: Vec<&str> = spec
            .revisions
            .iter()
            .map(|&index| REVISIONS[index])
            .collect();
        problems.push(format!(
            "{} is exchanged in revisions {names:?}, which are not contiguous; \
             MethodInfo cannot describe that with first/last",
            spec.name
        ));
    }
}

/// `CallToolRequest` -> `CallTool`, `CancelledNotification` -> `Cancelled`.
fn variant_name(definition: &str, kind: Kind) -> String {
    let suffix = match kind {
        Kind::Request => "Request",
        Kind::Notification => "Notification",
    };
    definition
        .strip_suffix(suffix)
        .unwrap_or(definition)
        .to_owned()
}

/// The Rust params type of a method.
///
/// 1. An entry of [`PARAMS_OVERRIDES`].
/// 2. The `$ref` target of `properties.params` in the newest revision that
///    names one (2025-11-25 on name most of them, e.g. `CallToolRequestParams`).
/// 3. Otherwise the params are written inline in every revision: a list
///    request whose only field besides `_meta` is `cursor` uses
///    `PaginatedRequestParams`; params with no field besides `_meta` use
///    `RequestParams` / `NotificationParams`; params with fields of their
///    own use `<Definition>Params` (e.g. `GetTaskRequestParams`), the name
///    later revisions give such params.
fn params_type(spec: &MethodSpec, schemas: &[Schema]) -> String {
    if let Some((_, rust)) = PARAMS_OVERRIDES
        .iter()
        .find(|(method, _)| *method == spec.name)
    {
        return (*rust).to_owned();
    }
    let definitions: Vec<&Value> = schemas
        .iter()
        .rev()
        .filter_map(|schema| schema.definition(&spec.definition))
        .collect();
    let params: Vec<&Value> = definitions
        .iter()
        .filter_map(|definition| definition.pointer("/properties/params"))
        .collect();
    if let Some(named) = params.iter().find_map(|params| ref_target(params)) {
        return named;
    }
    let own_fields: Vec<&String> = params
        .first()
        .and_then(|params| params.get("properties"))
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.keys())
        .filter(|field| *field != "_meta")
        .collect();
    match (spec.kind, own_fields.as_slice()) {
        (Kind::Request, [field]) if *field == "cursor" => "PaginatedRequestParams".to_owned(),
        (Kind::Request, []) => "RequestParams".to_owned(),
        (Kind::Notification, []) => "NotificationParams".to_owned(),
        _ => format!("{}Params", spec.definition),
    }
}

/// The Rust result type of a request: an entry of [`RESULT_OVERRIDES`],
/// else `XResult` for `XRequest` when some revision defines it, else
/// `EmptyResult` (`ping`, `resources/subscribe`, `logging/setLevel`, ...).
fn result_type(spec: &MethodSpec, schemas: &[Schema]) -> String {
    if let Some((_, rust)) = RESULT_OVERRIDES
        .iter()
        .find(|(method, _)| *method == spec.name)
    {
        return (*rust).to_owned();
    }
    let candidate = format!("{}Result", spec.variant);
    if schemas.iter().any(|schema| schema.has(&candidate)) {
        candidate
    } else {
        "EmptyResult".to_owned()
    }
}

/// The first revision whose `<X>ResultResponse` lets the result be an
/// `InputRequiredResult` (a multi round-trip request, 2026-07-28 on).
fn input_required_since(spec: &MethodSpec, schemas: &[Schema]) -> Option<usize> {
    let response = format!("{}ResultResponse", spec.variant);
    schemas.iter().position(|schema| {
        let Some(result) = schema
            .definition(&response)
            .and_then(|definition| definition.pointer("/properties/result"))
        else {
            return false;
        };
        let alternatives = result.get("anyOf").or_else(|| result.get("oneOf"));
        alternatives
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(ref_target)
            .any(|target| target == "InputRequiredResult")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace_root;

    fn table() -> Vec<MethodSpec> {
        let dir = workspace_root().join("crates/mcpwire-types/schema");
        methods(&Schema::load_all(&dir).unwrap()).unwrap()
    }

    #[test]
    fn params_and_result_types_follow_the_naming_rules() {
        let table = table();
        let find = |name: &str| table.iter().find(|spec| spec.name == name).unwrap();
        let types = |name: &str| {
            (
                find(name).params_type.clone(),
                find(name).result_type.clone(),
            )
        };
        let named =
            |params: &str, result: Option<&str>| (params.to_owned(), result.map(str::to_owned));
        // Named by a `$ref` in a later revision, though 2024-11-05 inlines them.
        assert_eq!(
            types("tools/call"),
            named("CallToolRequestParams", Some("CallToolResult"))
        );
        assert_eq!(
            types("tools/list"),
            named("PaginatedRequestParams", Some("ListToolsResult"))
        );
        // Inline params with fields of their own in every revision that has them.
        assert_eq!(
            types("tasks/get"),
            named("GetTaskRequestParams", Some("GetTaskResult"))
        );
        assert_eq!(
            types("notifications/elicitation/complete"),
            named("ElicitationCompleteNotificationParams", None)
        );
        // No result definition of their own.
        assert_eq!(types("ping"), named("RequestParams", Some("EmptyResult")));
        assert_eq!(
            types("resources/subscribe").1.as_deref(),
            Some("EmptyResult")
        );
        assert_eq!(
            types("notifications/initialized"),
            named("NotificationParams", None)
        );
    }

    #[test]
    fn directions_and_ranges_come_from_the_sender_unions() {
        let table = table();
        let find = |name: &str| table.iter().find(|spec| spec.name == name).unwrap();
        // 2026-07-28 inlines its only client notification under the union's name.
        let cancelled = find("notifications/cancelled");
        assert_eq!(cancelled.definition, "CancelledNotification");
        assert!(cancelled.client_sends && cancelled.server_sends);
        assert_eq!((cancelled.first(), cancelled.last()), (0, 4));
        let sampling = find("sampling/createMessage");
        assert!(!sampling.client_sends && sampling.server_sends);
        assert_eq!(
            (sampling.last(), sampling.input_request_since),
            (3, Some(4))
        );
        assert_eq!(find("tools/call").input_required_since, Some(4));
        assert_eq!(find("tools/list").input_required_since, None);
        assert_eq!(find("server/discover").revisions, [4]);
        assert_eq!(find("ping").kind, Kind::Request);
        assert_eq!(find("notifications/progress").kind, Kind::Notification);
    }
}
