//! Fuzz target: `WWW-Authenticate` parsing by the OAuth client (the
//! property is in `checks/www_authenticate.rs`).

#![no_main]

#[path = "../checks/www_authenticate.rs"]
mod www_authenticate;

libfuzzer_sys::fuzz_target!(|data: &[u8]| www_authenticate::check(data));
