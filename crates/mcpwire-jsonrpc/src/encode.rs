//! Writing messages as compact JSON: a direct byte writer and `Serialize`.
//!
//! The byte writer is what the codec and `to_vec` use. It cannot fail, it
//! copies raw JSON verbatim except for line breaks between tokens (which
//! become spaces), so its output is always one line. The `Serialize` impls
//! produce the same bytes through serde_json (a property test holds the two
//! to that) for callers that embed messages in their own serde output; they
//! copy raw JSON exactly as it is, line breaks included.

use bytes::BytesMut;
use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

use crate::error::ErrorObject;
use crate::id::RequestId;
use crate::message::{ErrorResponse, Message, Notification, Packet, Request, Response};
use crate::raw::RawJson;
use crate::scan::has_line_break;

/// A byte buffer the writer can append to.
pub(crate) trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
    /// Makes room for at least `additional` more bytes.
    fn reserve_more(&mut self, additional: usize);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    fn reserve_more(&mut self, additional: usize) {
        self.reserve(additional);
    }
}

impl Sink for BytesMut {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    fn reserve_more(&mut self, additional: usize) {
        self.reserve(additional);
    }
}

impl Packet {
    /// The packet as compact JSON on one line (without a trailing newline).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_packet(&mut out, self);
        out
    }

    /// About how many bytes the packet takes encoded, without encoding it:
    /// its payloads' lengths (they are kept as raw text) plus an allowance
    /// for each envelope. For counting what a queue holds, e.g. the bytes
    /// waiting for a peer that does not read.
    pub fn size_hint(&self) -> usize {
        match self {
            Self::Single(message) => size_hint(message),
            Self::Batch(messages) => messages.iter().map(size_hint).sum::<usize>() + 2,
        }
    }
}

impl Message {
    /// The message as compact JSON on one line (without a trailing newline).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_message(&mut out, self);
        out
    }
}

/// Appends `packet` as compact JSON.
pub(crate) fn write_packet(out: &mut impl Sink, packet: &Packet) {
    match packet {
        Packet::Single(message) => write_message(out, message),
        Packet::Batch(messages) => {
            out.reserve_more(packet.size_hint());
            out.put(b"[");
            for (index, message) in messages.iter().enumerate() {
                if index > 0 {
                    out.put(b",");
                }
                write_message(out, message);
            }
            out.put(b"]");
        }
    }
}

/// Appends `message` as compact JSON.
pub(crate) fn write_message(out: &mut impl Sink, message: &Message) {
    out.reserve_more(size_hint(message));
    write_message_with(out, message, write_raw);
}

