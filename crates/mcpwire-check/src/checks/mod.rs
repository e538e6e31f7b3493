//! The checks, one fresh connection per revision: negotiation, ping, every
//! page of tools, resources, templates and prompts against the revision's
//! schema, completions, error codes; with `--call-tools`, one more
//! connection at the newest handshake revision calls every tool.

mod calls;
mod http;
mod lifecycle;
mod listings;
mod progress;
mod tools;

use mcpwire_http_legacy::auto::{AutoOptions, TransportKind, connect_auto};
use mcpwire_jsonrpc::{ErrorCode, Transport};
use mcpwire_stdio::{ShutdownOutcome, StderrMode, StdioClient};
use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};

use crate::probe::{Answer, Probe};
use crate::report::Passed;
use crate::schema;
use crate::{Finding, Level, Options, Report, Target};

/// The 2026-07-28 error for headers that do not match the body.
const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);

/// What one connection checks.
#[derive(Debug, Clone, Copy)]
enum Flow {
    /// `initialize` with this handshake revision, then the common checks.
    Handshake(ProtocolVersion),
    /// `server/discover`, then the common checks with `_meta` (2026-07-28).
    Stateless(ProtocolVersion),
    /// `initialize` with a revision no server can know (LIFE-10).
    UnknownRevision,
    /// `initialize` with this revision, then every tool called (only with
    /// `--call-tools`): results, `structuredContent`, progress, cancellation.
    Calls(ProtocolVersion),
}

/// The findings so far.
pub(crate) struct Run {
    pub(crate) report: Report,
    pub(crate) revision: Option<String>,
    /// The HTTP transport the first connection to a URL spoke.
    pub(crate) transport: Option<TransportKind>,
}

impl Run {
    /// Records a check of `rule` that passed.
    pub(crate) fn pass(&mut self, rule: &'static str, check: impl Into<String>) {
        self.report.checks += 1;
        self.report.passed.push(Passed {
            rule,
            revision: self.revision.clone(),
            check: check.into(),
        });
    }

    /// Records a check of `rule` that could not run here, and why.
    pub(crate) fn skip(&mut self, rule: &'static str, why: String, fix: &'static str) {
        self.find((rule, Level::Info), why, (None, None), fix);
    }

