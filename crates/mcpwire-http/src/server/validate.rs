//! Checks of the 2026-07-28 request headers against the body
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); a
//! failure is answered with 400 and `HeaderMismatch` (-32020).

use base64::Engine as _;
use http::HeaderMap;
use mcpwire_jsonrpc::Message;
use serde_json::Value;

use super::params::ToolParamHeaders;
use crate::headers::{MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION};

/// Checks every mirrored header of a stateless POST against its message,
/// reading the params as [`check_headers`] needs them; the error is the
/// sentence for the `HeaderMismatch` error.
pub(crate) fn check_message_headers(
    headers: &HeaderMap,
    message: &Message,
    tools: &dyn ToolParamHeaders,
) -> Result<(), String> {
    let params: Option<Value> = message
        .params()
        .and_then(|raw| serde_json::from_str(raw.get()).ok());
    let meta_version = params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get(mcpwire_types::meta_keys::PROTOCOL_VERSION));
    check_headers(headers, message, params.as_ref(), meta_version, tools)
}

/// Checks every mirrored header of a stateless POST, given its params and
/// the revision its `_meta` names; the error is the sentence for the
/// `HeaderMismatch` error.
pub(crate) fn check_headers(
    headers: &HeaderMap,
    message: &Message,
    params: Option<&Value>,
    meta_version: Option<&Value>,
    tools: &dyn ToolParamHeaders,
) -> Result<(), String> {
    check_version(headers, meta_version)?;
    let Some(method) = message.method() else {
        return Ok(());
    };
    let is_request = matches!(message, Message::Request(_));
    match plain_header(headers, MCP_METHOD)? {
        Some(value) if value != method => {
            return Err(format!(
                "Header mismatch: Mcp-Method header value '{value}' does not match body value '{method}'"
            ));
        }
        // Notifications have no header requirements in 2026-07-28.
        None if is_request => {
            return Err("Header mismatch: the required Mcp-Method header is missing".to_owned());
        }
        Some(_) | None => {}
    }
    check_name(headers, method, params)?;
    if method == "tools/call"
        && let Some(params) = params
    {
        check_params(headers, params, tools)?;
    }
    Ok(())
}

/// `MCP-Protocol-Version` is required and must equal the body's `_meta`
/// version when the body has one.
fn check_version(headers: &HeaderMap, meta_version: Option<&Value>) -> Result<(), String> {
    let Some(header) = plain_header(headers, MCP_PROTOCOL_VERSION)? else {
        return Err(
            "Header mismatch: the required MCP-Protocol-Version header is missing".to_owned(),
        );
    };
    match meta_version {
        Some(body) if body.as_str() != Some(header.as_str()) => Err(format!(
            "Header mismatch: MCP-Protocol-Version header value '{header}' does not match body value {body}"
        )),
        _ => Ok(()),
    }
}

/// The body field `Mcp-Name` mirrors for `method`, and whether the header
/// is required (the spec requires it for three methods; the tasks
/// extension's methods are checked when it is present).
fn name_source(method: &str) -> Option<(&'static str, bool)> {
    match method {
        "tools/call" | "prompts/get" => Some(("name", true)),
        "resources/read" => Some(("uri", true)),
        "tasks/get" | "tasks/update" | "tasks/cancel" | "tasks/result" => Some(("taskId", false)),
        _ => None,
    }
}

fn check_name(headers: &HeaderMap, method: &str, params: Option<&Value>) -> Result<(), String> {
    let Some((field, required)) = name_source(method) else {
        return Ok(());
    };
    let body = params.and_then(|p| p.get(field)).and_then(Value::as_str);
    match (encoded_header(headers, MCP_NAME)?, body) {
        (Some(header), Some(body)) if header != body => Err(format!(
            "Header mismatch: Mcp-Name header value '{header}' does not match body value '{body}'"
        )),
        (None, _) if required => Err(format!(
            "Header mismatch: the Mcp-Name header is required for {method}"
        )),
        (Some(_) | None, _) => Ok(()),
    }
}

