//! The scenarios of the stdio and HTTP parts: for each, the load and the
//! servers it is run against (ours, the limit, rmcp).

use std::time::Duration;

use super::Binaries;
use crate::load::{Load, ServerCommand};
use crate::messages::Era;

/// Small messages: about 200 bytes per request.
pub const SMALL: usize = 200;
/// Large messages: 64 KiB of text per request.
pub const LARGE: usize = 64 * 1024;

/// What a server is to the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// mcpwire, the subject.
    Ours,
    /// The physical limit (raw pipe echo, bare hyper).
    Limit,
    /// rmcp in the configuration the `x rmcp` ratio divides by.
    Rmcp,
    /// The lean reference (`lean-mcp`): the smallest correct MCP server
    /// written directly on tokio, hyper and serde_json, what the layers of
    /// mcpwire cost is measured against (`x lean`).
    Lean,
    /// Another configuration, shown for reference.
    Other,
}

/// One server a scenario runs against.
#[derive(Debug, Clone)]
pub struct Target {
    /// The row label.
    pub label: &'static str,
    /// What it is to the comparison.
    pub role: Role,
    /// How to start it.
    pub command: ServerCommand,
}

/// Which load client a scenario uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Newline-delimited JSON-RPC over pipes.
    Stdio,
    /// Streamable HTTP (or plain POSTs for the limit).
    Http,
}

/// One load, run against every one of its targets in each round.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// A short stable name (`stdio-64-200B`), used in the raw results.
    pub name: String,
    /// Which load client.
    pub transport: Transport,
    /// The load (durations are filled in from the settings).
    pub load: Load,
    /// The servers.
    pub targets: Vec<Target>,
}

fn load(concurrency: usize, size: usize, era: Era) -> Load {
    Load {
        concurrency,
        size,
        era,
        warmup: Duration::ZERO,
        duration: Duration::ZERO,
        max_calls: None,
    }
}

fn size_name(size: usize) -> &'static str {
    if size >= LARGE { "64KiB" } else { "200B" }
}

/// The stdio scenarios: 1 and 64 requests in flight, small and large.
pub fn stdio(bins: &Binaries) -> Vec<Scenario> {
    let mut scenarios = Vec::new();
    for (in_flight, size) in [(1, SMALL), (64, SMALL), (1, LARGE), (64, LARGE)] {
        let mut targets = vec![
            Target {
                label: "mcpwire",
                role: Role::Ours,
                // The echo server linked as a stdio server is, without
                // the HTTP half of `bench-server`: C1 reads its cold start.
                command: ServerCommand::new(&bins.stdio_server, &[]),
            },
            // The same server on tokio's default multi-threaded runtime
            // (`#[tokio::main]` and `serve_stdio().await`) rather than
            // `run_stdio`'s current-thread one: what the wake-ups across
            // threads cost a server of one peer.
            Target {
                label: "mcpwire multi-thread",
                role: Role::Ours,
                command: ServerCommand::new(&bins.bench_server, &["--stdio", "--multi-thread"]),
            },
            Target {
                label: "raw pipe echo",
                role: Role::Limit,
                command: ServerCommand::new(&bins.raw_echo, &[]),
            },
            Target {
                label: "lean",
                role: Role::Lean,
                command: ServerCommand::new(&bins.lean, &["--stdio"]),
            },
        ];
        if let Some(rmcp) = &bins.rmcp_echo {
            // rmcp's best on Linux: its non-blocking pipe transport.
            targets.push(Target {
                label: "rmcp pipes",
                role: Role::Rmcp,
                command: ServerCommand::new(rmcp, &["--stdio", "--pipes"]),
            });
            targets.push(Target {
                label: "rmcp",
                role: Role::Other,
                command: ServerCommand::new(rmcp, &["--stdio"]),
            });
        }
        scenarios.push(Scenario {
            name: format!("stdio-{in_flight}-{}", size_name(size)),
            transport: Transport::Stdio,
            load: load(in_flight, size, Era::Handshake),
            targets,
        });
    }
    scenarios
}

