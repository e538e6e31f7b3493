//! The property of the `sse_decode` fuzz target, shared with the test that
//! replays its corpus (`tests/hardening/fuzz_corpus.rs`).
//!
//! Arbitrary bytes through the SSE decoder, whole and in chunks. Beyond
//! "never panics":
//! * the decoder yields the same events (and errors), the same last event id
//!   and the same retry whether the body arrives at once or in chunks whose
//!   sizes come from the input's own bytes (so a split CRLF or BOM can never
//!   change what a server sent);
//! * no event's data exceeds three times the decoder's limit: the limit
//!   counts bytes on the wire, and each invalid UTF-8 byte becomes a
//!   three-byte replacement character (found by this target).

use mcpwire_http::sse::Decoder;

/// What a decoder made of a stream.
type Decoded = (Vec<String>, String, Option<std::time::Duration>);

fn decode(data: &[u8], limit: usize, chunk: impl Fn(usize) -> usize) -> Decoded {
    let mut decoder = Decoder::with_max_event_size(limit);
    let mut seen = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let end = (at + chunk(at)).min(data.len());
        decoder.feed(&data[at..end]);
        at = end;
        while let Some(outcome) = decoder.next_event() {
            seen.push(match outcome {
                Ok(event) => {
                    assert!(event.data.len() <= 3 * limit, "an event beyond the limit");
                    format!("{event:?}")
                }
                Err(error) => format!("error {error}"),
            });
        }
    }
    decoder.finish();
    while let Some(outcome) = decoder.next_event() {
        seen.push(format!("{outcome:?}"));
    }
    (seen, decoder.last_event_id().to_owned(), decoder.retry())
}

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    for limit in [4 * 1024 * 1024, 16] {
        let whole = decode(data, limit, |_| data.len().max(1));
        let chunked = decode(data, limit, |at| 1 + usize::from(data[at] % 7));
        assert_eq!(whole, chunked);
    }
}
