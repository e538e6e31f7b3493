//! `cargo xtask matrix`: every library crate compiles alone, in every feature
//! set a user can pick from it.
//!
//! CI's other steps build the workspace once with features unified across
//! all members, so a crate that only compiles because a neighbour turned a
//! feature on for it would pass them. This step checks each published
//! library crate on its own with no features, its default features, each
//! feature alone and all features (so `mcpwire-jsonrpc` is checked without
//! its JSON engine and without its in-memory pair), and the facade with
//! every single feature and every pair
//! (DESIGN.md, "Facade features": every pair must compile). It runs
//! `cargo check --lib` (no code generation) in the shared target directory,
//! so only what a feature set changes is checked again.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::tidy::cargo_program;

/// The facade, whose feature pairs are all checked.
const FACADE: &str = "mcpwire";

/// One library crate and its features (without `default`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Library {
    name: String,
    features: Vec<String>,
    has_default: bool,
}

/// Runs the matrix; `args` must be empty.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("matrix takes no arguments, got {extra:?}"));
    }
    let root = crate::workspace_root();
    let plans = plans(&libraries(&root)?);
    let started = Instant::now();
    let mut failed = Vec::new();
    for (index, plan) in plans.iter().enumerate() {
        println!(
            "==> [{}/{}] cargo {}",
            index + 1,
            plans.len(),
            plan.join(" ")
        );
        let status = Command::new(cargo_program())
            .args(plan)
            .arg("--quiet")
            .current_dir(&root)
            .status()
            .map_err(|error| format!("could not run cargo: {error}"))?;
        if !status.success() {
            failed.push(plan.join(" "));
        }
    }
    println!(
        "==> matrix: {} feature sets checked in {:.1}s, {} failed",
        plans.len(),
        started.elapsed().as_secs_f64(),
        failed.len()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "these feature sets do not compile:\n  cargo {}",
            failed.join("\n  cargo ")
        ))
    }
}

/// The published library crates of the workspace at `root`, from `cargo
/// metadata`.
fn libraries(root: &Path) -> Result<Vec<Library>, String> {
    let metadata = crate::workspace_metadata(root)?;
    let packages = metadata["packages"]
        .as_array()
        .ok_or("cargo metadata has no packages")?;
    let mut libraries = Vec::new();
    for package in packages {
        let Some(name) = package["name"].as_str() else {
            continue;
        };
        // `publish = false` is an empty list: tools, tests and examples.
        let unpublished = package["publish"].as_array().is_some_and(Vec::is_empty);
        let has_lib = package["targets"].as_array().is_some_and(|targets| {
            targets.iter().any(|target| {
                target["kind"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|kind| kind == "lib"))
            })
        });
        if unpublished || !has_lib {
            continue;
        }
        let feature_map = package["features"].as_object();
        let features = feature_map
            .map(|map| map.keys().filter(|f| *f != "default").cloned().collect())
            .unwrap_or_default();
        let has_default = feature_map
            .and_then(|map| map.get("default"))
            .and_then(serde_json::Value::as_array)
            .is_some_and(|default| !default.is_empty());
        libraries.push(Library {
            name: name.to_owned(),
            features,
            has_default,
        });
    }
    libraries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(libraries)
}

