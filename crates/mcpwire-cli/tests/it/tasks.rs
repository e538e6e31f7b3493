//! The task commands (2025-11-25) against the demo server over stdio:
//! `call --task` to the end, Ctrl-C cancelling a running task, and
//! `tasks` on a server that has none of ours.

use std::time::{Duration, Instant};

use crate::support::{finish, interrupt, run, start, with_demo};

#[test]
fn call_as_task_prints_the_task_id_then_the_tools_result() {
    let out = run(&with_demo(&["call", "--task", "countdown", "seconds=1"]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stdout.contains("Liftoff."), "{out:?}");
    let first = out.stderr.lines().find(|l| l.starts_with("task ")).unwrap();
    assert!(first.ends_with(" working"), "{out:?}");
    assert!(out.stderr.contains(" completed"), "{out:?}");
}

#[test]
fn call_as_task_json_prints_the_result_as_call_does() {
    let out = run(&with_demo(&[
        "--json",
        "call",
        "--task",
        "countdown",
        "seconds=0",
    ]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.json()["content"][0]["text"], "Liftoff.", "{out:?}");
}

/// TASK-41 and the cancellation of a task: Ctrl-C sends `tasks/cancel`
/// and the server reports the task `cancelled`.
#[test]
fn interrupting_a_running_task_cancels_it_on_the_server() {
    let mut child = start(&with_demo(&["call", "--task", "countdown", "seconds=30"]));
    let started = Instant::now();
    // Give the handshake and the task's creation time to happen first.
    std::thread::sleep(Duration::from_secs(3));
    interrupt(&child);
    let out = finish(&mut child);
    assert_eq!(out.code(), Some(130), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(20), "{out:?}");
    let last = out.stderr.lines().rfind(|l| l.starts_with("task "));
    assert!(last.is_some_and(|l| l.contains(" cancelled")), "{out:?}");
    assert!(!out.stdout.contains("Liftoff."), "{out:?}");
}

#[test]
fn tasks_list_of_a_fresh_server_is_empty_and_an_unknown_task_is_an_error() {
    let out = run(&with_demo(&["--json", "tasks", "list"]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.json()["tasks"], serde_json::json!([]), "{out:?}");
    // TASK: an unknown task id is -32602, a protocol error (exit 3).
    let out = run(&with_demo(&["tasks", "get", "no-such-task"]));
    assert_eq!(out.code(), Some(3), "{out:?}");
    let out = run(&with_demo(&["tasks", "cancel", "no-such-task"]));
    assert_eq!(out.code(), Some(3), "{out:?}");
}

#[test]
fn the_demo_server_offers_tasks_in_2025_11_25_and_the_countdown_may_run_as_one() {
    let out = run(&with_demo(&[
        "--protocol-version",
        "2025-11-25",
        "--json",
        "inspect",
    ]));
    assert_eq!(out.code(), Some(0), "{out:?}");
    let report = out.json();
    assert!(
        report["capabilities"]["tasks"]["requests"]["tools"]["call"].is_object(),
        "{report}"
    );
    let countdown = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "countdown")
        .cloned()
        .unwrap();
    assert_eq!(
        countdown["execution"]["taskSupport"], "optional",
        "{countdown}"
    );
}

#[test]
fn task_commands_refuse_a_revision_without_tasks() {
    let out = run(&with_demo(&[
        "--protocol-version",
        "2025-06-18",
        "tasks",
        "list",
    ]));
    assert_eq!(out.code(), Some(2), "{out:?}");
    assert!(out.stderr.contains("2025-11-25"), "{out:?}");
}
