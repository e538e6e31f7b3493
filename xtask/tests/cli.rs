//! Command-line behaviour of `cargo xtask`: bad input fails with a helpful message.

use std::process::{Command, Output};

/// Runs the built xtask binary with `args`.
fn xtask(args: &[&str]) -> std::io::Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
}

#[test]
fn an_unknown_benchmark_fails_listing_the_known_ones() {
    let output = xtask(&["bench", "no-such-bench"]).unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("unknown benchmark \"no-such-bench\""),
        "{stderr}"
    );
    assert!(stderr.contains("codec"), "{stderr}");
}

#[test]
fn tidy_and_ci_reject_arguments_instead_of_ignoring_them() {
    for command in ["tidy", "ci"] {
        let output = xtask(&[command, "--unexpected"]).unwrap();
        assert!(!output.status.success(), "{command}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains("--unexpected"), "{command}: {stderr}");
    }
}
