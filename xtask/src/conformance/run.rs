//! Running the runner: building and starting our binaries, invoking the
//! runner per mode, then judging its results and printing the report.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::args::{Mode, Options};
use super::baseline::{Baseline, runner_has_check_entries};
use super::evaluate::{Scope, bless, evaluate};
use super::install::{self, Tools};
use super::listing::{self, Listing};
use super::results::{self, ScenarioResult};
use super::{baseline_path, report, results_dir, tools_dir};
use crate::tidy::cargo_program;

/// How long the everything-server may take to print its URL. The binary
/// is built before it starts, so this only covers its own start-up.
const SERVER_START_TIMEOUT: Duration = Duration::from_secs(30);

/// How long to wait for the second (legacy URL) line once the first came.
const SECOND_LINE_TIMEOUT: Duration = Duration::from_secs(5);

/// The runner's per-scenario timeout for clients, in milliseconds.
const CLIENT_TIMEOUT_MS: &str = "30000";

/// What every mode needs.
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

/// Runs `options.mode` with runner `version`.
pub(crate) fn run(root: &Path, options: &Options, version: &str) -> Result<(), String> {
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
    let list_output = runner_output(&tools, &["list"])?;
    if options.mode == Mode::List {
        println!("runner {version}:\n{list_output}");
        return Ok(());
    }
    let listing = listing::parse(&list_output)?;
    let mut context = Context {
        root,
        version,
        options,
        tools,
        listing,
        baseline,
    };
    let modes: &[Mode] = match options.mode {
        Mode::All => &[Mode::Server, Mode::Client, Mode::AuthServer],
        _ => std::slice::from_ref(&options.mode),
    };
    let mut failures = Vec::new();
    for &mode in modes {
        if let Err(error) = run_mode(&mut context, mode) {
            failures.push(format!("{}: {error}", mode.name()));
        }
    }
    if options.bless {
        write_blessed(&baseline_file, &context.baseline, version)?;
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("conformance failed:\n  {}", failures.join("\n  ")))
    }
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

