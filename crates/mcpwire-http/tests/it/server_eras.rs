//! Both eras on one endpoint: handshake-era sessions beside 2026-07-28
//! stateless requests, with the stateless header checks (HeaderMismatch,
//! -32020), status mapping, cancellation by closing the stream, and
//! batches in 2025-03-26 sessions.

use crate::server_support;

use std::time::Duration;

use mcpwire_http::server::Config;
use serde_json::{Value, json};
use server_support::*;

async fn server(config: Config) -> TestServer {
    TestServer::start(config, test_runtime()).await
}

async fn settle(server: &TestServer, transports: usize) {
    within(async {
        while server.service.stats().await.live_transports != transports {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

fn text_of(message: &Value) -> &str {
    message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn a_2025_06_18_session_and_stateless_requests_share_one_endpoint() {
    let server = server(Config::default()).await;
    let session = Client::connect(server.addr, V2025_06_18).await;
    let stateless = server.client();
    let reply = stateless
        .post_2026(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "new"}}),
            &[],
        )
        .await;
    assert_eq!(reply.status(), 200);
    assert!(reply.head.header("mcp-session-id").is_none());
    assert_eq!(text_of(reply.messages().last().unwrap()), "new");
    let call = request(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "old"}}),
    );
    let reply = session.post(&call).await;
    assert_eq!(text_of(reply.messages().last().unwrap()), "old");
    let listed = stateless.post_2026(3, "tools/list", json!({}), &[]).await;
    assert_eq!(listed.status(), 200);
    assert!(listed.json()["result"]["tools"].as_array().unwrap().len() >= 4);
    // Stateless transports end with their request; the session's lives on.
    settle(&server, 1).await;
    assert_eq!(server.service.stats().await.sessions, 1);
}

/// A header-mismatch case: its name, the headers sent, the body's `_meta`.
type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, Value);

#[tokio::test]
async fn header_mismatches_get_400_with_minus_32020_and_the_request_id() {
    let server = server(Config::default()).await;
    let client = server.client();
    let call = |meta: Value| {
        request(
            41,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}, "_meta": meta}),
        )
    };
    let cases: Vec<Case<'_>> = vec![
        (
            "no Mcp-Method",
            vec![("mcp-protocol-version", V2026_07_28), ("mcp-name", "echo")],
            meta_2026(),
        ),
        (
            "wrong Mcp-Method",
            vec![
                ("mcp-protocol-version", V2026_07_28),
                ("mcp-method", "tools/list"),
                ("mcp-name", "echo"),
            ],
            meta_2026(),
        ),
        (
            "method value case",
            vec![
                ("mcp-protocol-version", V2026_07_28),
                ("mcp-method", "TOOLS/CALL"),
                ("mcp-name", "echo"),
            ],
            meta_2026(),
        ),
        (
            "wrong Mcp-Name",
            vec![
                ("mcp-protocol-version", V2026_07_28),
                ("mcp-method", "tools/call"),
                ("mcp-name", "other"),
            ],
            meta_2026(),
        ),
        (
            "no Mcp-Name",
            vec![
                ("mcp-protocol-version", V2026_07_28),
                ("mcp-method", "tools/call"),
            ],
            meta_2026(),
        ),
        (
            "no version header",
            vec![("mcp-method", "tools/call"), ("mcp-name", "echo")],
            meta_2026(),
        ),
        (
            "version header differs from _meta",
            vec![
                ("mcp-protocol-version", V2026_07_28),
                ("mcp-method", "tools/call"),
                ("mcp-name", "echo"),
            ],
            json!({"io.modelcontextprotocol/protocolVersion": "v999.0.0",
                "io.modelcontextprotocol/clientCapabilities": {}}),
        ),
    ];
    for (case, headers, meta) in cases {
        let reply = client.post_with(&call(meta), &headers).await;
        assert_eq!(reply.status(), 400, "{case}");
        assert_eq!(
            reply.head.header("content-type"),
            Some("application/json"),
            "{case}"
        );
        assert_eq!(reply.json()["error"]["code"], -32020, "{case}");
        assert_eq!(reply.json()["id"], 41, "{case}");
    }
    let padded = [
        ("mcp-protocol-version", V2026_07_28),
        ("MCP-METHOD", "tools/call"),
        ("mcp-name", "  echo  "),
    ];
    let reply = client.post_with(&call(meta_2026()), &padded).await;
    assert_eq!(
        reply.status(),
        200,
        "case-insensitive names, trimmed values"
    );
}

