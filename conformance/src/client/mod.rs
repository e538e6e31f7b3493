//! The everything-client: what each client scenario of the official
//! conformance runner expects a client to do, built only on the public API
//! of `mcpwire-client`, the HTTP transports and `mcpwire-auth`'s OAuth client.
//!
//! The runner starts `everything-client <server URL>` once per scenario,
//! naming the scenario in `MCP_CONFORMANCE_SCENARIO`, the protocol revision
//! it resolved in `MCP_CONFORMANCE_PROTOCOL_VERSION` (runner 0.2 on) and any
//! scenario data as JSON in `MCP_CONFORMANCE_CONTEXT`. [`Invocation`] reads
//! those, [`Scenario`] names what to do, and [`run`] does it: connect, make
//! the calls the scenario's mock server watches for, close.
//!
//! A scenario mcpwire could not play would fail at once with
//! [`ScenarioError::Unsupported`], naming what is missing; today every
//! scenario of the runner is played.

pub mod auth;
pub mod elicitation;
mod scenarios;

use std::fmt;

use mcpwire_client::{Client, ClientConfig, ClientError};
use mcpwire_http::client::{ClientOptions, StreamableHttpClient};
use mcpwire_http_legacy::auto::{AutoOptions, connect_auto};
use mcpwire_types::{ClientCapabilities, ElicitationCapability, Implementation, ProtocolVersion};
use serde_json::{Map, Value};

use elicitation::AcceptDefaults;

/// The environment variable naming the scenario.
pub const SCENARIO_VAR: &str = "MCP_CONFORMANCE_SCENARIO";
/// The environment variable naming the protocol revision to speak.
pub const VERSION_VAR: &str = "MCP_CONFORMANCE_PROTOCOL_VERSION";
/// The environment variable holding the scenario's data (a JSON object).
pub const CONTEXT_VAR: &str = "MCP_CONFORMANCE_CONTEXT";

/// The client's name in `clientInfo`.
pub const CLIENT_NAME: &str = "mcpwire-everything-client";

/// What the client does in one run, by the runner's scenario name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scenario {
    /// `initialize`: connect and list tools.
    Initialize,
    /// `tools_call`: call `add_numbers`.
    ToolsCall,
    /// `elicitation-sep1034-client-defaults`: accept an elicitation with
    /// every default applied.
    ElicitationDefaults,
    /// `sse-retry`: survive a POST stream that ends before its response,
    /// resuming it after the server's `retry` delay.
    SseRetry,
    /// `request-metadata`: 2026-07-28 requests with their `_meta`, after a
    /// refused first request.
    RequestMetadata,
    /// `sep-2322-client-request-state`: multi round-trip tool calls.
    RequestState,
    /// `http-standard-headers`: `Mcp-Method` and `Mcp-Name` on every request.
    StandardHeaders,
    /// `http-custom-headers`: `Mcp-Param-*` headers from `x-mcp-header`.
    CustomHeaders,
    /// `http-invalid-tool-headers`: tools with invalid annotations are
    /// never called.
    InvalidToolHeaders,
    /// `json-schema-ref-no-deref`: list tools without fetching remote `$ref`.
    RefNoDeref,
    /// `json-schema-2020-12-preservation`: echo a tool's schema as held.
    SchemaPreservation,
    /// `auth/*`: an OAuth client authorizes the connection (discovery,
    /// registration, the grant the scenario calls for), then lists tools
    /// and calls `test-tool`.
    Authorization,
    /// `sep-2640-client-no-prefetch`: list skills and read no file.
    SkillsList,
    /// `sep-2640-client-verify-*`: list skills, load the first one
    /// (verified), then read its supporting files only if it loaded.
    SkillsLoad,
    /// A scenario that needs something mcpwire lacks; the reason says what.
    Unsupported(&'static str),
}