/// Every annotated parameter with a value in the arguments must come with
/// its header, and the header must match it (after Base64 decoding).
fn check_params(
    headers: &HeaderMap,
    params: &Value,
    tools: &dyn ToolParamHeaders,
) -> Result<(), String> {
    let Some(tool) = params.get("name").and_then(Value::as_str) else {
        return Ok(());
    };
    let Some(annotated) = tools.lookup(tool) else {
        return Ok(());
    };
    let arguments = params.get("arguments").unwrap_or(&Value::Null);
    for param in annotated.iter() {
        let header_name = param.header_name();
        let header = encoded_header(headers, &header_name)?;
        match (header, param.value_in(arguments)) {
            (None, None) => {}
            (Some(header), Some(body)) if value_matches(&header, body) => {}
            (Some(header), Some(body)) => {
                return Err(format!(
                    "Header mismatch: Mcp-Param-{} header value '{header}' does not match body value {body}",
                    param.name()
                ));
            }
            (None, Some(_)) => {
                return Err(format!(
                    "Header mismatch: the Mcp-Param-{} header is missing",
                    param.name()
                ));
            }
            (Some(_), None) => {
                return Err(format!(
                    "Header mismatch: Mcp-Param-{} is sent but the argument has no value",
                    param.name()
                ));
            }
        }
    }
    Ok(())
}

/// Compares a header text with a primitive body value: strings exactly,
/// booleans as `true`/`false`, numbers numerically (`42.0` equals `42`).
fn value_matches(header: &str, body: &Value) -> bool {
    match body {
        Value::String(text) => header == text,
        Value::Bool(flag) => header == if *flag { "true" } else { "false" },
        Value::Number(number) => {
            if let (Ok(h), Some(b)) = (header.parse::<i64>(), number.as_i64()) {
                return h == b;
            }
            let finite = |v: f64| v.is_finite().then_some(v);
            match (header.parse::<f64>().ok().and_then(finite), number.as_f64()) {
                (Some(h), Some(b)) => h == b,
                _ => false,
            }
        }
        _ => false,
    }
}

/// A header's value, trimmed of optional whitespace; an error when it holds
/// characters outside visible ASCII, space and tab.
fn plain_header(headers: &HeaderMap, name: &str) -> Result<Option<String>, String> {
    let Some(value) = headers.get(name) else {
        return Ok(None);
    };
    let bytes = value.as_bytes();
    if !bytes
        .iter()
        .all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b))
    {
        return Err(format!(
            "Header mismatch: the {name} header contains invalid characters"
        ));
    }
    let text = String::from_utf8_lossy(bytes);
    Ok(Some(text.trim_matches([' ', '\t']).to_owned()))
}

/// Like [`plain_header`], decoding the `=?base64?…?=` form (strictly).
pub(crate) fn encoded_header(headers: &HeaderMap, name: &str) -> Result<Option<String>, String> {
    let Some(text) = plain_header(headers, name)? else {
        return Ok(None);
    };
    let Some(encoded) = text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(Some(text));
    };
    decode_base64(encoded)
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .map(Some)
        .ok_or_else(|| format!("Header mismatch: the {name} header is not valid Base64 UTF-8"))
}

