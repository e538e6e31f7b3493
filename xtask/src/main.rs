//! Project automation entry point: `cargo xtask <command>`.
fn main() {}
