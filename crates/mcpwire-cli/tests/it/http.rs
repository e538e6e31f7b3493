//! The CLI over HTTP: `bridge --listen` serving the demo server (Streamable
//! HTTP at /mcp, legacy HTTP+SSE at /sse), commands against its URL, its
//! security checks, and `bridge --stdio` the other way round.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::support::{Bridge, mcpwire, run};

#[test]
fn inspect_and_call_reach_a_stdio_server_through_the_bridge_in_every_revision() {
    let bridge = Bridge::start(&[]);
    // Automatic negotiation (2026-07-28, a child per stateless request),
    // then pinned handshake revisions (a child per session).
    let out = run(&["--json", "inspect", &bridge.url]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.json()["protocolVersion"], "2026-07-28");
    assert_eq!(out.json()["transport"], "streamable-http");
    for revision in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let out = run(&[
            "--json",
            "--protocol-version",
            revision,
            "inspect",
            &bridge.url,
        ]);
        assert_eq!(out.code(), Some(0), "{revision}: {out:?}");
        assert_eq!(out.json()["protocolVersion"], revision);
        assert_eq!(out.json()["tools"][0]["name"], "add_note");
        let out = run(&[
            "--protocol-version",
            revision,
            "call",
            &bridge.url,
            "search_notes",
            "query=welcome",
        ]);
        assert_eq!(out.code(), Some(0), "{revision}: {out:?}");
        assert!(out.stdout.contains("0: Welcome"), "{}", out.stdout);
        assert!(
            out.stderr.contains("progress 1/1"),
            "progress travels on the call's stream: {}",
            out.stderr
        );
    }
    let out = run(&["call", &bridge.url, "add_note", "title=over", "body=http"]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stdout.contains("\"id\": 1"), "{}", out.stdout);
    let out = run(&["call", &bridge.url, "delete_note", "id=5"]);
    assert_eq!(out.code(), Some(1), "{out:?}");
    let status = bridge.stop();
    assert!(
        status.success(),
        "the bridge ends cleanly on Ctrl-C: {status:?}"
    );
}

#[test]
fn the_legacy_sse_endpoint_serves_2024_11_05_clients_beside_streamable_http() {
    let bridge = Bridge::start(&[]);
    let out = run(&[
        "--json",
        "--protocol-version",
        "2024-11-05",
        "inspect",
        &bridge.sse_url(),
    ]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.json()["protocolVersion"], "2024-11-05");
    assert_eq!(out.json()["transport"], "legacy-sse");
    // Unpinned, the client still falls back to the legacy transport by itself.
    let out = run(&["--json", "inspect", &bridge.sse_url()]);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.json()["transport"], "legacy-sse");
    let out = run(&[
        "--protocol-version",
        "2024-11-05",
        "call",
        &bridge.sse_url(),
        "delete_note",
        "id=0",
    ]);
    assert_eq!(out.code(), Some(0), "{out:?}");
}

/// Sends one raw HTTP request and returns the status code.
fn status_of(address: &str, request: &str) -> u16 {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).unwrap();
    std::str::from_utf8(&head[9..12]).unwrap().parse().unwrap()
}

