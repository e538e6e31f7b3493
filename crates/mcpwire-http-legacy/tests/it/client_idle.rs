//! The legacy client takes its SSE stream as lost when it stays silent past
//! `LegacyClientOptions::stream_idle_timeout`: a raw TCP server on
//! 127.0.0.1 answers the GET with SSE headers and the `endpoint` event,
//! then says nothing, as a half-open connection would; `recv` reports
//! `Error::StreamIdle`, then the end, and the client closes the
//! connection. Keep-alive comments count as bytes: they keep a quiet
//! stream open.

use std::time::{Duration, Instant};

use mcpwire_http_legacy::client::{Error, LegacyClientOptions, LegacySseClient};
use mcpwire_test::raw_http::{SSE_HEAD, hold_until_closed, keep_alives, read_request, write_chunk};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// The idle timeout the tests set: short, so that they are quick, yet
/// sixteen keep-alive periods long, so that a late comment on a loaded
/// machine does not end the stream too early.
const IDLE: Duration = Duration::from_millis(800);

/// How often [`Carrying::KeepAlives`] sends a comment.
const KEEP_ALIVE_EVERY: Duration = Duration::from_millis(50);

/// How long [`Carrying::KeepAlives`] keeps the stream alive: three idle
/// timeouts.
const KEEP_ALIVE_FOR: Duration = Duration::from_millis(2400);

/// How long a whole test may take: generous against the waits of a few
/// seconds at most it expects, since a loaded 2-core machine (builds run
/// beside the tests) can delay any task by seconds; and what turns a
/// client that waits forever (no idle timeout) into a failure, not a hang.
const TEST_BOUND: Duration = Duration::from_secs(20);

/// What the SSE stream carries after the `endpoint` event.
#[derive(Clone, Copy)]
enum Carrying {
    /// Nothing at all.
    Silence,
    /// A keep-alive comment every [`KEEP_ALIVE_EVERY`] for
    /// [`KEEP_ALIVE_FOR`], then nothing.
    KeepAlives,
}

/// Serves one connection: reads a request head and answers a GET with an
/// SSE stream carrying the `endpoint` event and then `carrying`; reports
/// on `closed` when the client closes the connection.
async fn connection(stream: TcpStream, carrying: Carrying, closed: mpsc::UnboundedSender<()>) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let request = read_request(&mut read).await.unwrap();
    assert_eq!(request.method, "GET");
    write.write_all(SSE_HEAD).await.unwrap();
    write_chunk(
        &mut write,
        b"event: endpoint\ndata: /message?sessionId=1\n\n",
    )
    .await
    .unwrap();
    if let Carrying::KeepAlives = carrying {
        keep_alives(&mut write, KEEP_ALIVE_EVERY, KEEP_ALIVE_FOR).await;
    }
    // Silence: nothing more is written, and the connection is held until
    // the client closes it.
    hold_until_closed(&mut read).await;
    let _ = closed.send(());
}

/// Starts the server; returns its SSE URL and a channel that hears of
/// each connection the client closed.
async fn serve(carrying: Carrying) -> (String, mpsc::UnboundedReceiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/sse", listener.local_addr().unwrap());
    let (closed, receiver) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(connection(stream, carrying, closed.clone()));
        }
    });
    (url, receiver)
}

/// Connects to a server carrying `carrying` with the idle timeout
/// [`IDLE`], and waits for what `recv` gives; returns it, how long after
/// the GET it came, and the client (still open, so that only the idle
/// timeout can have closed the connection).
async fn first_received(
    carrying: Carrying,
) -> (
    Option<Result<mcpwire_jsonrpc::Inbound, Error>>,
    Duration,
    LegacySseClient,
    mpsc::UnboundedReceiver<()>,
) {
    let (url, closed) = serve(carrying).await;
    let started = Instant::now();
    let options = LegacyClientOptions::new().stream_idle_timeout(IDLE);
    let mut client = LegacySseClient::connect(&url, options).await.unwrap();
    let received = client.recv().await;
    (received, started.elapsed(), client, closed)
}

#[tokio::test]
async fn a_silent_stream_is_taken_as_a_lost_connection() {
    tokio::time::timeout(TEST_BOUND, async {
        let (received, after, mut client, mut closed) = first_received(Carrying::Silence).await;
        assert!(
            matches!(received, Some(Err(Error::StreamIdle(idle))) if idle == IDLE),
            "{received:?}"
        );
        // For the silence, not for anything sooner.
        assert!(after >= IDLE, "{after:?}");
        // The session is over, as after a broken stream...
        assert!(client.recv().await.is_none());
        // ...and the dead connection is closed while the client is still
        // open.
        closed.recv().await.unwrap();
        client.close().await.unwrap();
    })
    .await
    .expect("the silent stream was not given up in time");
}

#[tokio::test]
async fn keep_alive_comments_keep_a_quiet_stream_open() {
    tokio::time::timeout(TEST_BOUND, async {
        let (received, after, mut client, mut closed) = first_received(Carrying::KeepAlives).await;
        assert!(
            matches!(received, Some(Err(Error::StreamIdle(_)))),
            "{received:?}"
        );
        // Comments every 50 ms kept it open for five idle timeouts; the
        // silence after them ended it.
        assert!(after >= KEEP_ALIVE_FOR, "{after:?}");
        assert!(client.recv().await.is_none());
        closed.recv().await.unwrap();
        client.close().await.unwrap();
    })
    .await
    .expect("the stream was not given up in time after the comments stopped");
}
