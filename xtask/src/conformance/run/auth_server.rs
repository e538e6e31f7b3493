//! The authorization-server mode: the runner's `authorization` command
//! against mcpwire-auth's embedded authorization server (the
//! `everything-authorization-server` binary), with this process playing
//! the browser of the `authorization-code-grant` scenario.
//!
//! The runner prints an authorization URL and waits for a browser to reach
//! its callback listener. The embedded server approves at once and answers
//! the URL with a redirect to that callback, so the browser step is two
//! plain HTTP GETs on 127.0.0.1: the authorization URL, then the
//! `Location` it answers with (`CONTRACT-0.2.md` §4).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::super::args::Mode;
use super::super::binaries::{ServerProcess, build_binary};
use super::super::isolation;
use super::super::listing::names;
use super::super::results;
use super::{Context, ModeRun, fresh_results_dir, select};

/// The public client the binary registers (see its documentation).
const CLIENT_ID: &str = "conformance-client";

/// The resource indicator sent in both requests (RFC 8707), which the
/// server binds into the access token's audience.
const RESOURCE: &str = "http://127.0.0.1/mcp";

/// The wall-clock bound of the whole run (each scenario takes a second;
/// the runner would wait 5 minutes for a browser that never comes).
const SUITE_LIMIT: Duration = Duration::from_secs(120);

/// The bound of each browser request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How often the callback is tried (100 ms apart) before giving up.
const CALLBACK_ATTEMPTS: u32 = 50;

/// The largest HTTP response head-and-body the browser reads.
const RESPONSE_LIMIT: u64 = 1 << 20;

/// A port free on 127.0.0.1 right now, for the runner's callback listener.
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|error| format!("cannot find a free port: {error}"))
}

/// GETs an `http://` URL on a plain connection and returns the status code
/// and the `Location` header.
fn http_get(url: &str) -> Result<(u16, Option<String>), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url} is not an http:// URL"))?;
    let (authority, path) = rest.find('/').map_or((rest, "/"), |at| rest.split_at(at));
    let mut stream =
        TcpStream::connect(authority).map_err(|error| format!("cannot reach {url}: {error}"))?;
    stream
        .set_read_timeout(Some(REQUEST_TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(REQUEST_TIMEOUT)))
        .map_err(|error| error.to_string())?;
    // One write: `write!` would send the request in fragments, and a
    // server that answers after its first read and closes would then reset
    // the connection over the unread rest.
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(|error| format!("cannot send to {url}: {error}"))?;
    let mut response = String::new();
    stream
        .take(RESPONSE_LIMIT)
        .read_to_string(&mut response)
        .map_err(|error| format!("cannot read the answer of {url}: {error}"))?;
    let head = response.split("\r\n\r\n").next().unwrap_or("");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("{url} answered something that is not HTTP"))?;
    let location = lines.find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("location")
            .then(|| value.trim().to_owned())
    });
    Ok((status, location))
}