fn post(host: &str, extra: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn the_bridge_checks_host_origin_and_path() {
    let bridge = Bridge::start(&[]);
    let address = bridge.address();
    assert_eq!(
        status_of(&address, &post("evil.example", "")),
        403,
        "foreign Host"
    );
    let origin = "Origin: http://evil.example\r\n";
    assert_eq!(
        status_of(&address, &post(&address, origin)),
        403,
        "foreign Origin"
    );
    let elsewhere = format!("GET /other HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    assert_eq!(status_of(&address, &elsewhere), 404);
}

#[test]
fn the_bridge_requires_the_bearer_token_when_given_one() {
    let bridge = Bridge::start(&["--bearer", "s3cret"]);
    let address = bridge.address();
    assert_eq!(status_of(&address, &post(&address, "")), 401);
    let wrong = "Authorization: Bearer guess\r\n";
    assert_eq!(status_of(&address, &post(&address, wrong)), 401);
    let out = run(&["ping", &bridge.url]);
    assert_eq!(out.code(), Some(3), "{out:?}");
    let out = run(&["-H", "Authorization: Bearer s3cret", "ping", &bridge.url]);
    assert_eq!(out.code(), Some(0), "{out:?}");
}

#[test]
fn bridge_stdio_exposes_an_http_server_as_a_stdio_server() {
    let bridge = Bridge::start(&[]);
    for revision in ["2025-11-25", "2026-07-28"] {
        let out = run(&[
            "--protocol-version",
            revision,
            "call",
            "add_note",
            "title=relayed",
            "body=twice",
            "--",
            mcpwire(),
            "bridge",
            "--stdio",
            &bridge.url,
        ]);
        assert_eq!(out.code(), Some(0), "{revision}: {out:?}");
        assert!(out.stdout.contains("Added note"), "{}", out.stdout);
        // The server's log message crossed both bridges.
        assert!(
            out.stderr.contains("[info] notes: added note"),
            "{revision}: {}",
            out.stderr
        );
    }
    let out = run(&[
        "--json",
        "inspect",
        "--",
        mcpwire(),
        "bridge",
        "--stdio",
        &bridge.sse_url(),
    ]);
    assert_eq!(
        out.code(),
        Some(0),
        "the stdio bridge falls back to legacy HTTP+SSE: {out:?}"
    );
    assert_eq!(out.json()["serverInfo"]["name"], "mcpwire-demo");
}

/// Sends one raw HTTP/1.1 request to the bridge and returns the response
/// head and body as text (the connection is closed by the request).
fn raw_request(address: &str, method: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut text = format!("{method} /mcp HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(text.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

/// An `initialize` as a raw client POSTs it to the bridge.
const RAW_INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// The headers of a raw client's POST.
const RAW_POST: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// Issue 17 item 7: `--max-children` caps the server processes running at
/// once; a session past the cap waits until one ends.
#[test]
fn the_bridge_runs_at_most_max_children_servers_at_once() {
    let bridge = Bridge::start(&["--max-children", "1"]);
    let address = bridge.address();
    let (initialize, post) = (RAW_INITIALIZE, RAW_POST);
    let first = raw_request(&address, "POST", &post, initialize);
    let session = first
        .lines()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_owned)
        })
        .unwrap_or_else(|| panic!("no session: {first}"));
    // A second session waits for the only slot.
    let second = {
        let address = address.clone();
        std::thread::spawn(move || raw_request(&address, "POST", &post, initialize))
    };
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !second.is_finished(),
        "a second server ran beside the first"
    );
    let ended = raw_request(
        &address,
        "DELETE",
        &[("mcp-session-id", session.trim())],
        "",
    );
    assert!(ended.starts_with("HTTP/1.1 200"), "{ended}");
    let second = second.join().unwrap();
    assert!(second.starts_with("HTTP/1.1 200"), "{second}");
    drop(bridge);
}

/// A session waits for a server process at most `--slot-wait`: past it
/// the session is given up and its client gets an answer, rather than
/// waiting for as long as the other sessions run.
#[test]
fn a_session_waits_for_a_server_process_at_most_the_slot_wait() {
    let bridge = Bridge::start(&["--max-children", "1", "--slot-wait", "1"]);
    let address = bridge.address();
    let (initialize, post) = (RAW_INITIALIZE, RAW_POST);
    let first = raw_request(&address, "POST", &post, initialize);
    assert!(first.contains("mcp-session-id"), "{first}");
    // The only slot stays taken; the second session gives up after 1 s.
    // 20 s leaves room for a loaded machine, and is far less than forever.
    let second = {
        let address = address.clone();
        std::thread::spawn(move || raw_request(&address, "POST", &post, initialize))
    };
    let started = std::time::Instant::now();
    while !second.is_finished() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the second session still waits"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = second.join().unwrap();
    assert!(!second.contains("serverInfo"), "{second}");
    drop(bridge);
}

/// Issue 17 item 7: a stateless POST of notifications only is answered
/// 202 by the bridge itself, without starting a server process (each
/// process the bridge starts would leave a line in `started`).
#[test]
fn a_notification_post_starts_no_server() {
    let dir = crate::support::temp_dir("bridge-notification");
    let started = dir.join("started");
    let script = format!("echo started >> '{}'; exec cat", started.display());
    let bridge = Bridge::start_command(&[], &["sh", "-c", &script]);
    let address = bridge.address();
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
    ];
    let notification =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    for _ in 0..3 {
        let answer = raw_request(&address, "POST", &headers, notification);
        assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
    }
    // Generous: a process the bridge started would have written within it.
    std::thread::sleep(Duration::from_millis(1000));
    assert!(
        !started.exists(),
        "a server process was started for notifications"
    );
    drop(bridge);
}
