//! Tests of the newline-delimited codec: partial reads, line endings, limits and per-line errors.

use bytes::BytesMut;
use mcpwire_jsonrpc::{
    ErrorCode, ErrorObject, ErrorResponse, Inbound, LineCodec, LineError, Message, Notification,
    Packet, Request, Response,
};

/// A decoded line, reduced to what the tests compare.
#[derive(Debug, PartialEq)]
enum Seen {
    Inbound(Inbound),
    Line(LineError),
}

impl From<Option<Result<Inbound, LineError>>> for Seen {
    fn from(outcome: Option<Result<Inbound, LineError>>) -> Self {
        match outcome {
            Some(Ok(inbound)) => Seen::Inbound(inbound),
            Some(Err(error)) => Seen::Line(error),
            None => panic!("expected a decoded line"),
        }
    }
}

/// Feeds `chunks` one after another, decoding after each, then ends the stream.
fn decode_chunks<'a>(
    codec: &mut LineCodec,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<Seen> {
    let mut buf = BytesMut::new();
    let mut seen = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        while let Some(outcome) = codec.decode(&mut buf) {
            seen.push(Seen::from(Some(outcome)));
        }
    }
    while let Some(outcome) = codec.decode_eof(&mut buf) {
        seen.push(Seen::from(Some(outcome)));
    }
    assert!(buf.is_empty(), "decode_eof leaves nothing behind");
    seen
}

fn single(message: impl Into<Message>) -> Seen {
    Seen::Inbound(Inbound::Single(message.into()))
}

fn request(id: i64) -> Request {
    Request::new(
        id,
        "tools/call",
        &serde_json::json!({"name": "echo", "arguments": {"x": [1, 2]}}),
    )
    .unwrap()
}

/// A stream exercising every framing case at once, and what it decodes to.
fn mixed_stream() -> (Vec<u8>, Vec<Seen>) {
    let mut stream = Vec::new();
    stream.extend_from_slice(&request(1).into_packet_line());
    stream.extend_from_slice(b"\n\r\n   \t \n");
    stream.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r\n");
    stream.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
    stream.extend_from_slice(b"not json\n");
    stream.extend_from_slice(b"[{\"jsonrpc\":\"2.0\",\"method\":\"a\"},{\"jsonrpc\":\"2.0\",\"id\":\"e\",\"error\":{\"code\":-1,\"message\":\"m\"}}]\n");
    stream.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xc3\x28\"}\n");
    stream.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"last\"}");
    let expected = vec![
        single(request(1)),
        single(Notification::without_params("n")),
        single(Response::new(2, &serde_json::json!({})).unwrap()),
        Seen::Inbound(Inbound::Invalid(
            Message::from_slice(b"not json").unwrap_err(),
        )),
        Seen::Inbound(Inbound::Batch(vec![
            Ok(Notification::without_params("a").into()),
            Ok(ErrorResponse::new(Some("e".into()), ErrorObject::new(ErrorCode(-1), "m")).into()),
        ])),
        Seen::Line(LineError::InvalidUtf8 { valid_up_to: 27 }),
        single(Request::without_params(3, "last")),
    ];
    (stream, expected)
}

trait IntoLine {
    fn into_packet_line(self) -> Vec<u8>;
}

impl IntoLine for Request {
    fn into_packet_line(self) -> Vec<u8> {
        let mut buf = BytesMut::new();
        LineCodec::new().encode(&Packet::from(self), &mut buf);
        buf.to_vec()
    }
}

#[test]
fn mixed_stream_decodes_line_by_line() {
    let (stream, expected) = mixed_stream();
    assert_eq!(
        decode_chunks(&mut LineCodec::new(), [&stream[..]]),
        expected
    );
}

#[test]
fn split_at_every_byte_boundary_decodes_the_same() {
    let (stream, expected) = mixed_stream();
    for split in 0..=stream.len() {
        let (head, tail) = stream.split_at(split);
        let seen = decode_chunks(&mut LineCodec::new(), [head, tail]);
        assert_eq!(seen, expected, "split at {split}");
    }
}

#[test]
fn byte_by_byte_reads_decode_the_same() {
    let (stream, expected) = mixed_stream();
    let seen = decode_chunks(&mut LineCodec::new(), stream.chunks(1));
    assert_eq!(seen, expected);
}

#[test]
fn blank_lines_are_skipped_and_yield_nothing() {
    let seen = decode_chunks(&mut LineCodec::new(), [&b"\n\n\r\n \n\t\r\n  "[..]]);
    assert!(seen.is_empty(), "{seen:?}");
}