/// The HTTP scenarios: JSON answers at 1, 16 and 64 connections; SSE at
/// 64; stateless at 16; large messages at 1, as JSON and as SSE.
pub fn http(bins: &Binaries) -> Vec<Scenario> {
    let ours = |label: &'static str, flags: &[&str]| Target {
        label,
        role: Role::Ours,
        command: ServerCommand::new(
            &bins.bench_server,
            &[&["--http", "127.0.0.1:0"][..], flags].concat(),
        ),
    };
    // Our service hosted on plain hyper HTTP/1.1 with TCP_NODELAY, to show
    // what the host (not the MCP layer) costs.
    let nodelay = |label: &'static str, flags: &[&str]| Target {
        role: Role::Other,
        ..ours(label, flags)
    };
    // Our service with each session's runtime on a task of its own (the
    // connect hook spawns it): no POST fast path, for what it saves.
    let spawned = nodelay;
    let limit = Target {
        label: "bare hyper",
        role: Role::Limit,
        command: ServerCommand::new(&bins.bare_hyper, &["127.0.0.1:0"]),
    };
    let lean = |label: &'static str, flags: &[&str]| Target {
        label,
        role: Role::Lean,
        command: ServerCommand::new(
            &bins.lean,
            &[&["--http", "127.0.0.1:0"][..], flags].concat(),
        ),
    };
    let rmcp = |stateless: bool, role: Role| {
        bins.rmcp_echo.as_ref().map(|program| Target {
            label: if stateless {
                "rmcp stateless json"
            } else {
                "rmcp stateful"
            },
            role,
            command: if stateless {
                ServerCommand::new(program, &["--http", "127.0.0.1:0", "--json", "--stateless"])
            } else {
                ServerCommand::new(program, &["--http", "127.0.0.1:0"])
            },
        })
    };
    let mut scenarios = Vec::new();
    for connections in [1, 16, 64] {
        let mut targets = vec![
            ours("mcpwire json", &["--json"]),
            limit.clone(),
            lean("lean json", &[]),
        ];
        if connections == 1 {
            targets.push(nodelay("mcpwire json nodelay", &["--json", "--nodelay"]));
        } else {
            targets.push(spawned("mcpwire json spawned", &["--json", "--spawned"]));
        }
        targets.extend(rmcp(false, Role::Rmcp));
        targets.extend(rmcp(true, Role::Other));
        scenarios.push(Scenario {
            name: format!("http-json-{connections}-200B"),
            transport: Transport::Http,
            load: load(connections, SMALL, Era::Handshake),
            targets,
        });
    }
    let mut sse = vec![
        ours("mcpwire sse", &["--sse"]),
        nodelay("mcpwire sse nodelay", &["--sse", "--nodelay"]),
        spawned("mcpwire sse spawned", &["--sse", "--spawned"]),
        limit.clone(),
        lean("lean sse", &["--sse"]),
    ];
    sse.extend(rmcp(false, Role::Rmcp));
    scenarios.push(Scenario {
        name: "http-sse-64-200B".to_owned(),
        transport: Transport::Http,
        load: load(64, SMALL, Era::Handshake),
        targets: sse,
    });
    let mut stateless = vec![
        ours("mcpwire stateless", &["--json", "--stateless"]),
        limit.clone(),
        lean("lean stateless", &[]),
    ];
    stateless.extend(rmcp(true, Role::Rmcp));
    scenarios.push(Scenario {
        name: "http-stateless-16-200B".to_owned(),
        transport: Transport::Http,
        load: load(16, SMALL, Era::Stateless),
        targets: stateless,
    });
    let mut large = vec![
        ours("mcpwire json", &["--json"]),
        limit.clone(),
        lean("lean json", &[]),
    ];
    large.extend(rmcp(false, Role::Rmcp));
    scenarios.push(Scenario {
        name: "http-json-1-64KiB".to_owned(),
        transport: Transport::Http,
        load: load(1, LARGE, Era::Handshake),
        targets: large,
    });
    // Large answers on SSE streams: their throughput, and the peak memory of
    // one session answering them (the event log must not keep them all).
    let mut large_sse = vec![
        ours("mcpwire sse", &["--sse"]),
        limit,
        lean("lean sse", &["--sse"]),
    ];
    large_sse.extend(rmcp(false, Role::Rmcp));
    scenarios.push(Scenario {
        name: "http-sse-1-64KiB".to_owned(),
        transport: Transport::Http,
        load: load(1, LARGE, Era::Handshake),
        targets: large_sse,
    });
    scenarios
}
