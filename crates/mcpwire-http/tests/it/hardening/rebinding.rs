//! DNS rebinding on a dual-stack listener (issue 17 item 2): a connection
//! to 127.0.0.1 on an IPv6 socket has the local address
//! `::ffff:127.0.0.1`, which must count as loopback (HTTP-02, HTTP-03).

use mcpwire_http::server::Config;
use tokio::net::TcpListener;

use crate::server_support::*;

/// The headers of an `initialize` POST with `host` and, when given, `origin`.
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
async fn http_03_a_rebound_host_is_refused_on_a_dual_stack_listener() {
    // An IPv6 socket bound to the IPv4-mapped loopback address: what a
    // `[::]` listener sees for a client of 127.0.0.1, without listening on
    // any address other than 127.0.0.1.
    let listener = TcpListener::bind("[::ffff:127.0.0.1]:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = TestServer::start_on(listener, Config::default(), test_runtime());
    let client = Client::new(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    let body = initialize(V2025_11_25);
    let rebound = with(&client, "evil.example.com", Some("http://evil.example.com"));
    assert_eq!(client.raw("POST", &rebound, &body).await.status(), 403);
    let bad_host = with(&client, &format!("evil.example.com:{port}"), None);
    assert_eq!(client.raw("POST", &bad_host, &body).await.status(), 403);
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::ffff:127.0.0.1]:{port}"),
    ] {
        let headers = with(&client, &host, None);
        assert_eq!(
            client.raw("POST", &headers, &body).await.status(),
            200,
            "{host}"
        );
    }
    drop(server);
}
