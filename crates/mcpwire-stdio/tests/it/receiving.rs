//! Receiving over byte pipes: line framing, refused lines, end of input and cancel safety of `recv`.

use std::future::Future;
use std::time::Duration;

use mcpwire_jsonrpc::{ErrorCode, Inbound, LineCodec, Message, Packet, Request};
use mcpwire_stdio::{Error, StdioTransport};
use serde_json::json;
use tokio::io::{AsyncWriteExt, DuplexStream, duplex};
use tokio::time::{sleep, timeout};

/// Generous enough for a loaded machine; every wait in these tests is bounded by it.
const LIMIT: Duration = Duration::from_secs(10);

async fn within<T>(future: impl Future<Output = T>) -> T {
    timeout(LIMIT, future).await.expect("timed out")
}

/// A transport reading from the returned peer end; its writer goes to a
/// pipe nobody reads, which these tests never use.
fn receiving_transport(
    codec: LineCodec,
) -> (StdioTransport<DuplexStream, DuplexStream>, DuplexStream) {
    let (reader, peer) = duplex(64 * 1024);
    let (writer, _unused) = duplex(64);
    (StdioTransport::with_codec(reader, writer, codec), peer)
}

fn request(id: i64) -> Request {
    Request::new(id, "tools/call", &json!({"name": "echo", "n": id})).unwrap()
}

fn line_of(request: &Request) -> Vec<u8> {
    let mut line = Message::from(request.clone()).to_vec();
    line.push(b'\n');
    line
}

async fn expect_request(
    transport: &mut StdioTransport<DuplexStream, DuplexStream>,
    expected: &Request,
) {
    let received = within(transport.recv()).await;
    match received {
        Some(Ok(inbound)) => assert_eq!(inbound, Inbound::from(Packet::from(expected.clone()))),
        other => panic!("expected {expected:?}, got {other:?}"),
    }
}

async fn expect_invalid(
    transport: &mut StdioTransport<DuplexStream, DuplexStream>,
    code: ErrorCode,
) {
    match within(transport.recv()).await {
        Some(Ok(Inbound::Invalid(error))) => assert_eq!(error.code(), code, "{error:?}"),
        other => panic!("expected an invalid line with code {code:?}, got {other:?}"),
    }
}

#[tokio::test]
async fn a_line_arriving_in_many_small_writes_is_decoded_once_complete() {
    let (mut transport, mut peer) = receiving_transport(LineCodec::new());
    let first = request(1);
    let second = request(2);
    let mut bytes = line_of(&first);
    bytes.extend(line_of(&second));

    let writer = tokio::spawn(async move {
        for piece in bytes.chunks(3) {
            peer.write_all(piece).await.unwrap();
            peer.flush().await.unwrap();
            sleep(Duration::from_millis(1)).await;
        }
        peer
    });
    expect_request(&mut transport, &first).await;
    expect_request(&mut transport, &second).await;
    let _peer = within(writer).await.unwrap();
}

#[tokio::test]
async fn crlf_endings_and_blank_lines_are_accepted() {
    let (mut transport, mut peer) = receiving_transport(LineCodec::new());
    let first = request(1);
    let second = request(2);
    let mut bytes = b"\n\r\n   \t\r\n".to_vec();
    bytes.extend(Message::from(first.clone()).to_vec());
    bytes.extend(b"\r\n\n");
    bytes.extend(Message::from(second.clone()).to_vec());
    bytes.extend(b"\r\n");
    within(peer.write_all(&bytes)).await.unwrap();
    drop(peer);

    expect_request(&mut transport, &first).await;
    expect_request(&mut transport, &second).await;
    assert!(within(transport.recv()).await.is_none());
}

#[tokio::test]
async fn an_overlong_line_is_answered_as_invalid_and_the_next_line_still_arrives() {
    let limit = 100;
    let (mut transport, mut peer) = receiving_transport(LineCodec::with_max_line_length(limit));
    let good = request(7);
    assert!(line_of(&good).len() <= limit);

    let writer = tokio::spawn(async move {
        // Far more than one read chunk, so the line spans many reads.
        let overlong = vec![b'x'; 200 * 1024];
        peer.write_all(&overlong).await.unwrap();
        peer.write_all(b"\n").await.unwrap();
        peer.write_all(&line_of(&good)).await.unwrap();
        peer
    });
    expect_invalid(&mut transport, ErrorCode::INVALID_REQUEST).await;
    expect_request(&mut transport, &request(7)).await;
    let _peer = within(writer).await.unwrap();
}

#[tokio::test]
async fn a_line_that_is_not_utf8_is_a_parse_error_and_the_next_line_still_arrives() {
    let (mut transport, mut peer) = receiving_transport(LineCodec::new());
    let good = request(3);
    let mut bytes = b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}\n".to_vec();
    bytes.extend(line_of(&good));
    within(peer.write_all(&bytes)).await.unwrap();

    expect_invalid(&mut transport, ErrorCode::PARSE_ERROR).await;
    expect_request(&mut transport, &good).await;
}

