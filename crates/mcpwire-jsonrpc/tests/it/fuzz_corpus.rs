//! The corpora of the fuzz targets in `fuzz/` replayed as ordinary tests,
//! through the same checks the targets run (`fuzz/checks/`), so that CI
//! keeps every input a fuzzing run found interesting passing on stable.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions: an unreadable corpus is a failed test"
)]

#[path = "../../fuzz/checks/decode.rs"]
mod decode;
#[path = "../../fuzz/checks/json_read.rs"]
mod json_read;
#[path = "../../fuzz/checks/json_write.rs"]
mod json_write;

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
fn decode_corpus_classifies_and_frames_like_serde_json() {
    replay("decode", decode::check);
}

#[test]
fn json_read_corpus_reads_the_values_serde_json_reads() {
    replay("json_read", json_read::check);
}

#[test]
fn json_write_corpus_writes_serde_json_bytes() {
    replay("json_write", json_write::check);
}
