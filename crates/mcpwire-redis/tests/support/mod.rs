//! The test harness: a real `redis-server` on a free loopback port, started
//! by the test and killed when dropped (`cargo xtask redis` installs it).

#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test file is its own crate and uses a different subset of these helpers"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

pub mod cluster;

/// Where the round-robin proxy of the tests listens: any free loopback port.
pub const PROXY_LISTEN: std::net::SocketAddr =
    std::net::SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 0);

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcpwire_redis::RedisConfig;

/// A `redis-server` this test started; killed on drop.
pub struct RedisServer {
    child: Option<Child>,
    /// The loopback port it listens on.
    pub port: u16,
}

/// A port that was free a moment ago: `redis-server --port 0` does not
/// listen at all, so the harness binds a port, releases it and passes it.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn spawn(port: u16) -> Child {
    Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server runs (install it with `cargo xtask redis`)")
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

impl RedisServer {
    /// Starts Redis on a free port and waits (up to 10 s) for its PING.
    pub fn start() -> Self {
        for _ in 0..5 {
            let port = free_port();
            let mut server = Self {
                child: Some(spawn(port)),
                port,
            };
            if server.wait_ready() {
                return server;
            }
            // The port was taken in between: try another.
            server.kill();
        }
        panic!("redis-server did not start");
    }

    fn wait_ready(&mut self) -> bool {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if pings(self.port) {
                return true;
            }
            if let Some(child) = &mut self.child
                && child.try_wait().ok().flatten().is_some()
            {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// The URL of this Redis.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// A store configuration for this Redis with a short command timeout.
    pub fn config(&self) -> RedisConfig {
        RedisConfig::new(self.url()).command_timeout(Duration::from_millis(1500))
    }

    /// Kills the server (its data is gone: it saves nothing).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port and waits for its PING.
    pub fn restart(&mut self) {
        self.kill();
        self.child = Some(spawn(self.port));
        assert!(self.wait_ready(), "redis-server did not come back");
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
