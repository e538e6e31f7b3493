//! Tools: their definitions, `tools/list`, `tools/call`, and the naming rule
//! for tool names.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::result::{fit_cache_hints, fit_result_type};
use crate::revision::keep_if;
use crate::{
    CacheScope, ContentBlock, Cursor, Extra, ForRevision, Icon, InputResponses, Meta,
    ProtocolVersion, ResultType, TaskMetadata, TextContent,
};

/// A tool the client can call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name, unique within the server; see [`validate_tool_name`].
    pub name: String,
    /// Display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does; a hint to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; its root has `"type": "object"`.
    pub input_schema: Map<String, Value>,
    /// JSON Schema of `structuredContent` in results (2025-06-18 on; before
    /// 2026-07-28 its root must be an object schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Map<String, Value>>,
    /// Hints about the tool's behaviour (2025-03-26 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// How the tool runs: task support (2025-11-25 only; later revisions
    /// moved tasks to an extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
    /// A schema given to [`Tool::new`] or [`Tool::output_schema`] that was
    /// not a JSON object (never sent): a server refuses such a tool when it
    /// is registered, naming the schema, instead of serving `{}`.
    #[serde(skip)]
    not_an_object: Option<(&'static str, Value)>,
}

impl Tool {
    /// A tool called `name` whose arguments follow `input_schema`: a JSON
    /// Schema whose root is an object with `"type": "object"` (a
    /// `serde_json::Value` from `json!`, or a `Map`). Anything else is
    /// kept aside and refused by the server's `build()` with a clear error.
    pub fn new(name: impl Into<String>, input_schema: impl Into<Value>) -> Self {
        let mut tool = Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema: Map::new(),
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
            extra: Extra::new(),
            not_an_object: None,
        };
        match input_schema.into() {
            Value::Object(map) => tool.input_schema = map,
            other => tool.not_an_object = Some(("inputSchema", other)),
        }
        tool
    }

    /// A tool called `name` that accepts any object of arguments (input
    /// schema `{"type": "object"}`); for tools whose schema is derived or
    /// set later.
    pub fn named(name: impl Into<String>) -> Self {
        let mut schema = Map::new();
        schema.insert("type".into(), Value::from("object"));
        Self::new(name, schema)
    }

    /// Sets the JSON Schema of `structuredContent` (see [`Tool::new`] for
    /// what a schema that is not a JSON object becomes).
    pub fn output_schema(mut self, schema: impl Into<Value>) -> Self {
        match schema.into() {
            Value::Object(map) => self.output_schema = Some(map),
            other => self.not_an_object = Some(("outputSchema", other)),
        }
        self
    }

    /// Replaces the JSON Schema of the arguments (as [`Tool::new`] takes it).
    pub fn input_schema(mut self, schema: impl Into<Value>) -> Self {
        match schema.into() {
            Value::Object(map) => {
                self.input_schema = map;
                if matches!(self.not_an_object, Some(("inputSchema", _))) {
                    self.not_an_object = None;
                }
            }
            other => self.not_an_object = Some(("inputSchema", other)),
        }
        self
    }

    /// A schema this tool was given that is not a JSON object: which one
    /// (`"inputSchema"` or `"outputSchema"`) and what it was.
    pub fn schema_not_an_object(&self) -> Option<(&'static str, &Value)> {
        self.not_an_object
            .as_ref()
            .map(|(which, value)| (*which, value))
    }

    /// A tool called `name` that takes no arguments
    /// (input schema `{"type": "object", "additionalProperties": false}`).
    pub fn without_arguments(name: impl Into<String>) -> Self {
        let mut schema = Map::new();
        schema.insert("type".into(), Value::from("object"));
        schema.insert("additionalProperties".into(), Value::Bool(false));
        Self::new(name, schema)
    }
}

