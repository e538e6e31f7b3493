//! Negotiation: `initialize` per handshake revision, `server/discover`
//! for 2026-07-28, an unknown revision, and ping.

use mcpwire_jsonrpc::Transport;
use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};

use super::{Run, check_schema, stateless_meta};
use crate::Level;
use crate::probe::{Answer, Probe};

/// `initialize` with `version`; the server's capabilities when it speaks
/// that revision.
pub(super) async fn initialize<T: Transport>(
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
            run.pass(
                "LIFE-10",
                format!("initialize {version} answered another published revision"),
            );
        }
        return None;
    }
    run.pass(
        "LIFE-10",
        format!("initialize {version} answered {version}"),
    );
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
pub(super) async fn discover<T: Transport>(
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

pub(super) async fn unknown_revision<T: Transport>(probe: &mut Probe<T>, run: &mut Run) {
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
                Some(Ok(_)) => run.pass(
                    "LIFE-10",
                    "initialize with an unknown revision answered a published one",
                ),
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

pub(super) async fn ping<T: Transport>(probe: &mut Probe<T>, run: &mut Run) {
    let params = json!({});
    let fix = "answer ping with an empty result {} at any time";
    match probe.call("ping", &params).await {
        Ok(Answer::Result(result))
            if result
                .as_object()
                .is_some_and(|m| m.keys().all(|k| k == "_meta")) =>
        {
            run.pass("PING-01", "ping answered {}");
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
