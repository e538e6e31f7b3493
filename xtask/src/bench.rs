//! `cargo xtask bench [name...]`: runs the project's benchmarks by name.
//!
//! Each benchmark is a row of [`BENCHMARKS`] naming the cargo command that
//! runs it; the benchmark itself prints its own figures. Adding a benchmark
//! is adding a row. With no name, every benchmark runs in table order.

use std::process::Command;

use crate::{tidy, workspace_root};

/// A benchmark runnable by name.
#[derive(Debug, Clone, Copy)]
struct Benchmark {
    /// The name given on the command line.
    name: &'static str,
    /// What it measures, for the list of known benchmarks.
    about: &'static str,
    /// The cargo arguments that run it.
    cargo_args: &'static [&'static str],
}

/// Every known benchmark.
const BENCHMARKS: &[Benchmark] = &[Benchmark {
    name: "codec",
    about: "JSON-RPC codec decode/encode against a serde_json::Value baseline",
    cargo_args: &["bench", "-p", "mcpwire-jsonrpc", "--bench", "codec"],
}];

/// Runs the benchmarks named in `args`, or all of them when none is named.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let selected = select(args)?;
    let root = workspace_root();
    for benchmark in selected {
        println!(
            "==> bench {}: cargo {}",
            benchmark.name,
            benchmark.cargo_args.join(" ")
        );
        let status = Command::new(tidy::cargo_program())
            .args(benchmark.cargo_args)
            .current_dir(&root)
            .status()
            .map_err(|error| format!("could not run cargo: {error}"))?;
        if !status.success() {
            return Err(format!(
                "benchmark {} failed: `cargo {}` exited with {status}",
                benchmark.name,
                benchmark.cargo_args.join(" ")
            ));
        }
    }
    Ok(())
}

/// The benchmarks `args` names, in the order given (all of them if `args`
/// is empty), or an error listing the known names.
fn select(args: &[String]) -> Result<Vec<&'static Benchmark>, String> {
    if args.is_empty() {
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

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|item| (*item).to_string()).collect()
    }

    #[test]
    fn no_name_selects_every_benchmark() {
        let selected = select(&[]).unwrap();
        assert_eq!(selected.len(), BENCHMARKS.len());
    }

    #[test]
    fn codec_runs_the_jsonrpc_codec_bench() {
        let selected = select(&strings(&["codec"])).unwrap();
        assert_eq!(selected.len(), 1);
        assert_eq!(
            selected[0].cargo_args,
            ["bench", "-p", "mcpwire-jsonrpc", "--bench", "codec"]
        );
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
    fn benchmark_names_are_unique() {
        let mut names: Vec<&str> = BENCHMARKS.iter().map(|benchmark| benchmark.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BENCHMARKS.len());
    }
}
