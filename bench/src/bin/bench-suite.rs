//! The benchmark suite's command line, run by `cargo xtask bench`:
//!
//! `bench-suite [--smoke] [--rounds N] [--seconds S] [--sessions N]
//! [--streams N] [--raw FILE] [--rmcp PROGRAM] PART...` with parts among
//! `codec stdio http scale profile` (or `all`). The servers are the
//! `bench-server`, `stdio-server`, `raw-echo`, `lean-mcp` and `bare-hyper`
//! binaries next to this one.
//! Prints the markdown report on stdout.

// The report is this program's output.
#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use mcpwire_bench::suite::{self, Binaries, Part, Settings};

/// The value following `flag`.
fn option<'a>(args: &'a [String], flag: &str) -> Option<&'a String> {
    let at = args.iter().position(|arg| arg == flag)?;
    args.get(at + 1)
}

fn parse_args(args: &[String]) -> Result<(Binaries, Settings, Vec<Part>), String> {
    let mut settings = if args.iter().any(|arg| arg == "--smoke") {
        Settings::smoke()
    } else {
        Settings::full()
    };
    let number = |flag: &str| -> Result<Option<f64>, String> {
        option(args, flag)
            .map(|text| {
                text.parse::<f64>()
                    .map_err(|_| format!("{flag} needs a number, not {text:?}"))
            })
            .transpose()
    };
    if let Some(rounds) = number("--rounds")? {
        settings.rounds = rounds.max(1.0) as usize;
    }
    if let Some(seconds) = number("--seconds")? {
        settings.duration = Duration::from_secs_f64(seconds.max(0.01));
    }
    if let Some(sessions) = number("--sessions")? {
        settings.sessions = sessions.max(1.0) as usize;
    }
    if let Some(streams) = number("--streams")? {
        settings.streams = streams.max(0.0) as usize;
    }
    settings.raw_results = option(args, "--raw").map(PathBuf::from);

    let valued = [
        "--rounds",
        "--seconds",
        "--sessions",
        "--streams",
        "--raw",
        "--rmcp",
    ];
    let mut parts = Vec::new();
    let mut skip_next = false;
    for arg in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        if valued.contains(&arg.as_str()) {
            skip_next = true;
            continue;
        }
        if arg.starts_with("--") {
            continue;
        }
        if arg == "all" {
            parts.extend(Part::ALL);
            continue;
        }
        parts.push(Part::parse(arg).ok_or_else(|| format!("unknown part {arg:?}"))?);
    }
    if parts.is_empty() {
        parts.extend(Part::ALL);
    }

    let exe = std::env::current_exe().map_err(|error| format!("where am I? {error}"))?;
    let dir = exe.parent().ok_or("no directory for this program")?;
    let bins = Binaries {
        bench_server: dir.join("bench-server"),
        stdio_server: dir.join("stdio-server"),
        raw_echo: dir.join("raw-echo"),
        bare_hyper: dir.join("bare-hyper"),
        lean: dir.join("lean-mcp"),
        rmcp_echo: option(args, "--rmcp")
            .map(PathBuf::from)
            .filter(|path| path.exists()),
    };
    Ok((bins, settings, parts))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = parse_args(&args).and_then(|(bins, settings, parts)| {
        suite::run(&bins, &settings, &parts).map(|results| suite::report::render(&results))
    });
    match outcome {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("bench-suite: {error}");
            ExitCode::FAILURE
        }
    }
}
