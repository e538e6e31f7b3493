//! The corpora of the fuzz targets in `fuzz/` replayed as ordinary tests,
//! through the same checks the targets run (`fuzz/checks/`), so that CI
//! keeps every input a fuzzing run found interesting passing on stable.

#[path = "../../fuzz/checks/server_tokens.rs"]
mod server_tokens;
#[path = "../../fuzz/checks/uri_template.rs"]
mod uri_template;

/// The corpus of `target`, replayed through `check` (see
/// [`mcpwire_test::corpus::replay`]).
fn replay(target: &str, check: fn(&[u8])) {
    mcpwire_test::corpus::replay(env!("CARGO_MANIFEST_DIR"), target, check);
}

#[test]
fn server_tokens_corpus_opens_only_what_the_server_issued() {
    replay("server_tokens", server_tokens::check);
}

#[test]
fn uri_template_corpus_matches_its_own_expansions() {
    replay("uri_template", uri_template::check);
}
