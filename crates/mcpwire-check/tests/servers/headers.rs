//! `Options::with_header` (`mcpwire check --header`): a server behind a
//! gateway that wants a token on every request is checked clean when the
//! token is given, and cannot be reached without it.

use std::net::SocketAddr;

use http::{Request, Response, StatusCode};
use http_body_util::{Either, Empty};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcpwire_check::{Level, Target, run};
use tokio::net::{TcpListener, TcpStream};

use super::{assert_clean, everything_http_server, options};

const TOKEN_HEADER: &str = "x-gateway-token";
const TOKEN: &str = "open-sesame";

/// A gateway on 127.0.0.1 that forwards each request carrying the token to
/// `upstream` (the response streamed back as it comes, event streams
/// included) and refuses any other with 401. Returns its address.
async fn gateway(upstream: SocketAddr) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let service = service_fn(move |request: Request<Incoming>| async move {
                let allowed = request
                    .headers()
                    .get(TOKEN_HEADER)
                    .is_some_and(|value| value == TOKEN);
                if !allowed {
                    let refused = Response::builder()
                        .status(StatusCode::UNAUTHORIZED)
                        .body(Either::Left(Empty::<Bytes>::new()))
                        .unwrap();
                    return Ok::<_, hyper::Error>(refused);
                }
                let connection = TcpStream::connect(upstream).await.unwrap();
                let (mut sender, driver) =
                    hyper::client::conn::http1::handshake(TokioIo::new(connection)).await?;
                tokio::spawn(driver);
                let response = sender.send_request(request).await?;
                Ok(response.map(Either::Right))
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    address
}

/// The everything-server's Streamable HTTP URL, behind a gateway.
async fn gated_url() -> String {
    let (url, _legacy) = everything_http_server().await;
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_once('/').unwrap();
    let gateway = gateway(authority.parse().unwrap()).await;
    format!("http://{gateway}/{path}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_behind_a_token_is_checked_clean_with_the_token_as_a_header() {
    let url = gated_url().await;
    let options = options().with_header(TOKEN_HEADER.parse().unwrap(), TOKEN.parse().unwrap());
    let report = run(&Target::Url(url), &options).await;
    assert_clean(&report);
    // The transport's requests and the raw HTTP checks both went through:
    // the revisions were negotiated and the session checks ran.
    assert_eq!(report.revisions.len(), 5, "{}", report.to_text());
    assert!(
        report
            .passed
            .iter()
            .any(|pass| pass.rule.starts_with("HTTP")),
        "{}",
        report.to_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_token_the_server_behind_it_cannot_be_reached() {
    let url = gated_url().await;
    let report = run(&Target::Url(url), &options()).await;
    // Every initialize was refused by the gateway: no revision spoken.
    assert!(report.revisions.is_empty(), "{}", report.to_text());
    assert!(report.failures() > 0, "{}", report.to_text());
    assert!(
        report
            .findings
            .iter()
            .all(|finding| finding.level == Level::Fail
                && finding.message.contains("401 Unauthorized")),
        "{}",
        report.to_text()
    );
}
