//! Fuzz target: arbitrary bytes through the SSE decoder, whole and in
//! chunks (the property is in `checks/sse_decode.rs`).

#![no_main]

#[path = "../checks/sse_decode.rs"]
mod sse_decode;

libfuzzer_sys::fuzz_target!(|data: &[u8]| sse_decode::check(data));
