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
    Value(&'static str, &'static str),
    /// Every element of the array at the pointer is an instance.
    Each(&'static str, &'static str),
    /// The `result` of a response to this method (the page shows no request
    /// with the same id before it, or a different one).
    ResultOf(&'static str),
}

/// `capabilities` of an `initialize` request or result (handshake era).
const CAPABILITIES: &str = "/capabilities";
/// The client capabilities in a 2026-07-28 request's `_meta`.
const META_CLIENT_CAPABILITIES: &str = "/_meta/io.modelcontextprotocol~1clientCapabilities";

const OAUTH_CLIENT: HandRule =
    HandRule::Skip("OAuth client metadata document (RFC 7591), not an MCP message");
const OAUTH_SERVER: HandRule =
    HandRule::Skip("OAuth authorization server metadata (RFC 8414), not an MCP message");
const JSON_SCHEMA: HandRule =
    HandRule::Skip("a JSON Schema document illustrating the dialect rules, not an MCP message");
/// The progress pages show a request whose method is a placeholder; its
/// params are still a real instance.
const PLACEHOLDER_PARAMS: HandRule = HandRule::Value("RequestParams", "/params");

/// Hand-checked decisions, keyed by page (relative to `docs/`) and 1-based
/// block number. Each was checked against the prose around the block.
const HAND_RULES: &[(&str, usize, HandRule)] = &[
    ("2025-11-25/basic/authorization.mdx", 1, OAUTH_CLIENT),
    ("2025-11-25/basic/authorization.mdx", 2, OAUTH_SERVER),
    ("2025-11-25/basic/index.mdx", 1, JSON_SCHEMA),
    ("2025-11-25/basic/index.mdx", 2, JSON_SCHEMA),
    (
        "2025-11-25/basic/utilities/progress.mdx",
        1,
        PLACEHOLDER_PARAMS,
    ),
    // Server side: `tasks.requests.tools.call`; client side: sampling/elicitation.
    (
        "2025-11-25/basic/utilities/tasks.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/basic/utilities/tasks.mdx",
        2,
        HandRule::Value("ClientCapabilities", CAPABILITIES),
    ),
    // The answer to a task-augmented tools/call is a task handle.
    (
        "2025-11-25/basic/utilities/tasks.mdx",
        4,
        HandRule::Value("CreateTaskResult", "/result"),
    ),
    // tasks/result returns exactly what the underlying tools/call returns.
    (
        "2025-11-25/basic/utilities/tasks.mdx",
        8,
        HandRule::Value("CallToolResult", "/result"),
    ),
    (
        "2025-11-25/basic/utilities/tasks.mdx",
        14,
        HandRule::Value("TaskMetadata", "/task"),
    ),
    (
        "2025-11-25/basic/utilities/tasks.mdx",
        15,
        HandRule::Value(
            "RelatedTaskMetadata",
            "/io.modelcontextprotocol~1related-task",
        ),
    ),
    // "The tasks/get response SHOULD include a statusMessage" (id 4 is reused).
    (
        "2025-11-25/basic/utilities/tasks.mdx",
        20,
        HandRule::ResultOf("tasks/get"),
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        1,
        HandRule::Value("ClientCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        2,
        HandRule::Value("StringSchema", ""),
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        3,
        HandRule::Value("NumberSchema", ""),
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        4,
        HandRule::Value("BooleanSchema", ""),
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        5,
        HandRule::Value("UntitledSingleSelectEnumSchema", ""),
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        6,
        HandRule::Value("TitledSingleSelectEnumSchema", ""),
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        7,
        HandRule::Value("UntitledMultiSelectEnumSchema", ""),
    ),
    (
        "2025-11-25/client/elicitation.mdx",
        8,
        HandRule::Value("TitledMultiSelectEnumSchema", ""),
    ),
    (
        "2025-11-25/client/roots.mdx",
        1,
        HandRule::Value("ClientCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/client/roots.mdx",
        5,
        HandRule::Value("Root", ""),
    ),
    ("2025-11-25/client/roots.mdx", 6, HandRule::Each("Root", "")),
    (
        "2025-11-25/client/sampling.mdx",
        1,
        HandRule::Value("ClientCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        2,
        HandRule::Value("ClientCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        3,
        HandRule::Value("ClientCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        10,
        HandRule::Value("SamplingMessage", ""),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        11,
        HandRule::Value("SamplingMessage", ""),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        12,
        HandRule::Value("SamplingMessage", ""),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        13,
        HandRule::Value("TextContent", ""),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        14,
        HandRule::Value("ImageContent", ""),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        15,
        HandRule::Value("AudioContent", ""),
    ),
    (
        "2025-11-25/client/sampling.mdx",
        16,
        HandRule::Value("ModelPreferences", ""),
    ),
    (
        "2025-11-25/server/prompts.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/server/prompts.mdx",
        7,
        HandRule::Value("TextContent", ""),
    ),
    (
        "2025-11-25/server/prompts.mdx",
        8,
        HandRule::Value("ImageContent", ""),
    ),
    (
        "2025-11-25/server/prompts.mdx",
        9,
        HandRule::Value("AudioContent", ""),
    ),
    (
        "2025-11-25/server/prompts.mdx",
        10,
        HandRule::Value("EmbeddedResource", ""),
    ),
    (
        "2025-11-25/server/resources.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/server/resources.mdx",
        2,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/server/resources.mdx",
        3,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/server/resources.mdx",
        4,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/server/resources.mdx",
        14,
        HandRule::Value("TextResourceContents", ""),
    ),
    (
        "2025-11-25/server/resources.mdx",
        15,
        HandRule::Value("BlobResourceContents", ""),
    ),
    (
        "2025-11-25/server/resources.mdx",
        16,
        HandRule::Value("Resource", ""),
    ),
    (
        "2025-11-25/server/tools.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/server/tools.mdx",
        7,
        HandRule::Value("TextContent", ""),
    ),
    (
        "2025-11-25/server/tools.mdx",
        8,
        HandRule::Value("ImageContent", ""),
    ),
    (
        "2025-11-25/server/tools.mdx",
        9,
        HandRule::Value("AudioContent", ""),
    ),
    (
        "2025-11-25/server/tools.mdx",
        10,
        HandRule::Value("ResourceLink", ""),
    ),
    (
        "2025-11-25/server/tools.mdx",
        11,
        HandRule::Value("EmbeddedResource", ""),
    ),
    (
        "2025-11-25/server/tools.mdx",
        12,
        HandRule::Value("Tool", ""),
    ),
    // Structured output: the tool of block 12 answering (no request shown).
    (
        "2025-11-25/server/tools.mdx",
        13,
        HandRule::ResultOf("tools/call"),
    ),
    (
        "2025-11-25/server/tools.mdx",
        14,
        HandRule::Value("Tool", ""),
    ),
    (
        "2025-11-25/server/tools.mdx",
        15,
        HandRule::Value("Tool", ""),
    ),
    (
        "2025-11-25/server/tools.mdx",
        16,
        HandRule::Value("Tool", ""),
    ),
    // A tool execution error (isError) answering a tools/call.
    (
        "2025-11-25/server/tools.mdx",
        18,
        HandRule::ResultOf("tools/call"),
    ),
    (
        "2025-11-25/server/utilities/completion.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2025-11-25/server/utilities/logging.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    ("2026-07-28/basic/index.mdx", 1, JSON_SCHEMA),
    ("2026-07-28/basic/index.mdx", 2, JSON_SCHEMA),
    (
        "2026-07-28/basic/versioning.mdx",
        2,
        HandRule::Value("ClientCapabilities", CAPABILITIES),
    ),
    (
        "2026-07-28/basic/versioning.mdx",
        3,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2026-07-28/basic/authorization/client-registration.mdx",
        1,
        OAUTH_CLIENT,
    ),
    (
        "2026-07-28/basic/authorization/client-registration.mdx",
        2,
        OAUTH_SERVER,
    ),
    (
        "2026-07-28/basic/patterns/mrtr.mdx",
        1,
        HandRule::Value("InputRequests", ""),
    ),
    (
        "2026-07-28/basic/patterns/mrtr.mdx",
        2,
        HandRule::Value("InputResponses", ""),
    ),
    (
        "2026-07-28/basic/patterns/progress.mdx",
        1,
        PLACEHOLDER_PARAMS,
    ),
    (
        "2026-07-28/basic/transports/streamable-http.mdx",
        1,
        HandRule::Value("Tool", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        1,
        HandRule::Value("ClientCapabilities", META_CLIENT_CAPABILITIES),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        2,
        HandRule::Value("StringSchema", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        3,
        HandRule::Value("NumberSchema", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        4,
        HandRule::Value("BooleanSchema", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        5,
        HandRule::Value("UntitledSingleSelectEnumSchema", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        6,
        HandRule::Value("TitledSingleSelectEnumSchema", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        7,
        HandRule::Value("UntitledMultiSelectEnumSchema", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        8,
        HandRule::Value("TitledMultiSelectEnumSchema", ""),
    ),
    // Input responses: the client's answers to the input requests before them.
    (
        "2026-07-28/client/elicitation.mdx",
        10,
        HandRule::Value("ElicitResult", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        12,
        HandRule::Value("ElicitResult", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        14,
        HandRule::Value("ElicitResult", ""),
    ),
    (
        "2026-07-28/client/elicitation.mdx",
        15,
        HandRule::Value("ElicitResult", ""),
    ),
    (
        "2026-07-28/client/roots.mdx",
        1,
        HandRule::Value("ClientCapabilities", META_CLIENT_CAPABILITIES),
    ),
    (
        "2026-07-28/client/roots.mdx",
        3,
        HandRule::Value("ListRootsResult", ""),
    ),
    (
        "2026-07-28/client/roots.mdx",
        4,
        HandRule::Value("Root", ""),
    ),
    ("2026-07-28/client/roots.mdx", 5, HandRule::Each("Root", "")),
    (
        "2026-07-28/client/sampling.mdx",
        1,
        HandRule::Value("ClientCapabilities", META_CLIENT_CAPABILITIES),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        2,
        HandRule::Value("ClientCapabilities", META_CLIENT_CAPABILITIES),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        3,
        HandRule::Value("ClientCapabilities", META_CLIENT_CAPABILITIES),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        5,
        HandRule::Value("CreateMessageResult", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        7,
        HandRule::Value("CreateMessageResult", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        9,
        HandRule::Value("CreateMessageResult", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        10,
        HandRule::Value("SamplingMessage", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        11,
        HandRule::Value("SamplingMessage", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        12,
        HandRule::Value("SamplingMessage", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        13,
        HandRule::Value("TextContent", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        14,
        HandRule::Value("ImageContent", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        15,
        HandRule::Value("AudioContent", ""),
    ),
    (
        "2026-07-28/client/sampling.mdx",
        16,
        HandRule::Value("ModelPreferences", ""),
    ),
    (
        "2026-07-28/server/prompts.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2026-07-28/server/prompts.mdx",
        7,
        HandRule::Value("TextContent", ""),
    ),
    (
        "2026-07-28/server/prompts.mdx",
        8,
        HandRule::Value("ImageContent", ""),
    ),
    (
        "2026-07-28/server/prompts.mdx",
        9,
        HandRule::Value("AudioContent", ""),
    ),
    (
        "2026-07-28/server/prompts.mdx",
        10,
        HandRule::Value("ResourceLink", ""),
    ),
    (
        "2026-07-28/server/prompts.mdx",
        11,
        HandRule::Value("EmbeddedResource", ""),
    ),
    (
        "2026-07-28/server/resources.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2026-07-28/server/resources.mdx",
        2,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2026-07-28/server/resources.mdx",
        11,
        HandRule::Value("TextResourceContents", ""),
    ),
    (
        "2026-07-28/server/resources.mdx",
        12,
        HandRule::Value("BlobResourceContents", ""),
    ),
    (
        "2026-07-28/server/resources.mdx",
        13,
        HandRule::Value("Resource", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2026-07-28/server/tools.mdx",
        9,
        HandRule::Value("Tool", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        10,
        HandRule::Value("TextContent", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        11,
        HandRule::Value("ImageContent", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        12,
        HandRule::Value("AudioContent", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        13,
        HandRule::Value("ResourceLink", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        14,
        HandRule::Value("EmbeddedResource", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        15,
        HandRule::Value("Tool", ""),
    ),
    // Structured output answers to the tools of blocks 15 and 17.
    (
        "2026-07-28/server/tools.mdx",
        16,
        HandRule::ResultOf("tools/call"),
    ),
    (
        "2026-07-28/server/tools.mdx",
        17,
        HandRule::Value("Tool", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        18,
        HandRule::ResultOf("tools/call"),
    ),
    (
        "2026-07-28/server/tools.mdx",
        19,
        HandRule::Value("Tool", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        20,
        HandRule::Value("Tool", ""),
    ),
    (
        "2026-07-28/server/tools.mdx",
        21,
        HandRule::Value("Tool", ""),
    ),
    // A tool execution error (isError) answering a tools/call.
    (
        "2026-07-28/server/tools.mdx",
        23,
        HandRule::ResultOf("tools/call"),
    ),
    (
        "2026-07-28/server/utilities/completion.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    (
        "2026-07-28/server/utilities/logging.mdx",
        1,
        HandRule::Value("ServerCapabilities", CAPABILITIES),
    ),
    // The server/discover result advertising the extension (id 1 is reused).
    (
        "extensions/overview.mdx",
        2,
        HandRule::ResultOf("server/discover"),
    ),
];

/// Every hand rule that matched no block, so that stale entries are noticed.
pub(crate) fn unused_hand_rules(used: &[(String, usize)]) -> Vec<String> {
    HAND_RULES
        .iter()
        .filter(|(page, block, _)| !used.iter().any(|(p, b)| p == page && b == block))
        .map(|(page, block, _)| format!("{page} block {block}: hand rule matches no json block"))
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
        .find(|(p, b, _)| *p == page && *b == block);
    if let Some((_, _, rule)) = hand {
        return Ok(match *rule {
            HandRule::Skip(reason) => Classification::Skip(reason.to_owned()),
            HandRule::Value(definition, pointer) => {
                Classification::Instance(value_target(definition, pointer, false))
            }
            HandRule::Each(definition, pointer) => {
                Classification::Instance(value_target(definition, pointer, true))
            }
            HandRule::ResultOf(method) => Classification::Instance(result_target(
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
