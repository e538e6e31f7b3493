//! Conformance fixtures for mcpwire: the everything-server and the
//! everything-client that the official MCP conformance runner tests, and
//! hermetic wire transcripts per revision.
//!
//! Two tiers check mcpwire against the protocol (see `DESIGN.md`, "Two
//! conformance tiers"):
//!
//! 1. **Transcripts** (`cargo test -p conformance`, no Node): each file
//!    under `transcripts/<revision>/` is a wire conversation with the
//!    [`everything`] server over an in-memory transport, written as
//!    `>` lines (sent) and `<` lines (expected back); [`transcript`] parses
//!    and replays them.
//! 2. **The official runner** (`cargo xtask conformance`), which starts the
//!    `everything-server` binary over HTTP ([`http`]) and runs the npm
//!    package `@modelcontextprotocol/conformance` against it, then runs
//!    each client scenario against the `everything-client` binary
//!    ([`client`]), judged against a strict baseline of expected failures.
//!
//! Both are built only from the public API of `mcpwire-server`,
//! `mcpwire-client`, `mcpwire-types` and the transports, like any user's
//! code: what they cannot express is a gap in that API, not something to
//! work around here.

pub mod client;
pub mod everything;
pub mod http;
pub mod scale_out;
pub mod transcript;