/// Appends `message` as compact JSON, with `payload` writing its payload
/// (`params`, `result` or `error.data`; a message has at most one) where
/// it belongs, so that a caller can put the payload somewhere else than
/// `out` (see `LineQueue`). Reserves nothing.
pub(crate) fn write_message_with<S: Sink>(
    out: &mut S,
    message: &Message,
    payload: impl FnOnce(&mut S, &RawJson),
) {
    match message {
        Message::Request(Request { id, method, params }) => {
            out.put(br#"{"jsonrpc":"2.0","id":"#);
            write_id(out, id);
            out.put(br#","method":"#);
            write_str(out, method);
            if let Some(params) = params {
                out.put(br#","params":"#);
                payload(out, params);
            }
        }
        Message::Notification(Notification { method, params }) => {
            out.put(br#"{"jsonrpc":"2.0","method":"#);
            write_str(out, method);
            if let Some(params) = params {
                out.put(br#","params":"#);
                payload(out, params);
            }
        }
        Message::Response(Response { id, result }) => {
            out.put(br#"{"jsonrpc":"2.0","id":"#);
            write_id(out, id);
            out.put(br#","result":"#);
            payload(out, result);
        }
        Message::Error(ErrorResponse { id, error }) => {
            out.put(br#"{"jsonrpc":"2.0","id":"#);
            match id {
                Some(id) => write_id(out, id),
                None => out.put(b"null"),
            }
            out.put(br#","error":{"code":"#);
            write_i64(out, error.code.0);
            out.put(br#","message":"#);
            write_str(out, &error.message);
            if let Some(data) = &error.data {
                out.put(br#","data":"#);
                payload(out, data);
            }
            out.put(b"}");
        }
    }
    out.put(b"}");
}

/// The message's payload (`params`, `result` or `error.data`), if any.
pub(crate) fn payload(message: &Message) -> Option<&RawJson> {
    match message {
        Message::Request(request) => request.params.as_ref(),
        Message::Notification(notification) => notification.params.as_ref(),
        Message::Response(response) => Some(&response.result),
        Message::Error(error) => error.error.data.as_ref(),
    }
}

/// The message's payload, by value.
pub(crate) fn into_payload(message: Message) -> Option<RawJson> {
    match message {
        Message::Request(request) => request.params,
        Message::Notification(notification) => notification.params,
        Message::Response(response) => Some(response.result),
        Message::Error(error) => error.error.data,
    }
}

/// A close upper estimate of the encoded size, so that large payloads are
/// copied into a buffer that is grown once.
pub(crate) fn size_hint(message: &Message) -> usize {
    const ENVELOPE: usize = 64;
    let id_len = |id: &RequestId| id.as_str().map_or(20, |string| string.len() + 2);
    match message {
        Message::Request(request) => {
            ENVELOPE
                + id_len(&request.id)
                + request.method.len()
                + request.params.as_ref().map_or(0, |raw| raw.get().len())
        }
        Message::Notification(notification) => {
            ENVELOPE
                + notification.method.len()
                + notification
                    .params
                    .as_ref()
                    .map_or(0, |raw| raw.get().len())
        }
        Message::Response(response) => {
            ENVELOPE + id_len(&response.id) + response.result.get().len()
        }
        Message::Error(error) => {
            ENVELOPE
                + error.id.as_ref().map_or(4, id_len)
                + error.error.message.len()
                + error.error.data.as_ref().map_or(0, |raw| raw.get().len())
        }
    }
}

fn write_id(out: &mut impl Sink, id: &RequestId) {
    match id {
        RequestId::Number(number) => write_i64(out, *number),
        RequestId::String(string) => write_str(out, string),
    }
}

fn write_i64(out: &mut impl Sink, number: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = number.unsigned_abs();
    loop {
        at -= 1;
        // The remainder of a division by ten always fits in a byte.
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if number < 0 {
        out.put(b"-");
    }
    out.put(&digits[at..]);
}

/// For each byte, the character after the backslash that escapes it, `u` for
/// a `\u00XX` escape, or 0 when the byte is written as it is. This is the
/// escaping serde_json applies, so both writers agree byte for byte.
const ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

fn write_str(out: &mut impl Sink, string: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = string.as_bytes();
    out.put(b"\"");
    let mut start = 0;
    for (index, &byte) in bytes.iter().enumerate() {
        let escape = ESCAPES[usize::from(byte)];
        if escape == 0 {
            continue;
        }
        out.put(&bytes[start..index]);
        if escape == b'u' {
            let high = HEX[usize::from(byte >> 4)];
            let low = HEX[usize::from(byte & 0xf)];
            out.put(&[b'\\', b'u', b'0', b'0', high, low]);
        } else {
            out.put(&[b'\\', escape]);
        }
        start = index + 1;
    }
    out.put(&bytes[start..]);
    out.put(b"\"");
}

/// Copies raw JSON verbatim, except that line breaks become spaces.
///
/// Valid JSON can hold a raw line break only as whitespace between tokens
/// (inside strings it must be escaped), so the replacement keeps the value
/// the same while guaranteeing that a message fits on one line.
fn write_raw(out: &mut impl Sink, raw: &RawJson) {
    let bytes = raw.get().as_bytes();
    if !has_line_break(bytes) {
        out.put(bytes);
        return;
    }
    for (index, piece) in bytes
        .split(|&byte| byte == b'\n' || byte == b'\r')
        .enumerate()
    {
        if index > 0 {
            out.put(b" ");
        }
        out.put(piece);
    }
}

/// Raw JSON's text by value, fit for one line: line breaks become spaces
/// in place, exactly as [`write_raw`] writes them, so nothing is copied.
///
/// This is for large payloads, which almost never hold a line break but
/// must all be searched.
pub(crate) fn into_one_line_bytes(raw: RawJson) -> Vec<u8> {
    let mut bytes = raw.into_string().into_bytes();
    if has_line_break(&bytes) {
        for byte in &mut bytes {
            if matches!(*byte, b'\n' | b'\r') {
                *byte = b' ';
            }
        }
    }
    bytes
}

/// The `"jsonrpc"` member's value.
const VERSION: &str = "2.0";

impl Serialize for Request {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let len = if self.params.is_some() { 4 } else { 3 };
        let mut object = serializer.serialize_struct("Request", len)?;
        object.serialize_field("jsonrpc", VERSION)?;
        object.serialize_field("id", &self.id)?;
        object.serialize_field("method", &self.method)?;
        if let Some(params) = &self.params {
            object.serialize_field("params", params)?;
        }
        object.end()
    }
}

impl Serialize for Notification {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let len = if self.params.is_some() { 3 } else { 2 };
        let mut object = serializer.serialize_struct("Notification", len)?;
        object.serialize_field("jsonrpc", VERSION)?;
        object.serialize_field("method", &self.method)?;
        if let Some(params) = &self.params {
            object.serialize_field("params", params)?;
        }
        object.end()
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("Response", 3)?;
        object.serialize_field("jsonrpc", VERSION)?;
        object.serialize_field("id", &self.id)?;
        object.serialize_field("result", &self.result)?;
        object.end()
    }
}

impl Serialize for ErrorResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("ErrorResponse", 3)?;
        object.serialize_field("jsonrpc", VERSION)?;
        object.serialize_field("id", &self.id)?;
        object.serialize_field::<ErrorObject>("error", &self.error)?;
        object.end()
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Request(request) => request.serialize(serializer),
            Self::Notification(notification) => notification.serialize(serializer),
            Self::Response(response) => response.serialize(serializer),
            Self::Error(error) => error.serialize(serializer),
        }
    }
}

impl Serialize for Packet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Single(message) => message.serialize(serializer),
            Self::Batch(messages) => {
                let mut array = serializer.serialize_seq(Some(messages.len()))?;
                for message in messages {
                    array.serialize_element(message)?;
                }
                array.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn text(message: impl Into<Message>) -> String {
        String::from_utf8(message.into().to_vec()).unwrap()
    }

    #[test]
    fn members_come_in_jsonrpc_id_method_params_order() {
        let request = Request::new(7, "tools/call", &serde_json::json!({"a": 1})).unwrap();
        assert_eq!(
            text(request),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":1}}"#
        );
        assert_eq!(
            text(Notification::without_params("n")),
            r#"{"jsonrpc":"2.0","method":"n"}"#
        );
        assert_eq!(
            text(Response::new("x", &[1]).unwrap()),
            r#"{"jsonrpc":"2.0","id":"x","result":[1]}"#
        );
        let error = ErrorObject::new(ErrorCode(-1), "no")
            .with_data(&"d")
            .unwrap();
        assert_eq!(
            text(ErrorResponse::new(None, error)),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no","data":"d"}}"#
        );
    }

    #[test]
    fn integers_cover_the_whole_i64_range() {
        for number in [0, 9, 10, -1, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            write_i64(&mut out, number);
            assert_eq!(String::from_utf8(out).unwrap(), number.to_string());
        }
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        let all_ascii: String = (0u8..128).map(char::from).collect();
        for string in [all_ascii.as_str(), "é\u{2028}\u{7f}", ""] {
            let mut out = Vec::new();
            write_str(&mut out, string);
            assert_eq!(out, serde_json::to_vec(string).unwrap(), "{string:?}");
        }
    }

    #[test]
    fn raw_line_breaks_become_spaces() {
        let raw = RawJson::from_string("{\r\n  \"a\": [\n1]\n}".to_owned()).unwrap();
        let notification = Notification {
            method: "m".to_owned(),
            params: Some(raw),
        };
        let encoded = text(notification);
        assert!(!encoded.contains(['\n', '\r']));
        assert!(
            encoded.ends_with(r#""params":{    "a": [ 1] }}"#),
            "{encoded}"
        );
    }

    #[test]
    fn batch_is_a_json_array() {
        let packet = Packet::Batch(vec![
            Notification::without_params("a").into(),
            Request::without_params(1, "b").into(),
        ]);
        assert_eq!(
            String::from_utf8(packet.to_vec()).unwrap(),
            r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"method":"b"}]"#
        );
        assert_eq!(packet.to_vec(), serde_json::to_vec(&packet).unwrap());
    }
}
