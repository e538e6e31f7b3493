//! Which schema definition each JSON example of the prose pages is an
//! instance of: found automatically for JSON-RPC messages, by the
//! hand-checked table [`HAND_RULES`] for everything else.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::model::MethodSpec;
use super::spec::Schema;

/// How the schema test reads an example into the Rust model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decode {
    /// A JSON-RPC request, through the request routing enums by `method`.
    Request,
    /// A JSON-RPC notification, through the notification routing enums.
    Notification,
    /// A 2026-07-28 input request (`{method, params}` without `jsonrpc`/`id`),
    /// through [`Decode::Request`]'s server-side enum.
    InputRequest,
    /// The `result` of a response, through the result enums by `method`.
    Result,
    /// A JSON-RPC error response.
    Error,
    /// A value read directly as the Rust type named like the definition.
    Value,
}

impl Decode {
    fn as_str(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::Notification => "notification",
            Self::InputRequest => "input_request",
            Self::Result => "result",
            Self::Error => "error",
            Self::Value => "value",
        }
    }
}

/// What an example is an instance of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The schema definition (and Rust type) the instance is checked against.
    pub(crate) definition: String,
    /// JSON pointer to the instance inside the example (`""`: the whole).
    pub(crate) pointer: String,
    /// Whether the pointer names an array each element of which is an instance.
    pub(crate) each: bool,
    /// How to read it.
    pub(crate) decode: Decode,
    /// The method routing uses, for messages and results.
    pub(crate) method: Option<String>,
    /// How the target was determined, in a few words.
    pub(crate) rule: String,
}

impl Target {
    /// The manifest fields of this target.
    pub(crate) fn to_json(&self) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("definition".into(), json!(self.definition));
        fields.insert("pointer".into(), json!(self.pointer));
        if self.each {
            fields.insert("each".into(), json!(true));
        }
        fields.insert("decode".into(), json!(self.decode.as_str()));
        if let Some(method) = &self.method {
            fields.insert("method".into(), json!(method));
        }
        fields.insert("rule".into(), json!(self.rule));
        fields
    }
}

/// The outcome for one example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Classification {
    /// It is an instance of `Target`.
    Instance(Target),
    /// It is not an MCP instance; the reason, in one line.
    Skip(String),
}

