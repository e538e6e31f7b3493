//! The round-robin proxy of `cargo xtask conformance scale-out`: an HTTP/1.1
//! reverse proxy on 127.0.0.1 that sends every request (not every client
//! connection) to the next backend in turn, so that consecutive requests
//! of one MCP session land on different server instances, as behind a load
//! balancer without sticky sessions. The proxy itself is
//! `mcpwire_test::proxy::RoundRobinProxy` (the multi-instance tests use the
//! same one); this program is its command line.
//!
//! ```text
//! round-robin-proxy --listen 127.0.0.1:0 --backend URL --backend URL ...
//! ```
//!
//! It prints its own base URL (`http://127.0.0.1:PORT`) on stdout once it
//! listens; a request keeps its path and query and goes to the next
//! backend's address (only the scheme and the IP address and port of a
//! backend URL count). Each request is traced on stderr with the backend
//! that served it (numbered from 1 in command-line order), so that a
//! failure can be traced to an instance.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;

use http::Uri;
use http::uri::Scheme;
use mcpwire_test::proxy::RoundRobinProxy;

/// What `--help` and usage errors print.
const USAGE: &str = "\
usage: round-robin-proxy --listen ADDRESS --backend URL [--backend URL ...]

--listen   the address to listen on (e.g. 127.0.0.1:0); the proxy prints its
           base URL (http://ADDRESS) on stdout once it listens
--backend  a backend, e.g. http://127.0.0.1:4321/mcp (its scheme and address
           count; requests keep their own path); give it once per backend
";

/// The parsed command line.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    listen: SocketAddr,
    backends: Vec<SocketAddr>,
}

/// Reads the command line (without the program name); `None` for `--help`.
fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut listen = None;
    let mut backends = Vec::new();
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        match flag.as_str() {
            "--help" | "-h" => return Ok(None),
            "--listen" | "--backend" => {
                let Some(value) = rest.next() else {
                    return Err(format!("{flag} needs a value"));
                };
                if flag == "--listen" {
                    let address = value.parse().map_err(|error| {
                        format!("--listen needs an address like 127.0.0.1:0: {error}")
                    })?;
                    listen = Some(address);
                } else {
                    backends.push(backend_address(value)?);
                }
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    let listen = listen.ok_or("--listen is required")?;
    if backends.is_empty() {
        return Err("give at least one --backend".to_owned());
    }
    Ok(Some(Options { listen, backends }))
}

/// The address of an `http://IP:PORT` backend URL.
fn backend_address(url: &str) -> Result<SocketAddr, String> {
    let uri: Uri = url
        .parse()
        .map_err(|error| format!("--backend {url:?} is not a URL: {error}"))?;
    if uri.scheme() != Some(&Scheme::HTTP) {
        return Err(format!(
            "--backend {url:?}: only http:// backends are proxied"
        ));
    }
    let authority = uri
        .authority()
        .ok_or_else(|| format!("--backend {url:?} names no host"))?;
    authority
        .as_str()
        .parse()
        .map_err(|_| format!("--backend {url:?}: give an IP address and a port"))
}

/// Serves until the process is killed.
async fn run(options: Options) -> std::io::Result<()> {
    let proxy = RoundRobinProxy::start_traced(options.listen, options.backends).await?;
    {
        // stdout carries only the URL, for the process that started us.
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", proxy.url(""))?;
        stdout.flush()?;
    }
    std::future::pending::<()>().await;
    drop(proxy);
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(Some(options)) => options,
        Ok(None) => {
            eprint!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("round-robin-proxy: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("round-robin-proxy: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("round-robin-proxy: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn backends_keep_only_their_address() {
        let parsed = parse(&args(&[
            "--listen",
            "127.0.0.1:0",
            "--backend",
            "http://127.0.0.1:1/mcp",
            "--backend",
            "http://127.0.0.1:2",
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(parsed.listen, "127.0.0.1:0".parse().unwrap());
        let expected: Vec<SocketAddr> = vec![
            "127.0.0.1:1".parse().unwrap(),
            "127.0.0.1:2".parse().unwrap(),
        ];
        assert_eq!(parsed.backends, expected);
    }

    #[test]
    fn bad_command_lines_are_refused() {
        for bad in [
            &["--listen", "127.0.0.1:0"][..],
            &["--backend", "http://127.0.0.1:1"][..],
            &["--listen", "nowhere", "--backend", "http://127.0.0.1:1"][..],
            &[
                "--listen",
                "127.0.0.1:0",
                "--backend",
                "https://127.0.0.1:1",
            ][..],
            &["--listen", "127.0.0.1:0", "--backend", "http://localhost:1"][..],
            &["--listen", "127.0.0.1:0", "--backend"][..],
            &["--listen", "127.0.0.1:0", "--port", "1"][..],
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad:?}");
        }
        assert_eq!(parse(&args(&["--help"])), Ok(None));
    }
}
