//! Running the runner: for each runner version of the plan, invoking it
//! per mode against our binaries, judging its results against that
//! version's baseline and printing the reports; then a summary that ends
//! with the line `N passed, M failed`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::args::{Mode, Options};
use super::baseline::{Baseline, runner_has_check_entries};
use super::binaries::{ServerProcess, build_binary};
use super::evaluate::{Scope, bless, evaluate};
use super::install::{self, Tools};
use super::isolation::{self, Network};
use super::listing::{self, Listed, Listing, names};
use super::report::{self, Tally};
use super::results::{self, ScenarioResult};
use super::{baseline_path, results_dir, tools_dir};

mod auth_server;
mod scale_out;

/// The runner's per-scenario timeout for clients, in milliseconds.
const CLIENT_TIMEOUT_MS: &str = "30000";

/// The wall-clock bound of one client scenario's runner (its own timeout
/// for the client is 30 s; this leaves room for Node's start-up).
const CLIENT_SCENARIO_LIMIT: Duration = Duration::from_secs(90);

/// The wall-clock bound of a whole server suite (a run takes seconds; each
/// scenario has a 30 s timeout of the runner's own).
const SERVER_SUITE_LIMIT: Duration = Duration::from_secs(600);

/// The bound of `runner list`.
const LIST_LIMIT: Duration = Duration::from_secs(60);

/// One runner version and the modes to run with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    /// The runner version.
    pub(crate) version: String,
    /// The modes, in order.
    pub(crate) modes: Vec<Mode>,
}

/// What every mode of one runner version needs.
struct Context<'a> {
    root: &'a Path,
    version: &'a str,
    options: &'a Options,
    tools: Tools,
    listing: Listing,
    baseline: Baseline,
}

/// What a mode produced.
struct ModeRun {
    results: Vec<ScenarioResult>,
    expected: Vec<String>,
    whole_suite: bool,
    /// Whether every runner invocation exited with status 0.
    runner_succeeded: bool,
}

/// Everything the run found, for the summary.
#[derive(Debug, Default)]
struct Summary {
    /// One line per mode run (or skipped).
    lines: Vec<String>,
    /// The scenarios of every mode run.
    total: Tally,
    /// What makes the command fail.
    failures: Vec<String>,
}

/// Runs `plan` (or, for `list`, prints the scenarios of its first runner).
pub(crate) fn run(root: &Path, options: &Options, plan: &[Step]) -> Result<(), String> {
    if options.mode == Mode::List {
        let Some(step) = plan.first() else {
            return Err("no runner version to list".to_owned());
        };
        let tools = install::ensure(&tools_dir(root), &step.version)?;
        println!(
            "runner {}:\n{}",
            step.version,
            runner_output(&tools, &["list"])?
        );
        return Ok(());
    }
    let mut summary = Summary::default();
    let mut network = None;
    for step in plan {
        if let Err(error) = run_step(root, options, step, &mut network, &mut summary) {
            summary
                .failures
                .push(format!("runner {}: {error}", step.version));
        }
    }
    println!("\n=== conformance: summary ===");
    for line in &summary.lines {
        println!("{line}");
    }
    println!("{}", summary.total.final_line());
    if summary.failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "conformance failed:\n  {}",
            summary.failures.join("\n  ")
        ))
    }
}