impl ForRevision for Tool {
    /// Besides dropping newer fields: every revision requires `"type":
    /// "object"` at the root of `inputSchema`, so it is added when missing;
    /// before 2026-07-28 structured content is always an object, so an output
    /// schema for anything else is dropped (and one without a `type` gets
    /// `"type": "object"`).
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_titles(), &mut self.title);
        keep_if(version.has_structured_output(), &mut self.output_schema);
        keep_if(version.has_tool_annotations(), &mut self.annotations);
        keep_if(version.has_icons(), &mut self.icons);
        keep_if(version.has_core_tasks(), &mut self.execution);
        keep_if(version.has_object_meta(), &mut self.meta);
        self.annotations.fit_to(version);
        self.execution.fit_to(version);
        self.input_schema
            .entry("type")
            .or_insert_with(|| Value::from("object"));
        if !allows_any_structured_content(version)
            && let Some(schema) = &mut self.output_schema
        {
            let kind = schema
                .entry("type")
                .or_insert_with(|| Value::from("object"));
            if kind != "object" {
                self.output_schema = None;
            }
        }
    }
}

/// Whether `structuredContent` may be any JSON value (2026-07-28 on); before,
/// it had to be an object.
fn allows_any_structured_content(version: ProtocolVersion) -> bool {
    version.at_least(ProtocolVersion::V2026_07_28)
}

/// Hints about how a tool behaves (2025-03-26 on). They are claims made by
/// the server: clients must not trust them unless they trust the server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data rather than only add (default true; only
    /// meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments has no further effect
    /// (default false; only meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches an open world of external entities, like the web
    /// (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for ToolAnnotations {
    /// Every field exists wherever the annotations do (the whole object is
    /// removed by [`Tool`] before 2025-03-26).
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// How a tool runs (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether calls may or must run as tasks; absent means forbidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for ToolExecution {
    /// The object exists only in 2025-11-25, where it has every field.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Whether a tool can be called as a task (2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Calls must not ask for a task.
    Forbidden,
    /// Calls may ask for a task or run normally.
    Optional,
    /// Calls must ask for a task.
    Required,
}

/// Params of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool to call.
    pub name: String,
    /// The arguments, matching the tool's input schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Asks for the call to run as a task (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Answers to the input requests of an earlier `input_required` result
    /// (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The opaque state an earlier `input_required` result asked to be sent
    /// back (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CallToolRequestParams {
    /// A call of tool `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            arguments: None,
            task: None,
            input_responses: None,
            request_state: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// A call of tool `name` with `arguments`.
    pub fn with_arguments(name: impl Into<String>, arguments: Map<String, Value>) -> Self {
        Self {
            arguments: Some(arguments),
            ..Self::new(name)
        }
    }
}

impl ForRevision for CallToolRequestParams {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_core_tasks(), &mut self.task);
        keep_if(version.has_multi_round_trip(), &mut self.input_responses);
        keep_if(version.has_multi_round_trip(), &mut self.request_state);
    }
}

/// The result of `tools/call`.
///
/// Errors raised by the tool itself belong here with `isError: true`, not in
/// a JSON-RPC error, so that the model can see them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured result content.
    pub content: Vec<ContentBlock>,
    /// Structured result, matching the tool's output schema (2025-06-18 on;
    /// before 2026-07-28 always an object, since then any JSON value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call failed (absent means false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The kind of result (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CallToolResult {
    /// A successful result holding `content`.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            structured_content: None,
            is_error: None,
            meta: None,
            result_type: None,
            extra: Extra::new(),
        }
    }

    /// A successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// A failed call, reported to the model as one text block.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            is_error: Some(true),
            ..Self::text(message)
        }
    }

    /// A successful structured result, also given as serialized JSON in a
    /// text block as the spec recommends for clients that read only `content`.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        Self {
            structured_content: Some(value),
            ..Self::text(text)
        }
    }
}

impl ForRevision for CallToolResult {
    /// Structured content the revision cannot carry (any before 2025-06-18,
    /// a non-object before 2026-07-28) is removed; when `content` is empty
    /// its serialized JSON becomes a text block, so the result is not lost.
    fn fit_to(&mut self, version: ProtocolVersion) {
        let expressible = match &self.structured_content {
            None => true,
            Some(value) => {
                version.has_structured_output()
                    && (value.is_object() || allows_any_structured_content(version))
            }
        };
        if !expressible {
            let value = self.structured_content.take();
            if self.content.is_empty()
                && let Some(value) = value
            {
                self.content
                    .push(ContentBlock::Text(TextContent::new(value.to_string())));
            }
        }
        self.content.fit_to(version);
        fit_result_type(&mut self.result_type, version);
    }
}

