//! `cargo xtask bench [codec|stdio|http|scale|profile|all]...`: runs the
//! project's benchmarks by name.
//!
//! Each benchmark is a row of [`BENCHMARKS`]: either a cargo command that
//! prints its own figures (the codec micro-benchmark), or a part of the
//! load suite of `bench/` (`bench-suite`), which measures mcpwire against
//! the physical limit, the lean reference (`lean-mcp`, an MCP server
//! written directly on tokio, hyper and serde_json) and rmcp in one run and
//! prints markdown tables with `x limit`, `x lean`, `CPU x lean` and
//! `x rmcp` ratio columns. Adding a benchmark is adding a
//! row. With no name, or `all`, every benchmark runs in table order.

mod suite;

use std::process::Command;

use crate::{tidy, workspace_root};

/// How a benchmark is run.
#[derive(Debug, Clone, Copy)]
enum Runner {
    /// A cargo command, run from the workspace root.
    Cargo(&'static [&'static str]),
    /// Parts of the load suite (`bench-suite PART...`).
    Suite(&'static [&'static str]),
}

/// A benchmark runnable by name.
#[derive(Debug, Clone, Copy)]
struct Benchmark {
    /// The name given on the command line.
    name: &'static str,
    /// What it measures, for the list of known benchmarks.
    about: &'static str,
    /// How it runs.
    runners: &'static [Runner],
}

/// Every known benchmark.
const BENCHMARKS: &[Benchmark] = &[
    Benchmark {
        name: "codec",
        about: "JSON-RPC codec decode/encode against serde_json::Value, and serde_json's cost of one echo call",
        runners: &[
            Runner::Cargo(&["bench", "-p", "mcpwire-jsonrpc", "--bench", "codec"]),
            Runner::Suite(&["codec"]),
        ],
    },
    Benchmark {
        name: "stdio",
        about: "echo calls over stdio against a raw pipe echo, the lean reference and rmcp (1 and 64 in flight, 200 B and 64 KiB)",
        runners: &[Runner::Suite(&["stdio"])],
    },
    Benchmark {
        name: "http",
        about: "echo calls over Streamable HTTP against bare hyper, the lean reference and rmcp (JSON, SSE, stateless; 1-64 connections; 64 KiB as JSON and SSE)",
        runners: &[Runner::Suite(&["http"])],
    },
    Benchmark {
        name: "scale",
        about: "10,000 idle sessions and 1,000 GET streams: memory each, and call latency beside them; then tools/call on Redis-backed instances behind a proxy",
        runners: &[
            Runner::Suite(&["scale"]),
            Runner::Cargo(&[
                "test",
                "-p",
                "mcpwire-redis",
                "--release",
                "--test",
                "bench",
                "--",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ]),
        ],
    },
    Benchmark {
        name: "profile",
        about: "server instructions per call under callgrind (E1 stdio, E2 HTTP), with the costliest functions",
        runners: &[Runner::Suite(&["profile"])],
    },
];

/// Runs the benchmarks named in `args`, or all of them when none is named.
/// Options for the suite (`--rounds N`, `--seconds S`, `--sessions N`,
/// `--streams N`, `--smoke`) pass through to it.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("{}", usage());
        return Ok(());
    }
    let (names, options) = split_options(args);
    if let Some(unknown) = options
        .iter()
        .find(|option| option.starts_with("--") && !known_option(option))
    {
        return Err(format!("unknown option {unknown:?}\n\n{}", usage()));
    }
    let selected = select(&names)?;
    let root = workspace_root();
    if selected.iter().any(|benchmark| benchmark.name == "scale") {
        // The scale-out part starts its own redis-server.
        crate::redis::ensure_installed()?;
    }
    let mut suite_parts: Vec<&'static str> = Vec::new();
    for runner in selected.iter().flat_map(|benchmark| benchmark.runners) {
        match runner {
            Runner::Cargo(cargo_args) => run_cargo(&root, cargo_args)?,
            Runner::Suite(parts) => suite_parts.extend(parts.iter().copied()),
        }
    }
    if !suite_parts.is_empty() {
        suite::run(&root, &suite_parts, &options)?;
    }
    Ok(())
}

fn run_cargo(root: &std::path::Path, cargo_args: &[&str]) -> Result<(), String> {
    println!("==> cargo {}", cargo_args.join(" "));
    let status = Command::new(tidy::cargo_program())
        .args(cargo_args)
        .current_dir(root)
        .status()
        .map_err(|error| format!("could not run cargo: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo {}` exited with {status}",
            cargo_args.join(" ")
        ))
    }
}