/// Plays the browser: opens the authorization URL and follows its redirect
/// to the runner's callback.
fn complete_in_browser(authorization_url: &str) -> Result<(), String> {
    let (status, location) = http_get(authorization_url)?;
    let location = location
        .filter(|_| (300..400).contains(&status))
        .ok_or_else(|| format!("the authorization URL answered {status} without a redirect"))?;
    // The runner prints the URL as it starts its callback listener, which
    // may not accept connections yet: retry a refused connection a while.
    let mut attempts = 0;
    let (status, _) = loop {
        match http_get(&location) {
            Ok(answer) => break answer,
            Err(error) if attempts >= CALLBACK_ATTEMPTS => return Err(error),
            Err(_) => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    };
    println!("conformance: browser step done (callback answered {status})");
    Ok(())
}

pub(super) fn run_auth_server(context: &Context<'_>) -> Result<ModeRun, String> {
    let known = names(&context.listing.authorization);
    let (scenarios, whole_suite) = select(
        &known,
        context.options.scenario.as_deref(),
        "authorization-server",
    )?;
    let binary = build_binary(context.root, "everything-authorization-server")?;
    let (out, beside) = fresh_results_dir(context, Mode::AuthServer)?;
    let log = beside.join("auth-server-runner.log");
    let server =
        ServerProcess::start(&binary, &beside.join("everything-authorization-server.log"))?;
    let issuer = server.url.clone();
    let port = free_port()?.to_string();
    println!(
        "conformance: the embedded authorization server's issuer is {issuer}; runner {} output goes to {}",
        context.version,
        log.display()
    );
    let mut command = Command::new(&context.tools.node);
    command
        .arg(&context.tools.runner)
        .args(["authorization", "--url", &issuer, "--client-id", CLIENT_ID])
        .args(["--resource", RESOURCE, "--port", &port])
        .arg("-o")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::from(
            std::fs::File::create(beside.join("auth-server-runner.stderr.log"))
                .map_err(|error| format!("cannot create a log: {error}"))?,
        ));
    if let Some(scenario) = &context.options.scenario {
        command.args(["--scenario", scenario]);
    }
    let mut child = command
        .spawn()
        .map_err(|error| format!("cannot run the runner: {error}"))?;
    let stdout = child.stdout.take();
    let mut log_file =
        std::fs::File::create(&log).map_err(|error| format!("cannot create a log: {error}"))?;
    let prefix = format!("{issuer}/authorize?");
    let (urls_tx, urls) = mpsc::channel();
    // Copies the runner's stdout to the log and picks out the URL it wants
    // a browser to open; reading everything keeps the pipe from filling.
    let reader = std::thread::spawn(move || {
        let Some(stdout) = stdout else { return };
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = writeln!(log_file, "{line}");
            if line.trim().starts_with(&prefix) {
                let _ = urls_tx.send(line.trim().to_owned());
            }
        }
    });
    let started = Instant::now();
    let mut browser_problem = None;
    while started.elapsed() < SUITE_LIMIT {
        match urls.recv_timeout(Duration::from_millis(100)) {
            Ok(url) => {
                if let Err(error) = complete_in_browser(&url) {
                    println!("conformance: the browser step failed: {error}");
                    browser_problem = Some(error);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if !matches!(child.try_wait(), Ok(None)) {
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let remaining = SUITE_LIMIT.saturating_sub(started.elapsed());
    let status = isolation::wait_bounded(child, remaining);
    let _ = reader.join();
    drop(server);
    let status = status.map_err(|error| format!("the authorization suite: {error}"))?;
    if let Some(problem) = browser_problem {
        println!(
            "conformance: (the runner's results say what the failed browser step cost: {problem})"
        );
    }
    Ok(ModeRun {
        // The runner names these directories `authorization-server-<scenario>-<time>`.
        results: results::collect(&out, "authorization-server-")?,
        expected: scenarios,
        whole_suite,
        runner_succeeded: status.success(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browser_follows_a_redirect_and_reads_the_location() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            // Read the whole head (bounded), so that closing the socket
            // never resets the client over unread bytes.
            let mut request = Vec::new();
            let mut chunk = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < 64 * 1024 {
                let read = stream.read(&mut chunk).unwrap();
                if read == 0 {
                    break;
                }
                request.extend_from_slice(&chunk[..read]);
            }
            let text = String::from_utf8_lossy(&request).into_owned();
            stream
                .write_all(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/callback?code=x\r\nContent-Length: 0\r\n\r\n")
                .unwrap();
            text
        });
        let (status, location) = http_get(&format!("http://{address}/authorize?a=b")).unwrap();
        assert_eq!(status, 302);
        assert_eq!(
            location.as_deref(),
            Some("http://127.0.0.1:9/callback?code=x")
        );
        assert!(
            server
                .join()
                .unwrap()
                .starts_with("GET /authorize?a=b HTTP/1.1\r\n")
        );
    }
}
