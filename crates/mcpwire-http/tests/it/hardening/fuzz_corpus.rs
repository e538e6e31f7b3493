//! The corpora of the fuzz targets in `fuzz/` replayed as ordinary tests,
//! through the same checks the targets run (`fuzz/checks/`), so that CI
//! keeps every input a fuzzing run found interesting passing on stable.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions: an unreadable corpus is a failed test"
)]

#[path = "../../../fuzz/checks/http_headers.rs"]
mod http_headers;
#[path = "../../../fuzz/checks/sse_decode.rs"]
mod sse_decode;

/// Feeds every file of `fuzz/corpus/{target}` to `check`, the function the
/// fuzz target calls: each must pass its property without panicking.
fn replay(target: &str, check: fn(&[u8])) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut inputs = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            // Named on stderr, which the harness shows when the test fails.
            eprintln!("{}", path.display());
            check(&std::fs::read(&path).unwrap());
            inputs += 1;
        }
    }
    // The corpus is checked in: an empty one would make this test vacuous.
    assert!(inputs > 0, "no corpus in {}", dir.display());
}

#[test]
fn sse_decode_corpus_decodes_the_same_whole_and_chunked() {
    replay("sse_decode", sse_decode::check);
}

#[test]
fn http_headers_corpus_parses_and_round_trips_mcp_headers() {
    replay("http_headers", http_headers::check);
}
