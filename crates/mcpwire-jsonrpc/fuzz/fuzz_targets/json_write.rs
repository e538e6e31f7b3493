//! Fuzz target: `json_write`, differential against serde_json (the property is in
//! `checks/json_write.rs`).

#![no_main]

#[path = "../checks/json_write.rs"]
mod json_write;

libfuzzer_sys::fuzz_target!(|data: &[u8]| json_write::check(data));
