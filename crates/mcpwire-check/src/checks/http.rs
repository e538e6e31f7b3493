//! Checks of Streamable HTTP itself, in plain HTTP, at every session
//! revision the server spoke (2025-03-26 on): the session id's characters,
//! 202 for a notification, the `MCP-Protocol-Version` header (400 when bad,
//! a default when absent), a foreign `Origin` and `Host` refused with 403
//! on a loopback server, 400 without the issued session id, and 404 for an
//! unknown session and for one after its DELETE. At 2026-07-28 (no
//! sessions): a foreign `Origin` refused, and a missing or mismatched
//! `Mcp-Method` header refused with 400 and `HeaderMismatch`. For a legacy HTTP+SSE endpoint:
//! a foreign `Origin` refused.

use http::{Method, StatusCode};
use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};

use super::Run;
use crate::{Level, Options};

mod client;

use client::{Exchange, Http, Request};

/// An origin no server of the checks can trust.
const FOREIGN_ORIGIN: &str = "http://mcpwire-check.invalid";

/// A `Host` a DNS-rebinding page would send to a loopback server.
const FOREIGN_HOST: &str = "mcpwire-check.invalid";

/// Checks every session revision in `spoken`.
pub(super) async fn check(url: &str, options: &Options, spoken: &[String], run: &mut Run) {
    let Some(http) = Http::new(url, options) else {
        // A URL the transport could not use was reported by the protocol checks.
        return;
    };
    for version in spoken.iter().filter_map(|v| ProtocolVersion::parse(v).ok()) {
        run.revision = Some(version.to_string());
        if !version.has_handshake() {
            stateless_checks(&http, version, run).await;
        } else if version.at_least(ProtocolVersion::V2025_03_26) {
            session_checks(&http, version, run).await;
        }
    }
}

/// The legacy HTTP+SSE transport: only the `Origin` check applies (LEG-01);
/// the protocol checks ran over it already.
pub(super) async fn legacy(url: &str, options: &Options, run: &mut Run) {
    run.revision = Some(ProtocolVersion::V2024_11_05.to_string());
    let Some(http) = Http::new(url, options) else {
        return;
    };
    let request = Request::new(Method::GET)
        .header("accept", "text/event-stream")
        .header("origin", FOREIGN_ORIGIN)
        .headers_only();
    origin_refused(&http, run, request, "LEG-01").await;
}

/// A revision without sessions (2026-07-28): only the `Origin` check
/// applies here; its requests were checked over the protocol.
async fn stateless_checks(http: &Http<'_>, version: ProtocolVersion, run: &mut Run) {
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": version.to_string(),
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "mcpwire-check", "version": env!("CARGO_PKG_VERSION")},
        }
    }});
    let request = Request::post(&discover)
        .header("mcp-protocol-version", version.as_str())
        .header("mcp-method", "server/discover")
        .header("origin", FOREIGN_ORIGIN);
    origin_refused(http, run, request, "HTTP-03").await;
    // The standard headers repeat the body for intermediaries: a server
    // that routes by them must refuse a request whose headers disagree
    // with its body, or lack them (400 with HeaderMismatch).
    let mismatched = Request::post(&discover)
        .header("mcp-protocol-version", version.as_str())
        .header("mcp-method", "tools/list");
    header_mismatch_refused(
        http,
        run,
        mismatched,
        "an Mcp-Method header unlike the body's method",
    )
    .await;
    let missing = Request::post(&discover).header("mcp-protocol-version", version.as_str());
    header_mismatch_refused(http, run, missing, "a request without Mcp-Method").await;
}

/// The rule of the 2026-07-28 standard headers (`Mcp-Method`, `Mcp-Name`;
/// REQUIREMENTS.md has no id for it yet): streamable-http.mdx, "Server
/// validation".
const STANDARD_HEADERS: &str = "HTTP-HEADERS-2026";