#[tokio::test]
async fn stateless_errors_choose_the_http_status() {
    let server = server(Config::default()).await;
    let client = server.client();
    let reply = client.post_2026(1, "unknown/method", json!({}), &[]).await;
    assert_eq!(
        (reply.status(), reply.json()["error"]["code"].clone()),
        (404, json!(-32601))
    );
    let reply = client.post_2026(2, "ping", json!({}), &[]).await;
    assert_eq!(reply.status(), 404, "ping is not a 2026-07-28 method");
    let bare = request(
        3,
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": V2026_07_28}}),
    );
    let headers = [
        ("mcp-protocol-version", V2026_07_28),
        ("mcp-method", "tools/list"),
    ];
    let reply = client.post_with(&bare, &headers).await;
    assert_eq!(
        (reply.status(), reply.json()["error"]["code"].clone()),
        (400, json!(-32602))
    );
    let unknown = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0",
        "io.modelcontextprotocol/clientCapabilities": {}}});
    let headers = [
        ("mcp-protocol-version", "v999.0.0"),
        ("mcp-method", "tools/list"),
    ];
    let reply = client
        .post_with(&request(4, "tools/list", unknown), &headers)
        .await;
    assert_eq!(reply.status(), 400);
    assert_eq!(reply.json()["error"]["code"], -32022);
    assert_eq!(reply.json()["id"], 4);
}

#[tokio::test]
async fn mcp_param_headers_are_checked_once_the_tool_is_listed() {
    let server = server(Config::default()).await;
    let client = server.client();
    assert_eq!(
        client
            .post_2026(1, "tools/list", json!({}), &[])
            .await
            .status(),
        200
    );
    let call = json!({"name": "regional", "arguments": {"region": "Hello", "query": "q"}});
    let verdict = |reply: &Reply| (reply.status(), reply.json()["error"]["code"].clone());
    let reply = client
        .post_2026(
            2,
            "tools/call",
            call.clone(),
            &[("Mcp-Param-Region", "Hello")],
        )
        .await;
    assert_eq!(text_of(&reply.json()), "ran in Hello");
    let reply = client
        .post_2026(
            3,
            "tools/call",
            call.clone(),
            &[("mcp-param-region", "=?base64?SGVsbG8=?=")],
        )
        .await;
    assert_eq!(reply.status(), 200);
    let reply = client
        .post_2026(
            4,
            "tools/call",
            call.clone(),
            &[("Mcp-Param-Region", "Goodbye")],
        )
        .await;
    assert_eq!(verdict(&reply), (400, json!(-32020)));
    let reply = client.post_2026(5, "tools/call", call.clone(), &[]).await;
    assert_eq!(verdict(&reply), (400, json!(-32020)));
    let reply = client
        .post_2026(
            6,
            "tools/call",
            call,
            &[("Mcp-Param-Region", "=?base64?SGVsbG8?=")],
        )
        .await;
    assert_eq!(verdict(&reply), (400, json!(-32020)));
}

