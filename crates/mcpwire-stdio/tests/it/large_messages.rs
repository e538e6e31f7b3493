//! Large messages over real OS pipes: 64 KiB+ lines arriving in pieces, large answers queued together and written through a small pipe, over-long lines dropped.

use std::future::Future;
use std::time::Duration;

use bytes::BytesMut;
use mcpwire_jsonrpc::{
    ErrorCode, ErrorObject, ErrorResponse, Inbound, LineCodec, Message, Notification, Packet,
    RawJson, Request, Response, Transport, TransportReceiver, TransportSender,
};
use mcpwire_stdio::StdioTransport;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::time::timeout;

const LIMIT: Duration = Duration::from_secs(30);

async fn within<T>(future: impl Future<Output = T>) -> T {
    timeout(LIMIT, future).await.expect("timed out")
}

/// A real pipe; with `capacity`, its kernel buffer is made that small (on
/// Linux; elsewhere it keeps the default), so that large writes are
/// certainly partial.
fn os_pipe(capacity: Option<usize>) -> (pipe::Sender, pipe::Receiver) {
    let (sender, receiver) = pipe::pipe().unwrap();
    #[cfg(target_os = "linux")]
    if let Some(capacity) = capacity {
        use nix::fcntl::{FcntlArg, fcntl};
        use std::os::fd::AsRawFd;
        let size = i32::try_from(capacity).unwrap();
        fcntl(sender.as_raw_fd(), FcntlArg::F_SETPIPE_SZ(size)).unwrap();
    }
    #[cfg(not(target_os = "linux"))]
    let _ = capacity;
    (sender, receiver)
}

/// A transport reading from the returned pipe end, with a writer nobody
/// reads.
fn reading_transport(
    codec: LineCodec,
) -> (
    StdioTransport<pipe::Receiver, pipe::Sender>,
    pipe::Sender,
    pipe::Receiver,
) {
    let (peer, reader) = os_pipe(None);
    let (writer, unread) = os_pipe(None);
    (
        StdioTransport::with_codec(reader, writer, codec),
        peer,
        unread,
    )
}

/// Prose of about `len` bytes with an escape every few dozen.
fn prose(len: usize) -> String {
    "line one\nsays \"hi\" to C:\\ and tabs\t. ".repeat(len / 38 + 1)
}

fn large_request(id: i64, text_len: usize) -> Request {
    Request::new(
        id,
        "tools/call",
        &json!({"name": "echo", "arguments": {"text": prose(text_len)}}),
    )
    .unwrap()
}

fn line_of(packet: &Packet) -> Vec<u8> {
    let mut wire = BytesMut::new();
    LineCodec::new().encode(packet, &mut wire);
    wire.to_vec()
}

/// Writes `bytes` into `peer` in pieces whose sizes cycle through `pieces`.
async fn write_in_pieces(peer: &mut pipe::Sender, bytes: &[u8], pieces: &[usize]) {
    let mut at = 0;
    for size in pieces.iter().cycle().take(bytes.len()) {
        if at == bytes.len() {
            break;
        }
        let end = (at + size).min(bytes.len());
        peer.write_all(&bytes[at..end]).await.unwrap();
        at = end;
    }
}

async fn expect_packet<R, W>(transport: &mut StdioTransport<R, W>, expected: &Packet)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    match within(transport.recv()).await {
        Some(Ok(inbound)) => assert!(
            inbound == Inbound::from(expected.clone()),
            "a packet differs"
        ),
        other => panic!("expected a packet, got {other:?}"),
    }
}

#[tokio::test]
async fn lines_over_64_kib_arriving_in_odd_pieces_over_a_pipe_are_decoded_whole() {
    let pieces: [&[usize]; 3] = [&[1], &[7, 4093, 65_536, 3, 8192, 1], &[65_536]];
    for pieces in pieces {
        let (mut transport, mut peer, _unread) = reading_transport(LineCodec::new());
        let packets: Vec<Packet> = (0..3)
            .map(|id| {
                Packet::from(large_request(
                    id,
                    64 * 1024 + 100 * usize::try_from(id).unwrap(),
                ))
            })
            .collect();
        let stream: Vec<u8> = packets.iter().flat_map(line_of).collect();
        let pieces = pieces.to_vec();
        let writer = tokio::spawn(async move {
            write_in_pieces(&mut peer, &stream, &pieces).await;
            peer
        });
        for packet in &packets {
            expect_packet(&mut transport, packet).await;
        }
        drop(within(writer).await.unwrap());
        assert!(within(transport.recv()).await.is_none());
    }
}

#[tokio::test]
async fn a_line_over_the_limit_is_refused_over_a_pipe_and_the_next_large_line_still_arrives() {
    let limit = 64 * 1024;
    let (mut transport, mut peer, _unread) =
        reading_transport(LineCodec::with_max_line_length(limit));
    let too_long = Packet::from(large_request(1, 3 * limit));
    let fits = Packet::from(large_request(2, limit * 3 / 4));
    assert!(line_of(&fits).len() <= limit);
    let stream = [line_of(&too_long), line_of(&fits), line_of(&fits)].concat();
    let writer = tokio::spawn(async move {
        write_in_pieces(&mut peer, &stream, &[4093, 7, 65_536]).await;
        peer
    });

    match within(transport.recv()).await {
        Some(Ok(Inbound::Invalid(error))) => {
            assert_eq!(error.code(), ErrorCode::INVALID_REQUEST);
        }
        other => panic!("expected the over-long line refused, got {other:?}"),
    }
    expect_packet(&mut transport, &fits).await;
    expect_packet(&mut transport, &fits).await;
    drop(within(writer).await.unwrap());
    assert!(within(transport.recv()).await.is_none());
}