/// `request` breaks the 2026-07-28 standard-header rules: it must get 400
/// with `HeaderMismatch` (-32020).
async fn header_mismatch_refused(http: &Http<'_>, run: &mut Run, request: Request, what: &str) {
    let sent = request.to_json();
    let fix = "answer a request whose Mcp-Method / Mcp-Name headers are missing or differ from the body with 400 and the JSON-RPC error -32020 (HeaderMismatch)";
    let answer = match http.send(request).await {
        Ok(answer) => answer,
        Err(error) => {
            return run.find(
                (STANDARD_HEADERS, Level::Fail),
                error,
                (Some(&sent), None),
                fix,
            );
        }
    };
    let code = serde_json::from_str::<Value>(&answer.body)
        .ok()
        .and_then(|body| body["error"]["code"].as_i64());
    match (answer.status, code) {
        (StatusCode::BAD_REQUEST, Some(-32020)) => {
            run.pass(STANDARD_HEADERS, format!("{what} got 400 HeaderMismatch"));
        }
        (StatusCode::BAD_REQUEST, _) => {
            let message = format!("{what} got 400 without the error -32020");
            run.find(
                (STANDARD_HEADERS, Level::Warn),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
        (status, _) => {
            let message = format!("{what} got {status}, not 400");
            run.find(
                (STANDARD_HEADERS, Level::Fail),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
    }
}

async fn session_checks(http: &Http<'_>, version: ProtocolVersion, run: &mut Run) {
    let header = version.at_least(ProtocolVersion::V2025_06_18);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version.to_string(),
        "capabilities": {},
        "clientInfo": {"name": "mcpwire-check", "version": env!("CARGO_PKG_VERSION")},
    }});
    let Ok(answer) = http.send(Request::post(&initialize)).await else {
        return;
    };
    if !answer.status.is_success() {
        return;
    }
    let session = answer
        .headers
        .get("mcp-session-id")
        .map(|v| v.as_bytes().to_vec());
    let session = match session {
        Some(bytes) if bytes.iter().all(|b| (0x21..=0x7e).contains(b)) => {
            run.pass("HTTP-35", "the session id is visible ASCII");
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        Some(_) => {
            let fix = "make session ids of visible ASCII only (0x21-0x7E)";
            let message = "the session id has other characters".to_owned();
            run.find(
                ("HTTP-35", Level::Fail),
                message,
                (Some(&initialize), None),
                fix,
            );
            return;
        }
        None => None,
    };
    let session = session.as_deref();
    // Every later request carries the session and, from 2025-06-18, the
    // negotiated revision (HTTP-37, HTTP-42).
    let base = |body: &Value| {
        let request = Request::post(body).session(session);
        match header {
            true => request.header("mcp-protocol-version", version.as_str()),
            false => request,
        }
    };

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let fix = "answer an accepted notification with 202 Accepted and no body";
    expect(
        http,
        run,
        base(&initialized),
        &[StatusCode::ACCEPTED],
        ("HTTP-09", fix),
    )
    .await;

    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    if header {
        let bad = Request::post(&ping)
            .session(session)
            .header("mcp-protocol-version", "1999-01-01");
        let fix = "answer an MCP-Protocol-Version the server does not speak with 400";
        expect(http, run, bad, &[StatusCode::BAD_REQUEST], ("HTTP-45", fix)).await;
        missing_header(http, run, Request::post(&ping).session(session)).await;
    }

    let foreign = base(&ping).header("origin", FOREIGN_ORIGIN);
    let rule = match version.at_least(ProtocolVersion::V2025_11_25) {
        true => "HTTP-03",
        false => "HTTP-02",
    };
    origin_refused(http, run, foreign, rule).await;
    foreign_host(http, run, base(&ping).header("host", FOREIGN_HOST)).await;

    let Some(session) = session else {
        return;
    };
    no_session(http, run, header.then_some(version), &ping).await;
    // A session id the server never issued is as unknown as an ended one:
    // 404 tells the client to start over (HTTP-40).
    let unknown = base(&ping).session(Some("mcpwire-check-unknown-session"));
    let fix = "answer requests of an unknown or ended session with 404";
    expect(
        http,
        run,
        unknown,
        &[StatusCode::NOT_FOUND],
        ("HTTP-39", fix),
    )
    .await;
    let mut delete = Request::new(Method::DELETE).session(Some(session));
    if header {
        delete = delete.header("mcp-protocol-version", version.as_str());
    }
    match http.send(delete).await {
        Ok(answer) if answer.status.is_success() => {
            run.pass("HTTP-41", "DELETE ends the session");
            let fix = "answer requests of a terminated session with 404";
            expect(
                http,
                run,
                base(&ping),
                &[StatusCode::NOT_FOUND],
                ("HTTP-39", fix),
            )
            .await;
        }
        // 405: the server does not let clients end sessions (allowed).
        Ok(answer) if answer.status == StatusCode::METHOD_NOT_ALLOWED => {
            run.pass(
                "HTTP-41",
                "DELETE answered 405: clients may not end sessions",
            );
        }
        Ok(answer) => {
            let fix = "end the session on DELETE (2xx), or answer 405 if clients may not";
            let message = format!("DELETE of the session answered {}", answer.status);
            run.find(
                ("HTTP-41", Level::Warn),
                message,
                (None, Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => {
            let fix = "answer DELETE of a session";
            let message = format!("DELETE of the session: {error}");
            run.find(("HTTP-41", Level::Warn), message, (None, None), fix);
        }
    }
}

/// A request without `MCP-Protocol-Version` in a session: the server
/// knows the revision from the session, or assumes 2025-03-26 (HTTP-44);
/// either way it must not refuse it for the missing header.
async fn missing_header(http: &Http<'_>, run: &mut Run, request: Request) {
    let sent = request.to_json();
    let fix = "take the revision from the session, or assume 2025-03-26, when the header is absent";
    match http.send(request).await {
        Ok(answer) if answer.status.is_success() => {
            run.pass(
                "HTTP-44",
                "a request without MCP-Protocol-Version is served",
            );
        }
        Ok(answer) => {
            let message = format!(
                "a request without MCP-Protocol-Version got {}",
                answer.status
            );
            run.find(
                ("HTTP-44", Level::Warn),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => run.find(("HTTP-44", Level::Warn), error, (Some(&sent), None), fix),
    }
}

/// A server that issued a session should answer a request without its id
/// with 400 (HTTP-38, a SHOULD).
async fn no_session(
    http: &Http<'_>,
    run: &mut Run,
    version: Option<ProtocolVersion>,
    body: &Value,
) {
    let mut request = Request::post(body);
    if let Some(version) = version {
        request = request.header("mcp-protocol-version", version.as_str());
    }
    let sent = request.to_json();
    let fix = "answer a request without the session id the server issued with 400 Bad Request";
    match http.send(request).await {
        Ok(answer) if answer.status == StatusCode::BAD_REQUEST => {
            run.pass("HTTP-38", "a request without the session id got 400");
        }
        Ok(answer) => {
            let message = format!(
                "a request without the session id got {}, not 400",
                answer.status
            );
            run.find(
                ("HTTP-38", Level::Warn),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => run.find(("HTTP-38", Level::Warn), error, (Some(&sent), None), fix),
    }
}

/// Whether the URL names a loopback host, where no foreign origin is
/// acceptable.
fn loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host),
    };
    host == "localhost"
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A request with a foreign `Origin` must get 403 (HTTP-02/03, LEG-01): a
/// failure on a loopback server, where no foreign page may call it; a
/// warning elsewhere, where the server may trust origins we cannot know.
async fn origin_refused(http: &Http<'_>, run: &mut Run, request: Request, rule: &'static str) {
    let sent = request.to_json();
    let fix = "validate Origin on every request and answer an untrusted one with 403 Forbidden";
    let level = match loopback(http.url()) {
        true => Level::Fail,
        false => Level::Warn,
    };
    match http.send(request).await {
        Ok(answer) if answer.status == StatusCode::FORBIDDEN => {
            run.pass(rule, "a foreign Origin is refused with 403");
        }
        Ok(answer) => {
            let message = format!(
                "a request with Origin {FOREIGN_ORIGIN} got {}, not 403",
                answer.status
            );
            run.find(
                (rule, level),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => run.find((rule, level), error, (Some(&sent), None), fix),
    }
}

/// On a loopback server a foreign `Host` is a DNS-rebinding page: the
/// spec's defence is the Origin check (HTTP-02), so an accepted `Host` is
/// a warning.
async fn foreign_host(http: &Http<'_>, run: &mut Run, request: Request) {
    if !loopback(http.url()) {
        return;
    }
    let sent = request.to_json();
    let fix = "on a loopback address accept only loopback names in Host (DNS rebinding)";
    match http.send(request).await {
        Ok(answer) if answer.status.is_client_error() => {
            run.pass("HTTP-02", "a foreign Host is refused on a loopback server");
        }
        Ok(answer) => {
            let message = format!("a request with Host {FOREIGN_HOST} got {}", answer.status);
            run.find(
                ("HTTP-02", Level::Warn),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => run.find(("HTTP-02", Level::Warn), error, (Some(&sent), None), fix),
    }
}

/// Sends one HTTP request and expects one of `statuses`.
async fn expect(
    http: &Http<'_>,
    run: &mut Run,
    request: Request,
    statuses: &[StatusCode],
    (rule, fix): (&'static str, &'static str),
) {
    let sent = request.to_json();
    let wanted = statuses.first().copied().unwrap_or(StatusCode::OK);
    match http.send(request).await {
        Ok(answer) if statuses.contains(&answer.status) => {
            let method = sent["method"].as_str().unwrap_or_default();
            run.pass(rule, format!("{method} {fix}: {}", answer.status));
        }
        Ok(answer) => {
            let message = format!("expected HTTP {wanted} but got {}", answer.status);
            run.find(
                (rule, Level::Fail),
                message,
                (Some(&sent), Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => run.find((rule, Level::Fail), error, (Some(&sent), None), fix),
    }
}

impl Exchange {
    fn to_json(&self) -> Value {
        json!({"status": self.status.as_u16(), "body": self.body})
    }
}

#[cfg(test)]
mod tests {
    use super::loopback;

    #[test]
    fn loopback_urls_are_recognized_by_host() {
        assert!(loopback("http://127.0.0.1:3000/mcp"));
        assert!(loopback("http://localhost/mcp"));
        assert!(loopback("http://[::1]:8080/mcp"));
        assert!(!loopback("https://example.com/mcp"));
        assert!(!loopback("http://10.0.0.5:3000/mcp"));
    }
}
