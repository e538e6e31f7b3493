//! The scale-out mode: the runner's server suite against one MCP service
//! spread over three everything-server instances that share one Redis,
//! behind a proxy that sends every request to the next instance (no
//! sticky sessions), so that a session's POSTs, GETs and DELETE, a task's
//! polls and a multi round-trip request's retries each land on another
//! instance than the one before.
//!
//! Started here, and killed when the mode ends (also on failure): a
//! `redis-server` on a free loopback port that saves nothing, three
//! `everything-server --http 127.0.0.1:0 --redis URL` (which seal
//! `requestState` with the key ring they share through that Redis, as the
//! scale-out guide recommends), and `round-robin-proxy`. Each one's
//! stderr goes to its own log beside the results, named on failure.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::super::args::Mode;
use super::super::binaries::{ServerProcess, build_binary};
use super::super::isolation;
use super::super::listing::names;
use super::super::results;
use super::{
    Context, ModeRun, SERVER_SUITE_LIMIT, fresh_results_dir, log_output, select, write_runner_yaml,
};
use crate::redis;

/// How many everything-server instances share the Redis.
const INSTANCES: usize = 3;

/// The everything-server's Streamable HTTP path, which the proxy keeps.
const ENDPOINT_PATH: &str = "/mcp";

/// How long `redis-server` may take to answer `PING`.
const REDIS_START_LIMIT: Duration = Duration::from_secs(10);

/// How many free ports are tried for Redis (one may be taken in between).
const REDIS_PORT_ATTEMPTS: usize = 5;

/// The `redis-server` this mode started; killed (only it) when dropped.
struct RedisProcess {
    child: Child,
    port: u16,
}

impl Drop for RedisProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// A loopback port that was free a moment ago (`redis-server --port 0`
/// does not listen at all, so one is chosen here).
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|error| format!("cannot find a free port: {error}"))
}

/// Whether a raw `PING` on `port` answers `+PONG`.
fn pings(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut answer = [0u8; 7];
    stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
}