/// The result of `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools on this page.
    pub tools: Vec<Tool>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// How long the client may consider this fresh, in milliseconds (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache this (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The kind of result (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ListToolsResult {
    /// A single, last page holding `tools`.
    pub fn new(tools: Vec<Tool>) -> Self {
        Self {
            tools,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            result_type: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ListToolsResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.tools.fit_to(version);
        fit_cache_hints(&mut self.ttl_ms, &mut self.cache_scope, version);
        fit_result_type(&mut self.result_type, version);
    }
}

/// The longest tool name the spec recommends, in characters.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// Why a tool name breaks the naming rule of 2025-11-25.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolNameError {
    /// The name is empty.
    #[error("tool name is empty")]
    Empty,
    /// The name is longer than [`MAX_TOOL_NAME_LEN`] characters.
    #[error("tool name is {len} characters long; at most {MAX_TOOL_NAME_LEN} are allowed")]
    TooLong {
        /// The name's length in characters.
        len: usize,
    },
    /// The name holds a character outside `A-Z a-z 0-9 _ - .`.
    #[error(
        "tool name has {found:?} at character {position}; only A-Z, a-z, 0-9, '_', '-' and '.' are allowed"
    )]
    InvalidCharacter {
        /// The offending character.
        found: char,
        /// Its position, counted in characters from 0.
        position: usize,
    },
}

