//! The corpus of the `www_authenticate` fuzz target replayed as an
//! ordinary test, through the same check the target runs
//! (`fuzz/checks/`), so that CI keeps every input a fuzzing run found
//! interesting passing on stable.

#[path = "../../fuzz/checks/www_authenticate.rs"]
mod www_authenticate;

/// The corpus of `target`, replayed through `check` (see
/// [`mcpwire_test::corpus::replay`]).
fn replay(target: &str, check: fn(&[u8])) {
    mcpwire_test::corpus::replay(env!("CARGO_MANIFEST_DIR"), target, check);
}

#[test]
fn www_authenticate_corpus_parses_back_what_was_written() {
    replay("www_authenticate", www_authenticate::check);
}
