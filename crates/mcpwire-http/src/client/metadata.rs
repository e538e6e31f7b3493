//! What a POST's headers are made of: the facts read from the packet, and
//! the 2026-07-28 request metadata headers with their value encoding.

use base64::Engine as _;
use http::{HeaderMap, HeaderName, HeaderValue};
use mcpwire_jsonrpc::{Message, Packet, RawJson, RequestId};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::tool_headers::HeaderParam;
use crate::headers::{MCP_METHOD, MCP_NAME};

/// What `send` needs to know about a packet: the requests in it, and for a
/// single message the fields mirrored into headers.
#[derive(Debug, Default)]
pub(crate) struct Outgoing {
    /// The requests in the packet, with their methods.
    pub(crate) requests: Vec<(RequestId, String)>,
    /// The method of a single request or notification.
    pub(crate) method: Option<String>,
    /// The protocol version in a single message's `_meta`.
    pub(crate) meta_version: Option<String>,
    /// `params.name` or `params.uri`, as `Mcp-Name` carries it, for the
    /// methods that name something.
    pub(crate) name: Option<String>,
    /// For `tools/call`: the tool's name and its arguments.
    pub(crate) tool_call: Option<(String, Value)>,
    /// For `notifications/cancelled`: the request it cancels.
    pub(crate) cancelled: Option<RequestId>,
}

impl Outgoing {
    /// Reads the packet. Malformed params are not this layer's business:
    /// they only leave the corresponding headers out.
    pub(crate) fn inspect(packet: &Packet) -> Self {
        let mut outgoing = Self::default();
        match packet {
            Packet::Single(message) => {
                if let Message::Request(request) = message {
                    outgoing
                        .requests
                        .push((request.id.clone(), request.method.clone()));
                }
                if let Some(method) = message.method() {
                    outgoing.method = Some(method.to_owned());
                    outgoing.read_params(method, message.params());
                }
            }
            Packet::Batch(messages) => {
                for message in messages {
                    if let Message::Request(request) = message {
                        outgoing
                            .requests
                            .push((request.id.clone(), request.method.clone()));
                    }
                }
            }
        }
        outgoing
    }

    /// Whether this is the `initialize` request.
    pub(crate) fn is_initialize(&self) -> bool {
        self.requests.len() == 1 && self.method.as_deref() == Some("initialize")
    }

    /// Whether this is the `notifications/initialized` notification.
    pub(crate) fn is_initialized_notification(&self) -> bool {
        self.requests.is_empty() && self.method.as_deref() == Some("notifications/initialized")
    }

    fn read_params(&mut self, method: &str, params: Option<&RawJson>) {
        let Some(params) = params else { return };
        let Ok(view) = serde_json::from_str::<ParamsView<'_>>(params.get()) else {
            return;
        };
        self.meta_version = view
            .meta
            .and_then(|meta| serde_json::from_str::<MetaView>(meta.get()).ok())
            .and_then(|meta| meta.protocol_version);
        let text =
            |raw: Option<&RawValue>| raw.and_then(|raw| serde_json::from_str(raw.get()).ok());
        self.name = match method {
            "tools/call" | "prompts/get" => text(view.name),
            "resources/read" => text(view.uri),
            _ => None,
        };
        if method == "notifications/cancelled" {
            self.cancelled = view
                .request_id
                .and_then(|raw| serde_json::from_str(raw.get()).ok());
        }
        if method == "tools/call"
            && let Some(name) = &self.name
        {
            let arguments = view
                .arguments
                .and_then(|raw| serde_json::from_str(raw.get()).ok())
                .unwrap_or(Value::Null);
            self.tool_call = Some((name.clone(), arguments));
        }
    }
}

/// The members of `params` that headers mirror, kept raw so that any
/// shape parses.
#[derive(Deserialize)]
struct ParamsView<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "requestId")]
    request_id: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MetaView {
    /// The key is `mcpwire_types::meta_keys::PROTOCOL_VERSION`.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
    protocol_version: Option<String>,
}

/// Adds the 2026-07-28 request metadata headers: `Mcp-Method`, `Mcp-Name`
/// and the `Mcp-Param-*` headers of the tool's `x-mcp-header` parameters.
pub(crate) fn add_request_metadata(
    headers: &mut HeaderMap,
    outgoing: &Outgoing,
    tool_params: Option<&[HeaderParam]>,
) {
    if let Some(method) = &outgoing.method {
        // Method names are ASCII in practice; one that is not cannot be a
        // header, and the server will say the header is missing.
        if let Ok(value) = HeaderValue::from_str(method) {
            headers.insert(HeaderName::from_static(MCP_METHOD), value);
        }
    }
    if let Some(name) = &outgoing.name {
        headers.insert(HeaderName::from_static(MCP_NAME), encode_value(name));
    }
    if let (Some((_, arguments)), Some(params)) = (&outgoing.tool_call, tool_params) {
        for param in params {
            let value = param
                .path
                .iter()
                .try_fold(arguments, |value, key| value.get(key));
            if let Some(text) = value.and_then(header_text) {
                headers.insert(param.header.clone(), encode_value(&text));
            }
        }
    }
}

