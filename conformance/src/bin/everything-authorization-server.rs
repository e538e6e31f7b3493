//! The everything-authorization-server binary: mcpwire-auth's embedded
//! authorization server (development and tests only), served over HTTP for
//! the conformance runner's `authorization` command.
//!
//! `--http ADDRESS` binds ADDRESS, prints the issuer URL as the first
//! stdout line and serves until killed. The client [`CLIENT_ID`] is
//! registered up front as a public client whose redirect URI is
//! `http://127.0.0.1/callback` on any port (RFC 8252 §7.3), which is what
//! the runner's callback listener uses; `cargo xtask conformance
//! auth-server` passes that id to the runner. Every authorization request is
//! approved at once (no login page), so the browser step is a plain GET.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use mcpwire_auth::authorization_server::{AuthorizationServer, Client};
use mcpwire_auth::resource::{BoxFuture, DocumentFetch, FetchError};
use mcpwire_http::client::{ClientOptions, HttpClient, parse_url};

/// The public client registered for the runner.
const CLIENT_ID: &str = "conformance-client";

/// The largest client metadata document read.
const DOCUMENT_LIMIT: usize = 64 * 1024;

/// How long fetching a client metadata document may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

const USAGE: &str = "\
usage: everything-authorization-server --http ADDRESS   (e.g. 127.0.0.1:0)

Serves mcpwire-auth's embedded authorization server (development and tests
only) on ADDRESS and prints its issuer URL on stdout. The public client
`conformance-client` is registered with redirect http://127.0.0.1/callback.
";

/// Client metadata documents fetched with mcpwire-http's client.
struct HttpClientFetch;

impl DocumentFetch for HttpClientFetch {
    fn get<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Bytes, FetchError>> {
        Box::pin(async move {
            let failed = |error: &dyn std::fmt::Display| FetchError::new(format!("{url}: {error}"));
            let uri = parse_url(url).map_err(|error| failed(&error))?;
            let client = HttpClient::for_endpoint(&uri, &ClientOptions::default())
                .map_err(|error| failed(&error))?;
            let request = http::Request::get(uri)
                .header(http::header::ACCEPT, "application/json")
                .body(Bytes::new())
                .map_err(|error| failed(&error))?;
            let exchange = async {
                let response = client
                    .request(request)
                    .await
                    .map_err(|error| failed(&error))?;
                if !response.status().is_success() {
                    return Err(failed(&response.status()));
                }
                let body = Limited::new(response.into_body(), DOCUMENT_LIMIT)
                    .collect()
                    .await
                    .map_err(|error| failed(&error))?;
                Ok(body.to_bytes())
            };
            tokio::time::timeout(FETCH_TIMEOUT, exchange)
                .await
                .map_err(|_| failed(&"timed out"))?
        })
    }
}

fn parse(args: &[String]) -> Result<Option<SocketAddr>, String> {
    match args {
        [flag] if flag == "--help" || flag == "-h" => Ok(None),
        [flag, address] if flag == "--http" => address
            .parse()
            .map(Some)
            .map_err(|error| format!("--http needs an address like 127.0.0.1:0: {error}")),
        other => Err(format!("expected --http ADDRESS, got {other:?}")),
    }
}

async fn run(address: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    let issuer = format!("http://{}", listener.local_addr()?);
    let server = AuthorizationServer::builder(issuer.as_str())
        .client(Client::public(
            CLIENT_ID,
            vec!["http://127.0.0.1/callback".to_owned()],
        ))
        .metadata_documents(Arc::new(HttpClientFetch))
        .allow_loopback_metadata_documents(true)
        .build()?;
    {
        // stdout carries only the issuer line, which xtask waits for.
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{issuer}")?;
        stdout.flush()?;
    }
    mcpwire_http::server::serve(listener, server).await?;
    Ok(())
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let address = match parse(&args) {
        Ok(Some(address)) => address,
        Ok(None) => {
            eprint!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("everything-authorization-server: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("everything-authorization-server: no runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(address)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("everything-authorization-server: {error}");
            ExitCode::FAILURE
        }
    }
}