/// The scenarios this client plays, by the runner's names.
const PLAYED: &[(&str, Scenario)] = &[
    ("initialize", Scenario::Initialize),
    ("tools_call", Scenario::ToolsCall),
    (
        "elicitation-sep1034-client-defaults",
        Scenario::ElicitationDefaults,
    ),
    ("sse-retry", Scenario::SseRetry),
    ("request-metadata", Scenario::RequestMetadata),
    ("sep-2322-client-request-state", Scenario::RequestState),
    ("http-standard-headers", Scenario::StandardHeaders),
    ("http-custom-headers", Scenario::CustomHeaders),
    ("http-invalid-tool-headers", Scenario::InvalidToolHeaders),
    ("json-schema-ref-no-deref", Scenario::RefNoDeref),
    (
        "json-schema-2020-12-preservation",
        Scenario::SchemaPreservation,
    ),
    ("sep-2640-client-no-prefetch", Scenario::SkillsList),
];

impl Scenario {
    /// The scenario the runner calls `name`, or `None` for a name this
    /// client does not know.
    pub fn from_name(name: &str) -> Option<Self> {
        if let Some((_, scenario)) = PLAYED.iter().find(|(known, _)| *known == name) {
            return Some(*scenario);
        }
        if name.starts_with("auth/") {
            return Some(Self::Authorization);
        }
        if name.starts_with("sep-2640-client-verify-") {
            return Some(Self::SkillsLoad);
        }
        None
    }
}

/// One run of the client, as the runner asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// The scenario's name, as given.
    pub name: String,
    /// What to do.
    pub scenario: Scenario,
    /// The MCP endpoint of the scenario's server.
    pub url: String,
    /// The revision to speak (`None`: negotiate freely).
    pub version: Option<ProtocolVersion>,
    /// The scenario's data (an empty object when none was given).
    pub context: Map<String, Value>,
}

impl Invocation {
    /// Reads an invocation from the command-line arguments (the URL is the
    /// last one) and the values of [`SCENARIO_VAR`], [`VERSION_VAR`] and
    /// [`CONTEXT_VAR`].
    ///
    /// # Errors
    ///
    /// A missing URL or scenario, an unknown scenario or revision, or a
    /// context that is not a JSON object.
    pub fn read(
        args: &[String],
        scenario: Option<String>,
        version: Option<String>,
        context: Option<String>,
    ) -> Result<Self, String> {
        let url = args
            .last()
            .filter(|url| url.starts_with("http://") || url.starts_with("https://"))
            .ok_or("the last argument must be the server's http(s) URL")?
            .clone();
        let name = scenario
            .filter(|name| !name.is_empty())
            .ok_or_else(|| format!("{SCENARIO_VAR} is not set"))?;
        let scenario = Scenario::from_name(&name)
            .ok_or_else(|| format!("unknown scenario {name:?} ({SCENARIO_VAR})"))?;
        let version = version
            .filter(|version| !version.is_empty())
            .map(|version| {
                ProtocolVersion::parse(&version).map_err(|error| format!("{VERSION_VAR}: {error}"))
            })
            .transpose()?;
        let context = match context.filter(|text| !text.trim().is_empty()) {
            None => Map::new(),
            Some(text) => match serde_json::from_str(&text) {
                Ok(Value::Object(object)) => object,
                Ok(_) => return Err(format!("{CONTEXT_VAR} is not a JSON object")),
                Err(error) => return Err(format!("{CONTEXT_VAR} is not JSON: {error}")),
            },
        };
        Ok(Self {
            name,
            scenario,
            url,
            version,
            context,
        })
    }
}