/// Strict standard Base64: padding required, no stray characters, and the
/// unused bits of the last group zero.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    // The standard engine requires canonical padding and zero trailing
    // bits, so one value has exactly one accepted spelling.
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use http::HeaderValue;
    use mcpwire_jsonrpc::{Message, Request};
    use serde_json::json;

    use super::super::params::{ParamHeader, param_headers};
    use super::*;

    #[test]
    fn base64_decoding_is_strict() {
        assert_eq!(decode_base64("SGVsbG8=").unwrap(), b"Hello");
        assert_eq!(
            decode_base64("SGVsbG8sIOS4lueVjA==").unwrap(),
            "Hello, 世界".as_bytes()
        );
        assert_eq!(decode_base64("").unwrap(), b"");
        for bad in [
            "SGVsbG8",
            "SGVs!!!bG8=",
            "SGV=bG8=",
            "SGVsbG9=",
            "S===",
            "SGVsbA=a",
        ] {
            assert_eq!(decode_base64(bad), None, "{bad}");
        }
    }

    fn call(arguments: &Value) -> (Message, Value) {
        let params = json!({"name": "sql", "arguments": arguments});
        let request = Request::new(1, "tools/call", &params).unwrap();
        (Message::Request(request), params)
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert(
            "mcp-protocol-version",
            HeaderValue::from_static("2026-07-28"),
        );
        map.insert("mcp-method", HeaderValue::from_static("tools/call"));
        map.insert("mcp-name", HeaderValue::from_static("sql"));
        for (name, value) in pairs {
            let name = http::HeaderName::from_bytes(name.as_bytes()).unwrap();
            map.insert(name, HeaderValue::from_bytes(value.as_bytes()).unwrap());
        }
        map
    }

    fn tools() -> impl ToolParamHeaders {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"}}});
        let found: Arc<[ParamHeader]> = param_headers(&schema).into();
        move |tool: &str| (tool == "sql").then(|| found.clone())
    }

    fn verdict(pairs: &[(&str, &str)], arguments: &Value) -> Result<(), String> {
        let (message, params) = call(arguments);
        let version = json!("2026-07-28");
        check_headers(
            &headers(pairs),
            &message,
            Some(&params),
            Some(&version),
            &tools(),
        )
    }

    #[test]
    fn param_headers_follow_the_value_encoding_rules() {
        let hello = json!({"region": "Hello"});
        assert!(verdict(&[("Mcp-Param-Region", "=?base64?SGVsbG8=?=")], &hello).is_ok());
        assert!(verdict(&[("mcp-param-region", "Hello")], &hello).is_ok());
        assert!(verdict(&[("Mcp-Param-Region", "=?base64?SGVsbG8?=")], &hello).is_err());
        assert!(verdict(&[("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")], &hello).is_err());
        let literal = json!({"region": "=?base64?SGVsbG8="});
        assert!(verdict(&[("Mcp-Param-Region", "=?base64?SGVsbG8=")], &literal).is_ok());
        assert!(verdict(&[], &json!({"region": "test-value"})).is_err());
        assert!(verdict(&[], &json!({"region": null})).is_ok());
        assert!(verdict(&[("Mcp-Param-Count", "42.0")], &json!({"count": 42})).is_ok());
        assert!(verdict(&[("Mcp-Param-Count", "43")], &json!({"count": 42})).is_err());
    }

    #[test]
    fn standard_headers_must_be_present_and_match_the_body() {
        let (message, params) = call(&json!({}));
        let meta = json!("2026-07-28");
        let check =
            |map: &HeaderMap| check_headers(map, &message, Some(&params), Some(&meta), &tools());
        assert!(check(&headers(&[])).is_ok());
        assert!(check(&headers(&[("mcp-name", "  sql  ")])).is_ok());
        assert!(check(&headers(&[("mcp-name", "=?base64?c3Fs?=")])).is_ok());
        assert!(check(&headers(&[("mcp-name", "other")])).is_err());
        assert!(check(&headers(&[("mcp-method", "TOOLS/CALL")])).is_err());
        assert!(check(&headers(&[("mcp-protocol-version", "2025-11-25")])).is_err());
        let mut missing = headers(&[]);
        missing.remove("mcp-name");
        assert!(check(&missing).is_err());
        let mut missing = headers(&[]);
        missing.remove("mcp-method");
        assert!(check(&missing).is_err());
        let mut high = headers(&[]);
        high.insert("mcp-name", HeaderValue::from_bytes(b"sq\xffl").unwrap());
        assert!(check(&high).is_err());
    }
}