/// Splits `args` into benchmark names and suite options (an option that
/// takes a value keeps it).
fn split_options(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut names = Vec::new();
    let mut options = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if VALUED.contains(&arg.as_str()) {
            options.push(arg.clone());
            options.extend(iter.next().cloned());
        } else if arg.starts_with("--") {
            options.push(arg.clone());
        } else {
            names.push(arg.clone());
        }
    }
    (names, options)
}

/// The benchmarks `args` names, in the order given (all of them if `args`
/// is empty or says `all`), or an error listing the known names.
fn select(args: &[String]) -> Result<Vec<&'static Benchmark>, String> {
    if args.is_empty() || args.iter().any(|name| name == "all") {
        return Ok(BENCHMARKS.iter().collect());
    }
    args.iter()
        .map(|name| {
            BENCHMARKS
                .iter()
                .find(|benchmark| benchmark.name == name)
                .ok_or_else(|| {
                    format!("unknown benchmark {name:?}; known benchmarks:\n{}", known())
                })
        })
        .collect()
}

/// The options of `bench-suite` that take a value.
const VALUED: [&str; 4] = ["--rounds", "--seconds", "--sessions", "--streams"];

/// Whether `bench-suite` takes `option`.
fn known_option(option: &str) -> bool {
    VALUED.contains(&option) || option == "--smoke"
}

/// What `cargo xtask bench --help` prints (a bench run takes minutes: an
/// unknown option is refused rather than ignored).
fn usage() -> String {
    format!(
        "cargo xtask bench [NAME...] [--rounds N] [--seconds S] [--sessions N] [--streams N] [--smoke]\n\n\
         With no name, or `all`, every benchmark runs. Benchmarks:\n{}",
        known()
    )
}

/// One line per known benchmark: its name and what it measures.
fn known() -> String {
    let lines: Vec<String> = BENCHMARKS
        .iter()
        .map(|benchmark| format!("  {:<12}{}", benchmark.name, benchmark.about))
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_option_is_refused_before_anything_runs() {
        let error = run(&strings(&["stdio", "--roudns", "5"])).unwrap_err();
        assert!(error.contains("unknown option \"--roudns\""), "{error}");
        assert!(error.contains("--rounds"), "{error}");
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|item| (*item).to_string()).collect()
    }

    #[test]
    fn no_name_and_all_select_every_benchmark() {
        assert_eq!(select(&[]).unwrap().len(), BENCHMARKS.len());
        assert_eq!(select(&strings(&["all"])).unwrap().len(), BENCHMARKS.len());
    }

    #[test]
    fn codec_runs_the_jsonrpc_codec_bench_then_the_serde_baseline() {
        let selected = select(&strings(&["codec"])).unwrap();
        assert_eq!(selected.len(), 1);
        assert!(matches!(
            selected[0].runners,
            [
                Runner::Cargo(["bench", "-p", "mcpwire-jsonrpc", "--bench", "codec"]),
                Runner::Suite(["codec"])
            ]
        ));
    }

    #[test]
    fn scale_runs_the_load_suite_then_the_redis_scale_out_measurement() {
        let selected = select(&strings(&["scale"])).unwrap();
        let [Runner::Suite(["scale"]), Runner::Cargo(cargo_args)] = selected[0].runners else {
            panic!("unexpected runners {:?}", selected[0].runners);
        };
        assert!(cargo_args.contains(&"mcpwire-redis"), "{cargo_args:?}");
        assert!(cargo_args.contains(&"--ignored"), "{cargo_args:?}");
    }

    #[test]
    fn the_issue_names_are_all_known() {
        for name in ["codec", "stdio", "http", "scale", "profile"] {
            assert!(select(&strings(&[name])).is_ok(), "{name}");
        }
    }

    #[test]
    fn an_unknown_name_fails_listing_the_known_ones() {
        let error = select(&strings(&["codec", "nope"])).unwrap_err();
        assert!(error.contains("unknown benchmark \"nope\""), "{error}");
        for benchmark in BENCHMARKS {
            assert!(error.contains(benchmark.name), "{error}");
        }
    }

    #[test]
    fn options_and_their_values_are_not_names() {
        let (names, options) =
            split_options(&strings(&["stdio", "--rounds", "5", "http", "--smoke"]));
        assert_eq!(names, ["stdio", "http"]);
        assert_eq!(options, ["--rounds", "5", "--smoke"]);
    }

    #[test]
    fn benchmark_names_are_unique() {
        let mut names: Vec<&str> = BENCHMARKS.iter().map(|benchmark| benchmark.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BENCHMARKS.len());
    }
}
