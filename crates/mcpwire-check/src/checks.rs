//! The checks, one fresh connection per revision: negotiation, ping, every
//! page of tools against the revision's schema, and error codes.

use mcpwire_http::client::StreamableHttpClient;
use mcpwire_jsonrpc::{ErrorCode, Transport};
use mcpwire_stdio::{ShutdownOutcome, StderrMode, StdioClient};
use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};

use crate::probe::{Answer, Probe};
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
}

/// The findings so far.
pub(crate) struct Run {
    pub(crate) report: Report,
    pub(crate) revision: Option<String>,
}

impl Run {
    pub(crate) fn ok(&mut self) {
        self.report.checks += 1;
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
    };
    let mut run = Run {
        report,
        revision: None,
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
    if let Target::Url(url) = target {
        crate::http::check(url, options, &mut run).await;
    }
    run.report
}

/// Opens a connection to `target`, runs `flow` on it and closes it.
async fn connect(target: &Target, options: &Options, run: &mut Run, flow: Flow) {
    run.revision = match flow {
        Flow::Handshake(v) | Flow::Stateless(v) => Some(v.to_string()),
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
                Ok(ShutdownOutcome::ExitedOnEof(_)) => run.ok(),
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
        Target::Url(url) => match StreamableHttpClient::new(url) {
            Ok(transport) => {
                let mut probe = Probe::new(transport, options.timeout);
                checks(&mut probe, run, flow, options).await;
                probe.close().await;
            }
            Err(error) => unreachable_server(run, &error.to_string()),
        },
    }
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
        Flow::Handshake(version) => match initialize(probe, run, version).await {
            Some(capabilities) => (version, None, capabilities),
            None => return,
        },
        Flow::Stateless(version) => match discover(probe, run, version).await {
            Some(capabilities) => (version, Some(stateless_meta(version)), capabilities),
            None => return,
        },
        Flow::UnknownRevision => return unknown_revision(probe, run).await,
    };
    run.report.revisions.push(version.to_string());
    let meta = meta.as_ref();
    if version.has_handshake() {
        ping(probe, run).await;
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
        list_tools(probe, run, version, meta, options).await;
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
}

/// `initialize` with `version`; the server's capabilities when it speaks
/// that revision.
async fn initialize<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
) -> Option<Value> {
    let params = json!({
        "protocolVersion": version.to_string(),
        "capabilities": {},
        "clientInfo": {"name": "mcpwire-check", "version": env!("CARGO_PKG_VERSION")},
    });
    let result = match probe.call("initialize", &params).await {
        Ok(Answer::Result(result)) => result,
        Ok(answer @ Answer::Error(_)) => {
            let message = format!("initialize with {version} was refused with an error");
            let fix = "answer initialize with a revision the server speaks, never an error";
            run.find(
                ("LIFE-10", Level::Fail),
                message,
                (Some(&params), Some(answer.to_json())),
                fix,
            );
            return None;
        }
        Err(error) => {
            let fix = "answer initialize promptly";
            run.find(
                ("LIFE-03", Level::Fail),
                format!("initialize: {error}"),
                (Some(&params), None),
                fix,
            );
            return None;
        }
    };
    let answered = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if answered.as_deref() != Some(version.as_str()) {
        // Speaking another revision is allowed (LIFE-10); that revision has
        // its own connection. A string we do not know is not.
        if answered
            .as_deref()
            .and_then(|v| ProtocolVersion::parse(v).ok())
            .is_none()
        {
            let message = format!(
                "initialize answered protocolVersion {answered:?}, not a published revision"
            );
            let fix = "answer with a published revision (e.g. 2025-11-25)";
            run.find(
                ("LIFE-10", Level::Fail),
                message,
                (Some(&params), Some(result)),
                fix,
            );
        } else {
            run.ok();
        }
        return None;
    }
    run.ok();
    check_schema(
        run,
        version,
        "InitializeResult",
        &params,
        &result,
        "LIFE-03",
    );
    let _ = probe.notify("notifications/initialized", &json!({})).await;
    Some(result.get("capabilities").cloned().unwrap_or_default())
}

/// `server/discover` at `version`; the capabilities when the server speaks it.
async fn discover<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
) -> Option<Value> {
    let params = json!({"_meta": stateless_meta(version)});
    match probe.call("server/discover", &params).await {
        Ok(Answer::Result(result)) => {
            check_schema(run, version, "DiscoverResult", &params, &result, "LIFE-03");
            let speaks = result
                .get("supportedVersions")
                .and_then(Value::as_array)
                .is_some_and(|versions| versions.iter().any(|v| v == version.as_str()));
            speaks.then(|| result.get("capabilities").cloned().unwrap_or_default())
        }
        // A server of the handshake era only: nothing to check here.
        Ok(Answer::Error(_)) | Err(_) => None,
    }
}

