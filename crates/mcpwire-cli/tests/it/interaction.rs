//! Server requests that need a person (sampling, elicitation) are refused
//! with a clear error when stdin is not a terminal, in both eras: as
//! server-to-client requests (handshake revisions) and as input requests
//! of a multi round-trip call (2026-07-28).

use crate::support::{run, with_demo};

#[test]
fn elicitation_is_refused_without_a_terminal_in_every_era() {
    for revision in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let out = run(&with_demo(&[
            "--protocol-version",
            revision,
            "call",
            "ask_name",
        ]));
        assert_eq!(out.code(), Some(3), "{revision}: {out:?}");
        assert!(
            out.stderr
                .contains("stdin is not a terminal so the user cannot be asked"),
            "{revision}: {}",
            out.stderr
        );
        assert!(out.stderr.contains("elicitation/create"), "{}", out.stderr);
    }
}

#[test]
fn sampling_is_refused_without_a_terminal_in_every_era() {
    for revision in ["2025-06-18", "2026-07-28"] {
        let out = run(&with_demo(&[
            "--protocol-version",
            revision,
            "call",
            "summarize",
            "text=long",
        ]));
        assert_eq!(out.code(), Some(3), "{revision}: {out:?}");
        assert!(
            out.stderr.contains("sampling/createMessage") && out.stderr.contains("not a terminal"),
            "{revision}: {}",
            out.stderr
        );
    }
}

/// Runs `mcpwire ARGS -- mcpwire serve-demo` on a terminal, typing `input`.
fn on_terminal(args: &[&str], input: &str) -> Option<(Option<i32>, String)> {
    crate::support::on_terminal(&with_demo(args), input)
}

#[test]
fn elicitation_form_fields_are_asked_on_a_terminal() {
    let Some((code, screen)) = on_terminal(&["call", "ask_name"], "y\nAlice\n") else {
        return;
    };
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains("The server asks: What is your name?"),
        "{screen}"
    );
    assert!(screen.contains("Your name (string): "), "{screen}");
    assert!(screen.contains("Hello, Alice!"), "{screen}");

    let Some((code, screen)) = on_terminal(&["call", "ask_name"], "n\n") else {
        return;
    };
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains("Hello, stranger."),
        "a declined form: {screen}"
    );
}

#[test]
fn sampling_is_answered_by_the_user_on_a_terminal() {
    let args = [
        "--protocol-version",
        "2025-11-25",
        "call",
        "summarize",
        "text=hello",
    ];
    let Some((code, screen)) = on_terminal(&args, "a short summary\n") else {
        return;
    };
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("user: Summarize: hello"), "{screen}");
    assert!(screen.contains("Summary: a short summary"), "{screen}");
}
