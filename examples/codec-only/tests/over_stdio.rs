//! The codec-only example run as a real child process over pipes: each kind
//! of line is classified and answered as JSON-RPC 2.0 says, byte for byte.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Generous: the program answers in microseconds; a loaded CI machine with
/// two cores shared by several builds can still take seconds to start it.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs the example with `input` on stdin (then closed).
fn run(input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_codec-only"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let pid = child.id();
    let (done, wait) = mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    match wait.recv_timeout(DEADLINE) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("codec-only did not exit within {DEADLINE:?} after its stdin closed");
        }
    }
}

/// Each case: lines sent, lines expected back (exactly).
const CASES: &[(&str, &[&str], &[&str])] = &[
    (
        "params are echoed as the very text that came",
        &[r#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"b": [1, 2.50],"a":"\u00e9"}}"#],
        &[r#"{"jsonrpc":"2.0","id":1,"result":{"b": [1, 2.50],"a":"\u00e9"}}"#],
    ),
    (
        "a string id is kept",
        &[r#"{"jsonrpc":"2.0","id":"x-1","method":"sum","params":[1,2.5]}"#],
        &[r#"{"jsonrpc":"2.0","id":"x-1","result":3.5}"#],
    ),
    (
        "bad params are -32602",
        &[r#"{"jsonrpc":"2.0","id":2,"method":"sum","params":{"a":1}}"#],
        &[
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"sum takes an array of numbers: invalid type: map, expected a sequence at line 1 column 0"}}"#,
        ],
    ),
    (
        "an unknown method is -32601",
        &[r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#],
        &[r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: nope"}}"#],
    ),
    (
        "notifications and answers are never answered",
        &[
            r#"{"jsonrpc":"2.0","method":"log","params":["hello"]}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"no"}}"#,
        ],
        &[],
    ),
    (
        "text that is not JSON is -32700 with a null id",
        &["{not json"],
        &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid JSON: expected a member name at byte 1"}}"#,
        ],
    ),
    (
        "JSON that is not a message is -32600 with its id when readable",
        &[r#"{"jsonrpc":"1.0","id":6,"method":"echo"}"#],
        &[
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"\"jsonrpc\" must be \"2.0\", found \"1.0\""}}"#,
        ],
    ),
    (
        "a malformed answer is not answered",
        &[r#"{"jsonrpc":"2.0","id":7,"result":1,"error":{"code":1,"message":"x"}}"#],
        &[],
    ),
    (
        "a batch is answered by an array of its requests' answers, in order",
        &[
            r#"[{"jsonrpc":"2.0","id":8,"method":"sum","params":[1]},{"jsonrpc":"2.0","method":"log"},{"jsonrpc":"2.0","id":9,"method":"nope"},{"bad":true}]"#,
        ],
        &[
            r#"[{"jsonrpc":"2.0","id":8,"result":1.0},{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"method not found: nope"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"missing member \"jsonrpc\""}}]"#,
        ],
    ),
    (
        "a batch of notifications gets no answer at all",
        &[r#"[{"jsonrpc":"2.0","method":"log"},{"jsonrpc":"2.0","method":"log"}]"#],
        &[],
    ),
    (
        "an empty batch is one -32600",
        &["[]"],
        &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a batch must not be empty"}}"#,
        ],
    ),
    (
        "blank lines are skipped and CRLF is accepted",
        &[
            "",
            "  ",
            "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"echo\"}\r",
        ],
        &[r#"{"jsonrpc":"2.0","id":10,"result":null}"#],
    ),
];

#[test]
fn each_kind_of_line_is_classified_and_answered_exactly() {
    for (what, sent, expected) in CASES {
        let input: String = sent.iter().map(|line| format!("{line}\n")).collect();
        let output = run(&input);
        assert!(output.status.success(), "{what}: {output:?}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        let answers: Vec<&str> = stdout.lines().collect();
        assert_eq!(answers, *expected, "{what}");
    }
}

#[test]
fn a_log_notification_goes_to_stderr_and_never_to_stdout() {
    let output = run("{\"jsonrpc\":\"2.0\",\"method\":\"log\",\"params\":[\"hello\"]}\n");
    assert!(output.status.success(), "{output:?}");
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "log: [\"hello\"]\n"
    );
}

#[test]
fn a_last_line_without_a_newline_is_still_answered() {
    let output = run(r#"{"jsonrpc":"2.0","id":11,"method":"sum","params":[]}"#);
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":0.0}\n"
    );
}
