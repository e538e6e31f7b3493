//! The HTTP limit: a bare hyper HTTP/1.1 server that answers every POST
//! with its own JSON body (200, `application/json`), over keep-alive
//! connections with `TCP_NODELAY`. Anything else gets an empty 200.
//!
//! `bare-hyper ADDR [--threads N]` prints `http://ADDR/mcp` as its first
//! line of stdout once it listens, and exits when stdin closes.

// Reports its URL on stdout before serving.
#![allow(clippy::print_stdout)]

use std::convert::Infallible;

use bytes::Bytes;
use http::{Method, Request, Response, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let echo = request.method() == Method::POST;
    let body = match request.into_body().collect().await {
        Ok(collected) if echo => collected.to_bytes(),
        _ => Bytes::new(),
    };
    let mut response = Response::new(Full::new(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let address = args
        .iter()
        .find(|arg| !arg.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let threads = args
        .iter()
        .position(|arg| arg == "--threads")
        .and_then(|at| args.get(at + 1))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if threads > 0 {
        builder.worker_threads(threads);
    }
    builder.enable_all().build()?.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&address).await?;
        println!("http://{}/mcp", listener.local_addr()?);
        exit_when_stdin_closes();
        loop {
            let (stream, _) = listener.accept().await?;
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service_fn(answer))
                    .await;
            });
        }
    })
}

/// Ends the process when stdin closes, so that the load client can stop an
/// HTTP server the same way as a stdio one, and a profiler running it
/// sees an ordinary exit.
fn exit_when_stdin_closes() {
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        std::process::exit(0);
    });
}