/// Runs every mode of `step` with its runner version and baseline.
fn run_step(
    root: &Path,
    options: &Options,
    step: &Step,
    network: &mut Option<Network>,
    summary: &mut Summary,
) -> Result<(), String> {
    let version = step.version.as_str();
    let baseline_file = baseline_path(root, version);
    let baseline = read_baseline(&baseline_file)?;
    let unreadable: Vec<String> = baseline
        .problems(version)
        .into_iter()
        .filter(|problem| problem.contains("only reads whole-scenario entries"))
        .collect();
    if !unreadable.is_empty() {
        return Err(format!(
            "{}:\n  {}",
            baseline_file.display(),
            unreadable.join("\n  ")
        ));
    }
    let tools = install::ensure(&tools_dir(root), version)?;
    let listing = listing::parse(&runner_output(&tools, &["list"])?)?;
    let mut context = Context {
        root,
        version,
        options,
        tools,
        listing,
        baseline,
    };
    for &mode in &step.modes {
        let title = format!("{}, runner {version}", mode.name());
        match run_mode(&mut context, mode, network) {
            Ok((tally, problem)) => {
                summary.total.add(tally);
                summary.lines.push(format!("{title}: {}", tally.describe()));
                if let Some(problem) = problem {
                    summary.failures.push(format!("{title}: {problem}"));
                }
            }
            Err(error) => {
                summary.lines.push(format!("{title}: did not run"));
                summary.failures.push(format!("{title}: {error}"));
            }
        }
    }
    if options.bless {
        write_blessed(&baseline_file, &context.baseline, version)?;
    }
    Ok(())
}

fn read_baseline(path: &Path) -> Result<Baseline, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Baseline::parse(&text).map_err(|error| format!("{}: {error}", path.display())),
        // No file yet: nothing is expected to fail (and --bless creates it).
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Baseline::default()),
        Err(error) => Err(format!("cannot read {}: {error}", path.display())),
    }
}

fn write_blessed(path: &Path, baseline: &Baseline, version: &str) -> Result<(), String> {
    let text = baseline.to_text();
    std::fs::write(path, &text)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    let todo = baseline
        .problems(version)
        .iter()
        .filter(|problem| problem.contains("write the reason"))
        .count();
    println!(
        "conformance: wrote {}{}",
        path.display(),
        if todo == 0 {
            String::new()
        } else {
            format!("; {todo} entr(y/ies) say \"TODO: reason\": write a one-line reason for each")
        }
    );
    Ok(())
}

/// Runs one mode, judges it and prints its reports; with `--bless`,
/// updates the baseline instead of failing on differences. Returns the
/// scenario tally and, when the run does not match the baseline, why.
fn run_mode(
    context: &mut Context<'_>,
    mode: Mode,
    network: &mut Option<Network>,
) -> Result<(Tally, Option<String>), String> {
    let outcome = match mode {
        Mode::Server => run_server(context)?,
        Mode::Client => {
            let network = network.get_or_insert_with(isolation::probe);
            println!("{}", network.describe());
            run_client(context, network)?
        }
        Mode::AuthServer => auth_server::run_auth_server(context)?,
        Mode::ScaleOut => scale_out::run_scale_out(context)?,
        Mode::All | Mode::List => {
            return Err(format!("{} is not a mode that runs", mode.name()));
        }
    };
    let section = mode.name();
    let entries = context.baseline.entries(section);
    let known: &[Listed] = match mode {
        Mode::Client => &context.listing.client,
        Mode::AuthServer => &context.listing.authorization,
        _ => &context.listing.server,
    };
    let known_names = names(known);
    let scope = Scope {
        expected: &outcome.expected,
        whole_suite: outcome.whole_suite.then_some(known_names.as_slice()),
    };
    let evaluation = evaluate(&outcome.results, &entries, scope);
    let title = format!("{section}, runner {}", context.version);
    println!("{}", report::render(&title, &evaluation));
    println!("{}", report::render_revisions(&evaluation, known));
    let tally = Tally::of(&evaluation.verdicts);
    if context.options.bless {
        let blessed = bless(&entries, &outcome.results, scope);
        context.baseline.set_entries(section, blessed);
        return Ok((tally, None));
    }
    let mut problem = if !evaluation.is_clean() {
        Some(format!(
            "the results differ from {} (see the report above)",
            baseline_path(context.root, context.version).display()
        ))
    } else if !outcome.runner_succeeded {
        Some(
            "the runner exited with an error although every result matches the baseline; \
             see its log beside the results"
                .to_owned(),
        )
    } else {
        println!("conformance {title}: matches the baseline");
        None
    };
    if mode == Mode::ScaleOut
        && let Some(problem) = &mut problem
    {
        let beside = results_dir(context.root, context.version, mode);
        let beside = beside.parent().unwrap_or(&beside);
        problem.push_str(&format!(
            "; the logs:\n  {}",
            scale_out::describe_logs(beside)
        ));
    }
    Ok((tally, problem))
}

