//! Spawning real server processes: echo over `cat`, configuration, and each way `shutdown` can end a child.

use std::future::Future;
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use mcpwire_jsonrpc::{
    ErrorCode, Inbound, Message, Packet, Request, Transport, TransportReceiver, TransportSender,
};
use mcpwire_stdio::{ChildError, ChildTransport, Error, ShutdownOutcome, StderrMode, StdioClient};
use nix::sys::signal::Signal;
use serde_json::json;
use tokio::time::{sleep, timeout};

const LIMIT: Duration = Duration::from_secs(20);
/// Short grace periods keep the escalation tests fast.
const SHORT_GRACE: Duration = Duration::from_millis(300);

async fn within<T>(future: impl Future<Output = T>) -> T {
    timeout(LIMIT, future).await.expect("timed out")
}

fn request(id: i64) -> Request {
    Request::new(id, "tools/call", &json!({"name": "echo", "n": id})).unwrap()
}

/// A shell command line for a child that announces itself on stdout with a
/// `ready` notification once `setup` has run, then runs `body`.
fn announce_then(setup: &str, body: &str) -> String {
    format!(r#"{setup} printf '%s\n' '{{"jsonrpc":"2.0","method":"ready"}}'; {body}"#)
}

async fn expect_notification(transport: &mut ChildTransport, method: &str) {
    match within(transport.recv()).await {
        Some(Ok(Inbound::Single(Message::Notification(notification)))) => {
            assert_eq!(notification.method, method);
        }
        other => panic!("expected notification {method}, got {other:?}"),
    }
}

#[tokio::test]
async fn a_cat_child_echoes_packets_and_exits_on_eof() {
    let (mut transport, server) = StdioClient::new("cat").spawn().unwrap();
    assert_eq!(server.server_name(), "cat");
    for id in 1..=3 {
        let packet = Packet::from(request(id));
        within(transport.send(packet.clone())).await.unwrap();
        let echoed = within(transport.recv()).await.unwrap().unwrap();
        assert_eq!(echoed, Inbound::from(packet));
    }

    let outcome = within(server.shutdown()).await.unwrap();
    assert!(
        matches!(outcome, ShutdownOutcome::ExitedOnEof(_)),
        "{outcome:?}"
    );
    assert!(outcome.status().success());
    assert!(within(transport.recv()).await.is_none());
}

#[tokio::test]
async fn a_cat_child_echoes_large_packets_fed_together_and_written_vectored() {
    let (transport, server) = StdioClient::new("cat").spawn().unwrap();
    let (mut sender, mut receiver) = transport.split();
    // Four answers of 80-100 KiB with escapes: more than the two pipes
    // and cat hold at once, so sending and echoing overlap.
    let packets: Vec<Packet> = (0..4)
        .map(|id| {
            let text = "say \"hi\"\n\t".repeat(8 * 1024 + 512 * id);
            let id = i64::try_from(id).unwrap();
            Packet::from(Request::new(id, "tools/call", &json!({ "text": text })).unwrap())
        })
        .collect();
    let to_send = packets.clone();
    let sending = tokio::spawn(async move {
        for packet in to_send {
            sender.feed(packet, None).await.unwrap();
        }
        TransportSender::flush(&mut sender).await.unwrap();
        sender
    });
    let mut echoed = Vec::new();
    for _ in 0..packets.len() {
        echoed.push(within(receiver.recv()).await.unwrap().unwrap());
    }
    let mut sender = within(sending).await.unwrap();
    within(TransportSender::close(&mut sender)).await.unwrap();
    let expected: Vec<Inbound> = packets.into_iter().map(Inbound::from).collect();
    assert!(echoed == expected, "the echo differs");
    assert!(within(server.shutdown()).await.unwrap().status().success());
}

#[tokio::test]
async fn closing_the_transport_closes_the_childs_stdin_without_the_handle() {
    let (mut transport, mut server) = StdioClient::new("cat").spawn().unwrap();
    let packet = Packet::from(request(9));
    within(transport.send(packet.clone())).await.unwrap();
    within(transport.close()).await.unwrap();

    // cat writes back what it read, sees end of input and exits.
    assert_eq!(
        within(transport.recv()).await.unwrap().unwrap(),
        Inbound::from(packet)
    );
    assert!(within(transport.recv()).await.is_none());
    assert!(within(server.wait()).await.unwrap().success());
}

#[tokio::test]
async fn dropping_the_transport_closes_the_childs_stdin() {
    let (transport, mut server) = StdioClient::new("cat").spawn().unwrap();
    drop(transport);
    assert!(within(server.wait()).await.unwrap().success());
}

#[tokio::test]
async fn stderr_output_neither_disturbs_the_transport_nor_counts_as_an_error() {
    for mode in [StderrMode::Trace, StderrMode::Discard] {
        let script = "printf 'error: this is only a log line\\n' >&2; \
                      head -c 70000 /dev/zero | tr '\\0' x >&2; exec cat";
        let (mut transport, server) = StdioClient::new("sh")
            .args(["-c", script])
            .stderr(mode)
            .spawn()
            .unwrap();
        let packet = Packet::from(request(5));
        within(transport.send(packet.clone())).await.unwrap();
        assert_eq!(
            within(transport.recv()).await.unwrap().unwrap(),
            Inbound::from(packet)
        );

        let outcome = within(server.shutdown()).await.unwrap();
        assert!(
            matches!(outcome, ShutdownOutcome::ExitedOnEof(status) if status.success()),
            "{mode:?}: {outcome:?}"
        );
    }
}

#[tokio::test]
async fn a_child_that_ignores_eof_ends_on_sigterm() {
    let (_transport, server) = StdioClient::new("sleep")
        .arg("30")
        .stdin_close_grace(SHORT_GRACE)
        .sigterm_grace(Duration::from_secs(5))
        .spawn()
        .unwrap();
    let outcome = within(server.shutdown()).await.unwrap();
    assert!(
        matches!(outcome, ShutdownOutcome::ExitedAfterSigterm(_)),
        "{outcome:?}"
    );
    assert_eq!(outcome.status().signal(), Some(Signal::SIGTERM as i32));
}

#[tokio::test]
async fn a_child_that_died_of_a_signal_is_not_reported_as_a_graceful_exit() {
    // The child kills itself: a crash or an outside kill, not the client.
    let (mut transport, server) = StdioClient::new("sh")
        .args(["-c", "kill -KILL $$"])
        .spawn()
        .unwrap();
    assert!(within(transport.recv()).await.is_none());
    let outcome = within(server.shutdown()).await.unwrap();
    assert!(
        matches!(outcome, ShutdownOutcome::Signalled(_)),
        "{outcome:?}"
    );
    assert_eq!(outcome.status().signal(), Some(Signal::SIGKILL as i32));
}

#[tokio::test]
async fn a_child_that_ignores_sigterm_is_killed() {
    let script = announce_then("trap '' TERM;", "while :; do sleep 0.1; done");
    let (mut transport, server) = StdioClient::new("sh")
        .args(["-c", &script])
        .stdin_close_grace(SHORT_GRACE)
        .sigterm_grace(SHORT_GRACE)
        .spawn()
        .unwrap();
    // The trap is in place once the child has announced itself.
    expect_notification(&mut transport, "ready").await;

    let outcome = within(server.shutdown()).await.unwrap();
    assert!(matches!(outcome, ShutdownOutcome::Killed(_)), "{outcome:?}");
    assert_eq!(outcome.status().signal(), Some(Signal::SIGKILL as i32));
}

#[tokio::test]
async fn closing_stdin_wakes_a_send_blocked_on_a_child_that_does_not_read() {
    let (mut transport, server) = StdioClient::new("sleep")
        .arg("30")
        .stdin_close_grace(SHORT_GRACE)
        .spawn()
        .unwrap();
    // Far more than a pipe holds, so the send waits for the child to read.
    let huge = Packet::from(
        Request::new(
            1,
            "tools/call",
            &json!({"blob": "w".repeat(4 * 1024 * 1024)}),
        )
        .unwrap(),
    );
    let sender = tokio::spawn(async move { transport.send(huge).await });
    sleep(Duration::from_millis(100)).await;
    assert!(
        !sender.is_finished(),
        "the send should be waiting on the full pipe"
    );

    server.close_stdin();
    let outcome = within(sender).await.unwrap();
    assert!(matches!(outcome, Err(Error::Write(_))), "{outcome:?}");
    within(server.shutdown()).await.unwrap();
}

/// Issue 17 item 10: a server started through a launcher (`npx`, `uv`)
/// is a grandchild; `shutdown` signals the whole process group, so it does
/// not outlive the launcher as an orphan.
#[tokio::test]
async fn shutdown_ends_what_the_server_started_too() {
    let script = announce_then(
        "sleep 30 & printf '%s\n' \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"method\\\":\\\"pid-$!\\\"}\";",
        "wait",
    );
    let (mut transport, server) = StdioClient::new("sh")
        .args(["-c", &script])
        .stdin_close_grace(SHORT_GRACE)
        .sigterm_grace(Duration::from_secs(5))
        .spawn()
        .unwrap();
    let grandchild = match within(transport.recv()).await.unwrap().unwrap() {
        Inbound::Single(Message::Notification(n)) => {
            n.method.trim_start_matches("pid-").parse::<u32>().unwrap()
        }
        other => panic!("{other:?}"),
    };
    expect_notification(&mut transport, "ready").await;
    assert!(process_is_running(grandchild));
    within(server.shutdown()).await.unwrap();
    within(async {
        while process_is_running(grandchild) {
            sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

#[tokio::test]
async fn debug_output_names_environment_variables_but_not_their_values() {
    let client = StdioClient::new("server").env("API_TOKEN", "s3cret-value");
    let shown = format!("{client:?}");
    assert!(shown.contains("API_TOKEN"), "{shown}");
    assert!(!shown.contains("s3cret-value"), "{shown}");
}

#[tokio::test]
async fn a_dropped_handle_kills_the_child() {
    let (_transport, server) = StdioClient::new("sleep").arg("30").spawn().unwrap();
    let pid = server.id().unwrap();
    drop(server);
    within(async {
        while process_is_running(pid) {
            sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

/// Whether `pid` names a live process: gone, or a zombie awaiting its
/// reaper, counts as ended.
fn process_is_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

#[tokio::test]
async fn environment_and_directory_settings_reach_the_child() {
    let script = r#"printf '{"jsonrpc":"2.0","method":"%s|%s|%s|%s"}\n' "$GREETING" "${DROPPED-unset}" "${HOME-unset}" "$(pwd)""#;
    let (mut transport, server) = StdioClient::new("/bin/sh")
        .env("EARLY", "forgotten")
        .env_clear()
        .envs([("GREETING", "hello"), ("DROPPED", "x")])
        .env_remove("DROPPED")
        .current_dir("/")
        .args(["-c", script])
        .spawn()
        .unwrap();
    expect_notification(&mut transport, "hello|unset|unset|/").await;
    within(server.shutdown()).await.unwrap();
}

#[tokio::test]
async fn the_configured_line_limit_applies_to_what_the_child_writes() {
    let script = r#"printf '{"jsonrpc":"2.0","method":"%0200d"}\n' 0; printf '{"jsonrpc":"2.0","method":"short"}\n'"#;
    let (mut transport, server) = StdioClient::new("sh")
        .args(["-c", script])
        .max_line_length(100)
        .spawn()
        .unwrap();
    assert_eq!(transport.max_line_length(), 100);
    match within(transport.recv()).await {
        Some(Ok(Inbound::Invalid(error))) => assert_eq!(error.code(), ErrorCode::INVALID_REQUEST),
        other => panic!("expected a refused line, got {other:?}"),
    }
    expect_notification(&mut transport, "short").await;
    within(server.shutdown()).await.unwrap();
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error() {
    let outcome = StdioClient::new("/nonexistent/mcp-server").spawn();
    match outcome {
        Err(ChildError::Spawn { program, source }) => {
            assert_eq!(program, "/nonexistent/mcp-server");
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected a spawn error, got {other:?}"),
    }
}
