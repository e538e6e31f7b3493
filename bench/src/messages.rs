//! The JSON-RPC messages the load clients send, built once per run, and
//! the cheap scan that finds the id of an answer.

use serde_json::{Value, json};

/// The protocol revision of the handshake era the clients negotiate.
pub const HANDSHAKE_REVISION: &str = "2025-06-18";

/// The stateless protocol revision (no `initialize`, `_meta` per request).
pub const STATELESS_REVISION: &str = "2026-07-28";

/// Which era the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// `initialize` first, then requests on the session.
    Handshake,
    /// 2026-07-28: every request carries its revision in `_meta`.
    Stateless,
}

/// The `_meta` of a 2026-07-28 request.
fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS_REVISION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcpwire-bench", "version": "0.1.0"},
    })
}

/// The first request of a run (`id` 0): `initialize` in the handshake era,
/// `server/discover` in the stateless one.
pub fn opening(era: Era) -> String {
    match era {
        Era::Handshake => json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": HANDSHAKE_REVISION,
                "capabilities": {},
                "clientInfo": {"name": "mcpwire-bench", "version": "0.1.0"}
            }
        })
        .to_string(),
        Era::Stateless => json!({
            "jsonrpc": "2.0", "id": 0, "method": "server/discover",
            "params": {"_meta": stateless_meta()}
        })
        .to_string(),
    }
}

/// The `notifications/initialized` notification.
pub fn initialized() -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()
}

/// The text of an `echo` call whose request is about `size` bytes long.
pub fn echo_text(size: usize) -> String {
    // The envelope around the text is about 90 bytes; small sizes keep
    // at least a few characters of text.
    let text_len = size.saturating_sub(90).max(8);
    "abcdefghijklmnopqrstuvwxyz0123456789"
        .chars()
        .cycle()
        .take(text_len)
        .collect()
}

/// A template `tools/call` of `echo` with the given text, whose id is
/// filled in by [`CallTemplate::with_id`] without re-serializing.
#[derive(Debug, Clone)]
pub struct CallTemplate {
    /// Everything before the id: `{"jsonrpc":"2.0","id":`.
    head: String,
    /// Everything after the id, from `,"method"` to the closing brace.
    tail: String,
}

impl CallTemplate {
    /// The template of an `echo` call of about `size` bytes in `era`.
    pub fn new(size: usize, era: Era) -> Self {
        let mut params = json!({"name": "echo", "arguments": {"text": echo_text(size)}});
        if era == Era::Stateless {
            params["_meta"] = stateless_meta();
        }
        let rest = json!({"method": "tools/call", "params": params}).to_string();
        // `rest` is `{"method":...}`: drop its opening brace to append it.
        let tail = format!(",{}", rest.get(1..).unwrap_or_default());
        Self {
            head: r#"{"jsonrpc":"2.0","id":"#.to_owned(),
            tail,
        }
    }

    /// The request with this id, as one line without its newline.
    pub fn with_id(&self, id: u64) -> String {
        let mut line = String::with_capacity(self.head.len() + self.tail.len() + 20);
        line.push_str(&self.head);
        line.push_str(&id.to_string());
        line.push_str(&self.tail);
        line
    }
}

/// The id of a JSON-RPC message, found by scanning for the first
/// `"id":` followed by digits (the clients only use integer ids, and every
/// server under test writes `id` before any user text that could contain
/// the same characters: `jsonrpc`, `id`, then `result`). `None` for a
/// message without one, such as a notification.
pub fn scan_id(message: &[u8]) -> Option<u64> {
    const KEY: &[u8] = b"\"id\":";
    let start = message.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let digits = message.get(start..)?;
    let digits = match digits.first() {
        Some(b' ') => digits.get(1..)?,
        _ => digits,
    };
    let mut value: u64 = 0;
    let mut seen = false;
    for byte in digits {
        if !byte.is_ascii_digit() {
            break;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(byte - b'0'))?;
        seen = true;
    }
    seen.then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_template_is_valid_json_with_its_id() {
        for era in [Era::Handshake, Era::Stateless] {
            let line = CallTemplate::new(200, era).with_id(42);
            let value: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(value["id"], 42);
            assert_eq!(value["params"]["name"], "echo");
            assert_eq!(scan_id(line.as_bytes()), Some(42));
        }
    }

    #[test]
    fn call_sizes_are_close_to_the_asked_size() {
        for size in [200, 64 * 1024] {
            let line = CallTemplate::new(size, Era::Handshake).with_id(1);
            let off = line.len().abs_diff(size);
            assert!(off < 40, "{} bytes for {size}", line.len());
        }
    }

    #[test]
    fn scan_id_reads_integer_ids_and_ignores_notifications() {
        assert_eq!(scan_id(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#), Some(7));
        assert_eq!(
            scan_id(br#"{"jsonrpc": "2.0", "id": 12, "result":{}}"#),
            Some(12)
        );
        assert_eq!(scan_id(br#"{"jsonrpc":"2.0","method":"x"}"#), None);
        assert_eq!(scan_id(br#"{"id":"text"}"#), None);
    }
}