#[test]
fn long_line_across_many_reads_is_dropped_with_one_error_and_not_buffered() {
    let limit = 64;
    let mut codec = LineCodec::with_max_line_length(limit);
    let mut buf = BytesMut::new();
    let mut seen = Vec::new();
    let chunk = [b'x'; 7];
    for _ in 0..1000 {
        buf.extend_from_slice(&chunk);
        while let Some(outcome) = codec.decode(&mut buf) {
            seen.push(Seen::from(Some(outcome)));
        }
        assert!(
            buf.len() <= limit + 1 + chunk.len(),
            "buffered {}",
            buf.len()
        );
    }
    buf.extend_from_slice(b"xx\n{\"jsonrpc\":\"2.0\",\"method\":\"after\"}\n");
    while let Some(outcome) = codec.decode(&mut buf) {
        seen.push(Seen::from(Some(outcome)));
    }
    assert_eq!(
        seen,
        vec![
            Seen::Line(LineError::TooLong { limit }),
            single(Notification::without_params("after")),
        ]
    );
    assert!(buf.is_empty());
}

#[test]
fn long_line_arriving_whole_is_dropped_and_the_next_line_decodes() {
    let limit = 40;
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"{}\"}}\n",
        "m".repeat(limit)
    );
    let input = format!("{long}{{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}}\n");
    let seen = decode_chunks(
        &mut LineCodec::with_max_line_length(limit),
        [input.as_bytes()],
    );
    assert_eq!(
        seen,
        vec![
            Seen::Line(LineError::TooLong { limit }),
            single(Notification::without_params("ok")),
        ]
    );
}

#[test]
fn line_of_exactly_the_limit_is_accepted_with_either_line_ending() {
    let line = br#"{"jsonrpc":"2.0","method":"exact"}"#;
    for ending in [&b"\n"[..], b"\r\n"] {
        let input = [&line[..], ending].concat();
        for split in 0..=input.len() {
            let (head, tail) = input.split_at(split);
            let seen = decode_chunks(
                &mut LineCodec::with_max_line_length(line.len()),
                [head, tail],
            );
            assert_eq!(
                seen,
                vec![single(Notification::without_params("exact"))],
                "split {split}"
            );
        }
        let seen = decode_chunks(
            &mut LineCodec::with_max_line_length(line.len() - 1),
            [&input[..]],
        );
        assert_eq!(
            seen,
            vec![Seen::Line(LineError::TooLong {
                limit: line.len() - 1
            })]
        );
    }
}

#[test]
fn long_blank_line_is_refused_whether_it_arrives_whole_or_in_pieces() {
    let input = format!(
        "{}\n{{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}}\n",
        " ".repeat(100)
    );
    let expected = vec![
        Seen::Line(LineError::TooLong { limit: 40 }),
        single(Notification::without_params("ok")),
    ];
    let whole = decode_chunks(&mut LineCodec::with_max_line_length(40), [input.as_bytes()]);
    assert_eq!(whole, expected);
    let pieces = decode_chunks(
        &mut LineCodec::with_max_line_length(40),
        input.as_bytes().chunks(3),
    );
    assert_eq!(pieces, expected);
}

#[test]
fn bad_utf8_line_is_an_error_for_that_line_only() {
    let input = b"\xff\xfe\n{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}\n";
    let seen = decode_chunks(&mut LineCodec::new(), [&input[..]]);
    assert_eq!(
        seen,
        vec![
            Seen::Line(LineError::InvalidUtf8 { valid_up_to: 0 }),
            single(Notification::without_params("ok")),
        ]
    );
}

#[test]
fn invalid_message_line_is_answerable_and_decoding_goes_on() {
    let input =
        b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":1}\n{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}\n";
    let seen = decode_chunks(&mut LineCodec::new(), [&input[..]]);
    let [Seen::Inbound(Inbound::Invalid(error)), next] = &seen[..] else {
        panic!("unexpected {seen:?}");
    };
    assert_eq!(error.code(), ErrorCode::INVALID_REQUEST);
    assert_eq!(error.id(), Some(&5.into()));
    assert_eq!(next, &single(Notification::without_params("ok")));
}