/// Large and small packets of every kind, some payloads with line breaks
/// (valid JSON whitespace, which the line must not carry).
fn mixed_packets() -> Vec<Packet> {
    let with_breaks =
        RawJson::from_string(format!("{{\n  \"text\": {}\r\n}}", json!(prose(40 * 1024)))).unwrap();
    let error = ErrorObject::new(ErrorCode(-32000), "failed")
        .with_data(&json!({"log": prose(20 * 1024)}))
        .unwrap();
    vec![
        Packet::from(
            Response::new(
                1,
                &json!({"content": [{"type": "text", "text": prose(64 * 1024)}]}),
            )
            .unwrap(),
        ),
        Packet::from(Notification::without_params("notifications/progress")),
        Packet::from(
            Response::new(
                2,
                &json!({"content": [{"type": "text", "text": prose(100 * 1024)}]}),
            )
            .unwrap(),
        ),
        Packet::from(Notification {
            method: "notifications/message".to_owned(),
            params: Some(with_breaks),
        }),
        Packet::from(ErrorResponse::new(Some(3.into()), error)),
        Packet::Batch(vec![
            Message::from(Response::new(4, &json!(prose(9 * 1024))).unwrap()),
            Message::from(Response::new(5, &json!("small")).unwrap()),
        ]),
        Packet::from(Response::new(6, &json!({"text": prose(70 * 1024)})).unwrap()),
    ]
}

#[tokio::test]
async fn large_answers_fed_together_reach_a_slow_reader_through_a_small_pipe_byte_exact() {
    let (writer, mut peer) = os_pipe(Some(4096));
    let (_unwritten, reader) = os_pipe(None);
    let (mut sender, _receiver) = StdioTransport::new(reader, writer).split();
    let packets = mixed_packets();
    let expected: Vec<u8> = packets.iter().flat_map(line_of).collect();

    // The reader takes odd small pieces, so most writes are partial and
    // end inside envelopes and payloads alike.
    let expected_len = expected.len();
    let slow_reader = tokio::spawn(async move {
        let mut wire = Vec::with_capacity(expected_len);
        let mut piece = [0u8; 1000];
        for round in 0..10_000_000usize {
            let size = [1000, 17, 999, 4096][round % 4].min(piece.len());
            match peer.read(&mut piece[..size]).await.unwrap() {
                0 => break,
                read => wire.extend_from_slice(&piece[..read]),
            }
        }
        wire
    });
    for packet in packets {
        within(sender.feed(packet, None)).await.unwrap();
    }
    within(TransportSender::flush(&mut sender)).await.unwrap();
    within(TransportSender::close(&mut sender)).await.unwrap();
    let wire = within(slow_reader).await.unwrap();
    assert_eq!(wire.len(), expected.len());
    assert!(wire == expected, "the bytes differ from the codec's lines");
}

#[tokio::test]
async fn a_large_send_dropped_midway_completes_its_line_before_the_next_packet() {
    let (writer, mut peer) = os_pipe(Some(4096));
    let (_unwritten, reader) = os_pipe(None);
    let mut transport = StdioTransport::new(reader, writer);
    let first = Packet::from(Response::new(1, &json!({"text": prose(64 * 1024)})).unwrap());
    let second = Packet::from(Response::new(2, &json!({"text": prose(32 * 1024)})).unwrap());
    let third = Packet::from(Notification::without_params("after"));

    // Nobody reads yet: the pipe takes a few KiB and the send waits.
    let blocked = timeout(Duration::from_millis(100), transport.send(first.clone())).await;
    assert!(blocked.is_err(), "the first send should have been waiting");

    let reader_task = tokio::spawn(async move {
        let mut wire = Vec::new();
        peer.read_to_end(&mut wire).await.unwrap();
        wire
    });
    within(transport.send(second.clone())).await.unwrap();
    within(transport.send(third.clone())).await.unwrap();
    within(transport.close()).await.unwrap();
    let wire = within(reader_task).await.unwrap();
    assert!(wire == [line_of(&first), line_of(&second), line_of(&third)].concat());
}

#[tokio::test]
async fn two_transports_echo_large_packets_both_ways_over_pipes() {
    let (left_writer, right_reader) = os_pipe(Some(4096));
    let (right_writer, left_reader) = os_pipe(None);
    let (mut left_sender, mut left_receiver) =
        StdioTransport::new(left_reader, left_writer).split();
    let (mut right_sender, mut right_receiver) =
        StdioTransport::new(right_reader, right_writer).split();

    let echo = tokio::spawn(async move {
        for _ in 0..1_000 {
            let Some(inbound) = right_receiver.recv().await else {
                break;
            };
            let packet = inbound.unwrap().into_packet().unwrap();
            right_sender.feed(packet, None).await.unwrap();
            TransportSender::flush(&mut right_sender).await.unwrap();
        }
        TransportSender::close(&mut right_sender).await.unwrap();
    });
    let packets: Vec<Packet> = (0..12)
        .map(|id| Packet::from(large_request(id, 8 * 1024 * usize::try_from(id).unwrap())))
        .collect();
    let to_send = packets.clone();
    let sending = tokio::spawn(async move {
        for packet in to_send {
            left_sender.feed(packet, None).await.unwrap();
        }
        TransportSender::close(&mut left_sender).await.unwrap();
    });
    let mut echoed = Vec::new();
    for _ in 0..1_000 {
        let Some(inbound) = within(left_receiver.recv()).await else {
            break;
        };
        echoed.push(inbound.unwrap().into_packet().unwrap());
    }
    within(sending).await.unwrap();
    within(echo).await.unwrap();
    assert!(echoed == packets, "the echo differs");
}
