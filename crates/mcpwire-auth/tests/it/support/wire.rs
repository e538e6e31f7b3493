//! Test support for the resource-server and embedded authorization-server
//! tests: serving a tower service on 127.0.0.1 with hyper, and a minimal
//! HTTP/1.1 client over a plain TCP connection.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcpwire_auth::resource::{BoxFuture, DocumentFetch, FetchError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tower::Service;

/// Serves `service` on a fresh 127.0.0.1 port until the test's runtime ends.
pub(crate) async fn serve<S, B>(service: S) -> SocketAddr
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: std::error::Error + Send + Sync + 'static,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let service = service.clone();
            tokio::spawn(async move {
                let handler = service_fn(move |request| {
                    let mut service = service.clone();
                    async move { service.call(request).await }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    address
}

/// An HTTP answer: status, headers (names lowercased) and body.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Answer {
    /// The first value of header `name`.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }
}

/// Sends one request on a fresh connection (`Connection: close`) and reads
/// the whole answer, in 10 seconds at most.
pub(crate) async fn send(method: &str, url: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    try_send(method, url, headers, body)
        .await
        .expect("the server answered")
}

/// [`send`], with a connection that fails (nothing listening, reset) as an
/// error instead of a panic.
pub(crate) async fn try_send(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<Answer, std::io::Error> {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.find('/').map_or((rest, "/"), |at| rest.split_at(at));
    let exchange = async {
        let mut stream = TcpStream::connect(authority).await?;
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).await?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await?;
        Ok::<_, std::io::Error>(raw)
    };
    let raw = tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .expect("answered in time")?;
    let text = String::from_utf8(raw).expect("a UTF-8 answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Ok(Answer {
        status,
        headers,
        body: body.to_owned(),
    })
}

/// GETs documents with [`send`] (a JWKS, a client metadata document).
pub(crate) struct PlainFetch;

impl DocumentFetch for PlainFetch {
    fn get<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Bytes, FetchError>> {
        Box::pin(async move {
            let answer = try_send("GET", url, &[], "")
                .await
                .map_err(|error| FetchError::new(format!("{url}: {error}")))?;
            if answer.status == 200 {
                Ok(Bytes::from(answer.body))
            } else {
                Err(FetchError::new(format!("{url} answered {}", answer.status)))
            }
        })
    }
}