/// The cargo argument lists to run, without repeats.
fn plans(libraries: &[Library]) -> Vec<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut plans = Vec::new();
    let mut push = |name: &str, extra: &[String]| {
        let mut plan: Vec<String> = ["check", "-p", name, "--lib"]
            .iter()
            .map(|arg| (*arg).to_owned())
            .collect();
        plan.extend(extra.iter().cloned());
        if seen.insert(plan.clone()) {
            plans.push(plan);
        }
    };
    let no_default = "--no-default-features".to_owned();
    for library in libraries {
        push(&library.name, std::slice::from_ref(&no_default));
        if library.has_default {
            push(&library.name, &[]);
        }
        if !library.features.is_empty() {
            push(&library.name, &["--all-features".to_owned()]);
        }
        // Each feature alone, when that differs from all of them (the
        // facade's singles come with its pairs below).
        let alone_differs = library.features.len() > 1 || library.has_default;
        if library.name != FACADE && alone_differs {
            for feature in &library.features {
                push(
                    &library.name,
                    &[no_default.clone(), "--features".to_owned(), feature.clone()],
                );
            }
        }
        if library.name == FACADE {
            for (i, first) in library.features.iter().enumerate() {
                for second in library.features.iter().skip(i) {
                    let set = if first == second {
                        first.clone()
                    } else {
                        format!("{first},{second}")
                    };
                    push(
                        &library.name,
                        &[no_default.clone(), "--features".to_owned(), set],
                    );
                }
            }
        }
    }
    plans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(name: &str, features: &[&str], has_default: bool) -> Library {
        Library {
            name: name.to_owned(),
            features: features.iter().map(|f| (*f).to_owned()).collect(),
            has_default,
        }
    }

    #[test]
    fn a_crate_without_features_is_checked_once() {
        let plans = plans(&[library("mcpwire-types", &[], false)]);
        assert_eq!(plans.len(), 1, "{plans:?}");
    }

    #[test]
    fn a_crate_with_defaults_is_checked_bare_default_all_and_each_feature_alone() {
        let plans = plans(&[library("mcpwire-http", &["client", "server"], true)]);
        let joined: Vec<String> = plans.iter().map(|plan| plan.join(" ")).collect();
        assert_eq!(
            joined,
            [
                "check -p mcpwire-http --lib --no-default-features",
                "check -p mcpwire-http --lib",
                "check -p mcpwire-http --lib --all-features",
                "check -p mcpwire-http --lib --no-default-features --features client",
                "check -p mcpwire-http --lib --no-default-features --features server",
            ]
        );
    }

    #[test]
    fn a_crate_with_one_optional_feature_is_not_checked_twice_for_it() {
        let plans = plans(&[library("mcpwire-server", &["schemars"], false)]);
        assert_eq!(plans.len(), 2, "{plans:?}");
    }

    #[test]
    fn the_facade_gets_every_single_feature_and_every_pair() {
        let plans = plans(&[library(FACADE, &["a", "b", "c"], false)]);
        let sets: Vec<&str> = plans
            .iter()
            .filter_map(|plan| plan.last().map(String::as_str))
            .collect();
        for set in ["a", "b", "c", "a,b", "a,c", "b,c"] {
            assert!(sets.contains(&set), "{set} missing from {sets:?}");
        }
        // bare, all, 3 singles, 3 pairs
        assert_eq!(plans.len(), 8, "{plans:?}");
    }

    #[test]
    fn the_workspace_lists_the_facade_and_the_codec_but_not_tools() {
        let libraries = libraries(&crate::workspace_root()).unwrap();
        let names: Vec<&str> = libraries.iter().map(|l| l.name.as_str()).collect();
        assert!(names.contains(&FACADE), "{names:?}");
        assert!(names.contains(&"mcpwire-jsonrpc"), "{names:?}");
        assert!(!names.contains(&"xtask"), "{names:?}");
        assert!(!names.contains(&"conformance"), "{names:?}");
        // The codec is checked without its JSON engine and its memory pair.
        let codec = libraries
            .iter()
            .find(|l| l.name == "mcpwire-jsonrpc")
            .unwrap();
        assert!(codec.has_default, "{codec:?}");
        let plans: Vec<String> = plans(std::slice::from_ref(codec))
            .iter()
            .map(|plan| plan.join(" "))
            .collect();
        for set in [
            "--no-default-features",
            "--features fast-json",
            "--features memory",
        ] {
            assert!(
                plans.iter().any(|plan| plan.ends_with(set)),
                "{set}: {plans:?}"
            );
        }
    }
}