#[tokio::test]
async fn stateless_streams_carry_progress_but_no_event_ids() {
    let server = server(Config::default()).await;
    let client = server.client();
    let params = json!({"name": "count", "arguments": {"count": 3, "pause_ms": 10}});
    let mut body: Value = serde_json::from_str(&request(1, "tools/call", params)).unwrap();
    body["params"]["_meta"] = meta_2026();
    body["params"]["_meta"]["progressToken"] = json!("p");
    let headers = [
        ("mcp-protocol-version", V2026_07_28),
        ("mcp-method", "tools/call"),
        ("mcp-name", "count"),
    ];
    let reply = client.post_with(&body.to_string(), &headers).await;
    assert!(reply.head.is_sse());
    let events = parse_events(&String::from_utf8_lossy(&reply.body));
    assert!(events.iter().all(|e| e.id.is_none() && !e.data.is_empty()));
    let messages = reply.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(text_of(&messages[3]), "counted 3");
}

#[tokio::test]
async fn closing_a_stateless_stream_cancels_the_request() {
    let server = server(Config::default()).await;
    let client = server.client();
    let mut params = json!({"name": "wait", "arguments": {"pause_ms": 30_000}});
    params["_meta"] = meta_2026();
    let mut conn = Conn::open(server.addr).await;
    let mut headers = client.post_headers();
    for (name, value) in [
        ("mcp-protocol-version", V2026_07_28),
        ("mcp-method", "tools/call"),
        ("mcp-name", "wait"),
    ] {
        headers.push((name.to_owned(), value.to_owned()));
    }
    conn.send(
        "POST",
        &headers,
        request(1, "tools/call", params).as_bytes(),
    )
    .await;
    settle(&server, 1).await;
    drop(conn);
    // The runtime hears the cancellation and ends long before 30 s.
    settle(&server, 0).await;
}

#[tokio::test]
async fn stateless_only_servers_refuse_get_and_delete_and_ignore_session_ids() {
    let server = server(Config::default().stateless_only()).await;
    let mut client = server.client();
    client.session = Some("a".repeat(64));
    assert_eq!(
        client.raw("GET", &client.get_headers(), "").await.status(),
        405
    );
    assert_eq!(
        client
            .raw("DELETE", &client.get_headers(), "")
            .await
            .status(),
        405
    );
    let reply = client.post_2026(1, "tools/list", json!({}), &[]).await;
    assert_eq!(reply.status(), 200);
    // A handshake client is told what is missing.
    let reply = server.client().post(&initialize(V2025_11_25)).await;
    assert_eq!(
        (reply.status(), reply.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
}

#[tokio::test]
async fn http_08_base_19_batches_work_in_2025_03_26_sessions_only() {
    let server = server(Config::default()).await;
    let client = Client::connect(server.addr, V2025_03_26).await;
    let batch = format!(
        "[{},{},{}]",
        request(1, "tools/list", json!({})),
        request(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "b"}})
        ),
        notification(
            "notifications/progress",
            json!({"progressToken": 1, "progress": 1})
        ),
    );
    let reply = client.post(&batch).await;
    assert_eq!(reply.status(), 200);
    let answers = reply.messages();
    let answers = answers[0].as_array().unwrap();
    let mut ids: Vec<i64> = answers.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, vec![1, 2]);
    let only_notifications = format!(
        "[{}]",
        notification("notifications/cancelled", json!({"requestId": 77}))
    );
    assert_eq!(client.post(&only_notifications).await.status(), 202);
    // BASE-19: later revisions refuse the array whole with HTTP 400, and
    // a batch of notifications gets no 202.
    for version in [V2025_06_18, V2025_11_25] {
        let newer = Client::connect(server.addr, version).await;
        let reply = newer
            .post(&format!("[{}]", request(1, "tools/list", json!({}))))
            .await;
        assert_eq!(reply.status(), 400, "{version}");
        assert_eq!(
            reply.json()["error"]["code"],
            -32600,
            "batches are 2025-03-26 only"
        );
        let reply = newer.post(&only_notifications).await;
        assert_eq!(reply.status(), 400, "{version}: a batch of notifications");
        // The session is untouched.
        let reply = newer.post(&request(2, "tools/list", json!({}))).await;
        assert_eq!(reply.status(), 200, "{version}");
    }
}
