//! The property of the `http_headers` fuzz target, shared with the test
//! that replays its corpus (`tests/hardening/fuzz_corpus.rs`).
//!
//! The input is read as lines: each `name: value` line that makes a valid
//! header goes into one header map, and each line is also a text on its
//! own. Beyond "never panics", it checks:
//! * `Accept`: the server's matching agrees with a plain reading of RFC
//!   9110's list syntax (split on `,`, range before `;`, `q=0` refuses), the
//!   JSON-and-SSE shortcut agrees with the general path, and asking for two
//!   types at once is asking for each;
//! * `Mcp-Session-Id`: an id parses exactly when it is 1 to 256 visible
//!   ASCII characters, and reads back unchanged;
//! * `Mcp-Name` / `Mcp-Param-*`: whatever text the client encodes, the
//!   server decodes back to the same text; and a `tools/call` built from
//!   the input's texts, with the headers the client writes for it, passes
//!   the server's header checks (`MCP-Protocol-Version`, `Mcp-Method`,
//!   `Mcp-Name`, `Mcp-Param-*` with string, number and boolean values);
//! * the server's header checks never panic on the input's headers against
//!   the input's first line read as a JSON-RPC message.

use std::sync::Arc;

use http::{HeaderMap, HeaderName, HeaderValue};
use mcpwire_http::fuzz_hooks;
use mcpwire_http::server::{ParamHeader, SessionId, param_headers};
use mcpwire_jsonrpc::{Message, Request};
use serde_json::{Value, json};

const JSON: &str = "application/json";
const SSE: &str = "text/event-stream";

/// The tool whose parameters the round trip mirrors into headers.
fn schema() -> Value {
    json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "flag": {"type": "boolean", "x-mcp-header": "Flag"},
        "nested": {"type": "object", "properties": {
            "zone": {"type": "string", "x-mcp-header": "Zone"}}}
    }})
}

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    let lines: Vec<&[u8]> = data.split(|&byte| byte == b'\n').collect();
    let mut headers = HeaderMap::new();
    for line in &lines {
        let Some(colon) = line.iter().position(|&byte| byte == b':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(line[colon + 1..].trim_ascii()),
        ) else {
            continue;
        };
        headers.append(name, value);
    }
    check_accept(&headers);
    let texts: Vec<String> = lines
        .iter()
        .map(|line| String::from_utf8_lossy(line).into_owned())
        .collect();
    for text in &texts {
        check_session_id(text);
        check_value_round_trip(text);
    }
    let text = |index: usize| texts.get(index).cloned().unwrap_or_default();
    check_tools_call_round_trip(&text(0), &text(1), &text(2), data.first().copied());

    let headers_of: Arc<[ParamHeader]> = param_headers(&schema()).into();
    let tools = move |_: &str| Some(headers_of.clone());
    if let Ok(message) = Message::from_slice(lines[0]) {
        let _ = fuzz_hooks::check_request_headers(&headers, &message, &tools);
    }
}

/// A plain reading of `Accept` (RFC 9110 section 12.5.1): is `media`
/// admitted by some item with a non-zero quality?
fn accept_reference(headers: &HeaderMap, media: &str) -> bool {
    let kind = media.split('/').next().unwrap_or(media);
    headers
        .get_all(http::header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|item| {
            let mut pieces = item.split(';');
            let range = pieces.next().unwrap_or("").trim_matches([' ', '\t']);
            let covers = range.eq_ignore_ascii_case(media)
                || range == "*/*"
                || range
                    .strip_suffix("/*")
                    .is_some_and(|range_kind| range_kind.eq_ignore_ascii_case(kind));
            let refused = pieces.any(|param| {
                let param = param.trim_matches([' ', '\t']);
                param
                    .strip_prefix("q=")
                    .or_else(|| param.strip_prefix("Q="))
                    .and_then(|q| q.trim_matches([' ', '\t']).parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            covers && !refused
        })
}

fn check_accept(headers: &HeaderMap) {
    let json = fuzz_hooks::accepts_all(headers, &[JSON]);
    let sse = fuzz_hooks::accepts_all(headers, &[SSE]);
    assert_eq!(
        json,
        accept_reference(headers, JSON),
        "Accept vs reference (JSON)"
    );
    assert_eq!(
        sse,
        accept_reference(headers, SSE),
        "Accept vs reference (SSE)"
    );
    assert_eq!(fuzz_hooks::accepts_all(headers, &[JSON, SSE]), json && sse);
    assert_eq!(fuzz_hooks::accepts_json_and_sse(headers), json && sse);
}

fn check_session_id(text: &str) {
    let valid = (1..=256).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_graphic());
    match SessionId::parse(text) {
        Some(id) => {
            assert!(valid, "an invalid session id parsed: {text:?}");
            assert_eq!(id.as_str(), text);
        }
        None => assert!(!valid, "a valid session id was refused: {text:?}"),
    }
}

/// What the client encodes for `Mcp-Name`, the server decodes to the same text.
fn check_value_round_trip(text: &str) {
    let mut headers = HeaderMap::new();
    headers.insert("mcp-name", fuzz_hooks::encode_header_value(text));
    let decoded = fuzz_hooks::decode_header_value(&headers, "mcp-name");
    assert_eq!(decoded, Ok(Some(text.to_owned())), "Mcp-Name round trip");
}

/// A `tools/call` whose name and arguments come from the input passes the
/// server's checks with the headers the client writes for it.
fn check_tools_call_round_trip(name: &str, region: &str, number: &str, flag: Option<u8>) {
    // A number the input spells, else one made of its bytes.
    let count = serde_json::from_str::<serde_json::Number>(number)
        .map(Value::Number)
        .unwrap_or_else(|_| json!(number.len() as f64 / 7.0));
    let mut arguments = json!({"region": region, "count": count, "nested": {"zone": number}});
    if let Some(flag) = flag {
        arguments["flag"] = json!(flag % 2 == 0);
    }
    let params = json!({
        "name": name,
        "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    });
    let Ok(request) = Request::new(1, "tools/call", &params) else {
        return;
    };
    let headers = fuzz_hooks::client_request_headers(Message::Request(request.clone()), &schema());
    assert!(
        headers.is_some(),
        "the client refused the round trip's schema"
    );
    let Some(mut headers) = headers else {
        return;
    };
    headers.insert(
        "mcp-protocol-version",
        HeaderValue::from_static("2026-07-28"),
    );
    let headers_of: Arc<[ParamHeader]> = param_headers(&schema()).into();
    let tools = move |_: &str| Some(headers_of.clone());
    let verdict = fuzz_hooks::check_request_headers(&headers, &Message::Request(request), &tools);
    assert_eq!(
        verdict,
        Ok(()),
        "the server refused the client's headers: {headers:?}"
    );
}
