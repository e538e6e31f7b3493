//! Fuzz target: `server_tokens` (the property is in `checks/server_tokens.rs`).

#![no_main]

#[path = "../checks/server_tokens.rs"]
mod server_tokens;

libfuzzer_sys::fuzz_target!(|data: &[u8]| server_tokens::check(data));