/// A hand-checked decision for one block.
#[derive(Debug, Clone, Copy)]
enum HandRule {
    /// Not an MCP instance at all.
    Skip(&'static str),
    /// The value at the pointer is an instance of the definition.
    At(&'static str, &'static str),
    /// Every element of the array at the pointer is an instance.
    Each(&'static str, &'static str),
    /// The `result` of a response to this method (the page shows no request
    /// with the same id before it, or a different one).
    ResultOf(&'static str),
}

use HandRule::{At, Each, ResultOf, Skip};

/// `capabilities` of an `initialize` request or result (handshake era).
const CAPABILITIES: &str = "/capabilities";
/// The client capabilities in a 2026-07-28 request's `_meta`.
const META_CLIENT_CAPABILITIES: &str = "/_meta/io.modelcontextprotocol~1clientCapabilities";

const OAUTH_CLIENT: HandRule =
    Skip("OAuth client metadata document (RFC 7591), not an MCP message");
const OAUTH_SERVER: HandRule =
    Skip("OAuth authorization server metadata (RFC 8414), not an MCP message");
const JSON_SCHEMA: HandRule =
    Skip("a JSON Schema document illustrating the dialect rules, not an MCP message");
/// The progress pages show a request whose method is a placeholder; its
/// params are still a real instance.
const PLACEHOLDER_PARAMS: HandRule = At("RequestParams", "/params");

/// Hand-checked decisions by page (relative to `docs/`) and 1-based block
/// number. Each was checked against the prose around the block.
const HAND_RULES: &[(&str, &[(usize, HandRule)])] = &[
    (
        "2025-11-25/basic/authorization.mdx",
        &[(1, OAUTH_CLIENT), (2, OAUTH_SERVER)],
    ),
    (
        "2025-11-25/basic/index.mdx",
        &[(1, JSON_SCHEMA), (2, JSON_SCHEMA)],
    ),
    (
        "2025-11-25/basic/utilities/progress.mdx",
        &[(1, PLACEHOLDER_PARAMS)],
    ),
    (
        "2025-11-25/basic/utilities/tasks.mdx",
        &[
            // Server side: `tasks.requests.tools.call`; client side: sampling/elicitation.
            (1, At("ServerCapabilities", CAPABILITIES)),
            (2, At("ClientCapabilities", CAPABILITIES)),
            // The answer to a task-augmented tools/call is a task handle.
            (4, At("CreateTaskResult", "/result")),
            // tasks/result returns exactly what the underlying tools/call returns.
            (8, At("CallToolResult", "/result")),
            (14, At("TaskMetadata", "/task")),
            (
                15,
                At(
                    "RelatedTaskMetadata",
                    "/io.modelcontextprotocol~1related-task",
                ),
            ),
            // "The tasks/get response SHOULD include a statusMessage" (id 4 is reused).
            (20, ResultOf("tasks/get")),
        ],
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        &[
            (1, At("ClientCapabilities", CAPABILITIES)),
            (2, At("StringSchema", "")),
            (3, At("NumberSchema", "")),
            (4, At("BooleanSchema", "")),
            (5, At("UntitledSingleSelectEnumSchema", "")),
            (6, At("TitledSingleSelectEnumSchema", "")),
            (7, At("UntitledMultiSelectEnumSchema", "")),
            (8, At("TitledMultiSelectEnumSchema", "")),
        ],
    ),
    (
        "2025-11-25/client/roots.mdx",
        &[
            (1, At("ClientCapabilities", CAPABILITIES)),
            (5, At("Root", "")),
            (6, Each("Root", "")),
        ],
    ),
    (
        "2025-11-25/client/sampling.mdx",
        &[
            (1, At("ClientCapabilities", CAPABILITIES)),
            (2, At("ClientCapabilities", CAPABILITIES)),
            (3, At("ClientCapabilities", CAPABILITIES)),
            (10, At("SamplingMessage", "")),
            (11, At("SamplingMessage", "")),
            (12, At("SamplingMessage", "")),
            (13, At("TextContent", "")),
            (14, At("ImageContent", "")),
            (15, At("AudioContent", "")),
            (16, At("ModelPreferences", "")),
        ],
    ),
    (
        "2025-11-25/server/prompts.mdx",
        &[
            (1, At("ServerCapabilities", CAPABILITIES)),
            (7, At("TextContent", "")),
            (8, At("ImageContent", "")),
            (9, At("AudioContent", "")),
            (10, At("EmbeddedResource", "")),
        ],
    ),
    (
        "2025-11-25/server/resources.mdx",
        &[
            (1, At("ServerCapabilities", CAPABILITIES)),
            (2, At("ServerCapabilities", CAPABILITIES)),
            (3, At("ServerCapabilities", CAPABILITIES)),
            (4, At("ServerCapabilities", CAPABILITIES)),
            (14, At("TextResourceContents", "")),
            (15, At("BlobResourceContents", "")),
            (16, At("Resource", "")),
        ],
    ),
    (
        "2025-11-25/server/tools.mdx",
        &[
            (1, At("ServerCapabilities", CAPABILITIES)),
            (7, At("TextContent", "")),
            (8, At("ImageContent", "")),
            (9, At("AudioContent", "")),
            (10, At("ResourceLink", "")),
            (11, At("EmbeddedResource", "")),
            (12, At("Tool", "")),
            // Structured output: the tool of block 12 answering (no request shown).
            (13, ResultOf("tools/call")),
            (14, At("Tool", "")),
            (15, At("Tool", "")),
            (16, At("Tool", "")),
            // A tool execution error (isError) answering a tools/call.
            (18, ResultOf("tools/call")),
        ],
    ),
    (
        "2025-11-25/server/utilities/completion.mdx",
        &[(1, At("ServerCapabilities", CAPABILITIES))],
    ),
    (
        "2025-11-25/server/utilities/logging.mdx",
        &[(1, At("ServerCapabilities", CAPABILITIES))],
    ),
    (
        "2026-07-28/basic/index.mdx",
        &[(1, JSON_SCHEMA), (2, JSON_SCHEMA)],
    ),
    (
        "2026-07-28/basic/versioning.mdx",
        &[
            (2, At("ClientCapabilities", CAPABILITIES)),
            (3, At("ServerCapabilities", CAPABILITIES)),
        ],
    ),
    (
        "2026-07-28/basic/authorization/client-registration.mdx",
        &[(1, OAUTH_CLIENT), (2, OAUTH_SERVER)],
    ),
    (
        "2026-07-28/basic/patterns/mrtr.mdx",
        &[(1, At("InputRequests", "")), (2, At("InputResponses", ""))],
    ),
    (
        "2026-07-28/basic/patterns/progress.mdx",
        &[(1, PLACEHOLDER_PARAMS)],
    ),
    (
        "2026-07-28/basic/transports/streamable-http.mdx",
        &[(1, At("Tool", ""))],
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        &[
            (1, At("ClientCapabilities", META_CLIENT_CAPABILITIES)),
            (2, At("StringSchema", "")),
            (3, At("NumberSchema", "")),
            (4, At("BooleanSchema", "")),
            (5, At("UntitledSingleSelectEnumSchema", "")),
            (6, At("TitledSingleSelectEnumSchema", "")),
            (7, At("UntitledMultiSelectEnumSchema", "")),
            (8, At("TitledMultiSelectEnumSchema", "")),
            // Input responses: the client's answers to the input requests before them.
            (10, At("ElicitResult", "")),
            (12, At("ElicitResult", "")),
            (14, At("ElicitResult", "")),
            (15, At("ElicitResult", "")),
        ],
    ),
    (
        "2026-07-28/client/roots.mdx",
        &[
            (1, At("ClientCapabilities", META_CLIENT_CAPABILITIES)),
            (3, At("ListRootsResult", "")),
            (4, At("Root", "")),
            (5, Each("Root", "")),
        ],
    ),
    (
        "2026-07-28/client/sampling.mdx",
        &[
            (1, At("ClientCapabilities", META_CLIENT_CAPABILITIES)),
            (2, At("ClientCapabilities", META_CLIENT_CAPABILITIES)),
            (3, At("ClientCapabilities", META_CLIENT_CAPABILITIES)),
            (5, At("CreateMessageResult", "")),
            (7, At("CreateMessageResult", "")),
            (9, At("CreateMessageResult", "")),
            (10, At("SamplingMessage", "")),
            (11, At("SamplingMessage", "")),
            (12, At("SamplingMessage", "")),
            (13, At("TextContent", "")),
            (14, At("ImageContent", "")),
            (15, At("AudioContent", "")),
            (16, At("ModelPreferences", "")),
        ],
    ),
    (
        "2026-07-28/server/prompts.mdx",
        &[
            (1, At("ServerCapabilities", CAPABILITIES)),
            (7, At("TextContent", "")),
            (8, At("ImageContent", "")),
            (9, At("AudioContent", "")),
            (10, At("ResourceLink", "")),
            (11, At("EmbeddedResource", "")),
        ],
    ),
    (
        "2026-07-28/server/resources.mdx",
        &[
            (1, At("ServerCapabilities", CAPABILITIES)),
            (2, At("ServerCapabilities", CAPABILITIES)),
            (11, At("TextResourceContents", "")),
            (12, At("BlobResourceContents", "")),
            (13, At("Resource", "")),
        ],
    ),
    (
        "2026-07-28/server/tools.mdx",
        &[
            (1, At("ServerCapabilities", CAPABILITIES)),
            (9, At("Tool", "")),
            (10, At("TextContent", "")),
            (11, At("ImageContent", "")),
            (12, At("AudioContent", "")),
            (13, At("ResourceLink", "")),
            (14, At("EmbeddedResource", "")),
            (15, At("Tool", "")),
            // Structured output answers to the tools of blocks 15 and 17.
            (16, ResultOf("tools/call")),
            (17, At("Tool", "")),
            (18, ResultOf("tools/call")),
            (19, At("Tool", "")),
            (20, At("Tool", "")),
            (21, At("Tool", "")),
            // A tool execution error (isError) answering a tools/call.
            (23, ResultOf("tools/call")),
        ],
    ),
    (
        "2026-07-28/server/utilities/completion.mdx",
        &[(1, At("ServerCapabilities", CAPABILITIES))],
    ),
    (
        "2026-07-28/server/utilities/logging.mdx",
        &[(1, At("ServerCapabilities", CAPABILITIES))],
    ),
    (
        "extensions/overview.mdx",
        &[
            // The server/discover result advertising the extension (id 1 is reused).
            (2, ResultOf("server/discover")),
        ],
    ),
];

/// The page leaves out the `_meta` that 2026-07-28 request params require.
const NO_REQUEST_META: &str = "the page leaves out the `_meta` (protocol version, client capabilities) 2026-07-28 request params require";
/// The page shows a `_meta` without the keys 2026-07-28 requires in it.
const PARTIAL_REQUEST_META: &str =
    "the page's `_meta` lacks the protocol version and client capabilities 2026-07-28 requires";

/// Blocks that are MCP instances but not valid ones as printed (the pages
/// abbreviate). The schema test checks that each is indeed invalid and that
/// the model adds no violation of its own.
const KNOWN_INVALID: &[(&str, usize, &str)] = &[
    ("2026-07-28/basic/index.mdx", 3, PARTIAL_REQUEST_META),
    (
        "2026-07-28/basic/patterns/progress.mdx",
        1,
        PARTIAL_REQUEST_META,
    ),
    ("2026-07-28/server/prompts.mdx", 2, NO_REQUEST_META),
    ("2026-07-28/server/prompts.mdx", 4, NO_REQUEST_META),
    ("2026-07-28/server/resources.mdx", 3, NO_REQUEST_META),
    ("2026-07-28/server/resources.mdx", 5, NO_REQUEST_META),
    ("2026-07-28/server/resources.mdx", 7, NO_REQUEST_META),
    ("2026-07-28/server/tools.mdx", 2, NO_REQUEST_META),
    ("2026-07-28/server/tools.mdx", 4, NO_REQUEST_META),
    ("2026-07-28/server/tools.mdx", 7, NO_REQUEST_META),
    (
        "2026-07-28/server/utilities/completion.mdx",
        2,
        NO_REQUEST_META,
    ),
    (
        "2026-07-28/server/utilities/completion.mdx",
        4,
        NO_REQUEST_META,
    ),
    (
        "2026-07-28/server/utilities/pagination.mdx",
        2,
        NO_REQUEST_META,
    ),
];

/// Why block `block` of `page` is invalid as printed, if it is listed in [`KNOWN_INVALID`].
pub(crate) fn known_invalid(page: &str, block: usize) -> Option<&'static str> {
    KNOWN_INVALID
        .iter()
        .find(|(p, b, _)| *p == page && *b == block)
        .map(|(_, _, reason)| *reason)
}

/// Every hand rule that matched no block, so that stale entries are noticed.
pub(crate) fn unused_hand_rules(used: &[(String, usize)]) -> Vec<String> {
    let hand = HAND_RULES
        .iter()
        .flat_map(|(page, rules)| rules.iter().map(move |(block, _)| (*page, *block)));
    let invalid = KNOWN_INVALID.iter().map(|(page, block, _)| (*page, *block));
    hand.chain(invalid)
        .filter(|(page, block)| !used.iter().any(|(p, b)| p == page && b == block))
        .map(|(page, block)| format!("{page} block {block}: hand rule matches no json block"))
        .collect()
}

/// Decides what the example `value` (block `block` of `page`) is an
/// instance of, given the earlier examples of the same page, the schema of
/// the page's revision and the method table. Errors say why no rule applies.
pub(crate) fn classify(
    page: &str,
    block: usize,
    value: &Value,
    earlier: &[Value],
    schema: &Schema,
    methods: &[MethodSpec],
) -> Result<Classification, String> {
    let definitions = schema.method_definitions();
    let hand = HAND_RULES
        .iter()
        .filter(|(p, _)| *p == page)
        .flat_map(|(_, rules)| rules.iter())
        .find(|(b, _)| *b == block);
    if let Some((_, rule)) = hand {
        return Ok(match *rule {
            Skip(reason) => Classification::Skip(reason.to_owned()),
            At(definition, pointer) => {
                Classification::Instance(value_target(definition, pointer, false))
            }
            Each(definition, pointer) => {
                Classification::Instance(value_target(definition, pointer, true))
            }
            ResultOf(method) => Classification::Instance(result_target(
                method,
                methods,
                schema,
                "hand: response to this method".to_owned(),
            )?),
        });
    }
    let object = value.as_object().ok_or("not an object and no hand rule")?;
    if let Some(method) = object.get("method").and_then(Value::as_str) {
        let definition = definitions
            .get(method)
            .ok_or_else(|| format!("method {method:?} is not defined in {}", schema.revision))?;
        let decode = match (object.contains_key("jsonrpc"), object.contains_key("id")) {
            (true, true) => Decode::Request,
            (true, false) => Decode::Notification,
            (false, _) => Decode::InputRequest,
        };
        return Ok(Classification::Instance(Target {
            definition: definition.clone(),
            pointer: String::new(),
            each: false,
            decode,
            method: Some(method.to_owned()),
            rule: "auto: by method".to_owned(),
        }));
    }
    if let Some(error) = object.get("error") {
        let code = error
            .get("code")
            .and_then(Value::as_i64)
            .ok_or("error without an integer code")?;
        let (definition, rule) = match schema.error_definition_for_code(code) {
            Some(definition) => (definition, "auto: error response by code"),
            None => ("JSONRPCErrorResponse".to_owned(), "auto: error response"),
        };
        return Ok(Classification::Instance(Target {
            definition,
            pointer: String::new(),
            each: false,
            decode: Decode::Error,
            method: None,
            rule: rule.to_owned(),
        }));
    }
    if let Some(result) = object.get("result") {
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            return Ok(Classification::Instance(Target {
                rule: "auto: resultType input_required".to_owned(),
                ..value_target("InputRequiredResult", "/result", false)
            }));
        }
        let id = object.get("id").ok_or("a result without an id")?;
        let request = earlier
            .iter()
            .rev()
            .find(|earlier| earlier.get("id") == Some(id) && earlier.get("method").is_some())
            .and_then(|request| request.get("method"))
            .and_then(Value::as_str)
            .ok_or_else(|| format!("no earlier request with id {id} on the page"))?;
        let rule = format!("auto: answers the earlier {request} request with id {id}");
        return Ok(Classification::Instance(result_target(
            request, methods, schema, rule,
        )?));
    }
    Err("no automatic rule fits and no hand rule is listed".to_owned())
}