/// Runs one mode, judges it and prints the report; with `--bless`,
/// updates the baseline section instead of failing on differences.
fn run_mode(context: &mut Context<'_>, mode: Mode) -> Result<(), String> {
    let outcome = match mode {
        Mode::Server => run_server(context)?,
        Mode::Client => run_client(context)?,
        Mode::AuthServer => run_auth_server(context)?,
        Mode::All | Mode::List => return Err(format!("{} is not a single mode", mode.name())),
    };
    let section = mode.name();
    let entries = context.baseline.entries(section);
    let known = match mode {
        Mode::Client => &context.listing.client,
        Mode::AuthServer => &context.listing.authorization,
        _ => &context.listing.server,
    };
    let scope = Scope {
        expected: &outcome.expected,
        whole_suite: outcome.whole_suite.then_some(known.as_slice()),
    };
    let evaluation = evaluate(&outcome.results, &entries, scope);
    let title = format!("{section}, runner {}", context.version);
    println!("{}", report::render(&title, &evaluation));
    if context.options.bless {
        let blessed = bless(&entries, &outcome.results, scope);
        context.baseline.set_entries(section, blessed);
        return Ok(());
    }
    if !evaluation.is_clean() {
        return Err(format!(
            "the results differ from {} (see the report above)",
            baseline_path(context.root, context.version).display()
        ));
    }
    if !outcome.runner_succeeded {
        return Err(
            "the runner exited with an error although every result matches the baseline; \
             see its output above"
                .to_owned(),
        );
    }
    println!("conformance {section}: matches the baseline");
    Ok(())
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

/// The output of `node <runner> <args>`, which must succeed.
fn runner_output(tools: &Tools, args: &[&str]) -> Result<String, String> {
    let output = Command::new(&tools.node)
        .arg(&tools.runner)
        .args(args)
        .output()
        .map_err(|error| format!("cannot run the runner: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "`runner {}` failed ({}): {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout).map_err(|_| "the runner printed non-UTF-8 text".to_owned())
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

fn run_server(context: &Context<'_>) -> Result<ModeRun, String> {
    let (scenarios, whole_suite) = select(
        &context.listing.server,
        context.options.scenario.as_deref(),
        "server",
    )?;
    let binary = build_binary(context.root, "everything-server")?;
    let (out, beside) = fresh_results_dir(context, Mode::Server)?;
    let yaml = write_runner_yaml(context, &beside, "server", "server")?;
    let server = ServerProcess::start(&binary, &beside.join("everything-server.log"))?;
    println!("conformance: everything-server listens on {}", server.url);
    let mut command = Command::new(&context.tools.node);
    command
        .arg(&context.tools.runner)
        .args(["server", "--url", &server.url])
        .arg("-o")
        .arg(&out)
        .arg("--expected-failures")
        .arg(&yaml);
    match &context.options.scenario {
        Some(scenario) => command.args(["--scenario", scenario]),
        // The default `active` suite leaves out pending and 2026-07-28 scenarios.
        None => command.args(["--suite", "all"]),
    };
    let status = command
        .status()
        .map_err(|error| format!("cannot run the runner: {error}"));
    drop(server);
    let status = status?;
    Ok(ModeRun {
        results: results::collect(&out, "server-")?,
        expected: scenarios,
        whole_suite,
        runner_succeeded: status.success(),
    })
}

fn run_client(context: &Context<'_>) -> Result<ModeRun, String> {
    let (scenarios, whole_suite) = select(
        &context.listing.client,
        context.options.scenario.as_deref(),
        "client",
    )?;
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
    let mut runner_succeeded = true;
    // One scenario at a time: the runner's suites run every client at
    // once, which disturbs timing-sensitive scenarios such as sse-retry.
    for scenario in &scenarios {
        println!("conformance: client scenario {scenario}");
        let status: ExitStatus = Command::new(&context.tools.node)
            .arg(&context.tools.runner)
            .args(["client", "--command", &command_text, "--scenario", scenario])
            .args(["--timeout", CLIENT_TIMEOUT_MS])
            .arg("-o")
            .arg(&out)
            .arg("--expected-failures")
            .arg(&yaml)
            .status()
            .map_err(|error| format!("cannot run the runner: {error}"))?;
        runner_succeeded &= status.success();
    }
    Ok(ModeRun {
        results: results::collect(&out, "")?,
        expected: scenarios,
        whole_suite,
        runner_succeeded,
    })
}

fn run_auth_server(context: &Context<'_>) -> Result<ModeRun, String> {
    if context.listing.authorization.is_empty() {
        return Err(format!(
            "runner {} has no authorization-server scenarios",
            context.version
        ));
    }
    select(
        &context.listing.authorization,
        context.options.scenario.as_deref(),
        "authorization-server",
    )?;
    Err(
        "there is no authorization server to test yet: the runner's `authorization` command \
         needs the issuer URL of a running authorization server (mcpwire-auth's development \
         server, not written yet)"
            .to_owned(),
    )
}

/// Builds binary `name` of the `conformance` package (debug profile) and
/// returns its path.
///
/// The debug profile shares its artifacts with `cargo build` and `cargo
/// test`, so a run after the tests rebuilds almost nothing, and it keeps
/// debug assertions on; the runner measures behaviour, not speed (its
/// timing windows are tens of milliseconds to seconds).
fn build_binary(root: &Path, name: &str) -> Result<PathBuf, String> {
    if !package_has_binary(root, "conformance", name)? {
        return Err(format!(
            "the conformance package has no `{name}` binary yet{}",
            if name == "everything-client" {
                " (conformance/src/bin/everything-client.rs: it waits for the client runtime \
                 and the Streamable HTTP client)"
            } else {
                ""
            }
        ));
    }
    println!("conformance: building {name}");
    let output = Command::new(cargo_program())
        .args(["build", "--package", "conformance", "--bin", name])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !output.status.success() {
        return Err(format!("building {name} failed"));
    }
    executable_from_messages(&String::from_utf8_lossy(&output.stdout), name)
        .ok_or_else(|| format!("cargo built {name} but named no executable"))
}

/// The executable of binary `name` in cargo's JSON messages.
fn executable_from_messages(messages: &str, name: &str) -> Option<PathBuf> {
    messages.lines().find_map(|line| {
        let message: serde_json::Value = serde_json::from_str(line).ok()?;
        let is_bin = message["reason"] == "compiler-artifact"
            && message["target"]["name"] == name
            && message["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|kind| kind == "bin"));
        is_bin
            .then(|| message["executable"].as_str().map(PathBuf::from))
            .flatten()
    })
}

/// Whether package `package` of the workspace has a binary target `name`.
fn package_has_binary(root: &Path, package: &str, name: &str) -> Result<bool, String> {
    let output = Command::new(cargo_program())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .map_err(|error| format!("cannot run cargo metadata: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("cargo metadata printed invalid JSON: {error}"))?;
    Ok(has_binary(&metadata, package, name))
}

fn has_binary(metadata: &serde_json::Value, package: &str, name: &str) -> bool {
    metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|candidate| candidate["name"] == package)
        .flat_map(|candidate| candidate["targets"].as_array().into_iter().flatten())
        .any(|target| {
            target["name"] == name
                && target["kind"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|kind| kind == "bin"))
        })
}

/// The everything-server process this command started; dropping it kills
/// that process (and only it).
struct ServerProcess {
    child: Child,
    url: String,
}

impl ServerProcess {
    /// Starts `binary --http 127.0.0.1:0`, with its stderr in `log`, and
    /// reads its Streamable HTTP URL from the first stdout line.
    fn start(binary: &Path, log: &Path) -> Result<Self, String> {
        let log_file = std::fs::File::create(log)
            .map_err(|error| format!("cannot create {}: {error}", log.display()))?;
        let mut child = Command::new(binary)
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", binary.display()))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the everything-server's stdout was not captured".to_owned());
        };
        let (lines_tx, lines) = mpsc::channel();
        // Reads every line, so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines_tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut process = Self {
            child,
            url: String::new(),
        };
        let first = lines.recv_timeout(SERVER_START_TIMEOUT);
        let url = match first {
            Ok(line) => line.trim().to_owned(),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "the everything-server printed no URL within {SERVER_START_TIMEOUT:?}; see {}",
                    log.display()
                ));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = process
                    .child
                    .wait()
                    .map_or_else(|error| error.to_string(), |status| status.to_string());
                let stderr = std::fs::read_to_string(log).unwrap_or_default();
                return Err(format!(
                    "the everything-server exited ({status}) before printing its URL: {}",
                    stderr.trim()
                ));
            }
        };
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(format!(
                "the everything-server's first line is not a URL: {url:?}"
            ));
        }
        if let Ok(legacy) = lines.recv_timeout(SECOND_LINE_TIMEOUT) {
            println!("conformance: legacy HTTP+SSE endpoint at {}", legacy.trim());
        }
        process.url = url;
        Ok(process)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // `kill` targets this child's pid only; `wait` reaps it.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
    fn the_executable_comes_from_the_bin_artifact_message() {
        let messages = [
            json!({"reason": "compiler-artifact", "target": {"name": "conformance", "kind": ["lib"]}, "executable": null}),
            json!({"reason": "compiler-artifact", "target": {"name": "everything-server", "kind": ["bin"]}, "executable": "/t/debug/everything-server"}),
            json!({"reason": "build-finished", "success": true}),
        ]
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
        assert_eq!(
            executable_from_messages(&messages, "everything-server"),
            Some(PathBuf::from("/t/debug/everything-server"))
        );
        assert_eq!(
            executable_from_messages(&messages, "everything-client"),
            None
        );
    }

    #[test]
    fn binaries_are_found_by_package_name_and_kind() {
        let metadata = json!({"packages": [
            {"name": "conformance", "targets": [
                {"name": "conformance", "kind": ["lib"]},
                {"name": "everything-server", "kind": ["bin"]}
            ]},
            {"name": "other", "targets": [{"name": "everything-client", "kind": ["bin"]}]}
        ]});
        assert!(has_binary(&metadata, "conformance", "everything-server"));
        assert!(!has_binary(&metadata, "conformance", "everything-client"));
        assert!(!has_binary(&metadata, "conformance", "conformance"));
    }
}