/// The scenarios to run: `wanted` if given (and known), else all of `known`.
fn select(
    known: &[String],
    wanted: Option<&str>,
    kind: &str,
) -> Result<(Vec<String>, bool), String> {
    match wanted {
        None => Ok((known.to_vec(), true)),
        Some(name) if known.iter().any(|scenario| scenario == name) => {
            Ok((vec![name.to_owned()], false))
        }
        Some(name) => Err(format!(
            "the runner has no {kind} scenario {name:?} (see `cargo xtask conformance list`)"
        )),
    }
}

/// The output of `node <runner> <args>`, which must succeed in time.
fn runner_output(tools: &Tools, args: &[&str]) -> Result<String, String> {
    let output_file = tempfile_path("runner-output");
    let file = File::create(&output_file)
        .map_err(|error| format!("cannot create {}: {error}", output_file.display()))?;
    let child = Command::new(&tools.node)
        .arg(&tools.runner)
        .args(args)
        .stdout(file)
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|error| format!("cannot run the runner: {error}"))?;
    let status = isolation::wait_bounded(child, LIST_LIMIT)
        .map_err(|error| format!("`runner {}`: {error}", args.join(" ")));
    let text = std::fs::read_to_string(&output_file);
    let _ = std::fs::remove_file(&output_file);
    let status = status?;
    if !status.success() {
        return Err(format!("`runner {}` failed ({status})", args.join(" ")));
    }
    text.map_err(|error| format!("the runner's output is unreadable: {error}"))
}

/// A file name of this process's own in the temporary directory.
fn tempfile_path(stem: &str) -> PathBuf {
    std::env::temp_dir().join(format!("xtask-{stem}-{}", std::process::id()))
}

