//! The OAuth example run for real: the `oauth-server` binary (an MCP
//! server behind mcpwire-auth's bearer layer, and the embedded
//! authorization server) driven through the whole MCP authorization flow
//! with plain HTTP requests on 127.0.0.1: the 401 challenge, protected
//! resource metadata, authorization server metadata, dynamic client
//! registration, the authorization code with PKCE, the token, and a tool
//! call whose handler sees the identity the token carries.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use mcpwire::http::client::{ClientOptions, HttpClient, parse_url};
use mcpwire_auth::pkce;
use serde_json::{Value, json};

/// The running example; killed when dropped.
struct Example {
    child: Child,
    mcp: String,
    issuer: String,
}

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Example {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oauth-server"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("oauth-server starts");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mcp = lines.next().expect("first line").expect("utf-8");
    let issuer = lines.next().expect("second line").expect("utf-8");
    assert!(
        mcp.starts_with("http://127.0.0.1:") && mcp.ends_with("/mcp"),
        "{mcp}"
    );
    assert!(issuer.starts_with("http://127.0.0.1:"), "{issuer}");
    Example { child, mcp, issuer }
}

/// One HTTP exchange, bounded in time.
async fn exchange(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let uri = parse_url(url).expect("url");
    let client = HttpClient::for_endpoint(&uri, &ClientOptions::default()).expect("client");
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(Bytes::from(body)).expect("request");
    tokio::time::timeout(Duration::from_secs(10), async {
        let response = client.request(request).await.expect("exchange");
        let (parts, body) = response.into_parts();
        let body = body.collect().await.expect("body").to_bytes().to_vec();
        (parts.status, parts.headers, body)
    })
    .await
    .expect("answered in time")
}

fn json_of(body: &[u8]) -> Value {
    serde_json::from_slice(body).expect("JSON body")
}

/// The value of query parameter `name` in `url`.
fn query_param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| value.replace("%3A", ":").replace("%2F", "/"))
    })
}

/// The JSON-RPC message in an MCP POST answer (plain JSON or one SSE event).
fn rpc_answer(headers: &HeaderMap, body: &[u8]) -> Value {
    let text = String::from_utf8_lossy(body);
    let is_sse = headers.get("content-type").is_some_and(|value| {
        value
            .to_str()
            .unwrap_or("")
            .starts_with("text/event-stream")
    });
    if !is_sse {
        return json_of(body);
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .filter(|data| !data.is_empty())
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|message| message.get("id").is_some())
        .expect("an answer in the stream")
}

