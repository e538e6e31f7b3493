//! Example MCP servers and clients built on mcpwire's public API; the
//! binaries in `src/bin/` are compiled and run by the tests in `tests/`.
//! The notes server lives in `mcpwire-demo` (the `mcpwire demo` command
//! serves it too) and is re-exported here.

pub use mcpwire_demo::notes;