/// An empty results directory for `mode`, and the directory beside it for
/// logs and the runner's baseline file.
fn fresh_results_dir(context: &Context<'_>, mode: Mode) -> Result<(PathBuf, PathBuf), String> {
    let dir = results_dir(context.root, context.version, mode);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .map_err(|error| format!("cannot clear {}: {error}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir)
        .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    let beside = dir.parent().map_or_else(|| dir.clone(), Path::to_path_buf);
    Ok((dir, beside))
}

/// Writes the runner's `--expected-failures` file for a baseline section.
fn write_runner_yaml(
    context: &Context<'_>,
    dir: &Path,
    section: &str,
    yaml_key: &str,
) -> Result<PathBuf, String> {
    let path = dir.join(format!("{section}-expected-failures.yml"));
    let mut yaml = context.baseline.runner_yaml(section, yaml_key);
    if !runner_has_check_entries(context.version) {
        yaml.insert_str(0, "# whole-scenario entries only (runner 0.1)\n");
    }
    std::fs::write(&path, yaml)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(path)
}

/// A log file the runner's output goes to (appended to), as stdout and
/// stderr of a child.
fn log_output(path: &Path) -> Result<(Stdio, Stdio), String> {
    let file = File::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|error| format!("cannot open {}: {error}", path.display()))?;
    let copy = file
        .try_clone()
        .map_err(|error| format!("cannot open {}: {error}", path.display()))?;
    Ok((Stdio::from(file), Stdio::from(copy)))
}

fn run_server(context: &Context<'_>) -> Result<ModeRun, String> {
    let known = names(&context.listing.server);
    let (scenarios, whole_suite) = select(&known, context.options.scenario.as_deref(), "server")?;
    let binary = build_binary(context.root, "everything-server")?;
    let (out, beside) = fresh_results_dir(context, Mode::Server)?;
    let yaml = write_runner_yaml(context, &beside, "server", "server")?;
    let log = beside.join("server-runner.log");
    let _ = std::fs::remove_file(&log);
    let (stdout, stderr) = log_output(&log)?;
    let server = ServerProcess::start(&binary, &beside.join("everything-server.log"))?;
    println!(
        "conformance: everything-server listens on {}; runner {} output goes to {}",
        server.url,
        context.version,
        log.display()
    );
    let mut command = Command::new(&context.tools.node);
    command
        .arg(&context.tools.runner)
        .args(["server", "--url", &server.url])
        .arg("-o")
        .arg(&out)
        .arg("--expected-failures")
        .arg(&yaml)
        .stdout(stdout)
        .stderr(stderr);
    match &context.options.scenario {
        Some(scenario) => command.args(["--scenario", scenario]),
        // The default `active` suite leaves out pending and 2026-07-28 scenarios.
        None => command.args(["--suite", "all"]),
    };
    let status = command
        .spawn()
        .map_err(|error| format!("cannot run the runner: {error}"))
        .and_then(|child| isolation::wait_bounded(child, SERVER_SUITE_LIMIT));
    drop(server);
    let status = status.map_err(|error| format!("the server suite: {error}"))?;
    Ok(ModeRun {
        results: results::collect(&out, "server-")?,
        expected: scenarios,
        whole_suite,
        runner_succeeded: status.success(),
    })
}

fn run_client(context: &Context<'_>, network: &Network) -> Result<ModeRun, String> {
    let known = names(&context.listing.client);
    let (scenarios, whole_suite) = select(&known, context.options.scenario.as_deref(), "client")?;
    let binary = build_binary(context.root, "everything-client")?;
    let command_text = binary.to_string_lossy().into_owned();
    if command_text.contains(char::is_whitespace) {
        return Err(format!(
            "the runner splits --command on spaces, so {command_text:?} cannot be used: \
             build in a target directory without spaces"
        ));
    }
    let (out, beside) = fresh_results_dir(context, Mode::Client)?;
    let yaml = write_runner_yaml(context, &beside, "client", "client")?;
    let log = beside.join("client-runner.log");
    let _ = std::fs::remove_file(&log);
    println!(
        "conformance: runner {} output goes to {}",
        context.version,
        log.display()
    );
    let mut runner_succeeded = true;
    // One scenario at a time: the runner's suites run every client at
    // once, which disturbs timing-sensitive scenarios such as sse-retry.
    for scenario in &scenarios {
        println!("conformance: client scenario {scenario}");
        let (stdout, stderr) = log_output(&log)?;
        let child = network
            .command(&context.tools.node)
            .arg(&context.tools.runner)
            .args(["client", "--command", &command_text, "--scenario", scenario])
            .args(["--timeout", CLIENT_TIMEOUT_MS])
            .arg("-o")
            .arg(&out)
            .arg("--expected-failures")
            .arg(&yaml)
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .map_err(|error| format!("cannot run the runner: {error}"))?;
        match isolation::wait_bounded(child, CLIENT_SCENARIO_LIMIT) {
            Ok(status) => runner_succeeded &= status.success(),
            Err(error) => {
                println!("conformance: client scenario {scenario}: {error}");
                runner_succeeded = false;
            }
        }
    }
    Ok(ModeRun {
        results: results::collect(&out, "")?,
        expected: scenarios,
        whole_suite,
        runner_succeeded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn selecting_runs_the_whole_suite_or_one_known_scenario() {
        let known = names(&["ping", "tools-list"]);
        assert_eq!(select(&known, None, "server"), Ok((known.clone(), true)));
        assert_eq!(
            select(&known, Some("ping"), "server"),
            Ok((names(&["ping"]), false))
        );
        let error = select(&known, Some("pong"), "server").unwrap_err();
        assert!(error.contains("no server scenario \"pong\""), "{error}");
    }

    #[test]
    fn runner_output_is_captured_and_a_failing_runner_is_an_error() {
        let tools = Tools {
            node: PathBuf::from("sh"),
            runner: PathBuf::from("-c"),
        };
        assert_eq!(runner_output(&tools, &["echo listed"]).unwrap(), "listed\n");
        let error = runner_output(&tools, &["exit 3"]).unwrap_err();
        assert!(error.contains("failed"), "{error}");
    }
}
