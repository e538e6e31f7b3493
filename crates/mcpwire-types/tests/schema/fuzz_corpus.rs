//! The corpus of the `typed_write` fuzz target replayed as an ordinary
//! test, through the same check the target runs (`fuzz/checks/`), so that
//! CI keeps every input a fuzzing run found interesting passing on stable.

#[path = "../../fuzz/checks/typed_write.rs"]
mod typed_write;

/// The corpus of `target`, replayed through `check` (see
/// [`mcpwire_test::corpus::replay`]).
fn replay(target: &str, check: fn(&[u8])) {
    mcpwire_test::corpus::replay(env!("CARGO_MANIFEST_DIR"), target, check);
}

#[test]
fn typed_write_corpus_writes_serde_json_bytes_for_every_type() {
    replay("typed_write", typed_write::check);
}
