//! Instructions per call under callgrind, which counts them exactly and
//! repeatably: each scenario runs twice with different call counts, and
//! the difference divided by the difference in calls removes start-up and
//! shutdown. The same difference, function by function, is the profile.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::Binaries;
use super::scenarios::{LARGE, SMALL};
use crate::load::{self, Load, ServerCommand};
use crate::messages::Era;

/// How many functions of the profile are kept.
const TOP_FUNCTIONS: usize = 25;

/// Distinguishes the output files of one process's runs.
static RUN_NUMBER: AtomicU64 = AtomicU64::new(0);

/// One profiled scenario.
#[derive(Debug, Clone)]
pub struct Profile {
    /// `E1 stdio-64-200B` or `E2 http-json-16-200B`.
    pub scenario: String,
    /// Server instructions per call, or why it could not be measured.
    pub outcome: Result<f64, String>,
    /// The functions costing the most instructions per call (self cost),
    /// with their cost per call, most expensive first.
    pub top: Vec<(String, f64)>,
}

/// Valgrind's version line, or `None` when it is not installed.
pub fn valgrind_version() -> Option<String> {
    let output = Command::new("valgrind").arg("--version").output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The lean reference's profile under E1's load.
pub const LEAN_E1: &str = "P-L1 lean stdio-64-200B";
/// The lean reference's profile under E2's load.
pub const LEAN_E2: &str = "P-L2 lean http-json-16-200B";

/// The scenarios with instruction budgets: E1 (stdio, 64 in flight) and
/// E2 (HTTP JSON, 16 connections), both with ~200 B messages, the server
/// on a current-thread runtime so that scheduling does not add noise.
pub fn scenarios(bins: &Binaries) -> Vec<(String, ServerCommand, bool, Load)> {
    let load = |concurrency| Load {
        concurrency,
        size: SMALL,
        era: Era::Handshake,
        warmup: Duration::ZERO,
        // Bounded by the call count; this only bounds a stuck run.
        duration: Duration::from_secs(300),
        max_calls: None,
    };
    vec![
        (
            "E1 stdio-64-200B".to_owned(),
            ServerCommand::new(&bins.bench_server, &["--stdio", "--threads", "1"]),
            false,
            load(64),
        ),
        (
            "E2 http-json-16-200B".to_owned(),
            ServerCommand::new(
                &bins.bench_server,
                &["--http", "127.0.0.1:0", "--json", "--threads", "1"],
            ),
            true,
            load(16),
        ),
    ]
}

/// Scenarios profiled to explain a throughput gap, without a budget (the
/// budget test does not run them: a 64 KiB call costs a million
/// instructions, slow under callgrind): S3 (stdio, 64 KiB, 1 in flight)
/// and H5 (HTTP JSON, 64 KiB, 1 connection). Their names start with `P-`.
pub fn diagnostic_scenarios(bins: &Binaries) -> Vec<(String, ServerCommand, bool, Load)> {
    let load = Load {
        concurrency: 1,
        size: LARGE,
        era: Era::Handshake,
        warmup: Duration::ZERO,
        duration: Duration::from_secs(300),
        max_calls: None,
    };
    vec![
        (
            "P-S3 stdio-1-64KiB".to_owned(),
            ServerCommand::new(&bins.bench_server, &["--stdio", "--threads", "1"]),
            false,
            load,
        ),
        (
            "P-H5 http-json-1-64KiB".to_owned(),
            ServerCommand::new(
                &bins.bench_server,
                &["--http", "127.0.0.1:0", "--json", "--threads", "1"],
            ),
            true,
            load,
        ),
    ]
}

/// Small-message scenarios profiled without a budget, at the budgeted
/// scenarios' call counts: H2 (HTTP with SSE answers, 16 connections),
/// whose streams cost what JSON answers do not (priming events, framing,
/// keep-alive), H1A (E2's load on the default `Auto` response mode, which
/// answers as JSON what is in before a keep-alive is due), S1's load
/// (stdio, one call in flight: every call pays a whole turn of the
/// runtime, its wake-up, read and write, which E1's 64 share) for mcpwire
/// and the lean reference (S1, LS1), and the lean reference under E1's
/// and E2's loads (L1, L2), which the report sets beside E1 and E2. Their
/// names start with `P-`.
pub fn small_diagnostic_scenarios(bins: &Binaries) -> Vec<(String, ServerCommand, bool, Load)> {
    let load = Load {
        concurrency: 16,
        size: SMALL,
        era: Era::Handshake,
        warmup: Duration::ZERO,
        duration: Duration::from_secs(300),
        max_calls: None,
    };
    vec![
        (
            "P-H2 http-sse-16-200B".to_owned(),
            ServerCommand::new(
                &bins.bench_server,
                &["--http", "127.0.0.1:0", "--sse", "--threads", "1"],
            ),
            true,
            load,
        ),
        (
            "P-H1A http-auto-16-200B".to_owned(),
            ServerCommand::new(
                &bins.bench_server,
                &["--http", "127.0.0.1:0", "--threads", "1"],
            ),
            true,
            load,
        ),
        (
            LEAN_E2.to_owned(),
            ServerCommand::new(&bins.lean, &["--http", "127.0.0.1:0", "--threads", "1"]),
            true,
            load,
        ),
        (
            "P-S1 stdio-1-200B".to_owned(),
            ServerCommand::new(&bins.bench_server, &["--stdio", "--threads", "1"]),
            false,
            Load {
                concurrency: 1,
                ..load
            },
        ),
        (
            "P-LS1 lean stdio-1-200B".to_owned(),
            ServerCommand::new(&bins.lean, &["--stdio"]),
            false,
            Load {
                concurrency: 1,
                ..load
            },
        ),
        (
            LEAN_E1.to_owned(),
            ServerCommand::new(&bins.lean, &["--stdio"]),
            false,
            Load {
                concurrency: 64,
                ..load
            },
        ),
    ]
}

/// Profiles every scenario of [`scenarios`], [`small_diagnostic_scenarios`]
/// and [`diagnostic_scenarios`] with `calls.0` and `calls.1` calls (a fifth
/// of them for the last); with `MCPWIRE_BENCH_PROFILE_ONLY=E1` (a prefix of
/// the scenarios' names, comma-separated for several) only those, for a
/// quick measure of one change.
pub fn run_all(
    runtime: &tokio::runtime::Runtime,
    bins: &Binaries,
    calls: (u64, u64),
) -> Vec<Profile> {
    let budgeted = scenarios(bins)
        .into_iter()
        .chain(small_diagnostic_scenarios(bins))
        .map(|scenario| (scenario, calls));
    let large_calls = ((calls.0 / 5).max(1), (calls.1 / 5).max(2));
    let diagnostic = diagnostic_scenarios(bins)
        .into_iter()
        .map(|scenario| (scenario, large_calls));
    let only = std::env::var("MCPWIRE_BENCH_PROFILE_ONLY").unwrap_or_default();
    let wanted = |name: &str| {
        only.is_empty()
            || only
                .split(',')
                .any(|prefix| !prefix.is_empty() && name.starts_with(prefix.trim()))
    };
    budgeted
        .chain(diagnostic)
        .filter(|((scenario, ..), _)| wanted(scenario))
        .map(|((scenario, server, http, load), calls)| {
            match runtime.block_on(profile(&server, http, load, calls)) {
                Ok((per_call, top)) => Profile {
                    scenario,
                    outcome: Ok(per_call),
                    top,
                },
                Err(error) => Profile {
                    scenario,
                    outcome: Err(error),
                    top: Vec::new(),
                },
            }
        })
        .collect()
}

/// Instructions per call of `server` under `load`, and the top functions.
///
/// # Errors
///
/// When valgrind or the load fails, or callgrind writes no totals.
pub async fn profile(
    server: &ServerCommand,
    http: bool,
    load: Load,
    calls: (u64, u64),
) -> Result<(f64, Vec<(String, f64)>), String> {
    let (fewer, more) = calls;
    if more <= fewer {
        return Err(format!(
            "profile call counts must grow: {fewer} then {more}"
        ));
    }
    let first = counted_run(server, http, load, fewer).await?;
    let second = counted_run(server, http, load, more).await?;
    let calls = (more - fewer) as f64;
    let per_call = second.total.saturating_sub(first.total) as f64 / calls;
    let mut top: Vec<(String, f64)> = second
        .functions
        .iter()
        .map(|(name, cost)| {
            let before = first.functions.get(name).copied().unwrap_or(0);
            (name.clone(), cost.saturating_sub(before) as f64 / calls)
        })
        .collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    top.truncate(TOP_FUNCTIONS);
    Ok((per_call, top))
}

/// What callgrind counted in one run.
struct Counts {
    /// Every instruction of the process.
    total: u64,
    /// Self cost by function, as `callgrind_annotate` names them.
    functions: HashMap<String, u64>,
}

/// Runs `server` under callgrind for exactly `calls` calls.
async fn counted_run(
    server: &ServerCommand,
    http: bool,
    load: Load,
    calls: u64,
) -> Result<Counts, String> {
    let out = std::env::temp_dir().join(format!(
        "mcpwire-bench-{}-{}.callgrind",
        std::process::id(),
        RUN_NUMBER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut args = vec![
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={}", out.display()),
        server.program.display().to_string(),
    ];
    args.extend(server.args.iter().cloned());
    let valgrind = ServerCommand {
        program: PathBuf::from("valgrind"),
        args,
    };
    let load = Load {
        max_calls: Some(calls),
        ..load
    };
    let measured = if http {
        load::http::run(&valgrind, load).await
    } else {
        load::stdio::run(&valgrind, load).await
    };
    let counts = measured.and_then(|m| {
        if m.calls == calls {
            read_counts(&out)
        } else {
            Err(format!("{} calls answered of {calls}", m.calls))
        }
    });
    keep_or_remove(&out);
    counts
}

/// Deletes a callgrind output file, or moves it into the directory
/// `MCPWIRE_BENCH_KEEP_CALLGRIND` names, for `callgrind_annotate
/// --inclusive=yes` or `--tree=calling` by hand.
fn keep_or_remove(out: &Path) {
    if let Some(dir) = std::env::var_os("MCPWIRE_BENCH_KEEP_CALLGRIND")
        && let Some(name) = out.file_name()
        && std::fs::rename(out, Path::new(&dir).join(name)).is_ok()
    {
        return;
    }
    let _ = std::fs::remove_file(out);
}

/// The totals and per-function self costs of a callgrind output file.
fn read_counts(path: &Path) -> Result<Counts, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("callgrind wrote no {}: {error}", path.display()))?;
    let total = text
        .lines()
        .find_map(|line| {
            line.strip_prefix("summary:")
                .or_else(|| line.strip_prefix("totals:"))
        })
        .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
        .ok_or("callgrind output without totals")?;
    let annotated = Command::new("callgrind_annotate")
        .args(["--inclusive=no", "--threshold=100", "--auto=no"])
        .arg(path)
        .output();
    let functions = match annotated {
        Ok(output) if output.status.success() => {
            parse_annotate(&String::from_utf8_lossy(&output.stdout))
        }
        _ => HashMap::new(),
    };
    Ok(Counts { total, functions })
}

/// `callgrind_annotate` lines (`1,234 (5.6%)  file:function [object]`) as
/// function name to instruction count.
fn parse_annotate(text: &str) -> HashMap<String, u64> {
    let mut functions = HashMap::new();
    // The function table follows the `file:function` header and ends at
    // the first blank line.
    let table = text
        .split_once("file:function")
        .map_or("", |(_, rest)| rest);
    for line in table
        .lines()
        .skip(2)
        .take_while(|line| !line.trim().is_empty())
    {
        let trimmed = line.trim_start();
        let Some((count, rest)) = trimmed.split_once(' ') else {
            continue;
        };
        let Ok(count) = count.replace(',', "").parse::<u64>() else {
            continue;
        };
        // Skip the percentage, keep the function (without its object).
        let rest = rest.trim_start();
        let rest = match rest.strip_prefix('(') {
            Some(after) => after.split_once(')').map_or("", |(_, tail)| tail),
            None => rest,
        };
        let name = rest.trim();
        let name = name.rsplit_once(" [").map_or(name, |(name, _)| name).trim();
        if name.is_empty() || name.contains("PROGRAM TOTALS") {
            continue;
        }
        *functions.entry(short_name(name)).or_insert(0) += count;
    }
    functions
}

/// A function's name without its source path prefix (`file:function`).
fn short_name(name: &str) -> String {
    let function = match name.split_once(':') {
        // `???:foo` or `/path/file.rs:foo`: keep what follows the first colon
        // that ends a path (Rust paths contain `::`, paths do not).
        Some((file, function)) if !file.contains("::") && !function.starts_with(':') => function,
        _ => name,
    };
    function.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotate_lines_become_costs_by_function() {
        let text = "\
--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
1,000,000 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                 file:function
--------------------------------------------------------------------------------
  400,000 (40.00%)  ./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:__memmove_avx_unaligned_erms [/usr/lib/x86_64-linux-gnu/libc.so.6]
  100,000 (10.00%)  /root/.cargo/registry/src/serde_json-1.0/src/de.rs:serde_json::de::Deserializer<R>::parse_str [/work/target/release/bench-server]
";
        let functions = parse_annotate(text);
        assert_eq!(
            functions.get("__memmove_avx_unaligned_erms"),
            Some(&400_000)
        );
        assert_eq!(
            functions.get("serde_json::de::Deserializer<R>::parse_str"),
            Some(&100_000)
        );
        assert_eq!(functions.len(), 2);
    }
}
