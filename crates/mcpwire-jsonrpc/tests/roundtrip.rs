//! Property tests: arbitrary messages survive encode then decode, and arbitrary bytes never panic.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

use bytes::BytesMut;
use mcpwire_jsonrpc::{
    ErrorCode, ErrorObject, ErrorResponse, Inbound, LineCodec, Message, Notification, Packet,
    RawJson, Request, RequestId, Response,
};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::Value;

#[path = "roundtrip/fuzz_corpus.rs"]
mod fuzz_corpus;

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map(any::<String>(), inner, 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn raw(value: &Value) -> RawJson {
    RawJson::from_serialize(value).unwrap()
}

/// Params are an object or an array.
fn params() -> impl Strategy<Value = Option<RawJson>> {
    let structured = prop_oneof![
        vec(json(), 0..3).prop_map(Value::Array),
        btree_map(any::<String>(), json(), 0..3)
            .prop_map(|members| Value::Object(members.into_iter().collect())),
    ];
    proptest::option::of(structured.prop_map(|value| raw(&value)))
}

fn id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Number),
        any::<String>().prop_map(RequestId::String),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    let error = (
        any::<i64>(),
        any::<String>(),
        proptest::option::of(json().prop_map(|value| raw(&value))),
    )
        .prop_map(|(code, message, data)| ErrorObject {
            code: ErrorCode(code),
            message,
            data,
        });
    prop_oneof![
        (id(), any::<String>(), params())
            .prop_map(|(id, method, params)| Message::Request(Request { id, method, params })),
        (any::<String>(), params())
            .prop_map(|(method, params)| Message::Notification(Notification { method, params })),
        (id(), json()).prop_map(|(id, result)| Message::Response(Response {
            id,
            result: raw(&result),
        })),
        (proptest::option::of(id()), error)
            .prop_map(|(id, error)| Message::Error(ErrorResponse { id, error })),
    ]
}

fn packet() -> impl Strategy<Value = Packet> {
    prop_oneof![
        3 => message().prop_map(Packet::Single),
        1 => vec(message(), 1..4).prop_map(Packet::Batch),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn encode_then_classify_returns_the_same_packet(packet in packet()) {
        let bytes = packet.to_vec();
        prop_assert!(!bytes.contains(&b'\n'));
        prop_assert_eq!(Packet::from_slice(&bytes), Ok(packet.clone()));
        prop_assert_eq!(Inbound::from_slice(&bytes), Inbound::from(packet));
    }

    #[test]
    fn byte_writer_matches_serde_json_output(packet in packet()) {
        prop_assert_eq!(packet.to_vec(), serde_json::to_vec(&packet).unwrap());
    }

    #[test]
    fn deserialize_impl_agrees_with_classification(packet in packet()) {
        let bytes = packet.to_vec();
        prop_assert_eq!(serde_json::from_slice::<Packet>(&bytes).unwrap(), packet.clone());
        if let Packet::Single(message) = &packet {
            prop_assert_eq!(&serde_json::from_slice::<Message>(&bytes).unwrap(), message);
            prop_assert_eq!(&Message::from_slice(&bytes).unwrap(), message);
        }
    }

    #[test]
    fn codec_round_trips_a_stream_split_anywhere(
        packets in vec(packet(), 1..5),
        splits in vec(any::<proptest::sample::Index>(), 0..6),
    ) {
        let codec = LineCodec::new();
        let mut stream = BytesMut::new();
        for packet in &packets {
            codec.encode(packet, &mut stream);
        }
        let mut cuts: Vec<usize> = splits.iter().map(|index| index.index(stream.len() + 1)).collect();
        cuts.sort_unstable();
        let mut decoder = LineCodec::new();
        let mut buf = BytesMut::new();
        let mut decoded = Vec::new();
        let mut start = 0;
        for cut in cuts.into_iter().chain([stream.len()]) {
            buf.extend_from_slice(&stream[start..cut]);
            start = cut;
            while let Some(outcome) = decoder.decode(&mut buf) {
                decoded.push(outcome.unwrap().into_packet().unwrap());
            }
        }
        prop_assert!(decoder.decode_eof(&mut buf).is_none());
        prop_assert_eq!(decoded, packets);
    }

    #[test]
    fn pretty_payloads_are_written_on_one_line_with_the_same_value(
        id in id(),
        value in json(),
    ) {
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        // Compared with the pretty text parsed directly, because serde_json
        // does not promise that a float survives a text round trip.
        let expected: Value = serde_json::from_str(&pretty).unwrap();
        let response = Message::Response(Response {
            id,
            result: RawJson::from_string(pretty).unwrap(),
        });
        let bytes = response.to_vec();
        prop_assert!(!bytes.contains(&b'\n') && !bytes.contains(&b'\r'));
        let Ok(Message::Response(decoded)) = Message::from_slice(&bytes) else {
            return Err(TestCaseError::fail("expected a response"));
        };
        let decoded: Value = serde_json::from_str(decoded.result.get()).unwrap();
        prop_assert_eq!(decoded, expected);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..200)) {
        check_no_panic(&bytes);
    }

    #[test]
    fn mutated_messages_never_panic_and_what_decodes_round_trips(
        packet in packet(),
        position in any::<proptest::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let mut bytes = packet.to_vec();
        let at = position.index(bytes.len());
        bytes[at] = byte;
        check_no_panic(&bytes);
    }
}

/// Classifies `bytes` alone and as a line stream; whatever classifies as a
/// packet must encode and classify back to itself.
fn check_no_panic(bytes: &[u8]) {
    if let Ok(packet) = Packet::from_slice(bytes) {
        assert_eq!(Packet::from_slice(&packet.to_vec()), Ok(packet));
    }
    let mut codec = LineCodec::with_max_line_length(64);
    let mut buf = BytesMut::from(bytes);
    while let Some(outcome) = codec.decode_eof(&mut buf) {
        if let Ok(inbound) = outcome
            && let Ok(packet) = inbound.into_packet()
        {
            assert_eq!(Packet::from_slice(&packet.to_vec()), Ok(packet));
        }
    }
}