/// A primitive argument as header text; `None` (no header) for `null` and
/// for values no header can carry.
fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => Some(number.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The sentinel that marks a Base64 header value.
const BASE64_PREFIX: &str = "=?base64?";
const BASE64_SUFFIX: &str = "?=";

/// Encodes a value for `Mcp-Name` or `Mcp-Param-*`: as it is when it is
/// printable ASCII without leading or trailing spaces, otherwise (and when
/// it looks like the sentinel itself) as `=?base64?...?=` over its UTF-8.
pub(crate) fn encode_value(text: &str) -> HeaderValue {
    let printable = text.bytes().all(|byte| (0x20..=0x7e).contains(&byte));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let sentinel_like = text.starts_with(BASE64_PREFIX) && text.ends_with(BASE64_SUFFIX);
    let plain = printable && !padded && !sentinel_like;
    let encoded;
    let value = if plain {
        text
    } else {
        encoded = format!("{BASE64_PREFIX}{}{BASE64_SUFFIX}", base64(text.as_bytes()));
        &encoded
    };
    // Both forms hold printable ASCII only, which every header accepts.
    HeaderValue::from_str(value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// Standard Base64 (RFC 4648, with padding).
fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use mcpwire_jsonrpc::{Notification, Request};
    use serde_json::json;

    use super::*;

    #[test]
    fn values_are_encoded_as_the_spec_examples_show() {
        let cases = [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
            ("us west 1", "us west 1"),
            ("\tx", "=?base64?CXg=?="),
            ("", ""),
        ];
        for (value, expected) in cases {
            assert_eq!(encode_value(value), expected, "{value:?}");
        }
    }

    #[test]
    fn base64_pads_every_remainder() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
    }

    #[test]
    fn a_tools_call_yields_its_name_version_and_arguments() {
        let request = Request::new(
            1,
            "tools/call",
            &json!({
                "name": "execute_sql",
                "arguments": {"region": "us-west1"},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
            }),
        )
        .unwrap();
        let outgoing = Outgoing::inspect(&Packet::from(request));
        assert_eq!(
            outgoing.requests,
            [(RequestId::from(1), "tools/call".to_owned())]
        );
        assert_eq!(outgoing.meta_version.as_deref(), Some("2026-07-28"));
        assert_eq!(outgoing.name.as_deref(), Some("execute_sql"));
        let (tool, arguments) = outgoing.tool_call.unwrap();
        assert_eq!(
            (tool.as_str(), &arguments),
            ("execute_sql", &json!({"region": "us-west1"}))
        );
    }

    #[test]
    fn resources_read_names_its_uri_and_other_methods_name_nothing() {
        let read = Request::new(2, "resources/read", &json!({"uri": "file:///a b"})).unwrap();
        assert_eq!(
            Outgoing::inspect(&Packet::from(read)).name.as_deref(),
            Some("file:///a b")
        );
        let list = Request::new(3, "tools/list", &json!({"name": "x"})).unwrap();
        assert_eq!(Outgoing::inspect(&Packet::from(list)).name, None);
        let odd = Request::new(4, "tools/call", &json!({"name": 5})).unwrap();
        assert_eq!(Outgoing::inspect(&Packet::from(odd)).name, None);
    }

    #[test]
    fn metadata_headers_mirror_method_name_and_declared_parameters() {
        let request = Request::new(
            1,
            "tools/call",
            &json!({
                "name": "t",
                "arguments": {"region": "eu", "n": 42, "flag": false, "gone": null,
                              "nested": {"deep": "é"}, "query": "SELECT"}
            }),
        )
        .unwrap();
        let outgoing = Outgoing::inspect(&Packet::from(request));
        let param = |name: &str, path: &[&str]| HeaderParam {
            header: HeaderName::from_bytes(format!("mcp-param-{name}").as_bytes()).unwrap(),
            path: path.iter().map(|key| (*key).to_owned()).collect(),
        };
        let params = [
            param("region", &["region"]),
            param("n", &["n"]),
            param("flag", &["flag"]),
            param("gone", &["gone"]),
            param("absent", &["absent"]),
            param("deep", &["nested", "deep"]),
        ];
        let mut headers = HeaderMap::new();
        add_request_metadata(&mut headers, &outgoing, Some(&params));
        let get = |name: &str| headers.get(name).map(|value| value.to_str().unwrap());
        assert_eq!(get("mcp-method"), Some("tools/call"));
        assert_eq!(get("mcp-name"), Some("t"));
        assert_eq!(get("mcp-param-region"), Some("eu"));
        assert_eq!(get("mcp-param-n"), Some("42"));
        assert_eq!(get("mcp-param-flag"), Some("false"));
        assert_eq!(get("mcp-param-gone"), None);
        assert_eq!(get("mcp-param-absent"), None);
        assert_eq!(get("mcp-param-deep"), Some("=?base64?w6k=?="));
        assert_eq!(headers.len(), 6);
    }

    #[test]
    fn notifications_carry_their_method_only() {
        let notification = Notification::without_params("notifications/initialized");
        let outgoing = Outgoing::inspect(&Packet::from(notification));
        assert!(outgoing.is_initialized_notification());
        let cancel =
            Notification::new("notifications/cancelled", &json!({"requestId": "r1"})).unwrap();
        assert_eq!(
            Outgoing::inspect(&Packet::from(cancel)).cancelled,
            Some(RequestId::from("r1"))
        );
        let mut headers = HeaderMap::new();
        add_request_metadata(&mut headers, &outgoing, None);
        assert_eq!(headers.len(), 1);
    }
}
