//! Messages written with features of 2025-11-25 (icons, titles, structured
//! output, output schemas, resource links, audio, tasks, sampling with
//! tools, ...) and sent to a 2024-11-05 peer: after fitting, each must
//! validate against the strict 2024-11-05 schema, i.e. carry nothing that
//! revision does not define.

use mcpwire_types::ProtocolVersion;
use mcpwire_types::methods::method_info;
use serde_json::{Value, json};

use crate::model::{round_trip_message, round_trip_result};
use crate::support::{Failures, Schemas};

fn icons() -> Value {
    json!([{ "src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "dark" }])
}

fn meta() -> Value {
    json!({ "com.example/trace": "abc" })
}

fn annotations() -> Value {
    json!({ "audience": ["user"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z" })
}

/// Content blocks of every kind, each with every 2025-11-25 field.
fn content() -> Value {
    json!([
        { "type": "text", "text": "hello", "annotations": annotations(), "_meta": meta() },
        { "type": "image", "data": "aGk=", "mimeType": "image/png", "annotations": annotations(), "_meta": meta() },
        { "type": "audio", "data": "aGk=", "mimeType": "audio/wav", "annotations": annotations(), "_meta": meta() },
        {
            "type": "resource_link", "uri": "file:///a.txt", "name": "a", "title": "A", "description": "d",
            "mimeType": "text/plain", "size": 3, "icons": icons(), "annotations": annotations(), "_meta": meta()
        },
        {
            "type": "resource",
            "resource": { "uri": "file:///b.txt", "mimeType": "text/plain", "text": "b", "_meta": meta() },
            "annotations": annotations(), "_meta": meta()
        }
    ])
}

fn implementation() -> Value {
    json!({
        "name": "impl", "version": "1.0.0", "title": "Impl", "description": "An implementation",
        "icons": icons(), "websiteUrl": "https://example.com"
    })
}

fn tool() -> Value {
    json!({
        "name": "weather", "title": "Weather", "description": "Forecasts",
        "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] },
        "outputSchema": { "type": "object", "properties": { "celsius": { "type": "number" } } },
        "annotations": { "title": "Weather", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true },
        "execution": { "taskSupport": "optional" },
        "icons": icons(), "_meta": meta()
    })
}

/// Requests and notifications (whole envelopes) built with 2025-11-25 features.
fn messages() -> Vec<(&'static str, Value)> {
    vec![
        (
            "initialize with 2025-11-25 client info and capabilities",
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {
                        "roots": { "listChanged": true },
                        "sampling": { "context": {}, "tools": {} },
                        "elicitation": { "form": {}, "url": {} },
                        "tasks": { "list": {}, "cancel": {}, "requests": { "sampling": { "createMessage": {} }, "elicitation": { "create": {} } } },
                        "experimental": { "x": {} }
                    },
                    "clientInfo": implementation()
                }
            }),
        ),
        (
            "tools/call with a task and _meta",
            json!({
                "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": { "name": "weather", "arguments": { "city": "Paris" }, "task": { "ttl": 60000 }, "_meta": { "progressToken": 1 } }
            }),
        ),
        (
            "completion/complete with context arguments",
            json!({
                "jsonrpc": "2.0", "id": 3, "method": "completion/complete",
                "params": {
                    "ref": { "type": "ref/prompt", "name": "code_review", "title": "Code review" },
                    "argument": { "name": "language", "value": "py" },
                    "context": { "arguments": { "framework": "flask" } }
                }
            }),
        ),
        (
            "sampling/createMessage with tools, tool use and audio",
            json!({
                "jsonrpc": "2.0", "id": 4, "method": "sampling/createMessage",
                "params": {
                    "messages": [
                        { "role": "user", "content": { "type": "audio", "data": "aGk=", "mimeType": "audio/wav" }, "_meta": meta() },
                        { "role": "assistant", "content": [{ "type": "tool_use", "id": "u1", "name": "weather", "input": { "city": "Paris" } }] },
                        { "role": "user", "content": [{ "type": "tool_result", "toolUseId": "u1", "content": [{ "type": "text", "text": "20C" }], "structuredContent": { "celsius": 20 } }] }
                    ],
                    "maxTokens": 100,
                    "systemPrompt": "Be brief",
                    "includeContext": "none",
                    "temperature": 0.2,
                    "stopSequences": ["\n\n"],
                    "metadata": { "k": "v" },
                    "modelPreferences": { "hints": [{ "name": "claude" }], "costPriority": 0.3, "speedPriority": 0.8, "intelligencePriority": 0.5 },
                    "tools": [tool()],
                    "toolChoice": { "mode": "auto" },
                    "task": { "ttl": 1000 }
                }
            }),
        ),
        (
            "progress notification with a message",
            json!({
                "jsonrpc": "2.0", "method": "notifications/progress",
                "params": { "progressToken": "p", "progress": 1, "total": 2, "message": "halfway" }
            }),
        ),
        (
            "cancellation",
            json!({
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": { "requestId": 2, "reason": "user" }
            }),
        ),
    ]
}

/// Results (the `result` member) of a method, built with 2025-11-25 features.
fn results() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "initialize result with 2025-11-25 server info and capabilities",
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {
                    "logging": {}, "completions": {},
                    "prompts": { "listChanged": true },
                    "resources": { "subscribe": true, "listChanged": true },
                    "tools": { "listChanged": true },
                    "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } },
                    "experimental": { "x": {} }
                },
                "serverInfo": implementation(),
                "instructions": "Use the tools.",
                "_meta": meta()
            }),
        ),
        (
            "tools/list with titles, icons, output schemas, annotations, execution",
            "tools/list",
            json!({
                "tools": [tool()], "nextCursor": "c", "_meta": meta()
            }),
        ),
        (
            "tools/call with structured content and every content kind",
            "tools/call",
            json!({
                "content": content(), "structuredContent": { "celsius": 20 }, "isError": false, "_meta": meta()
            }),
        ),
        (
            "prompts/list with titles and icons",
            "prompts/list",
            json!({
                "prompts": [{
                    "name": "p", "title": "P", "description": "d", "icons": icons(), "_meta": meta(),
                    "arguments": [{ "name": "a", "title": "A", "description": "d", "required": true }]
                }]
            }),
        ),
        (
            "prompts/get with resource links and audio",
            "prompts/get",
            json!({
                "description": "d",
                "messages": [
                    { "role": "user", "content": content()[2].clone() },
                    { "role": "assistant", "content": content()[3].clone() },
                    { "role": "user", "content": content()[4].clone() }
                ],
                "_meta": meta()
            }),
        ),
        (
            "resources/list with titles, icons, sizes and annotations",
            "resources/list",
            json!({
                "resources": [{
                    "uri": "file:///a.txt", "name": "a", "title": "A", "description": "d", "mimeType": "text/plain",
                    "size": 3, "icons": icons(), "annotations": annotations(), "_meta": meta()
                }]
            }),
        ),
        (
            "resources/templates/list with titles and icons",
            "resources/templates/list",
            json!({
                "resourceTemplates": [{
                    "uriTemplate": "file:///{path}", "name": "files", "title": "Files", "description": "d",
                    "mimeType": "text/plain", "icons": icons(), "annotations": annotations(), "_meta": meta()
                }]
            }),
        ),
        (
            "resources/read with contents metadata",
            "resources/read",
            json!({
                "contents": [
                    { "uri": "file:///a.txt", "mimeType": "text/plain", "text": "a", "_meta": meta() },
                    { "uri": "file:///b.bin", "mimeType": "application/octet-stream", "blob": "aGk=", "_meta": meta() }
                ]
            }),
        ),
        (
            "sampling result with several blocks and a tool use",
            "sampling/createMessage",
            json!({
                "role": "assistant",
                "content": [
                    { "type": "text", "text": "calling" },
                    { "type": "tool_use", "id": "u2", "name": "weather", "input": {} }
                ],
                "model": "m", "stopReason": "toolUse", "_meta": meta()
            }),
        ),
        (
            "roots/list with root metadata",
            "roots/list",
            json!({
                "roots": [{ "uri": "file:///home", "name": "home", "_meta": meta() }]
            }),
        ),
        (
            "completion result",
            "completion/complete",
            json!({
                "completion": { "values": ["python"], "total": 1, "hasMore": false }
            }),
        ),
    ]
}

#[test]
fn messages_with_2025_11_25_features_written_for_2024_11_05_fit_its_strict_schema() {
    let version = ProtocolVersion::V2024_11_05;
    let mut schemas = Schemas::load();
    let mut failures = Failures::new("2025-11-25 features sent to 2024-11-05");
    for (case, message) in messages() {
        let method = message["method"].as_str().unwrap().to_owned();
        let outcome = round_trip_message(&message, version).and_then(|fitted| {
            let definition = schemas
                .method_definition(version, &method)
                .ok_or_else(|| format!("{version} has no {method}"))?
                .to_owned();
            // 2024-11-05 describes the method without the JSON-RPC envelope fields.
            let mut bare = fitted;
            if let Some(object) = bare.as_object_mut() {
                object.remove("jsonrpc");
                object.remove("id");
            }
            schemas.validate(version, &definition, true, &bare)
        });
        failures.check(case, outcome);
    }
    for (case, method, result) in results() {
        let outcome = round_trip_result(method, &result, version).and_then(|fitted| {
            let result_type = method_info(method)
                .and_then(|info| info.result_type)
                .ok_or("no result type")?;
            schemas.validate(version, result_type, true, &fitted)
        });
        failures.check(case, outcome);
    }
    failures.finish(17);
}
