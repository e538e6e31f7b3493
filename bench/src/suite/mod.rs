//! The benchmark suite behind `cargo xtask bench`: runs the parts asked
//! for, interleaving the servers of each scenario round by round, writes
//! every measurement as a JSON line and renders markdown tables whose
//! ratios are taken within each round (median [min-max] over rounds).

pub mod profile;
pub mod report;
pub mod scenarios;
pub mod targets;

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use crate::load::scale::{self, ScaleLoad, ScaleResult};
use crate::load::{self, Load, ServerCommand, codec};
use crate::messages::Era;
use crate::stats::Measurement;
use scenarios::{Role, Scenario, Transport};

/// The scenario whose cold start the C1 target reads (stdio, one call in
/// flight, small messages).
pub(crate) const COLD_START_SCENARIO: &str = "stdio-1-200B";

/// How many spawns of each server the cold start of
/// [`COLD_START_SCENARIO`] is the median of, per round.
const COLD_START_SAMPLES: usize = 21;

/// The programs the suite runs.
#[derive(Debug, Clone)]
pub struct Binaries {
    /// mcpwire's `bench-server`.
    pub bench_server: PathBuf,
    /// The same server linked without the HTTP transport, `stdio-server`:
    /// what the stdio scenarios run (a stdio server's cold start counts
    /// what its executable links).
    pub stdio_server: PathBuf,
    /// The stdio limit, `raw-echo`.
    pub raw_echo: PathBuf,
    /// The HTTP limit, `bare-hyper`.
    pub bare_hyper: PathBuf,
    /// The lean reference, `lean-mcp`.
    pub lean: PathBuf,
    /// `rmcp-echo`, when it was built.
    pub rmcp_echo: Option<PathBuf>,
}

/// A part of the suite, named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// serde_json parse + serialize of the same messages on one core.
    Codec,
    /// The stdio scenarios.
    Stdio,
    /// The HTTP scenarios.
    Http,
    /// Many idle sessions and open GET streams.
    Scale,
    /// Instructions per call under callgrind.
    Profile,
}

impl Part {
    /// Every part, in the order `all` runs them.
    pub const ALL: [Part; 5] = [
        Part::Codec,
        Part::Stdio,
        Part::Http,
        Part::Scale,
        Part::Profile,
    ];

    /// The part called `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|part| part.name() == name)
    }

    /// Its name on the command line and in the raw results.
    pub fn name(self) -> &'static str {
        match self {
            Part::Codec => "codec",
            Part::Stdio => "stdio",
            Part::Http => "http",
            Part::Scale => "scale",
            Part::Profile => "profile",
        }
    }
}

/// How long and how much.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Rounds of every scenario (at least 3 for real figures).
    pub rounds: usize,
    /// Warm-up before each measurement.
    pub warmup: Duration,
    /// Measured time per server per round.
    pub duration: Duration,
    /// Idle sessions the scale part opens.
    pub sessions: usize,
    /// GET streams the scale part opens.
    pub streams: usize,
    /// Calls of the two profiling runs (their difference is divided by).
    pub profile_calls: (u64, u64),
    /// Where the JSON lines go (none: nowhere).
    pub raw_results: Option<PathBuf>,
}

impl Settings {
    /// The figures reported in `docs/performance.md`.
    pub fn full() -> Self {
        Self {
            rounds: 3,
            warmup: Duration::from_millis(300),
            duration: Duration::from_secs(2),
            sessions: 10_000,
            streams: 1_000,
            profile_calls: (200, 1_000),
            raw_results: None,
        }
    }

    /// Tiny durations: checks that everything runs, measures nothing.
    pub fn smoke() -> Self {
        Self {
            rounds: 1,
            warmup: Duration::from_millis(20),
            duration: Duration::from_millis(150),
            sessions: 40,
            streams: 8,
            profile_calls: (20, 60),
            raw_results: None,
        }
    }
}

/// One measurement of one server in one round.
#[derive(Debug, Clone)]
pub struct Record {
    /// The part it belongs to.
    pub part: Part,
    /// The scenario's name.
    pub scenario: String,
    /// The server's label.
    pub target: String,
    /// What the server is to the comparison.
    pub role: Role,
    /// The round (from 0).
    pub round: usize,
    /// What was measured, or why it failed.
    pub outcome: Result<Measurement, String>,
}

/// Everything one run of the suite measured.
#[derive(Debug, Default)]
pub struct Results {
    /// Load measurements, in the order taken.
    pub records: Vec<Record>,
    /// Scale results by server label.
    pub scale: Vec<(String, Result<ScaleResult, String>)>,
    /// Profiles (instructions per call), by scenario.
    pub profiles: Vec<profile::Profile>,
    /// Parts that were skipped, and why.
    pub skipped: Vec<String>,
}

