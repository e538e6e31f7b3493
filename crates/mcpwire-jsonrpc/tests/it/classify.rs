//! Table-driven tests of classification: input bytes to message kind, or to error code and recovered id.

use mcpwire_jsonrpc::{ClassifyError, ErrorCode, ErrorObject, Inbound, Message, Packet, RequestId};

/// What a single JSON text must classify as.
#[derive(Debug)]
enum Expect {
    Request(RequestId, &'static str),
    Notification(&'static str),
    Response(RequestId),
    Error(Option<RequestId>, i64),
    /// A classification error: its code and the id it recovered.
    Invalid(ErrorCode, Option<RequestId>),
}

use Expect::*;

const PARSE: ErrorCode = ErrorCode::PARSE_ERROR;
const INVALID: ErrorCode = ErrorCode::INVALID_REQUEST;

fn num(id: i64) -> RequestId {
    RequestId::Number(id)
}

fn text(id: &str) -> RequestId {
    RequestId::from(id)
}

fn check(input: &[u8], expected: &Expect) {
    let shown: String = String::from_utf8_lossy(input).chars().take(160).collect();
    let outcome = Inbound::from_slice(input);
    match (&outcome, expected) {
        (Inbound::Single(Message::Request(request)), Request(id, method)) => {
            assert_eq!(
                (&request.id, request.method.as_str()),
                (id, *method),
                "{shown}"
            );
        }
        (Inbound::Single(Message::Notification(notification)), Notification(method)) => {
            assert_eq!(notification.method, *method, "{shown}");
        }
        (Inbound::Single(Message::Response(response)), Response(id)) => {
            assert_eq!(&response.id, id, "{shown}");
        }
        (Inbound::Single(Message::Error(error)), Error(id, code)) => {
            assert_eq!((&error.id, error.error.code.0), (id, *code), "{shown}");
        }
        (Inbound::Invalid(error), Invalid(code, id)) => {
            assert_eq!(
                (error.code(), error.id()),
                (*code, id.as_ref()),
                "{shown}: {error}"
            );
            assert!(!error.message().is_empty());
        }
        _ => panic!("{shown}: expected {expected:?}, got {outcome:?}"),
    }
}

#[test]
fn well_formed_messages_classify_by_their_members() {
    let cases: &[(&str, Expect)] = &[
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#,
            Request(num(1), "m"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"a","method":"m","params":[1]}"#,
            Request(text("a"), "m"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}"#,
            Request(num(i64::MIN), "m"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"m"}"#,
            Request(num(i64::MAX), "m"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"","method":""}"#,
            Request(text(""), ""),
        ),
        (
            r#"{"method":"tools/call","id":7,"jsonrpc":"2.0"}"#,
            Request(num(7), "tools/call"),
        ),
        (
            r#"  {"jsonrpc" : "2.0" , "id" : 1 , "method" : "m"}  "#,
            Request(num(1), "m"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"\u0041","method":"a\nb"}"#,
            Request(text("A"), "a\nb"),
        ),
        (
            r#"{"json\u0072pc":"2\u002e0","id":1,"method":"m"}"#,
            Request(num(1), "m"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":{"deep":[1,{"x":null}]}}"#,
            Request(num(1), "m"),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            Notification("notifications/initialized"),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"n","params":[]}"#,
            Notification("n"),
        ),
        (r#"{"jsonrpc":"2.0","id":3,"result":{}}"#, Response(num(3))),
        (
            r#"{"jsonrpc":"2.0","id":"r","result":null}"#,
            Response(text("r")),
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"result":[1,"two",{"3":4}]}"#,
            Response(num(3)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}"#,
            Error(Some(num(4)), -32601),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x","data":{"a":1}}}"#,
            Error(None, -32700),
        ),
        (
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}"#,
            Error(None, -32600),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"e","error":{"message":"m","code":7,"other":true}}"#,
            Error(Some(text("e")), 7),
        ),
    ];
    for (input, expected) in cases {
        check(input.as_bytes(), expected);
    }
}

