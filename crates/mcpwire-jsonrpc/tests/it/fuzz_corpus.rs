//! The corpora of the fuzz targets in `fuzz/` replayed as ordinary tests,
//! through the same checks the targets run (`fuzz/checks/`), so that CI
//! keeps every input a fuzzing run found interesting passing on stable.

#[path = "../../fuzz/checks/decode.rs"]
mod decode;
#[path = "../../fuzz/checks/json_read.rs"]
mod json_read;
#[path = "../../fuzz/checks/json_write.rs"]
mod json_write;

/// The corpus of `target`, replayed through `check` (see
/// [`mcpwire_test::corpus::replay`]).
fn replay(target: &str, check: fn(&[u8])) {
    mcpwire_test::corpus::replay(env!("CARGO_MANIFEST_DIR"), target, check);
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
