//! Fuzz target: arbitrary bytes through classification and the line codec,
//! in arbitrary chunks (the property is in `checks/decode.rs`).

#![no_main]

#[path = "../checks/decode.rs"]
mod decode;

libfuzzer_sys::fuzz_target!(|data: &[u8]| decode::check(data));
