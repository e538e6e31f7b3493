//! Fuzz target: `uri_template` (the property is in `checks/uri_template.rs`).

#![no_main]

#[path = "../checks/uri_template.rs"]
mod uri_template;

libfuzzer_sys::fuzz_target!(|data: &[u8]| uri_template::check(data));
