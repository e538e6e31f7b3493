//! HTTPS: the client verifies a loopback TLS server against a trusted root.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::convert::Infallible;
use std::sync::Arc;

use client_support::{bounded, next_message, request, result_of};
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcpwire_http::client::{
    BuildError, ClientOptions, Error, HttpClient, StreamableHttpClient, parse_url,
};
use mcpwire_test::tls::{ca_der, server_config};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// Starts an HTTPS server answering every POST with an empty result; returns its port.
async fn tls_server() -> u16 {
    let acceptor = TlsAcceptor::from(Arc::new(server_config()));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = service_fn(|request: Request<Incoming>| async move {
                    let body = request.into_body().collect().await.unwrap().to_bytes();
                    let id = serde_json::from_slice::<Value>(&body).unwrap()["id"].clone();
                    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"secure": true}});
                    let response = Response::builder()
                        .status(StatusCode::OK)
                        .header("content-type", "application/json")
                        .body(Full::new(bytes::Bytes::from(answer.to_string())))
                        .unwrap();
                    Ok::<_, Infallible>(response)
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    port
}

#[tokio::test]
async fn https_works_against_a_server_signed_by_a_trusted_root() {
    bounded(async {
        let port = tls_server().await;
        for host in ["127.0.0.1", "localhost"] {
            let options = ClientOptions::new()
                .native_roots(false)
                .add_root_certificate(ca_der());
            let url = format!("https://{host}:{port}/mcp");
            let mut client = StreamableHttpClient::with_options(&url, options).unwrap();
            client.send(request(1, "ping", json!({}))).await.unwrap();
            let answer = next_message(&mut client).await;
            assert_eq!(result_of(&answer), json!({"secure": true}), "{host}");
        }
    })
    .await;
}

#[tokio::test]
async fn https_refuses_a_server_no_trusted_root_vouches_for() {
    bounded(async {
        let port = tls_server().await;
        let url = format!("https://127.0.0.1:{port}/mcp");
        match StreamableHttpClient::new(&url) {
            // A machine without system roots cannot build an HTTPS client at all.
            Err(BuildError::NoRootCertificates) => {}
            Err(other) => panic!("{other}"),
            Ok(mut client) => {
                let outcome = client.send(request(1, "ping", json!({}))).await;
                assert!(matches!(outcome, Err(Error::Request(_))), "{outcome:?}");
            }
        }
        let no_roots = ClientOptions::new().native_roots(false);
        assert!(matches!(
            StreamableHttpClient::with_options(&url, no_roots),
            Err(BuildError::NoRootCertificates)
        ));
        let garbage = ClientOptions::new().add_root_certificate(vec![1, 2, 3]);
        assert!(matches!(
            StreamableHttpClient::with_options(&url, garbage),
            Err(BuildError::InvalidCertificate(_))
        ));
    })
    .await;
}

#[tokio::test]
async fn the_shared_http_client_speaks_https_to_a_trusted_server() {
    bounded(async {
        let port = tls_server().await;
        let endpoint = parse_url(&format!("https://localhost:{port}/mcp")).unwrap();
        let options = ClientOptions::new()
            .native_roots(false)
            .add_root_certificate(ca_der());
        let client = HttpClient::for_endpoint(&endpoint, &options).unwrap();
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}).to_string();
        let request = Request::builder()
            .method(Method::POST)
            .uri(endpoint.clone())
            .body(bytes::Bytes::from(body))
            .unwrap();
        let response = client.request(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let answer = response.into_body().collect().await.unwrap().to_bytes();
        let answer: Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["result"], json!({"secure": true}));

        // A client built for plain http does not speak TLS at all.
        let plain = parse_url(&format!("http://localhost:{port}/mcp")).unwrap();
        let plain = HttpClient::for_endpoint(&plain, &options).unwrap();
        let request = Request::get(endpoint).body(bytes::Bytes::new()).unwrap();
        assert!(plain.request(request).await.is_err());
    })
    .await;
}

#[test]
fn endpoint_urls_must_be_absolute_http_or_https_with_a_host() {
    assert!(parse_url("https://example.com/mcp").is_ok());
    assert!(parse_url("http://127.0.0.1:3000").is_ok());
    assert!(matches!(
        parse_url("ftp://example.com/mcp"),
        Err(BuildError::UnsupportedScheme(scheme)) if scheme == "ftp"
    ));
    for url in ["/mcp", "not a url", "http:///mcp"] {
        assert!(
            matches!(parse_url(url), Err(BuildError::InvalidUrl { .. })),
            "{url}"
        );
    }
}