#[test]
fn eof_decodes_a_final_unterminated_line_but_not_a_discarded_one() {
    let seen = decode_chunks(
        &mut LineCodec::new(),
        [&b"{\"jsonrpc\":\"2.0\",\"method\":\"end\"}\r"[..]],
    );
    assert_eq!(seen, vec![single(Notification::without_params("end"))]);

    let mut codec = LineCodec::with_max_line_length(8);
    let seen = decode_chunks(&mut codec, [&b"0123456789abcdef"[..], b"more"]);
    assert_eq!(seen, vec![Seen::Line(LineError::TooLong { limit: 8 })]);
    // The codec is usable again after the end of a stream.
    let seen = decode_chunks(&mut codec, [&b"{\"jsonrpc\":\"2.0\",\"method\":\"m\"}"[..]]);
    assert_eq!(seen, vec![Seen::Line(LineError::TooLong { limit: 8 })]);
    let seen = decode_chunks(&mut codec, [&b"[1]\n"[..]]);
    assert!(matches!(&seen[..], [Seen::Inbound(Inbound::Batch(items))] if items.len() == 1));
}

#[test]
fn encode_writes_one_line_that_decodes_back() {
    let codec = LineCodec::new();
    let mut buf = BytesMut::new();
    let packet = Packet::Batch(vec![
        request(1).into(),
        Notification::without_params("n").into(),
    ]);
    codec.encode(&packet, &mut buf);
    let message = Message::from(Response::new(1, &"multi\nline\r\ntext").unwrap());
    codec.encode_message(&message, &mut buf);
    assert_eq!(buf.iter().filter(|&&byte| byte == b'\n').count(), 2);
    assert!(buf.ends_with(b"\n"));
    let seen = decode_chunks(&mut LineCodec::new(), [&buf[..]]);
    assert_eq!(
        seen,
        vec![Seen::Inbound(Inbound::from(packet)), single(message)]
    );
}

#[test]
fn line_errors_convert_to_answerable_errors() {
    let too_long = mcpwire_jsonrpc::ClassifyError::from(LineError::TooLong { limit: 10 });
    assert_eq!(too_long.code(), ErrorCode::INVALID_REQUEST);
    assert_eq!(too_long.id(), None);
    let not_utf8 = Inbound::from(LineError::InvalidUtf8 { valid_up_to: 3 });
    assert!(matches!(not_utf8, Inbound::Invalid(error) if error.code() == ErrorCode::PARSE_ERROR));
}

#[test]
fn default_limit_is_four_mebibytes() {
    assert_eq!(LineCodec::default().max_line_length(), 4 * 1024 * 1024);
}

/// `LineReader` and `write_line`: the same framing over blocking `std::io`.
mod blocking {
    use std::io::{self, Read};

    use mcpwire_jsonrpc::{
        ErrorCode, Inbound, LineCodec, LineReader, Message, Notification, Packet, write_line,
    };

    /// A reader that hands out at most `step` bytes a call, and fails with
    /// `Interrupted` before every other read, as a signal would.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
        interrupt: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn note(method: &str) -> Packet {
        Packet::from(Notification::without_params(method))
    }

    #[test]
    fn lines_read_a_byte_at_a_time_through_interruptions_come_out_whole() {
        let mut wire = Vec::new();
        for method in ["a", "b", "c"] {
            write_line(&mut wire, &note(method)).unwrap();
        }
        let reader = Trickle {
            bytes: &wire,
            step: 1,
            interrupt: false,
        };
        let methods: Vec<String> = LineReader::new(reader)
            .map(|inbound| match inbound.unwrap() {
                Inbound::Single(Message::Notification(note)) => note.method,
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(methods, ["a", "b", "c"]);
    }

    #[test]
    fn an_over_long_line_is_refused_as_data_and_reading_goes_on() {
        let wire = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"{}\"}}\n{{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}}",
            "x".repeat(100)
        );
        let mut lines =
            LineReader::with_codec(wire.as_bytes(), LineCodec::with_max_line_length(64));
        match lines.next() {
            Some(Ok(Inbound::Invalid(error))) => {
                assert_eq!(error.code(), ErrorCode::INVALID_REQUEST);
            }
            other => panic!("expected the long line refused, got {other:?}"),
        }
        // The last line has no newline: it is decoded at the end of input.
        assert_eq!(
            lines.next().unwrap().unwrap(),
            Inbound::from(Message::from(Notification::without_params("ok")))
        );
        assert!(lines.next().is_none());
        assert!(lines.next().is_none(), "the end stays the end");
    }

    #[test]
    fn a_failing_reader_is_an_error_not_the_end() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
        }
        let error = LineReader::new(Broken).next().unwrap().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn write_line_writes_one_line_per_packet() {
        let mut wire = Vec::new();
        write_line(&mut wire, &note("a")).unwrap();
        assert_eq!(wire, b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n");
    }
}
