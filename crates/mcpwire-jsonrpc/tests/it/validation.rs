//! Differential tests of JSON validation: our scanner and serde_json must agree on what is JSON.
//!
//! serde_json is the reference because payloads we accept are later parsed
//! with it. Skipped values are compared with `IgnoredAny`, which, like our
//! scanner, checks a `\u` escape's hex digits without pairing surrogates
//! and has no nesting limit.

use std::path::Path;

use bytes::BytesMut;
use mcpwire_jsonrpc::{ClassifyError, ErrorCode, Inbound, LineCodec, RawJson};
use proptest::prelude::*;
use serde::de::IgnoredAny;
use serde_json::Value;

/// Whether serde_json reads `text` as one JSON value.
fn serde_accepts(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

fn ours_accepts(text: &str) -> bool {
    RawJson::from_string(text.to_owned()).is_ok()
}

fn assert_agree(text: &str) {
    let shown: String = text.chars().take(160).collect();
    assert_eq!(ours_accepts(text), serde_accepts(text), "{shown:?}");
    // A message carrying the text as its payload is a parse error exactly
    // when the text is not JSON.
    let message = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{text}}}"#);
    let is_parse_error = matches!(
        Inbound::from_slice(message.as_bytes()),
        Inbound::Invalid(error) if error.code() == ErrorCode::PARSE_ERROR
    );
    assert_eq!(is_parse_error, !serde_accepts(text), "payload {shown:?}");
}

#[test]
fn scanner_agrees_with_serde_json_on_hand_picked_texts() {
    let cases = [
        "0",
        "-0",
        "01",
        "-",
        "1.",
        ".5",
        "1.5e",
        "1e+",
        "1E-7",
        "-12.5E+3",
        "1e400",
        "2.",
        "true",
        "tru",
        "truex",
        "null",
        "nul",
        "false",
        "\"\"",
        "\"",
        "\"\\\"",
        "\"\\u12\"",
        "\"\\u12G4\"",
        "\"\\ud800\"",
        "\"\\udc00\\ud800\"",
        "\"\\x\"",
        "\"\\/\"",
        "\"\u{7f}\"",
        "\"\u{1f}\"",
        "\"\t\"",
        "\"é\u{2028}\"",
        "[]",
        "[,]",
        "[1,]",
        "[1 2]",
        "[[[]]]",
        "[[]",
        "{}",
        "{,}",
        "{\"a\"}",
        "{\"a\":}",
        "{\"a\":1,}",
        "{\"a\":1 \"b\":2}",
        "{1:2}",
        "{\"a\":1}}",
        " \t\n\r[1] \n",
        "[1]x",
        "",
        " ",
        "[\"a\\\\\"]",
        "{\"\\u0041\":[]}",
    ];
    for text in cases {
        assert_agree(text);
    }
}

#[test]
fn scanner_agrees_with_serde_json_on_long_strings_with_escapes_at_every_offset() {
    // The string scan goes by words and blocks: put the interesting byte
    // at every position relative to them.
    for len in [0, 7, 8, 9, 31, 64, 65, 130] {
        for at in 0..=len {
            for insert in ["\\n", "\\\"", "\\u00e9", "\\q", "\u{1}", "\\", "\"", "é"] {
                let mut body = "x".repeat(len);
                body.insert_str(at, insert);
                assert_agree(&format!("\"{body}\""));
            }
        }
    }
}

#[test]
fn scanner_agrees_with_serde_json_on_strings_past_the_memchr_thresholds() {
    // Past about 160 clean bytes the scan hands the run to `memchr2`, in
    // pieces of 16 KiB: put the interesting byte around those points, in
    // text with and without multi-byte characters.
    let offsets = (100..260).chain(16_300..16_420).chain(32_700..32_820);
    for (index, at) in offsets.enumerate() {
        let filler = if index % 2 == 0 { "x" } else { "é" };
        let insert = [
            "\\n", "\\\"", "\\u00e9", "\\q", "\u{1}", "\u{1f}", "\\", "\"",
        ][(index / 2) % 8];
        let mut body = filler.repeat(at / filler.len());
        body.push_str(insert);
        body.push_str(&"y".repeat(300));
        assert_agree(&format!("\"{body}\""));
    }
}

