//! Sending over byte pipes: one line per packet, back-pressure, close, and two transports talking.

use std::future::Future;
use std::time::Duration;

use mcpwire_jsonrpc::{Inbound, Message, Notification, Packet, Request, Response};
use mcpwire_stdio::{Error, StdioTransport};
use serde_json::json;
use tokio::io::{AsyncReadExt, DuplexStream, duplex};
use tokio::time::timeout;

const LIMIT: Duration = Duration::from_secs(10);

async fn within<T>(future: impl Future<Output = T>) -> T {
    timeout(LIMIT, future).await.expect("timed out")
}

/// A transport writing into a pipe of `capacity` bytes whose other end is
/// returned; its reader is a pipe nobody writes.
fn sending_transport(
    capacity: usize,
) -> (
    StdioTransport<DuplexStream, DuplexStream>,
    DuplexStream,
    DuplexStream,
) {
    let (writer, peer) = duplex(capacity);
    let (reader, idle_writer) = duplex(64);
    (StdioTransport::new(reader, writer), peer, idle_writer)
}

fn big_request(id: i64, payload_bytes: usize) -> Request {
    Request::new(
        id,
        "tools/call",
        &json!({"blob": "z".repeat(payload_bytes)}),
    )
    .unwrap()
}

fn line_of(packet: &Packet) -> Vec<u8> {
    let mut line = match packet {
        Packet::Single(message) => message.to_vec(),
        Packet::Batch(_) => panic!("only single messages here"),
    };
    line.push(b'\n');
    line
}

#[tokio::test]
async fn each_packet_is_written_as_exactly_one_line_in_order() {
    let (mut transport, mut peer, _idle) = sending_transport(64 * 1024);
    let packets = vec![
        Packet::from(Request::new(1, "a", &json!({"text": "two\nlines\r\n"})).unwrap()),
        Packet::from(Notification::without_params("b")),
        Packet::Batch(vec![
            Message::from(Request::without_params(2, "c")),
            Message::from(Response::new(3, &json!({})).unwrap()),
        ]),
    ];
    for packet in &packets {
        within(transport.send(packet.clone())).await.unwrap();
    }
    within(transport.close()).await.unwrap();

    let mut wire = Vec::new();
    within(peer.read_to_end(&mut wire)).await.unwrap();
    assert_eq!(wire.last(), Some(&b'\n'));
    let lines: Vec<&[u8]> = wire[..wire.len() - 1]
        .split(|&byte| byte == b'\n')
        .collect();
    assert_eq!(lines.len(), packets.len(), "a packet leaked a line break");
    for (line, packet) in lines.iter().zip(&packets) {
        assert_eq!(Inbound::from_slice(line), Inbound::from(packet.clone()));
    }
}

#[tokio::test]
async fn send_waits_while_the_peer_does_not_read_instead_of_buffering() {
    let (mut transport, mut peer, _idle) = sending_transport(256);
    let packet = Packet::from(big_request(1, 64 * 1024));

    // Nobody reads: the send cannot complete, however long it is given.
    let blocked = timeout(Duration::from_millis(200), transport.send(packet.clone())).await;
    assert!(
        blocked.is_err(),
        "send completed without a reader: {blocked:?}"
    );

    // Once the peer reads, the next send goes through, after the rest of
    // the first line.
    let reader = tokio::spawn(async move {
        let mut wire = Vec::new();
        peer.read_to_end(&mut wire).await.unwrap();
        wire
    });
    within(transport.send(packet.clone())).await.unwrap();
    within(transport.close()).await.unwrap();
    let wire = within(reader).await.unwrap();
    assert_eq!(wire, [line_of(&packet), line_of(&packet)].concat());
}

#[tokio::test]
async fn a_send_dropped_midway_completes_its_line_before_the_next_packet() {
    let (mut transport, mut peer, _idle) = sending_transport(512);
    let first = Packet::from(big_request(1, 16 * 1024));
    let second = Packet::from(Notification::without_params("after"));

    let blocked = timeout(Duration::from_millis(100), transport.send(first.clone())).await;
    assert!(blocked.is_err(), "the first send should have been waiting");

    let reader = tokio::spawn(async move {
        let mut wire = Vec::new();
        peer.read_to_end(&mut wire).await.unwrap();
        wire
    });
    within(transport.send(second.clone())).await.unwrap();
    within(transport.close()).await.unwrap();
    let wire = within(reader).await.unwrap();

    let mut expected = line_of(&first);
    expected.extend(line_of(&second));
    assert_eq!(wire, expected);
}

#[tokio::test]
async fn close_flushes_ends_the_peers_input_and_refuses_later_sends() {
    let (mut transport, mut peer, _idle) = sending_transport(1024);
    let packet = Packet::from(Notification::without_params("last"));
    within(transport.send(packet.clone())).await.unwrap();
    within(transport.close()).await.unwrap();
    assert!(transport.is_closed());

    let mut wire = Vec::new();
    within(peer.read_to_end(&mut wire)).await.unwrap();
    assert_eq!(wire, line_of(&packet));

    assert!(matches!(
        within(transport.send(packet)).await,
        Err(Error::Closed)
    ));
    within(transport.close()).await.unwrap();
}

#[tokio::test]
async fn a_vanished_peer_makes_send_fail() {
    let (mut transport, peer, _idle) = sending_transport(64);
    drop(peer);
    let outcome = within(transport.send(Packet::from(big_request(1, 10)))).await;
    assert!(matches!(outcome, Err(Error::Write(_))), "{outcome:?}");
}

#[tokio::test]
async fn two_transports_over_byte_pipes_exchange_packets_in_order() {
    // The left-to-right pipe is small, so the left side's sends wait for
    // the echo to read; the way back holds everything, since the left side
    // reads only after sending all.
    let (left_to_right_writer, left_to_right_reader) = duplex(128);
    let (right_to_left_writer, right_to_left_reader) = duplex(256 * 1024);
    let mut left = StdioTransport::new(right_to_left_reader, left_to_right_writer);
    let mut right = StdioTransport::new(left_to_right_reader, right_to_left_writer);

    let echo = tokio::spawn(async move {
        while let Some(inbound) = right.recv().await {
            let packet = inbound.unwrap().into_packet().unwrap();
            right.send(packet).await.unwrap();
        }
        right.close().await.unwrap();
    });

    let requests: Vec<Packet> = (0..50)
        .map(|id| Packet::from(big_request(id, 100)))
        .collect();
    for packet in &requests {
        within(left.send(packet.clone())).await.unwrap();
    }
    within(left.close()).await.unwrap();
    let mut echoed = Vec::new();
    while let Some(inbound) = within(left.recv()).await {
        echoed.push(inbound.unwrap().into_packet().unwrap());
    }
    within(echo).await.unwrap();
    assert_eq!(echoed, requests);
}