/// Walks the authorization flow and returns an access token for the MCP
/// endpoint, checking each document on the way.
async fn access_token(example: &Example) -> String {
    // MCP authorization: a request without a token gets the challenge.
    let (status, headers, _) = exchange("POST", &example.mcp, &[], Vec::new()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let challenge = headers["www-authenticate"].to_str().unwrap().to_owned();
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(challenge.contains("scope=\"mcp:tools\""), "{challenge}");
    assert!(
        !challenge.contains("error="),
        "no token, no error code: {challenge}"
    );
    let metadata_url = challenge
        .split("resource_metadata=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("resource_metadata in the challenge")
        .to_owned();
    assert!(metadata_url.ends_with("/.well-known/oauth-protected-resource/mcp"));

    let (status, _, body) = exchange("GET", &metadata_url, &[], Vec::new()).await;
    assert_eq!(status, StatusCode::OK);
    let resource_metadata = json_of(&body);
    assert_eq!(resource_metadata["resource"], example.mcp);
    assert_eq!(
        resource_metadata["authorization_servers"],
        json!([example.issuer])
    );

    let as_metadata_url = format!("{}/.well-known/oauth-authorization-server", example.issuer);
    let (status, _, body) = exchange("GET", &as_metadata_url, &[], Vec::new()).await;
    assert_eq!(status, StatusCode::OK);
    let as_metadata = json_of(&body);
    assert_eq!(as_metadata["issuer"], example.issuer);
    assert_eq!(
        as_metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );

    let redirect = "http://127.0.0.1:9/callback";
    let registration = json!({
        "client_name": "oauth example test",
        "redirect_uris": [redirect],
        "token_endpoint_auth_method": "none",
    });
    let (status, _, body) = exchange(
        "POST",
        as_metadata["registration_endpoint"].as_str().unwrap(),
        &[("content-type", "application/json")],
        registration.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let client_id = json_of(&body)["client_id"].as_str().unwrap().to_owned();

    let verifier = "a-verifier-of-more-than-forty-three-characters-0123456789";
    let challenge = pkce::s256_challenge(verifier);
    let authorize = format!(
        "{}?response_type=code&client_id={client_id}&redirect_uri={redirect}&state=xyz&code_challenge={challenge}&code_challenge_method=S256&scope=mcp:tools&resource={}",
        as_metadata["authorization_endpoint"].as_str().unwrap(),
        example.mcp
    );
    let (status, headers, _) = exchange("GET", &authorize, &[], Vec::new()).await;
    assert_eq!(status, StatusCode::FOUND);
    let location = headers["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(redirect), "{location}");
    assert_eq!(query_param(&location, "state").as_deref(), Some("xyz"));
    assert_eq!(
        query_param(&location, "iss").as_deref(),
        Some(example.issuer.as_str())
    );
    let code = query_param(&location, "code").expect("a code");

    let form = format!(
        "grant_type=authorization_code&code={code}&redirect_uri={redirect}&code_verifier={verifier}&client_id={client_id}&resource={}",
        example.mcp
    );
    let (status, headers, body) = exchange(
        "POST",
        as_metadata["token_endpoint"].as_str().unwrap(),
        &[("content-type", "application/x-www-form-urlencoded")],
        form.into_bytes(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["cache-control"], "no-store");
    let tokens = json_of(&body);
    assert_eq!(tokens["token_type"], "Bearer");
    tokens["access_token"].as_str().unwrap().to_owned()
}

async fn mcp_post(
    example: &Example,
    bearer: &str,
    session: Option<&str>,
    message: &Value,
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let authorization = format!("Bearer {bearer}");
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("authorization", authorization.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    exchange(
        "POST",
        &example.mcp,
        &headers,
        message.to_string().into_bytes(),
    )
    .await
}

#[tokio::test]
async fn the_token_holders_identity_reaches_the_tool_handler_over_streamable_http() {
    let example = start();
    let token = access_token(&example).await;

    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "oauth-test", "version": "1"}
    }});
    let (status, headers, body) = mcp_post(&example, &token, None, &initialize).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    assert!(rpc_answer(&headers, &body)["result"]["serverInfo"].is_object());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = mcp_post(&example, &token, Some(&session), &initialized).await;
    assert_eq!(status, StatusCode::ACCEPTED);

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}});
    let (status, headers, body) = mcp_post(&example, &token, Some(&session), &call).await;
    assert_eq!(status, StatusCode::OK);
    let answer = rpc_answer(&headers, &body);
    let identity = &answer["result"]["structuredContent"];
    assert_eq!(identity["subject"], "test-user", "{answer}");
    assert_eq!(identity["scopes"], json!(["mcp:tools"]), "{answer}");
    assert!(identity["client_id"].is_string(), "{answer}");

    // A token that is not the issuer's is refused with invalid_token.
    let (status, headers, _) = mcp_post(&example, "not-a-jwt", Some(&session), &call).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
}

#[test]
fn the_example_client_logs_in_through_its_user_agent_hook_and_calls_whoami() {
    let example = start();
    let mut client = Command::new(env!("CARGO_BIN_EXE_oauth-client"))
        .arg(&example.mcp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("oauth-client starts");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = client.try_wait().expect("waitable") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = client.kill();
            let _ = client.wait();
            panic!("oauth-client did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    client
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout)
        .expect("utf-8");
    client
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("utf-8");
    assert!(status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("logged in"), "{stdout}");
    assert!(stdout.contains("whoami: subject=test-user"), "{stdout}");
    assert!(stdout.contains("scopes=mcp:tools"), "{stdout}");
}
