//! Fuzz target: `json_read`, differential against serde_json (the property is in
//! `checks/json_read.rs`).

#![no_main]

#[path = "../checks/json_read.rs"]
mod json_read;

libfuzzer_sys::fuzz_target!(|data: &[u8]| json_read::check(data));
