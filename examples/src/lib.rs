//! Example MCP servers and clients built on mcpwire's public API; the
//! binaries in `src/bin/` are compiled and run by the tests in `tests/`.

pub mod notes;