#[tokio::test]
async fn text_that_is_not_a_message_is_yielded_as_invalid_not_as_a_transport_error() {
    let (mut transport, mut peer) = receiving_transport(LineCodec::new());
    within(peer.write_all(b"not json\n[]\n")).await.unwrap();

    expect_invalid(&mut transport, ErrorCode::PARSE_ERROR).await;
    expect_invalid(&mut transport, ErrorCode::INVALID_REQUEST).await;
}

#[tokio::test]
async fn an_unterminated_final_line_is_decoded_at_end_of_input_and_then_none_repeats() {
    let (mut transport, mut peer) = receiving_transport(LineCodec::new());
    let first = request(1);
    let last = request(2);
    let mut bytes = line_of(&first);
    bytes.extend(Message::from(last.clone()).to_vec());
    within(peer.write_all(&bytes)).await.unwrap();
    within(peer.shutdown()).await.unwrap();

    expect_request(&mut transport, &first).await;
    expect_request(&mut transport, &last).await;
    assert!(within(transport.recv()).await.is_none());
    assert!(within(transport.recv()).await.is_none());
}

#[tokio::test]
async fn end_of_input_inside_an_overlong_line_reports_it_once_then_ends() {
    let (mut transport, mut peer) = receiving_transport(LineCodec::with_max_line_length(16));
    within(peer.write_all(&[b'y'; 1000])).await.unwrap();
    drop(peer);

    expect_invalid(&mut transport, ErrorCode::INVALID_REQUEST).await;
    assert!(within(transport.recv()).await.is_none());
}

#[tokio::test]
async fn a_recv_dropped_mid_line_loses_nothing() {
    let (mut transport, mut peer) = receiving_transport(LineCodec::new());
    let wanted = request(42);
    let line = line_of(&wanted);
    let (head, tail) = line.split_at(line.len() / 2);

    within(peer.write_all(head)).await.unwrap();
    // The first half is read into the transport's buffer, then the future
    // is dropped while waiting for the rest.
    let early = timeout(Duration::from_millis(100), transport.recv()).await;
    assert!(
        early.is_err(),
        "recv must wait for the whole line, got {early:?}"
    );

    within(peer.write_all(tail)).await.unwrap();
    expect_request(&mut transport, &wanted).await;
}

#[tokio::test]
async fn a_recv_dropped_repeatedly_between_bytes_still_yields_every_line_in_order() {
    let (mut transport, mut peer) = receiving_transport(LineCodec::new());
    let requests: Vec<Request> = (1..=3).map(request).collect();
    let bytes: Vec<u8> = requests.iter().flat_map(line_of).collect();

    let mut received = Vec::new();
    for &byte in &bytes {
        within(peer.write_all(&[byte])).await.unwrap();
        // Each poll may read the new byte, then gets dropped.
        if let Ok(outcome) = timeout(Duration::from_millis(5), transport.recv()).await {
            received.push(outcome.unwrap().unwrap());
        }
    }
    drop(peer);
    while let Some(outcome) = within(transport.recv()).await {
        received.push(outcome.unwrap());
    }
    let expected: Vec<Inbound> = requests
        .into_iter()
        .map(|request| Inbound::from(Packet::from(request)))
        .collect();
    assert_eq!(received, expected);
}

#[tokio::test]
async fn a_read_failure_is_a_transport_error() {
    struct FailingReader;
    impl tokio::io::AsyncRead for FailingReader {
        fn poll_read(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            _: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Err(std::io::Error::other("disk on fire")))
        }
    }
    let (writer, _unused) = duplex(64);
    let mut transport = StdioTransport::new(FailingReader, writer);
    assert!(matches!(
        within(transport.recv()).await,
        Some(Err(Error::Read(_)))
    ));
}

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// A stray `println!` in a server corrupts its stdout: the line is not
// dropped in silence but logged at warn with its first bytes (cut at 64).
#[tokio::test(flavor = "current_thread")]
async fn a_line_that_is_not_a_message_is_logged_at_warn_with_its_first_bytes() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let (mut transport, mut peer) = receiving_transport(LineCodec::new());
    let stray = format!("debug: x = 42 {}\n", "y".repeat(100));
    peer.write_all(stray.as_bytes()).await.unwrap();
    peer.write_all(&line_of(&request(1))).await.unwrap();
    let first = within(transport.recv()).await.unwrap().unwrap();
    assert!(matches!(first, Inbound::Invalid(_)), "{first:?}");
    // The message after it is read as usual.
    let second = within(transport.recv()).await.unwrap().unwrap();
    assert!(matches!(second, Inbound::Single(Message::Request(_))));
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("WARN"), "{log}");
    assert!(log.contains(&stray[..64]), "{log}");
    assert!(
        !log.contains(&stray[..65]),
        "only 64 bytes are shown: {log}"
    );
}
