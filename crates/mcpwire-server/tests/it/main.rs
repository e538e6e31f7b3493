//! Integration tests of the server runtime: its building blocks (cursors,
//! schemas, URI templates), and whole servers driven by the client runtime
//! or by scripted peers (one test binary, a module per concern).

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    reason = "test fixtures: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

mod blocks_cursor;
mod blocks_schema;
mod blocks_uri_template;
mod client_tasks;
mod fuzz_corpus;
mod runtime_byte_bounds;
mod runtime_change_feed;
mod runtime_changes;
mod runtime_client_features;
mod runtime_handlers;
mod runtime_inline;
mod runtime_input;
mod runtime_lifecycle;
mod runtime_listen;
mod runtime_prompts;
mod runtime_quiet;
mod runtime_resources;
mod runtime_task_binding;
mod runtime_tasks;
mod runtime_tools;
mod schema_differential;
mod support;
