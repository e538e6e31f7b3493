//! Conformance and lint checks for anyone's MCP server: the engine of
//! `mcpwire check`, callable from a test suite too.
//!
//! ```no_run
//! # async fn example() {
//! use mcpwire_check::{Options, Target, run};
//!
//! let target = Target::Command { program: "my-server".into(), args: vec![] };
//! let report = run(&target, &Options::default()).await;
//! assert_eq!(report.failures(), 0, "{}", report.to_text());
//! # }
//! ```
//!
//! For every handshake revision (and one the server cannot know) a fresh
//! connection negotiates with `initialize`; for 2026-07-28 requests carry
//! their revision in `_meta` after `server/discover`. Each connection then
//! pings, lists every page of tools, resources, resource templates and
//! prompts against the official schema of that revision, compiles every
//! `inputSchema` and `outputSchema`, asks for completions (at most 100
//! values), checks every notification received, and the error codes of an
//! unknown method, bad params, an unknown tool and an invalid cursor. Over
//! stdio it also checks that the server exits when its stdin closes; over
//! HTTP, at every session revision: 202 for a notification, the
//! protocol-version header (bad: 400; absent: served), a foreign `Origin`
//! and `Host`, session ids and 404 after DELETE (at 2026-07-28, which has
//! no sessions: a foreign `Origin`, and a missing or mismatched `Mcp-Method`
//! header, 400 with `HeaderMismatch`); over the legacy HTTP+SSE
//! transport, a foreign `Origin`. With [`Options::with_call_tools`], one
//! more connection calls every tool with arguments synthesized from its
//! input schema and checks the results, `structuredContent`, progress and
//! cancellation. [`official`] runs the official conformance runner's
//! generic scenarios. Each finding names a rule of the spec's
//! `REQUIREMENTS.md`, what was sent, what came back, and a fix.

mod checks;
pub mod official;
mod probe;
mod report;
mod schema;
mod synth;

use std::time::Duration;

pub use report::{Finding, Level, Passed, Report};

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The server to check.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// A stdio server, started once per connection.
    Command {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A Streamable HTTP endpoint, or a legacy HTTP+SSE endpoint (its
    /// event stream), told apart as every CLI command does.
    Url(String),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Command { program, args } if args.is_empty() => write!(f, "{program}"),
            Self::Command { program, args } => write!(f, "{program} {}", args.join(" ")),
            Self::Url(url) => write!(f, "{url}"),
        }
    }
}

/// What to check and how patiently.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Check only this revision (`None`: every revision).
    pub revision: Option<mcpwire_types::ProtocolVersion>,
    /// How long one answer may take.
    pub timeout: Duration,
    /// The most pages of one listing that are read.
    pub max_pages: usize,
    /// Call every tool with arguments synthesized from its input schema
    /// (tools may have side effects: off unless asked for).
    pub call_tools: bool,
    /// Headers sent with every HTTP request (see [`Options::with_header`]).
    pub headers: http::HeaderMap,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            revision: None,
            timeout: Duration::from_secs(10),
            max_pages: 100,
            call_tools: false,
            headers: http::HeaderMap::new(),
        }
    }
}

impl Options {
    /// Checks only `revision`.
    pub fn with_revision(mut self, revision: mcpwire_types::ProtocolVersion) -> Self {
        self.revision = Some(revision);
        self
    }

    /// Calls every tool (`true`) with arguments synthesized from its input
    /// schema, checking results, `structuredContent`, progress and
    /// cancellation; tools may have side effects.
    pub fn with_call_tools(mut self, call_tools: bool) -> Self {
        self.call_tools = call_tools;
        self
    }

    /// Sends `name: value` with every HTTP request, as a server behind a
    /// gateway or a static token needs (`Authorization: Bearer ...`). A
    /// check that sets a header itself (a foreign `Origin`, a bad protocol
    /// version) sends its own value instead. The official runner
    /// ([`official`]) cannot send extra headers.
    pub fn with_header(mut self, name: http::HeaderName, value: http::HeaderValue) -> Self {
        self.headers.append(name, value);
        self
    }

    /// Waits at most `timeout` for each answer.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// Checks `target` and reports what it found. Needs a tokio runtime with
/// I/O and time enabled.
pub async fn run(target: &Target, options: &Options) -> Report {
    checks::run(target, options).await
}
