//! The property of the `decode` fuzz target, shared with the test that
//! replays its corpus (`tests/roundtrip.rs`): arbitrary bytes through
//! classification and the line codec, in arbitrary chunks.
//!
//! The properties checked, beyond "never panics":
//! * whatever classifies as a message or packet encodes and classifies back
//!   to the same thing;
//! * the line codec decodes a stream the same whether it arrives at once or
//!   in chunks, so partial reads can never change what a peer sent;
//! * our JSON validation accepts exactly what serde_json accepts (skipping
//!   values with `IgnoredAny`, which checks the same things).
//!
//! The whole input is the stream; chunk sizes are derived from its own bytes
//! so that every input of the corpus stays a plain, readable stream.

use bytes::BytesMut;
use mcpwire_jsonrpc::{Inbound, LineCodec, LineError, Message, Packet, RawJson};
use serde::de::IgnoredAny;

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    if let Ok(text) = core::str::from_utf8(data) {
        let ours = RawJson::from_string(text.to_owned()).is_ok();
        let reference = serde_json::from_str::<IgnoredAny>(text).is_ok();
        assert_eq!(ours, reference, "validation disagrees with serde_json");
    }
    check_inbound(&Inbound::from_slice(data));
    if let Ok(packet) = Packet::from_slice(data) {
        assert_eq!(Packet::from_slice(&packet.to_vec()), Ok(packet));
    }
    if let Ok(message) = Message::from_slice(data) {
        assert_eq!(Message::from_slice(&message.to_vec()), Ok(message));
    }

    for limit in [LineCodec::DEFAULT_MAX_LINE_LENGTH, 32] {
        let whole = decode_stream(data, limit, |_| data.len().max(1));
        let chunked = decode_stream(data, limit, |at| 1 + usize::from(data[at] % 19));
        assert_eq!(whole, chunked);
        for inbound in whole.iter().flatten() {
            check_inbound(inbound);
        }
    }
}

/// Every well-formed message in `inbound` survives encode then classify.
fn check_inbound(inbound: &Inbound) {
    let messages: Vec<&Message> = match inbound {
        Inbound::Single(message) => vec![message],
        Inbound::Batch(items) => items.iter().filter_map(|item| item.as_ref().ok()).collect(),
        Inbound::Invalid(error) => {
            // An error must always be answerable on one line.
            let answer = Message::from(error.to_error_response()).to_vec();
            assert!(!answer.contains(&b'\n'));
            assert!(Message::from_slice(&answer).is_ok());
            return;
        }
    };
    for message in messages {
        let bytes = message.to_vec();
        assert!(!bytes.contains(&b'\n'));
        assert_eq!(Message::from_slice(&bytes).as_ref(), Ok(message));
    }
}

/// Feeds `data` to a codec in chunks whose size `chunk_at(offset)` picks, then
/// ends the stream, and returns everything decoded.
fn decode_stream(
    data: &[u8],
    limit: usize,
    chunk_at: impl Fn(usize) -> usize,
) -> Vec<Result<Inbound, LineError>> {
    let mut codec = LineCodec::with_max_line_length(limit);
    let mut buf = BytesMut::new();
    let mut decoded = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let end = (at + chunk_at(at)).min(data.len());
        buf.extend_from_slice(&data[at..end]);
        at = end;
        while let Some(outcome) = codec.decode(&mut buf) {
            decoded.push(outcome);
        }
        // Between reads only a partial line is kept, and never more of it
        // than the limit (plus a carriage return): memory stays bounded.
        assert!(buf.len() <= limit.saturating_add(1));
    }
    while let Some(outcome) = codec.decode_eof(&mut buf) {
        decoded.push(outcome);
    }
    assert!(buf.is_empty());
    decoded
}