impl RedisProcess {
    /// Starts `redis-server` on a free loopback port, without persistence,
    /// its output in `log`, and waits for its `PING`.
    fn start(log: &Path) -> Result<Self, String> {
        for _ in 0..REDIS_PORT_ATTEMPTS {
            let port = free_port()?;
            let (stdout, stderr) = log_output(log)?;
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .stdin(Stdio::null())
                .stdout(stdout)
                .stderr(stderr)
                .spawn()
                .map_err(|error| format!("cannot start redis-server: {error}"))?;
            let mut redis = Self { child, port };
            let started = Instant::now();
            while started.elapsed() < REDIS_START_LIMIT {
                if pings(port) {
                    return Ok(redis);
                }
                if redis.child.try_wait().ok().flatten().is_some() {
                    // The port was taken in between: another one.
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Err(format!(
            "redis-server did not answer PING on a free port; see {}",
            log.display()
        ))
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

/// The log files of one run: Redis, each instance, the proxy.
pub(super) fn log_paths(beside: &Path) -> Vec<(String, PathBuf)> {
    let mut logs = vec![(
        "redis-server".to_owned(),
        beside.join("scale-out-redis.log"),
    )];
    for number in 1..=INSTANCES {
        logs.push((
            format!("everything-server instance {number}"),
            beside.join(format!("scale-out-instance-{number}.log")),
        ));
    }
    logs.push((
        "round-robin-proxy".to_owned(),
        beside.join("scale-out-proxy.log"),
    ));
    logs
}

/// Where to look when something failed: the runner's output, then each
/// process's log.
pub(super) fn describe_logs(beside: &Path) -> String {
    let runner = ("runner".to_owned(), runner_log(beside));
    std::iter::once(runner)
        .chain(log_paths(beside))
        .map(|(what, path)| format!("{what}: {}", path.display()))
        .collect::<Vec<_>>()
        .join("\n  ")
}

/// The runner's output (stdout and stderr).
fn runner_log(beside: &Path) -> PathBuf {
    beside.join("scale-out-runner.log")
}

/// Runs the server suite through the proxy over three shared instances.
pub(super) fn run_scale_out(context: &Context<'_>) -> Result<ModeRun, String> {
    let known = names(&context.listing.server);
    let (scenarios, whole_suite) = select(&known, context.options.scenario.as_deref(), "server")?;
    redis::ensure_installed()?;
    let server_binary = build_binary(context.root, "everything-server")?;
    let proxy_binary = build_binary(context.root, "round-robin-proxy")?;
    let (out, beside) = fresh_results_dir(context, Mode::ScaleOut)?;
    let yaml = write_runner_yaml(context, &beside, "scale-out", "server")?;
    let runner_log = runner_log(&beside);
    let _ = std::fs::remove_file(&runner_log);
    let logs = log_paths(&beside);
    for (_, path) in &logs {
        let _ = std::fs::remove_file(path);
    }
    let started = || -> Result<_, String> {
        let redis = RedisProcess::start(&logs[0].1)?;
        let redis_url = redis.url();
        let mut instances = Vec::with_capacity(INSTANCES);
        for (number, (what, log)) in logs[1..=INSTANCES].iter().enumerate() {
            let args = ["--http", "127.0.0.1:0", "--redis", &redis_url];
            let instance = ServerProcess::launch(&server_binary, &args, log, what)?;
            println!(
                "conformance: instance {} listens on {} (its log: {})",
                number + 1,
                instance.url,
                log.display()
            );
            instances.push(instance);
        }
        let mut proxy_args = vec!["--listen", "127.0.0.1:0"];
        for instance in &instances {
            proxy_args.extend(["--backend", instance.url.as_str()]);
        }
        let (what, proxy_log) = &logs[INSTANCES + 1];
        let proxy = ServerProcess::launch(&proxy_binary, &proxy_args, proxy_log, what)?;
        Ok((redis, instances, proxy))
    };
    let (redis, mut instances, proxy) =
        started().map_err(|error| format!("{error}\n  logs:\n  {}", describe_logs(&beside)))?;
    let url = format!("{}{ENDPOINT_PATH}", proxy.url);
    println!(
        "conformance: round-robin proxy at {url} over {INSTANCES} instances sharing {}; \
         runner {} output goes to {}",
        redis.url(),
        context.version,
        runner_log.display()
    );
    let (stdout, stderr) = log_output(&runner_log)?;
    let mut command = Command::new(&context.tools.node);
    command
        .arg(&context.tools.runner)
        .args(["server", "--url", &url])
        .arg("-o")
        .arg(&out)
        .arg("--expected-failures")
        .arg(&yaml)
        .stdout(stdout)
        .stderr(stderr);
    match &context.options.scenario {
        Some(scenario) => command.args(["--scenario", scenario]),
        None => command.args(["--suite", "all"]),
    };
    let status = command
        .spawn()
        .map_err(|error| format!("cannot run the runner: {error}"))
        .and_then(|child| isolation::wait_bounded(child, SERVER_SUITE_LIMIT));
    let crashed: Vec<usize> = instances
        .iter_mut()
        .enumerate()
        .filter_map(|(index, instance)| instance.has_exited().then_some(index + 1))
        .collect();
    drop(proxy);
    drop(instances);
    drop(redis);
    if !crashed.is_empty() {
        println!("conformance: scale-out instance(s) {crashed:?} exited during the run");
    }
    let status = status.map_err(|error| format!("the scale-out server suite: {error}"))?;
    Ok(ModeRun {
        results: results::collect(&out, "server-")?,
        expected: scenarios,
        whole_suite,
        runner_succeeded: status.success() && crashed.is_empty(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_process_has_its_own_log() {
        let logs = log_paths(Path::new("/r"));
        assert_eq!(logs.len(), INSTANCES + 2);
        let mut paths: Vec<&PathBuf> = logs.iter().map(|(_, path)| path).collect();
        paths.dedup();
        assert_eq!(paths.len(), INSTANCES + 2);
        let described = describe_logs(Path::new("/r"));
        assert!(
            described.contains("/r/scale-out-instance-2.log"),
            "{described}"
        );
        assert!(
            described.contains("runner: /r/scale-out-runner.log"),
            "{described}"
        );
    }
}