/// Checks `name` against the tool naming rule of 2025-11-25: 1 to 128
/// characters, each an ASCII letter, digit, `_`, `-` or `.`.
///
/// The spec phrases the rule as a SHOULD, so a server may use it to warn
/// about its own tools and a client should not refuse a tool for it.
pub fn validate_tool_name(name: &str) -> Result<(), ToolNameError> {
    let len = name.chars().count();
    if len == 0 {
        return Err(ToolNameError::Empty);
    }
    if len > MAX_TOOL_NAME_LEN {
        return Err(ToolNameError::TooLong { len });
    }
    match name
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some((position, found)) => Err(ToolNameError::InvalidCharacter { found, position }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::fitted;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(parsed).unwrap()
    }

    fn fit_json<T: Serialize + for<'de> Deserialize<'de> + ForRevision>(
        value: &Value,
        version: ProtocolVersion,
    ) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(fitted(parsed, version)).unwrap()
    }

    fn weather_tool() -> Value {
        json!({
            "name": "get_weather_data",
            "title": "Weather Data Retriever",
            "description": "Get current weather data for a location",
            "inputSchema": {
                "type": "object",
                "properties": { "location": { "type": "string", "description": "City name or zip code" } },
                "required": ["location"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "temperature": { "type": "number", "description": "Temperature in celsius" },
                    "conditions": { "type": "string", "description": "Weather conditions description" },
                    "humidity": { "type": "number", "description": "Humidity percentage" }
                },
                "required": ["temperature", "conditions", "humidity"]
            },
            "annotations": { "title": "Weather", "readOnlyHint": true, "openWorldHint": true },
            "icons": [{ "src": "https://example.com/weather-icon.png", "mimeType": "image/png", "sizes": ["48x48"] }],
            "execution": { "taskSupport": "optional" },
            "_meta": { "com.example/owner": "weather-team" }
        })
    }

    #[test]
    fn spec_examples_round_trip() {
        let list = json!({
            "resultType": "complete",
            "tools": [{
                "name": "get_weather",
                "title": "Weather Information Provider",
                "description": "Get current weather information for a location",
                "inputSchema": {
                    "type": "object",
                    "properties": { "location": { "type": "string", "description": "City name or zip code" } },
                    "required": ["location"]
                },
                "icons": [{ "src": "https://example.com/weather-icon.png", "mimeType": "image/png", "sizes": ["48x48"] }]
            }],
            "nextCursor": "next-page-cursor",
            "ttlMs": 300000,
            "cacheScope": "public"
        });
        assert_eq!(round_trip::<ListToolsResult>(&list), list);

        let call = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { "name": "ExampleClient", "version": "1.0.0" },
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": "oivaizmir"
            },
            "name": "build_simulation",
            "arguments": { "city": "Micropolis" }
        });
        assert_eq!(round_trip::<CallToolRequestParams>(&call), call);

        let array_result = json!({
            "resultType": "complete",
            "content": [{ "type": "text", "text": "Found 2 users: Alice (alice@example.com) and Bob (bob@example.com)." }],
            "structuredContent": [
                { "id": "1", "name": "Alice", "email": "alice@example.com" },
                { "id": "2", "name": "Bob", "email": "bob@example.com" }
            ]
        });
        assert_eq!(round_trip::<CallToolResult>(&array_result), array_result);

        let error_result = json!({
            "resultType": "complete",
            "content": [{ "type": "text", "text": "Invalid departure date: must be in the future. Current date is 08/08/2025." }],
            "isError": true
        });
        assert_eq!(round_trip::<CallToolResult>(&error_result), error_result);

        let no_parameters = json!({
            "name": "get_current_time",
            "description": "Returns the current server time",
            "inputSchema": { "type": "object", "additionalProperties": false }
        });
        assert_eq!(round_trip::<Tool>(&no_parameters), no_parameters);
        let built = Tool {
            description: Some("Returns the current server time".into()),
            ..Tool::without_arguments("get_current_time")
        };
        assert_eq!(serde_json::to_value(built).unwrap(), no_parameters);
    }

    #[test]
    fn a_2025_11_25_tool_keeps_every_field_in_2025_11_25() {
        let tool = weather_tool();
        assert_eq!(fit_json::<Tool>(&tool, ProtocolVersion::V2025_11_25), tool);
    }

    #[test]
    fn tool_fields_disappear_for_revisions_that_lack_them() {
        let tool = weather_tool();
        let latest = fit_json::<Tool>(&tool, ProtocolVersion::V2026_07_28);
        assert!(
            latest.get("execution").is_none(),
            "tasks left the core in 2026-07-28"
        );
        assert!(latest.get("icons").is_some());

        let v2025_06 = fit_json::<Tool>(&tool, ProtocolVersion::V2025_06_18);
        for gone in ["icons", "execution"] {
            assert!(v2025_06.get(gone).is_none(), "{gone} should be gone");
        }
        for kept in ["title", "outputSchema", "annotations", "_meta"] {
            assert!(v2025_06.get(kept).is_some(), "{kept} should stay");
        }

        let v2025_03 = fit_json::<Tool>(&tool, ProtocolVersion::V2025_03_26);
        let keys: Vec<_> = v2025_03.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys.len(), 4, "{keys:?}");
        for kept in ["name", "description", "inputSchema", "annotations"] {
            assert!(v2025_03.get(kept).is_some(), "{kept} should stay");
        }

        let v2024 = fit_json::<Tool>(&tool, ProtocolVersion::V2024_11_05);
        assert!(v2024.get("annotations").is_none());
    }

    #[test]
    fn output_schemas_are_object_schemas_before_2026_07_28() {
        let mut tool = Tool::new("list_users", Map::new());
        tool.output_schema = Some(json!({ "type": "array" }).as_object().unwrap().clone());
        let latest = fitted(tool.clone(), ProtocolVersion::V2026_07_28);
        assert!(latest.output_schema.is_some());
        assert_eq!(latest.input_schema.get("type"), Some(&json!("object")));
        assert_eq!(
            fitted(tool.clone(), ProtocolVersion::V2025_11_25).output_schema,
            None
        );

        tool.output_schema = Some(json!({ "properties": {} }).as_object().unwrap().clone());
        let typed = fitted(tool, ProtocolVersion::V2025_06_18)
            .output_schema
            .unwrap();
        assert_eq!(typed.get("type"), Some(&json!("object")));
    }

    #[test]
    fn structured_content_becomes_text_when_the_revision_cannot_carry_it() {
        let mut result = CallToolResult::new(Vec::new());
        result.structured_content = Some(json!({ "temperature": 22.5 }));
        let old =
            serde_json::to_value(fitted(result.clone(), ProtocolVersion::V2025_03_26)).unwrap();
        assert_eq!(
            old,
            json!({ "content": [{ "type": "text", "text": "{\"temperature\":22.5}" }] })
        );
        let new = fitted(result, ProtocolVersion::V2025_06_18);
        assert_eq!(new.structured_content, Some(json!({ "temperature": 22.5 })));
        assert!(new.content.is_empty());
    }

    #[test]
    fn existing_content_is_kept_instead_of_adding_json_text() {
        let result = CallToolResult::structured(json!({ "ok": true }));
        let old = fitted(result.clone(), ProtocolVersion::V2024_11_05);
        assert_eq!(old.structured_content, None);
        assert_eq!(old.content, result.content);
    }

    #[test]
    fn array_structured_content_becomes_text_before_2026_07_28() {
        let mut result = CallToolResult::new(Vec::new());
        result.structured_content = Some(json!([1, 2]));
        let v2025_11 = fitted(result.clone(), ProtocolVersion::V2025_11_25);
        assert_eq!(v2025_11.structured_content, None);
        assert_eq!(v2025_11.content[0].as_text(), Some("[1,2]"));
        let latest = fitted(result, ProtocolVersion::V2026_07_28);
        assert_eq!(latest.structured_content, Some(json!([1, 2])));
        assert_eq!(latest.result_type, Some(ResultType::Complete));
    }

    #[test]
    fn call_params_drop_task_and_retry_fields_for_other_revisions() {
        let call = json!({
            "name": "get_weather",
            "arguments": { "location": "New York" },
            "task": { "ttl": 60000 },
            "requestState": "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0..."
        });
        let v2025_11 = fit_json::<CallToolRequestParams>(&call, ProtocolVersion::V2025_11_25);
        assert!(v2025_11.get("task").is_some());
        assert!(v2025_11.get("requestState").is_none());
        let latest = fit_json::<CallToolRequestParams>(&call, ProtocolVersion::V2026_07_28);
        assert!(latest.get("task").is_none());
        assert!(latest.get("requestState").is_some());
        let v2024 = fit_json::<CallToolRequestParams>(&call, ProtocolVersion::V2024_11_05);
        assert_eq!(
            v2024,
            json!({ "name": "get_weather", "arguments": { "location": "New York" } })
        );
    }

    #[test]
    fn list_result_gets_cache_hints_in_2026_07_28_only() {
        let list = ListToolsResult::new(vec![Tool::without_arguments("now")]);
        let latest =
            serde_json::to_value(fitted(list.clone(), ProtocolVersion::V2026_07_28)).unwrap();
        assert_eq!(latest["ttlMs"], json!(0));
        assert_eq!(latest["cacheScope"], json!("private"));
        assert_eq!(latest["resultType"], json!("complete"));
        let old = serde_json::to_value(fitted(list, ProtocolVersion::V2025_11_25)).unwrap();
        for gone in ["ttlMs", "cacheScope", "resultType"] {
            assert!(old.get(gone).is_none(), "{gone} should be gone");
        }
    }

    #[test]
    fn unknown_fields_survive() {
        let tool =
            json!({ "name": "t", "inputSchema": { "type": "object" }, "x-vendor": { "a": 1 } });
        assert_eq!(round_trip::<Tool>(&tool), tool);
        let result = json!({ "content": [], "x-vendor": 1 });
        assert_eq!(round_trip::<CallToolResult>(&result), result);
        let annotations = json!({ "readOnlyHint": true, "x-vendor": "y" });
        assert_eq!(round_trip::<ToolAnnotations>(&annotations), annotations);
    }

    #[test]
    fn tool_names_follow_the_2025_11_25_rule() {
        for good in [
            "getUser",
            "DATA_EXPORT_v2",
            "admin.tools.list",
            "a-b",
            &"x".repeat(128),
        ] {
            assert_eq!(validate_tool_name(good), Ok(()), "{good}");
        }
        assert_eq!(validate_tool_name(""), Err(ToolNameError::Empty));
        assert_eq!(
            validate_tool_name(&"x".repeat(129)),
            Err(ToolNameError::TooLong { len: 129 })
        );
        assert_eq!(
            validate_tool_name("get user"),
            Err(ToolNameError::InvalidCharacter {
                found: ' ',
                position: 3
            })
        );
        assert_eq!(
            validate_tool_name("a,b"),
            Err(ToolNameError::InvalidCharacter {
                found: ',',
                position: 1
            })
        );
        assert_eq!(
            validate_tool_name("héllo"),
            Err(ToolNameError::InvalidCharacter {
                found: 'é',
                position: 1
            })
        );
    }
}
