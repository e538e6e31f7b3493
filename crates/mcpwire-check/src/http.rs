//! Checks of Streamable HTTP itself, in plain HTTP: 202 for a notification,
//! 400 for a protocol-version header the server cannot speak, the session
//! id's characters, and 404 for an unknown session and for one after its
//! DELETE.

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use mcpwire_http::client::{ClientOptions, HttpClient, parse_url};
use serde_json::{Value, json};

use crate::checks::Run;
use crate::{Level, Options};

/// The revision the HTTP checks speak: sessions and the version header
/// exist in it.
const REVISION: &str = "2025-11-25";

/// One exchange: status, headers and body.
struct Exchange {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Exchange {
    fn to_json(&self) -> Value {
        json!({"status": self.status.as_u16(), "body": self.body})
    }
}

struct Http<'a> {
    client: HttpClient,
    url: &'a str,
    options: &'a Options,
}

impl Http<'_> {
    async fn send(
        &self,
        method: Method,
        body: Option<&Value>,
        session: Option<&str>,
        version: &str,
    ) -> Result<Exchange, String> {
        let mut request = Request::builder()
            .method(method)
            .uri(self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", version);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        let bytes = body.map_or_else(Bytes::new, |body| Bytes::from(body.to_string()));
        let request = request.body(bytes).map_err(|e| e.to_string())?;
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| e.to_string())?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
            Ok(Exchange {
                status: parts.status,
                headers: parts.headers,
                body: String::from_utf8_lossy(&body).into_owned(),
            })
        };
        match tokio::time::timeout(self.options.timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(format!("no answer within {:?}", self.options.timeout)),
        }
    }
}

pub(crate) async fn check(url: &str, options: &Options, run: &mut Run) {
    run.revision = Some(REVISION.to_owned());
    if options.revision.is_some_and(|v| v.as_str() != REVISION) {
        return;
    }
    // A URL the transport could not use was reported by the protocol checks.
    let endpoint = parse_url(url);
    let client = endpoint.and_then(|uri| HttpClient::for_endpoint(&uri, &ClientOptions::default()));
    let Ok(client) = client else {
        return;
    };
    let http = Http {
        client,
        url,
        options,
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": REVISION,
        "capabilities": {},
        "clientInfo": {"name": "mcpwire-check", "version": env!("CARGO_PKG_VERSION")},
    }});
    let Ok(answer) = http
        .send(Method::POST, Some(&initialize), None, REVISION)
        .await
    else {
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
            run.ok();
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        Some(_) => {
            let fix = "make session ids of visible ASCII only (0x21-0x7E)";
            run.find(
                ("HTTP-35", Level::Fail),
                "the session id has other characters".to_owned(),
                (Some(&initialize), None),
                fix,
            );
            return;
        }
        None => None,
    };
    let session = session.as_deref();

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    expect(
        run,
        &http,
        (Method::POST, Some(&initialized)),
        session,
        REVISION,
        &[StatusCode::ACCEPTED],
        (
            "HTTP-09",
            "answer an accepted notification with 202 Accepted and no body",
        ),
    )
    .await;

    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    expect(
        run,
        &http,
        (Method::POST, Some(&ping)),
        session,
        "1999-01-01",
        &[StatusCode::BAD_REQUEST],
        (
            "HTTP-45",
            "answer an MCP-Protocol-Version the server does not speak with 400",
        ),
    )
    .await;

    let Some(session) = Some(session).flatten() else {
        return;
    };
    // A session id the server never issued is as unknown as an ended one:
    // 404 tells the client to start over (HTTP-40).
    let unknown = Some("mcpwire-check-unknown-session");
    expect(
        run,
        &http,
        (Method::POST, Some(&ping)),
        unknown,
        REVISION,
        &[StatusCode::NOT_FOUND],
        (
            "HTTP-39",
            "answer requests of an unknown or ended session with 404",
        ),
    )
    .await;
    let deleted = http
        .send(Method::DELETE, None, Some(session), REVISION)
        .await;
    match deleted {
        Ok(answer) if answer.status.is_success() => {
            run.ok();
            expect(
                run,
                &http,
                (Method::POST, Some(&ping)),
                Some(session),
                REVISION,
                &[StatusCode::NOT_FOUND],
                (
                    "HTTP-39",
                    "answer requests of a terminated session with 404",
                ),
            )
            .await;
        }
        // 405: the server does not let clients end sessions (allowed).
        Ok(answer) if answer.status == StatusCode::METHOD_NOT_ALLOWED => run.ok(),
        Ok(answer) => {
            let fix = "end the session on DELETE (2xx), or answer 405 if clients may not";
            run.find(
                ("HTTP-41", Level::Warn),
                format!("DELETE of the session answered {}", answer.status),
                (None, Some(answer.to_json())),
                fix,
            );
        }
        Err(error) => {
            let fix = "answer DELETE of a session";
            run.find(
                ("HTTP-41", Level::Warn),
                format!("DELETE of the session: {error}"),
                (None, None),
                fix,
            );
        }
    }
}

/// Sends one HTTP request and expects one of `statuses`.
async fn expect(
    run: &mut Run,
    http: &Http<'_>,
    (method, body): (Method, Option<&Value>),
    session: Option<&str>,
    version: &str,
    statuses: &[StatusCode],
    (rule, fix): (&'static str, &'static str),
) {
    let sent = json!({"method": method.as_str(), "mcp-protocol-version": version, "body": body});
    match http.send(method, body, session, version).await {
        Ok(answer) if statuses.contains(&answer.status) => run.ok(),
        Ok(answer) => {
            let message = format!("expected HTTP {} but got {}", statuses[0], answer.status);
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