#[test]
fn invalid_utf8_anywhere_in_a_long_message_is_a_parse_error_naming_the_byte() {
    // Longer than the vector UTF-8 checker's blocks and than the scan's
    // switch to `memchr2`; non-ASCII text so that both leave their ASCII
    // fast paths.
    let text = "é – plain words, \\n and \\\"quotes\\\" ".repeat(80);
    let message = format!(r#"{{"jsonrpc":"2.0","id":7,"result":{{"text":"{text}"}}}}"#);
    let mut codec = LineCodec::new();
    for at in 0..message.len() {
        for bad in [0xff, 0x80] {
            let mut bytes = message.clone().into_bytes();
            bytes[at] = bad;
            let Err(error) = std::str::from_utf8(&bytes) else {
                continue;
            };
            let expected = format!(
                "invalid JSON: invalid UTF-8 at byte {}",
                error.valid_up_to()
            );
            match Inbound::from_slice(&bytes) {
                Inbound::Invalid(error) => {
                    assert_eq!(error.code(), ErrorCode::PARSE_ERROR, "{at}");
                    assert_eq!(error.message(), expected, "{at}");
                }
                other => panic!("{bad:#x} at {at}: {other:?}"),
            }
            let mut line = BytesMut::from(&bytes[..]);
            line.extend_from_slice(b"\n");
            let Some(Err(line_error)) = codec.decode(&mut line) else {
                panic!("{bad:#x} at {at}: the line decoded");
            };
            assert_eq!(ClassifyError::from(line_error).message(), expected, "{at}");
        }
    }
}

#[test]
fn deep_nesting_is_checked_without_a_limit() {
    let depth = 100_000;
    let nested = format!("{}{}", "[{\"a\":".repeat(depth), "}]".repeat(depth));
    assert_agree(&nested);
    assert_agree(&nested[..nested.len() - 1]);
    assert_agree(&format!("{}1{}", "[".repeat(depth), "]".repeat(depth)));
}

#[test]
fn scanner_agrees_with_serde_json_on_the_fuzz_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/decode");
    let mut files = 0;
    for entry in std::fs::read_dir(corpus).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        files += 1;
        assert_agree(&text);
        for line in text.lines() {
            assert_agree(line);
        }
    }
    assert!(files > 10, "the corpus was not found");
}

/// Any JSON value, with numbers and strings that exercise the grammar.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(".{0,6}", inner, 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Strings made of long escape-free runs and the escapes of text, so that
/// the scan switches between its block reader and `memchr2` within one
/// value.
fn long_string() -> impl Strategy<Value = Value> {
    let part = prop_oneof![
        "[a-z é]{0,8}",
        (0usize..3_000).prop_map(|length| "z".repeat(length)),
        Just("\"\n\\\t\u{1}\u{7f}".to_owned()),
    ];
    prop::collection::vec(part, 0..12).prop_map(|parts| Value::String(parts.concat()))
}

/// Characters that matter to the grammar, for edits of valid text.
const GRAMMAR: &[char] = &[
    '{', '}', '[', ']', '"', ',', ':', '\\', 'u', '0', '1', '9', 'e', 'E', '+', '-', '.', 't', 'f',
    'n', 'l', ' ', '\n', '\u{1}', 'é',
];

proptest! {
    #[test]
    fn scanner_agrees_with_serde_json_on_long_strings_and_their_edits(
        value in long_string(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(GRAMMAR)), 0..3),
    ) {
        let mut text = serde_json::to_string(&value).unwrap();
        assert_agree(&text);
        for (at, character) in edits {
            let boundaries: Vec<usize> = (0..=text.len()).filter(|&at| text.is_char_boundary(at)).collect();
            text.insert(boundaries[at.index(boundaries.len())], character);
            assert_agree(&text);
        }
    }

    #[test]
    fn scanner_agrees_with_serde_json_on_valid_and_edited_texts(
        value in json(),
        pretty in any::<bool>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..3u8, prop::sample::select(GRAMMAR)), 0..3),
    ) {
        let mut text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        assert_agree(&text);
        for (at, kind, character) in edits {
            let boundaries: Vec<usize> = (0..=text.len()).filter(|&at| text.is_char_boundary(at)).collect();
            let at = boundaries[at.index(boundaries.len())];
            match kind {
                0 => text.insert(at, character),
                1 if at < text.len() => {
                    text.remove(at);
                }
                _ if at < text.len() => {
                    text.remove(at);
                    text.insert(at, character);
                }
                _ => text.push(character),
            }
            assert_agree(&text);
        }
    }
}