async fn unknown_revision<T: Transport>(probe: &mut Probe<T>, run: &mut Run) {
    let params = json!({
        "protocolVersion": "2000-01-01",
        "capabilities": {},
        "clientInfo": {"name": "mcpwire-check", "version": env!("CARGO_PKG_VERSION")},
    });
    let fix = "answer initialize for an unknown revision with the newest one the server speaks";
    match probe.call("initialize", &params).await {
        Ok(Answer::Result(result)) => {
            let answered = result.get("protocolVersion").and_then(Value::as_str);
            match answered.map(ProtocolVersion::parse) {
                Some(Ok(_)) => run.ok(),
                _ => {
                    let message =
                        "initialize with an unknown revision got no published revision back"
                            .to_owned();
                    run.find(
                        ("LIFE-10", Level::Fail),
                        message,
                        (Some(&params), Some(result)),
                        fix,
                    );
                }
            }
        }
        Ok(answer) => {
            let message =
                "initialize with an unknown revision was answered with an error".to_owned();
            run.find(
                ("LIFE-10", Level::Fail),
                message,
                (Some(&params), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => {
            let message = format!("initialize with an unknown revision: {error}");
            run.find(
                ("LIFE-10", Level::Fail),
                message,
                (Some(&params), None),
                fix,
            );
        }
    }
}

async fn ping<T: Transport>(probe: &mut Probe<T>, run: &mut Run) {
    let params = json!({});
    let fix = "answer ping with an empty result {} at any time";
    match probe.call("ping", &params).await {
        Ok(Answer::Result(result))
            if result
                .as_object()
                .is_some_and(|m| m.keys().all(|k| k == "_meta")) =>
        {
            run.ok();
        }
        Ok(answer) => run.find(
            ("PING-01", Level::Fail),
            "ping was not answered with {}".to_owned(),
            (Some(&params), Some(answer.to_json())),
            fix,
        ),
        Err(error) => run.find(
            ("PING-01", Level::Fail),
            format!("ping: {error}"),
            (Some(&params), None),
            fix,
        ),
    }
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
        Ok(Answer::Error(error)) if error.code == code => run.ok(),
        // Over HTTP in 2026-07-28 the `Mcp-Name` header is checked first,
        // and a name that is not a string has none: -32020 is right too.
        Ok(Answer::Error(error)) if meta.is_some() && error.code == HEADER_MISMATCH => run.ok(),
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

/// Lists every page of tools and checks each page and each tool.
async fn list_tools<T: Transport>(
    probe: &mut Probe<T>,
    run: &mut Run,
    version: ProtocolVersion,
    meta: Option<&Value>,
    options: &Options,
) {
    let mut cursor: Option<Value> = None;
    let mut names = std::collections::BTreeSet::new();
    for _ in 0..options.max_pages {
        let params = with_meta(
            cursor
                .take()
                .map_or_else(|| json!({}), |c| json!({"cursor": c})),
            meta,
        );
        let result = match probe.call("tools/list", &params).await {
            Ok(Answer::Result(result)) => result,
            Ok(answer) => {
                let fix = "answer tools/list when the tools capability is declared";
                let message = "tools/list failed although tools are declared".to_owned();
                return run.find(
                    ("TOOL-01", Level::Fail),
                    message,
                    (Some(&params), Some(answer.to_json())),
                    fix,
                );
            }
            Err(error) => {
                let fix = "answer tools/list promptly";
                return run.find(
                    ("TOOL-01", Level::Fail),
                    format!("tools/list: {error}"),
                    (Some(&params), None),
                    fix,
                );
            }
        };
        check_schema(run, version, "ListToolsResult", &params, &result, "TOOL-04");
        for tool in result
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            check_tool(run, version, tool, &mut names);
        }
        match result.get("nextCursor") {
            Some(next @ Value::String(_)) => cursor = Some(next.clone()),
            _ => return,
        }
    }
}

fn check_tool(
    run: &mut Run,
    version: ProtocolVersion,
    tool: &Value,
    names: &mut std::collections::BTreeSet<String>,
) {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if version.at_least(ProtocolVersion::V2025_11_25) {
        match mcpwire_types::validate_tool_name(&name) {
            Ok(()) => run.ok(),
            Err(error) => {
                let fix = "name tools with 1-128 of A-Z a-z 0-9 _ - .";
                run.find(
                    ("TOOL-09", Level::Warn),
                    format!("tool {name:?}: {error}"),
                    (None, Some(tool.clone())),
                    fix,
                );
            }
        }
    }
    if names.insert(name.clone()) {
        run.ok();
    } else {
        let fix = "give every tool a name of its own";
        run.find(
            ("TOOL-10", Level::Warn),
            format!("tool {name:?} is listed twice"),
            (None, None),
            fix,
        );
    }
    for key in ["inputSchema", "outputSchema"] {
        let Some(schema) = tool.get(key) else {
            continue;
        };
        if schema.get("type").and_then(Value::as_str) != Some("object")
            && (key == "inputSchema" || !version.at_least(ProtocolVersion::V2026_07_28))
        {
            let fix = "give the schema `\"type\": \"object\"` at its root";
            run.find(
                ("TOOL-04", Level::Fail),
                format!("tool {name:?}: {key} has no root \"type\": \"object\""),
                (None, Some(schema.clone())),
                fix,
            );
        } else {
            run.ok();
        }
        match schema::compile_error(version, schema) {
            None => run.ok(),
            Some(error) => {
                let fix =
                    "publish a schema valid in its dialect (2020-12 unless $schema says otherwise)";
                run.find(
                    ("TOOL-05", Level::Fail),
                    format!("tool {name:?}: {key} is not a valid JSON Schema: {error}"),
                    (None, Some(schema.clone())),
                    fix,
                );
            }
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
        run.ok();
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