fn value_target(definition: &str, pointer: &str, each: bool) -> Target {
    Target {
        definition: definition.to_owned(),
        pointer: pointer.to_owned(),
        each,
        decode: Decode::Value,
        method: None,
        rule: "hand: checked against the prose".to_owned(),
    }
}

/// The `result` of a response to `method`, checked against the method's result type.
fn result_target(
    method: &str,
    methods: &[MethodSpec],
    schema: &Schema,
    rule: String,
) -> Result<Target, String> {
    let result = methods
        .iter()
        .find(|spec| spec.name == method)
        .and_then(|spec| spec.result_type.clone())
        .ok_or_else(|| format!("{method} is not a request of the method table"))?;
    if !schema.has(&result) {
        return Err(format!("{} has no definition {result}", schema.revision));
    }
    Ok(Target {
        definition: result,
        pointer: "/result".to_owned(),
        each: false,
        decode: Decode::Result,
        method: Some(method.to_owned()),
        rule,
    })
}

/// Groups the classification problems of a run by page for the error message.
pub(crate) fn report(problems: &BTreeMap<String, Vec<String>>) -> String {
    let mut lines = vec!["some prose examples have no rule (add them to HAND_RULES):".to_owned()];
    for (page, messages) in problems {
        for message in messages {
            lines.push(format!("  {page}: {message}"));
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::model;
    use crate::workspace_root;

    fn classify_json(
        revision: usize,
        value: &Value,
        earlier: &[Value],
    ) -> Result<Classification, String> {
        let dir = workspace_root().join("crates/mcpwire-types/schema");
        let schemas = Schema::load_all(&dir).unwrap();
        let methods = model::methods(&schemas).unwrap();
        classify(
            "test/page.mdx",
            1,
            value,
            earlier,
            &schemas[revision],
            &methods,
        )
    }

    fn target(
        classification: Result<Classification, String>,
    ) -> (String, String, Decode, Option<String>) {
        match classification {
            Ok(Classification::Instance(t)) => (t.definition, t.pointer, t.decode, t.method),
            other => panic!("not an instance: {other:?}"),
        }
    }

    #[test]
    fn messages_are_classified_by_method_and_results_by_the_request_they_answer() {
        let request = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/list" });
        assert_eq!(
            target(classify_json(3, &request, &[])),
            (
                "ListToolsRequest".into(),
                String::new(),
                Decode::Request,
                Some("tools/list".into())
            )
        );
        let response = json!({ "jsonrpc": "2.0", "id": 7, "result": { "tools": [] } });
        assert_eq!(
            target(classify_json(3, &response, &[request])),
            (
                "ListToolsResult".into(),
                "/result".into(),
                Decode::Result,
                Some("tools/list".into())
            )
        );
        let input_request = json!({ "method": "roots/list" });
        assert_eq!(
            target(classify_json(4, &input_request, &[])).2,
            Decode::InputRequest
        );
    }

    #[test]
    fn errors_and_input_required_results_are_recognized() {
        let error =
            json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32022, "message": "no" } });
        assert_eq!(
            target(classify_json(4, &error, &[])).0,
            "UnsupportedProtocolVersionError"
        );
        let plain =
            json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32603, "message": "no" } });
        assert_eq!(
            target(classify_json(4, &plain, &[])).0,
            "JSONRPCErrorResponse"
        );
        let input =
            json!({ "jsonrpc": "2.0", "id": 1, "result": { "resultType": "input_required" } });
        assert_eq!(
            target(classify_json(4, &input, &[])).0,
            "InputRequiredResult"
        );
    }

    #[test]
    fn blocks_without_a_rule_are_reported() {
        assert!(classify_json(3, &json!({ "capabilities": {} }), &[]).is_err());
        let orphan = json!({ "jsonrpc": "2.0", "id": 9, "result": {} });
        assert!(classify_json(3, &orphan, &[]).is_err());
        let unknown = json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover" });
        assert!(
            classify_json(3, &unknown, &[]).is_err(),
            "server/discover is not in 2025-11-25"
        );
    }
}
