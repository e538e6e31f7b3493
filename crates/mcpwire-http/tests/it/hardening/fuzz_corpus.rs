//! The corpora of the fuzz targets in `fuzz/` replayed as ordinary tests,
//! through the same checks the targets run (`fuzz/checks/`), so that CI
//! keeps every input a fuzzing run found interesting passing on stable.

#[path = "../../../fuzz/checks/http_headers.rs"]
mod http_headers;
#[path = "../../../fuzz/checks/sse_decode.rs"]
mod sse_decode;

/// The corpus of `target`, replayed through `check` (see
/// [`mcpwire_test::corpus::replay`]).
fn replay(target: &str, check: fn(&[u8])) {
    mcpwire_test::corpus::replay(env!("CARGO_MANIFEST_DIR"), target, check);
}

#[test]
fn sse_decode_corpus_decodes_the_same_whole_and_chunked() {
    replay("sse_decode", sse_decode::check);
}

#[test]
fn http_headers_corpus_parses_and_round_trips_mcp_headers() {
    replay("http_headers", http_headers::check);
}