#[test]
fn text_that_is_not_json_is_a_parse_error_without_id() {
    let cases: &[&[u8]] = &[
        b"",
        b"   ",
        b"{",
        br#"{"jsonrpc":"2.0","id":1,"method":"m""#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m"} trailing"#,
        br#"{"jsonrpc":"2.0","method":"a"}{"jsonrpc":"2.0","method":"b"}"#,
        br#"{'jsonrpc':'2.0'}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m",}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,]}"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}",
        br#"{"jsonrpc":"2.0","id":NaN,"method":"m"}"#,
        br#"{"jsonrpc":"2.0","id":1e400,"method":"m"}"#,
        br#"{"jsonrpc":"2.0","id":01,"method":"m"}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":tru}}"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
        b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"m\"}",
        br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method""#,
        br#"{"jsonrpc":"2.0","method":"\ud800"}"#,
    ];
    for input in cases {
        check(input, &Invalid(PARSE, None));
    }
}

#[test]
fn json_that_is_not_json_rpc_is_an_invalid_request_with_recovered_id() {
    let cases: &[(&str, Option<RequestId>)] = &[
        // The version member.
        (r#"{"id":1,"method":"m"}"#, Some(num(1))),
        (r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#, Some(num(1))),
        (r#"{"jsonrpc":2.0,"id":"s","method":"m"}"#, Some(text("s"))),
        (r#"{"jsonrpc":null,"id":1,"method":"m"}"#, Some(num(1))),
        (
            r#"{"method":"m","jsonrpc":"2.00","id":"late"}"#,
            Some(text("late")),
        ),
        // Which kind of message.
        (
            r#"{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"x"}}"#,
            Some(num(3)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"m","result":1}"#,
            Some(num(3)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"m","error":{"code":1,"message":"x"}}"#,
            Some(num(3)),
        ),
        (r#"{"jsonrpc":"2.0","id":4}"#, Some(num(4))),
        (r#"{"jsonrpc":"2.0"}"#, None),
        (r#"{}"#, None),
        // The id member.
        (r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#, None),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#, None),
        (r#"{"jsonrpc":"2.0","id":1.0,"method":"m"}"#, None),
        (r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#, None),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#, None),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#, None),
        (
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}"#,
            None,
        ),
        (r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#, None),
        (r#"{"jsonrpc":"2.0","result":{}}"#, None),
        (r#"{"jsonrpc":"2.0","id":null,"result":{}}"#, None),
        (
            r#"{"jsonrpc":"2.0","id":false,"error":{"code":1,"message":"x"}}"#,
            None,
        ),
        // The method member.
        (r#"{"jsonrpc":"2.0","id":5,"method":5}"#, Some(num(5))),
        (r#"{"jsonrpc":"2.0","id":5,"method":null}"#, Some(num(5))),
        (r#"{"jsonrpc":"2.0","method":["m"]}"#, None),
        // The params member.
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"m","params":"x"}"#,
            Some(num(6)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"m","params":1}"#,
            Some(num(6)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"m","params":null}"#,
            Some(num(6)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"m","params":true}"#,
            Some(num(6)),
        ),
        (r#"{"jsonrpc":"2.0","method":"m","params":-1.5}"#, None),
        // The error member.
        (r#"{"jsonrpc":"2.0","id":8,"error":"boom"}"#, Some(num(8))),
        (r#"{"jsonrpc":"2.0","id":8,"error":[]}"#, Some(num(8))),
        (
            r#"{"jsonrpc":"2.0","id":8,"error":{"message":"x"}}"#,
            Some(num(8)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":1}}"#,
            Some(num(8)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":"1","message":"x"}}"#,
            Some(num(8)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":1.5,"message":"x"}}"#,
            Some(num(8)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":9223372036854775808,"message":"x"}}"#,
            Some(num(8)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":1,"message":null}}"#,
            Some(num(8)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":1,"code":2,"message":"x"}}"#,
            Some(num(8)),
        ),
        (
            r#"{"jsonrpc":"2.0","error":{"code":1,"message":"x","data":1,"data":2}}"#,
            None,
        ),
        // Duplicate members: the first readable id is the one recovered.
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
            Some(num(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}"#,
            Some(num(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"m"}"#,
            Some(num(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{},"params":{}}"#,
            Some(num(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":1,"result":2}"#,
            Some(num(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"},"error":{"code":1,"message":"x"}}"#,
            Some(num(1)),
        ),
        // Not an object or array at the top.
        (r#"1"#, None),
        (r#""{}""#, None),
        (r#"null"#, None),
        (r#"true"#, None),
        // Empty batches.
        (r#"[]"#, None),
        (" [ \n ] ", None),
    ];
    for (input, id) in cases {
        check(input.as_bytes(), &Invalid(INVALID, id.clone()));
    }
}

#[test]
fn batch_elements_are_classified_one_by_one_in_order() {
    let input = br#"[
        {"jsonrpc":"2.0","id":1,"method":"a"},
        1,
        {"jsonrpc":"2.0","id":"x","method":7},
        {"jsonrpc":"2.0","method":"b"},
        [],
        {"jsonrpc":"2.0","id":2,"result":{}}
    ]"#;
    let Inbound::Batch(items) = Inbound::from_slice(input) else {
        panic!("expected a batch");
    };
    let summary: Vec<_> = items
        .iter()
        .map(|item| match item {
            Ok(message) => Ok((message.id().cloned(), message.method().map(str::to_owned))),
            Err(error) => Err((error.code(), error.id().cloned())),
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            Ok((Some(num(1)), Some("a".to_owned()))),
            Err((INVALID, None)),
            Err((INVALID, Some(text("x")))),
            Ok((None, Some("b".to_owned()))),
            Err((INVALID, None)),
            Ok((Some(num(2)), None)),
        ]
    );
}

#[test]
fn batch_of_scalars_yields_one_error_per_element() {
    let Inbound::Batch(items) = Inbound::from_slice(b"[1,2,3]") else {
        panic!("expected a batch");
    };
    assert_eq!(items.len(), 3);
    assert!(
        items
            .iter()
            .all(|item| matches!(item, Err(error) if error.code() == INVALID))
    );
}

#[test]
fn strict_packet_classification_reports_the_first_bad_element() {
    let input = br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":9,"method":1},2]"#;
    let error = Packet::from_slice(input).unwrap_err();
    assert_eq!((error.code(), error.id()), (INVALID, Some(&num(9))));

    let good = br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}}]"#;
    let Packet::Batch(messages) = Packet::from_slice(good).unwrap() else {
        panic!("expected a batch");
    };
    assert_eq!(messages.len(), 2);
}

#[test]
fn single_message_classification_refuses_a_batch() {
    let error = Message::from_slice(br#"[{"jsonrpc":"2.0","method":"a"}]"#).unwrap_err();
    assert_eq!(error.code(), INVALID);
    let message = Message::from_slice(br#"{"jsonrpc":"2.0","method":"a"}"#).unwrap();
    assert_eq!(message.method(), Some("a"));
}

#[test]
fn payloads_are_kept_as_their_exact_raw_text() {
    let input = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{ "b" : [1, 2.50, "\u00e9"] }}"#;
    let Ok(Message::Request(request)) = Message::from_slice(input) else {
        panic!("expected a request");
    };
    assert_eq!(
        request.params.unwrap().get(),
        r#"{ "b" : [1, 2.50, "\u00e9"] }"#
    );
    let input = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":[ true ]}}"#;
    let Ok(Message::Error(error)) = Message::from_slice(input) else {
        panic!("expected an error response");
    };
    assert_eq!(error.error.data.unwrap().get(), "[ true ]");
}

#[test]
fn long_payloads_are_kept_as_their_exact_raw_text() {
    // Payloads longer than the 16 KiB pieces the decoder copies them in,
    // with characters of every UTF-8 length across the piece ends, escapes,
    // and a second long string after the first.
    for length in [8_000, 16_383, 16_384, 16_385, 40_000, 70_001] {
        for unit in ["é – plain ", "ab\\\"cd\\n 😀 ", "x"] {
            let text = unit.repeat(length / unit.len() + 1);
            let payload = format!(
                r#"{{"content":[{{"type":"text","text":"{text}"}},{{"x":[1, "{text}"]}}],"isError":false}}"#
            );
            let input = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{payload}}}"#);
            let Ok(Message::Response(response)) = Message::from_slice(input.as_bytes()) else {
                panic!("expected a response");
            };
            assert_eq!(response.result.get(), payload, "{length} {unit:?}");
            let input = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{payload}}}"#);
            let Ok(Message::Request(request)) = Message::from_slice(input.as_bytes()) else {
                panic!("expected a request");
            };
            assert_eq!(request.params.unwrap().get(), payload, "{length} {unit:?}");
            let input = format!(
                r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-1,"message":"m","data":{payload}}}}}"#
            );
            let Ok(Message::Error(error)) = Message::from_slice(input.as_bytes()) else {
                panic!("expected an error response");
            };
            assert_eq!(
                error.error.data.unwrap().get(),
                payload,
                "{length} {unit:?}"
            );
        }
    }
}

#[test]
fn a_control_byte_deep_in_a_long_payload_is_a_parse_error_at_that_byte() {
    let text = "é – plain ".repeat(5_000);
    let input = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"text":"{text}"}}}}"#);
    let start = input.find("é").unwrap();
    // Bytes around the first two piece ends, where the copy catches up.
    let around = |end: usize| start + end - 400..start + end + 400;
    for at in around(16_384).chain(around(32_768)).step_by(3) {
        let mut bytes = input.clone().into_bytes();
        bytes[at] = 0x01;
        let Inbound::Invalid(error) = Inbound::from_slice(&bytes) else {
            panic!("a control byte at {at} was accepted");
        };
        assert_eq!(error.code(), PARSE, "{at}");
        // A byte of a multi-byte character cut out makes the text not
        // UTF-8, which is reported first.
        let expected = match std::str::from_utf8(&bytes) {
            Ok(_) => format!("invalid JSON: control character in a string at byte {at}"),
            Err(error) => format!(
                "invalid JSON: invalid UTF-8 at byte {}",
                error.valid_up_to()
            ),
        };
        assert_eq!(error.message(), expected);
    }
}

#[test]
fn classify_error_answers_with_its_code_message_and_id() {
    let error =
        Message::from_slice(br#"{"jsonrpc":"2.0","id":"q","method":"m","params":3}"#).unwrap_err();
    let answer = Message::from(error.to_error_response());
    assert_eq!(
        String::from_utf8(answer.to_vec()).unwrap(),
        r#"{"jsonrpc":"2.0","id":"q","error":{"code":-32600,"message":"\"params\" must be an object or an array, found a number"}}"#
    );
    let parse = Message::from_slice(b"{").unwrap_err();
    let answer = Message::from(mcpwire_jsonrpc::ErrorResponse::from(parse));
    assert!(
        answer
            .to_vec()
            .starts_with(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"#)
    );
}

#[test]
fn error_messages_name_the_offending_member() {
    let cases: &[(&str, &str)] = &[
        (r#"{"id":1,"method":"m"}"#, "missing member \"jsonrpc\""),
        (
            r#"{"jsonrpc":"1.0","method":"m"}"#,
            "\"jsonrpc\" must be \"2.0\", found \"1.0\"",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"id":1,"method":"m"}"#,
            "duplicate member \"id\"",
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
            "a request \"id\" must not be null",
        ),
        (
            r#"{"jsonrpc":"2.0","id":[],"method":"m"}"#,
            "\"id\" must be a string or an integer, found an array",
        ),
        (
            r#"{"jsonrpc":"2.0","method":{}}"#,
            "\"method\" must be a string, found an object",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#,
            "\"error\" must have a \"message\"",
        ),
        (r#"[]"#, "a batch must not be empty"),
        (
            r#"7"#,
            "expected a message object or a batch array, found a number",
        ),
    ];
    for (input, message) in cases {
        let error = Message::from_slice(input.as_bytes()).unwrap_err();
        assert_eq!(error.message(), *message, "{input}");
        assert_eq!(error.to_string(), *message);
    }
    let parse = Message::from_slice(b"{\"a\"").unwrap_err();
    assert!(parse.message().starts_with("invalid JSON: "), "{parse}");
}

#[test]
fn deep_nesting_never_overflows_the_stack() {
    const DEPTH: usize = 200_000;
    let open = "[".repeat(DEPTH);
    let close = "]".repeat(DEPTH);
    let nested = format!("{open}{close}");
    let wrap = |prefix: &str, suffix: &str| format!("{prefix}{nested}{suffix}").into_bytes();

    // Nesting at the top is a batch whose single element is not an object.
    let Inbound::Batch(items) = Inbound::from_slice(nested.as_bytes()) else {
        panic!("expected a batch");
    };
    assert!(matches!(&items[..], [Err(error)] if error.code() == INVALID));

    // Nesting inside members that are read is an invalid request.
    for (input, id) in [
        (wrap(r#"{"jsonrpc":"2.0","id":"#, r#","method":"m"}"#), None),
        (
            wrap(r#"{"jsonrpc":"2.0","id":1,"method":"#, "}"),
            Some(num(1)),
        ),
        (
            wrap(r#"{"jsonrpc":"2.0","id":1,"error":"#, "}"),
            Some(num(1)),
        ),
        (
            wrap(r#"{"jsonrpc":"#, r#","id":1,"method":"m"}"#),
            Some(num(1)),
        ),
    ] {
        check(&input, &Invalid(INVALID, id));
    }

    // Unterminated nesting is not JSON.
    check(open.as_bytes(), &Invalid(PARSE, None));
    check(
        &wrap(r#"{"jsonrpc":"2.0","method":"m","params":"#, ""),
        &Invalid(PARSE, None),
    );

    // Nesting inside payloads is kept raw; parsing it later fails cleanly.
    let input = wrap(r#"{"jsonrpc":"2.0","method":"m","params":"#, "}");
    let Ok(Message::Notification(notification)) = Message::from_slice(&input) else {
        panic!("expected a notification");
    };
    let params = notification.params.unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(params.get()).is_err());
    let input = wrap(r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":"#, "}");
    check(&input, &Request(num(1), "m"));
}

#[test]
fn fractional_numbers_are_named_as_such() {
    let error = Message::from_slice(br#"{"jsonrpc":"2.0","id":1e3,"method":"m"}"#).unwrap_err();
    assert_eq!(
        error.message(),
        "\"id\" must be a string or an integer, found a number with a fraction or an exponent"
    );
}

#[test]
fn error_object_deserializes_strictly() {
    let error: ErrorObject =
        serde_json::from_str(r#"{"code":-32601,"message":"no","data":[1]}"#).unwrap();
    assert_eq!(
        error,
        ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "no")
            .with_data(&[1])
            .unwrap()
    );
    for bad in [r#"{"code":"1","message":"m"}"#, r#"{"code":1}"#, r#"[]"#] {
        assert!(serde_json::from_str::<ErrorObject>(bad).is_err(), "{bad}");
    }
}

#[test]
fn message_deserializes_from_a_json_value_too() {
    let value = serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {"a": [1]}});
    let message: Message = serde_json::from_value(value).unwrap();
    let Message::Response(response) = message else {
        panic!("expected a response");
    };
    assert_eq!(
        (response.id, response.result.get()),
        (num(3), r#"{"a":[1]}"#)
    );
    let bad = serde_json::json!({"jsonrpc": "2.0", "id": 3});
    assert!(serde_json::from_value::<Message>(bad).is_err());
}

#[test]
fn classify_error_exposes_what_it_was_built_with() {
    let error = ClassifyError::new(ErrorCode(-32000), "custom", Some(num(3)));
    assert_eq!(error.code(), ErrorCode(-32000));
    assert_eq!(error.message(), "custom");
    assert_eq!(error.id(), Some(&num(3)));
    assert_eq!(Inbound::from(error.clone()), Inbound::Invalid(error));
}