/// Why a scenario run failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The scenario needs something mcpwire does not offer yet.
    Unsupported(&'static str),
    /// The transport could not be built from the URL.
    Transport(String),
    /// Connecting failed.
    Connect(mcpwire_client::ConnectError),
    /// A call failed.
    Call {
        /// What was being done.
        step: String,
        /// Why it failed.
        error: ClientError,
    },
    /// The server's answers were not what the scenario expects.
    Unexpected(String),
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported(reason) => write!(f, "not supported: {reason}"),
            Self::Transport(reason) => write!(f, "cannot build the transport: {reason}"),
            Self::Connect(error) => write!(f, "{error}"),
            Self::Call { step, error } => write!(f, "{step}: {error}"),
            Self::Unexpected(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// The configuration for `version`: a 2026-07-28 client is pinned to it; a
/// handshake-era client asks for `version` in `initialize` and accepts any
/// older handshake revision the server answers with (the `sse-retry` mock
/// answers 2025-03-26 whatever it is asked).
pub fn config(version: Option<ProtocolVersion>) -> ClientConfig {
    let elicitation = ElicitationCapability {
        form: Some(Map::new()),
        ..ElicitationCapability::default()
    };
    let capabilities = ClientCapabilities {
        elicitation: Some(elicitation),
        ..ClientCapabilities::default()
    };
    let info = Implementation::new(CLIENT_NAME, env!("CARGO_PKG_VERSION"));
    let mut config = ClientConfig::new(info, capabilities);
    match version {
        Some(version) if version.is_stateless() => config = config.pinned(version),
        Some(version) => {
            config.versions = ProtocolVersion::ALL
                .into_iter()
                .filter(|candidate| candidate.has_handshake() && *candidate <= version)
                .collect();
        }
        None => {}
    }
    config
}

/// Connects to the scenario's server: Streamable HTTP for any revision
/// that has it, or the transport that falls back to HTTP+SSE when the
/// revision is 2024-11-05 or not given.
async fn connect(invocation: &Invocation) -> Result<Client, ScenarioError> {
    let mut config = config(invocation.version);
    if matches!(
        invocation.scenario,
        Scenario::SkillsList | Scenario::SkillsLoad
    ) {
        config = mcpwire_client::with_skills_extension(config);
    }
    let builder = Client::builder(config).handler(AcceptDefaults);
    let mut options = transport_options(invocation.scenario);
    if invocation.scenario == Scenario::Authorization {
        options = options.authorizer(auth::authorizer(invocation)?);
    }
    let streamable = invocation
        .version
        .is_some_and(|version| version > ProtocolVersion::V2024_11_05);
    let connected = if streamable {
        let transport = StreamableHttpClient::with_options(&invocation.url, options)
            .map_err(|error| ScenarioError::Transport(error.to_string()))?;
        builder.connect(transport).await
    } else {
        let options = AutoOptions::new().streamable(options);
        let transport = connect_auto(&invocation.url, options)
            .map_err(|error| ScenarioError::Transport(error.to_string()))?;
        builder.connect(transport).await
    };
    connected.map_err(ScenarioError::Connect)
}

/// The Streamable HTTP options for `scenario`: the defaults, except that
/// `sse-retry` opens no standalone GET stream. Its mock delivers a pending
/// call's result on whatever GET arrives while the call is open, so a
/// standalone stream opened just after the handshake races the resumption
/// the scenario measures (the GET with `Last-Event-ID` after `retry`).
fn transport_options(scenario: Scenario) -> ClientOptions {
    let options = ClientOptions::default();
    match scenario {
        Scenario::SseRetry => options.open_get_stream(false),
        _ => options,
    }
}

/// Plays `invocation`'s scenario against its server, closing the
/// connection afterwards whatever happened.
///
/// # Errors
///
/// An unsupported scenario, a failed connection or call, or answers the
/// scenario does not expect.
pub async fn run(invocation: &Invocation) -> Result<(), ScenarioError> {
    if let Scenario::Unsupported(reason) = invocation.scenario {
        return Err(ScenarioError::Unsupported(reason));
    }
    let client = connect(invocation).await?;
    tracing::info!(
        scenario = invocation.name.as_str(),
        version = %client.server().version,
        "connected"
    );
    let outcome = scenarios::play(&client, invocation).await;
    client.close().await;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(
        args: &[&str],
        scenario: Option<&str>,
        version: Option<&str>,
        context: Option<&str>,
    ) -> Result<Invocation, String> {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        Invocation::read(
            &args,
            scenario.map(str::to_owned),
            version.map(str::to_owned),
            context.map(str::to_owned),
        )
    }

    #[test]
    fn the_url_is_the_last_argument_and_the_rest_comes_from_the_environment() {
        let invocation = read(
            &["--verbose", "http://localhost:4000/mcp"],
            Some("http-custom-headers"),
            Some("2026-07-28"),
            Some(r#"{"name": "http-custom-headers", "toolCalls": []}"#),
        )
        .unwrap();
        assert_eq!(invocation.url, "http://localhost:4000/mcp");
        assert_eq!(invocation.scenario, Scenario::CustomHeaders);
        assert_eq!(invocation.version, Some(ProtocolVersion::V2026_07_28));
        assert_eq!(invocation.context["toolCalls"], Value::Array(Vec::new()));
        let bare = read(&["http://localhost:4000"], Some("initialize"), None, None).unwrap();
        assert_eq!(bare.version, None);
        assert!(bare.context.is_empty());
    }

    #[test]
    fn bad_invocations_say_what_is_wrong() {
        for (args, scenario, version, context, needle) in [
            (&[][..], Some("initialize"), None, None, "URL"),
            (&["localhost:1"][..], Some("initialize"), None, None, "URL"),
            (&["http://h"][..], None, None, None, SCENARIO_VAR),
            (
                &["http://h"][..],
                Some("nonsense"),
                None,
                None,
                "unknown scenario",
            ),
            (
                &["http://h"][..],
                Some("initialize"),
                Some("2099-01-01"),
                None,
                VERSION_VAR,
            ),
            (
                &["http://h"][..],
                Some("initialize"),
                None,
                Some("[1]"),
                "not a JSON object",
            ),
            (
                &["http://h"][..],
                Some("initialize"),
                None,
                Some("{"),
                "not JSON",
            ),
        ] {
            let error = read(args, scenario, version, context).unwrap_err();
            assert!(error.contains(needle), "{args:?} {scenario:?}: {error}");
        }
    }

    #[test]
    fn auth_scenarios_are_authorized_and_the_unsupported_name_their_issue() {
        for name in [
            "auth/metadata-default",
            "auth/dpop",
            "auth/some-future-scenario",
        ] {
            assert_eq!(Scenario::from_name(name), Some(Scenario::Authorization));
        }
        assert_eq!(
            Scenario::from_name("sep-2640-client-no-prefetch"),
            Some(Scenario::SkillsList)
        );
        for name in [
            "sep-2640-client-verify-digest",
            "sep-2640-client-verify-size",
            "sep-2640-client-verify-frontmatter",
        ] {
            assert_eq!(
                Scenario::from_name(name),
                Some(Scenario::SkillsLoad),
                "{name}"
            );
        }
        assert_eq!(Scenario::from_name("tools_call"), Some(Scenario::ToolsCall));
    }

    #[test]
    fn a_handshake_revision_is_offered_with_the_older_ones_and_2026_is_pinned() {
        let handshake = config(Some(ProtocolVersion::V2025_11_25));
        assert_eq!(handshake.era, mcpwire_client::EraChoice::Auto);
        assert_eq!(
            handshake.versions.last(),
            Some(&ProtocolVersion::V2025_11_25)
        );
        assert!(handshake.versions.contains(&ProtocolVersion::V2025_03_26));
        assert!(!handshake.versions.iter().any(|v| v.is_stateless()));
        let stateless = config(Some(ProtocolVersion::V2026_07_28));
        assert_eq!(
            stateless.era,
            mcpwire_client::EraChoice::Pinned(ProtocolVersion::V2026_07_28)
        );
        let free = config(None);
        assert_eq!(free.versions, ProtocolVersion::ALL.to_vec());
    }
}