/// Runs `parts` and returns what they measured; raw results are appended
/// to `settings.raw_results` as they come.
///
/// # Errors
///
/// When the async runtime cannot start or the raw results cannot be
/// written. A server that fails is recorded, not an error.
pub fn run(bins: &Binaries, settings: &Settings, parts: &[Part]) -> Result<Results, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start a runtime: {error}"))?;
    let mut raw = match &settings.raw_results {
        Some(path) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
            }
            Some(
                std::fs::File::create(path)
                    .map_err(|error| format!("cannot create {}: {error}", path.display()))?,
            )
        }
        None => None,
    };
    let mut write_raw = |line: serde_json::Value| -> Result<(), String> {
        if let Some(file) = raw.as_mut() {
            writeln!(file, "{line}").map_err(|error| format!("writing raw results: {error}"))?;
        }
        Ok(())
    };
    let mut results = Results::default();

    if parts.contains(&Part::Codec) {
        for (round, size) in (0..settings.rounds)
            .flat_map(|round| [scenarios::SMALL, scenarios::LARGE].map(|size| (round, size)))
        {
            let measurement = codec::run(size, settings.duration);
            let record = Record {
                part: Part::Codec,
                scenario: format!(
                    "serde_json-{}",
                    if size == scenarios::LARGE {
                        "64KiB"
                    } else {
                        "200B"
                    }
                ),
                target: "serde_json Value".to_owned(),
                role: Role::Limit,
                round,
                outcome: Ok(measurement),
            };
            write_raw(record_json(&record))?;
            results.records.push(record);
        }
    }

    let mut load_scenarios: Vec<(Part, Scenario)> = Vec::new();
    if parts.contains(&Part::Stdio) {
        load_scenarios.extend(scenarios::stdio(bins).into_iter().map(|s| (Part::Stdio, s)));
    }
    if parts.contains(&Part::Http) {
        load_scenarios.extend(scenarios::http(bins).into_iter().map(|s| (Part::Http, s)));
    }
    for round in 0..settings.rounds {
        for (part, scenario) in &load_scenarios {
            let count = scenario.targets.len();
            // Rotate the order each round so no server always goes first.
            for offset in 0..count {
                let Some(target) = scenario.targets.get((offset + round) % count) else {
                    continue;
                };
                let load = Load {
                    warmup: settings.warmup,
                    duration: settings.duration,
                    ..scenario.load
                };
                let mut outcome = runtime.block_on(async {
                    match scenario.transport {
                        Transport::Stdio => load::stdio::run(&target.command, load).await,
                        Transport::Http => load::http::run(&target.command, load).await,
                    }
                });
                // C1 reads this scenario's cold start: the median of several
                // spawns rather than the one of the load's own run.
                if scenario.name == COLD_START_SCENARIO && outcome.is_ok() {
                    let sampled = runtime.block_on(load::stdio::cold_start(
                        &target.command,
                        load.era,
                        COLD_START_SAMPLES,
                    ));
                    outcome = outcome.and_then(|mut measurement| {
                        measurement.cold_start_ms = sampled?.as_secs_f64() * 1e3;
                        Ok(measurement)
                    });
                }
                let record = Record {
                    part: *part,
                    scenario: scenario.name.clone(),
                    target: target.label.to_owned(),
                    role: target.role,
                    round,
                    outcome,
                };
                write_raw(record_json(&record))?;
                results.records.push(record);
            }
        }
    }

    if parts.contains(&Part::Scale) {
        let mut servers = vec![(
            "mcpwire json".to_owned(),
            ServerCommand::new(
                &bins.bench_server,
                &[
                    "--http",
                    "127.0.0.1:0",
                    "--json",
                    "--max-sessions",
                    "1000000",
                ],
            ),
        )];
        // The same server with each session's runtime on a task of its own
        // (no POST fast path): what holding the runtime for the fast path
        // costs an idle session.
        servers.push((
            "mcpwire json spawned".to_owned(),
            ServerCommand::new(
                &bins.bench_server,
                &[
                    "--http",
                    "127.0.0.1:0",
                    "--json",
                    "--spawned",
                    "--max-sessions",
                    "1000000",
                ],
            ),
        ));
        if let Some(rmcp) = &bins.rmcp_echo {
            servers.push((
                "rmcp stateful".to_owned(),
                ServerCommand::new(rmcp, &["--http", "127.0.0.1:0"]),
            ));
        }
        let scale_load = ScaleLoad {
            sessions: settings.sessions,
            streams: settings.streams,
            calls: Load {
                concurrency: 16,
                size: scenarios::SMALL,
                era: Era::Handshake,
                warmup: settings.warmup,
                duration: settings.duration,
                max_calls: None,
            },
        };
        for (label, command) in servers {
            let outcome = runtime.block_on(scale::run(&command, scale_load));
            write_raw(json!({
                "part": "scale", "target": label,
                "result": outcome.as_ref().ok(), "error": outcome.as_ref().err(),
            }))?;
            results.scale.push((label, outcome));
        }
    }

    if parts.contains(&Part::Profile) {
        match profile::valgrind_version() {
            Some(_) => {
                for profile in profile::run_all(&runtime, bins, settings.profile_calls) {
                    write_raw(json!({
                        "part": "profile", "scenario": profile.scenario,
                        "instructions_per_call": profile.outcome.as_ref().ok(),
                        "error": profile.outcome.as_ref().err(),
                    }))?;
                    results.profiles.push(profile);
                }
            }
            None => results
                .skipped
                .push("profile: valgrind is not installed".to_owned()),
        }
    }
    if bins.rmcp_echo.is_none() {
        results
            .skipped
            .push("rmcp: bench/rmcp-echo was not built, its rows are missing".to_owned());
    }
    Ok(results)
}

/// One record as a JSON line.
fn record_json(record: &Record) -> serde_json::Value {
    json!({
        "part": record.part.name(),
        "scenario": record.scenario,
        "target": record.target,
        "role": format!("{:?}", record.role).to_lowercase(),
        "round": record.round,
        "result": record.outcome.as_ref().ok(),
        "error": record.outcome.as_ref().err(),
    })
}
