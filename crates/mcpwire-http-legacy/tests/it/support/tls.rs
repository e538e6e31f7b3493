//! HTTPS for the tests: a server on 127.0.0.1 that speaks TLS with the
//! test PKI of mcpwire-test (shared with mcpwire-http's HTTPS tests).

use std::future::poll_fn;
use std::sync::Arc;

use http::{Request, Response};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcpwire_http::server::LocalAddr;
use mcpwire_http::server::body::SendBody;
use mcpwire_test::tls::{ca_der, server_config};
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use super::{BoxError, Listener};

/// Client options that trust the test CA, and only it.
pub(crate) fn trusting_options() -> mcpwire_http::client::ClientOptions {
    mcpwire_http::client::ClientOptions::new()
        .native_roots(false)
        .add_root_certificate(ca_der())
}

/// Serves `service` over HTTPS (HTTP/1.1) with the test certificate,
/// inserting each connection's `LocalAddr` as mcpwire-http's `serve` does.
/// The listener's base URL is `https://127.0.0.1:port`.
pub(crate) async fn listen_tls<S, B>(service: S) -> Listener
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send,
    B: SendBody,
{
    let acceptor = TlsAcceptor::from(Arc::new(server_config()));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let mut connections = JoinSet::new();
        while let Ok((tcp, _)) = listener.accept().await {
            let local = tcp.local_addr().unwrap();
            let acceptor = acceptor.clone();
            let service = service.clone();
            connections.spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let handler = service_fn(move |mut request: Request<Incoming>| {
                    request.extensions_mut().insert(LocalAddr(local));
                    let mut service = service.clone();
                    async move {
                        poll_fn(|cx| service.poll_ready(cx)).await?;
                        service.call(request).await
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), handler)
                    .await;
            });
        }
    });
    Listener {
        addr,
        base: format!("https://{addr}"),
        task,
    }
}
