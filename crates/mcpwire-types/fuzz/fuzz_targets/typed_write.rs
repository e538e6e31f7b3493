//! Fuzz target: `typed_write`, the JSON writer against serde_json on every
//! MCP type (the property is in `checks/typed_write.rs`).

#![no_main]

#[path = "../checks/typed_write.rs"]
mod typed_write;

libfuzzer_sys::fuzz_target!(|data: &[u8]| typed_write::check(data));
