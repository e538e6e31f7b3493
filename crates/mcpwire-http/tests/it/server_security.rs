//! DNS-rebinding defence on a loopback server: bad `Host` and bad `Origin`
//! values get 403 on every method, the server's own names pass (HTTP-02,
//! HTTP-03; the conformance `dns-rebinding-protection` scenario).

use crate::server_support;

use mcpwire_http::server::Config;
use server_support::*;

fn with(client: &Client, host: &str, origin: Option<&str>) -> Vec<(String, String)> {
    let mut headers = client.post_headers();
    headers.retain(|(name, _)| name != "host");
    headers.push(("host".to_owned(), host.to_owned()));
    if let Some(origin) = origin {
        headers.push(("origin".to_owned(), origin.to_owned()));
    }
    headers
}

#[tokio::test]
async fn http_03_a_rebound_host_or_origin_gets_403_and_local_names_pass() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let client = server.client();
    let port = server.addr.port();
    let body = initialize(V2025_11_25);
    let evil = with(&client, "evil.example.com", Some("http://evil.example.com"));
    let reply = client.raw("POST", &evil, &body).await;
    assert_eq!(reply.status(), 403);
    assert!(reply.json()["error"].is_object() && reply.json()["id"].is_null());
    let bad_origin = with(
        &client,
        &format!("localhost:{port}"),
        Some("http://evil.example.com"),
    );
    assert_eq!(client.raw("POST", &bad_origin, &body).await.status(), 403);
    let bad_host = with(&client, "evil.example.com", None);
    assert_eq!(client.raw("POST", &bad_host, &body).await.status(), 403);
    for (host, origin) in [
        (
            format!("localhost:{port}"),
            Some(format!("http://localhost:{port}")),
        ),
        (
            format!("127.0.0.1:{port}"),
            Some(format!("http://127.0.0.1:{port}")),
        ),
        (format!("localhost:{port}"), None),
    ] {
        let headers = with(&client, &host, origin.as_deref());
        let reply = client.raw("POST", &headers, &body).await;
        assert_eq!(reply.status(), 200, "{host} {origin:?}");
        assert!(reply.head.header("mcp-session-id").is_some());
    }
}

#[tokio::test]
async fn http_02_every_method_is_checked() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    for method in ["GET", "DELETE"] {
        let mut headers = client.get_headers();
        headers.push(("origin".to_owned(), "https://evil.example.com".to_owned()));
        assert_eq!(
            client.raw(method, &headers, "").await.status(),
            403,
            "{method}"
        );
    }
    // The session is untouched by the refused DELETE.
    assert_eq!(client.get_stream(None).await.0.status, 200);
}

#[tokio::test]
async fn configured_hosts_and_origins_replace_the_loopback_default() {
    let config = Config::default()
        .allowed_hosts(["mcp.example.com"])
        .allowed_origins(["https://app.example.com"]);
    let server = TestServer::start(config, test_runtime()).await;
    let client = server.client();
    let body = initialize(V2025_11_25);
    let ok = with(&client, "mcp.example.com", Some("https://app.example.com"));
    assert_eq!(client.raw("POST", &ok, &body).await.status(), 200);
    let local = with(&client, &format!("127.0.0.1:{}", server.addr.port()), None);
    assert_eq!(client.raw("POST", &local, &body).await.status(), 403);
    let other = with(&client, "mcp.example.com", Some("https://mcp.example.com"));
    assert_eq!(client.raw("POST", &other, &body).await.status(), 403);
}