    /// Records a finding of `rule` about the exchange `sent` -> `received`.
    pub(crate) fn find(
        &mut self,
        (rule, level): (&'static str, Level),
        message: String,
        exchange: (Option<&Value>, Option<Value>),
        fix: &'static str,
    ) {
        self.report.checks += 1;
        self.report.findings.push(Finding {
            rule,
            level,
            revision: self.revision.clone(),
            message,
            sent: exchange.0.cloned(),
            received: exchange.1,
            fix,
        });
    }
}

pub(crate) async fn run(target: &Target, options: &Options) -> Report {
    let report = Report {
        target: target.to_string(),
        revisions: Vec::new(),
        checks: 0,
        findings: Vec::new(),
        passed: Vec::new(),
        capabilities: Value::Null,
    };
    let mut run = Run {
        report,
        revision: None,
        transport: None,
    };
    let versions = match options.revision {
        Some(version) => vec![version],
        None => ProtocolVersion::ALL.to_vec(),
    };
    for version in versions {
        let flow = match version.has_handshake() {
            true => Flow::Handshake(version),
            false => Flow::Stateless(version),
        };
        connect(target, options, &mut run, flow).await;
    }
    if options.revision.is_none() {
        connect(target, options, &mut run, Flow::UnknownRevision).await;
    }
    // Tools are called once, at the newest handshake revision spoken:
    // calls may have side effects, and cancellation and progress need a
    // session.
    let newest = run
        .report
        .revisions
        .iter()
        .filter_map(|v| ProtocolVersion::parse(v).ok())
        .filter(|v| v.has_handshake())
        .max();
    match (options.call_tools, newest) {
        (true, Some(version)) => connect(target, options, &mut run, Flow::Calls(version)).await,
        (true, None) => {
            run.revision = None;
            let why = "no tool was called: the server spoke no revision with a handshake".into();
            run.skip(
                "TOOL-14",
                why,
                "speak a revision up to 2025-11-25 to be checked by calls",
            );
        }
        (false, _) => {}
    }
    if let Target::Url(url) = target {
        match run.transport {
            Some(TransportKind::LegacySse) => {
                http::legacy(url, options, &mut run).await;
            }
            _ => {
                let spoken = run.report.revisions.clone();
                http::check(url, options, &spoken, &mut run).await;
            }
        }
    }
    run.report
}

/// Opens a connection to `target`, runs `flow` on it and closes it.
async fn connect(target: &Target, options: &Options, run: &mut Run, flow: Flow) {
    run.revision = match flow {
        Flow::Handshake(v) | Flow::Stateless(v) | Flow::Calls(v) => Some(v.to_string()),
        Flow::UnknownRevision => None,
    };
    match target {
        Target::Command { program, args } => {
            let client = StdioClient::new(program)
                .args(args)
                .stderr(StderrMode::Discard);
            let (transport, child) = match client.spawn() {
                Ok(spawned) => spawned,
                Err(error) => return unreachable_server(run, &error.to_string()),
            };
            let mut probe = Probe::new(transport, options.timeout);
            checks(&mut probe, run, flow, options).await;
            let garbage = std::mem::take(&mut probe.garbage);
            probe.close().await;
            for line in garbage {
                let message = format!("the server wrote a line that is not JSON-RPC: {line}");
                let fix = "write only JSON-RPC messages to stdout, one per line; log to stderr";
                run.find(("STDIO-02", Level::Fail), message, (None, None), fix);
            }
            match child.shutdown().await {
                Ok(ShutdownOutcome::ExitedOnEof(_)) => {
                    run.pass("LIFE-15", "the server exits when its stdin closes");
                }
                Ok(outcome) => {
                    let message =
                        format!("the server did not exit when its stdin closed ({outcome:?})");
                    let fix =
                        "exit when stdin reaches its end: the client's first way to stop a server";
                    run.find(("LIFE-15", Level::Warn), message, (None, None), fix);
                }
                Err(error) => unreachable_server(run, &error.to_string()),
            }
        }
        // Streamable HTTP, or the legacy HTTP+SSE transport when the URL
        // is an SSE endpoint (the same fallback every CLI command uses).
        Target::Url(url) => match connect_auto(url, auto_options(options)) {
            Ok(transport) => {
                let choice = transport.choice();
                let mut probe = Probe::new(transport, options.timeout);
                checks(&mut probe, run, flow, options).await;
                if run.transport.is_none() {
                    run.transport = choice.get();
                }
                probe.close().await;
            }
            Err(error) => unreachable_server(run, &error.to_string()),
        },
    }
}

/// The transport's options: the user's headers on every request.
fn auto_options(options: &Options) -> AutoOptions {
    options
        .headers
        .iter()
        .fold(AutoOptions::new(), |auto, (name, value)| {
            auto.with_header(name.clone(), value.clone())
        })
}

fn unreachable_server(run: &mut Run, error: &str) {
    let fix = "check the command or URL: no check could run";
    run.find(
        ("BASE-01", Level::Fail),
        format!("cannot reach the server: {error}"),
        (None, None),
        fix,
    );
}

/// The `_meta` a stateless request carries.
fn stateless_meta(version: ProtocolVersion) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version.to_string(),
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcpwire-check", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// Params with `_meta` added for a stateless flow.
fn with_meta(mut params: Value, meta: Option<&Value>) -> Value {
    if let (Some(meta), Some(map)) = (meta, params.as_object_mut()) {
        map.insert("_meta".into(), meta.clone());
    }
    params
}

async fn checks<T: Transport>(probe: &mut Probe<T>, run: &mut Run, flow: Flow, options: &Options) {
    let (version, meta, capabilities) = match flow {
        Flow::Handshake(version) => match lifecycle::initialize(probe, run, version).await {
            Some(capabilities) => (version, None, capabilities),
            None => return,
        },
        Flow::Stateless(version) => match lifecycle::discover(probe, run, version).await {
            Some(capabilities) => (version, Some(stateless_meta(version)), capabilities),
            None => return,
        },
        Flow::UnknownRevision => return lifecycle::unknown_revision(probe, run).await,
        Flow::Calls(version) => {
            if lifecycle::initialize(probe, run, version).await.is_some() {
                calls::check(probe, run, version, options).await;
            }
            return;
        }
    };
    run.report.revisions.push(version.to_string());
    run.report.capabilities = capabilities.clone();
    let meta = meta.as_ref();
    if version.has_handshake() {
        lifecycle::ping(probe, run).await;
    }
    error_code(
        probe,
        run,
        ("mcpwire/no-such-method", json!({})),
        meta,
        ErrorCode::METHOD_NOT_FOUND,
        "BASE-20",
    )
    .await;
    if capabilities.get("tools").is_some_and(Value::is_object) {
        tools::list_tools(probe, run, version, meta, options).await;
        let bad_params = ("tools/call", json!({"name": 42, "arguments": []}));
        error_code(
            probe,
            run,
            bad_params,
            meta,
            ErrorCode::INVALID_PARAMS,
            "BASE-20",
        )
        .await;
        let unknown = (
            "tools/call",
            json!({"name": "mcpwire-check-no-such-tool", "arguments": {}}),
        );
        error_code(
            probe,
            run,
            unknown,
            meta,
            ErrorCode::INVALID_PARAMS,
            "TOOL-16",
        )
        .await;
        let cursor = (
            "tools/list",
            json!({"cursor": "mcpwire-check: not a cursor"}),
        );
        error_code(
            probe,
            run,
            cursor,
            meta,
            ErrorCode::INVALID_PARAMS,
            "PAGE-05",
        )
        .await;
    }
    listings::check(probe, run, version, meta, &capabilities, options).await;
    let notifications = std::mem::take(&mut probe.notifications);
    progress::well_formed(run, version, &notifications);
}

/// Sends `request` and expects an error with `code`; `rule` says which
/// rule asks for it (a SHOULD for TOOL-16 and PAGE-05).
async fn error_code<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    (method, params): (&str, Value),
    meta: Option<&Value>,
    code: ErrorCode,
    rule: &'static str,
) {
    let params = with_meta(params, meta);
    let level = match rule {
        "BASE-20" => Level::Fail,
        _ => Level::Warn,
    };
    let fix = match code {
        ErrorCode::METHOD_NOT_FOUND => "answer a method the server does not have with -32601",
        _ => {
            "answer params that do not fit (a bad name, an unknown tool, a bad cursor) with -32602"
        }
    };
    match probe.call(method, &params).await {
        Ok(Answer::Error(error)) if error.code == code => {
            run.pass(rule, format!("{method} answered error {}", code.0));
        }
        // Over HTTP in 2026-07-28 the `Mcp-Name` header is checked first,
        // and a name that is not a string has none: -32020 is right too.
        Ok(Answer::Error(error)) if meta.is_some() && error.code == HEADER_MISMATCH => run.pass(
            rule,
            format!("{method} answered error {}", HEADER_MISMATCH.0),
        ),
        Ok(answer) => {
            let message = format!("{method} with {params} should get error {}", code.0);
            let sent = json!({"method": method, "params": params});
            run.find(
                (rule, level),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => {
            let message = format!("{method}: {error}");
            run.find((rule, level), message, (Some(&params), None), fix);
        }
    }
}

/// Checks `result` against the definition `name` of `version`'s schema.
fn check_schema(
    run: &mut Run,
    version: ProtocolVersion,
    name: &str,
    params: &Value,
    result: &Value,
    rule: &'static str,
) {
    // Every definition named here exists in every revision that has the
    // method; one that does not is not the server's fault.
    let Ok(validator) = schema::definition(version, name) else {
        return;
    };
    let problems = schema::violations(&validator, result);
    if problems.is_empty() {
        // The subject (a tool, a prompt, a resource) keeps check names apart.
        let subject = ["name", "uri"]
            .iter()
            .find_map(|key| params.get(key).and_then(Value::as_str));
        match subject {
            Some(subject) => run.pass(rule, format!("the result for {subject:?} fits {name}")),
            None => run.pass(rule, format!("the result fits {name}")),
        }
    } else {
        let message = format!(
            "the result does not fit {name} of {version}: {}",
            problems.join("; ")
        );
        let fix = "send results that the official schema of the revision accepts";
        run.find(
            (rule, Level::Fail),
            message,
            (Some(params), Some(result.clone())),
            fix,
        );
    }
}
