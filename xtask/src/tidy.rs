//! `cargo xtask tidy`: repository-wide rules that the compiler cannot check.
//!
//! Each rule lives in its own submodule as a function that returns the list
//! of problems it found (empty when the rule holds), so every rule is tested
//! on its own and the same functions run as ordinary `#[test]`s against the
//! real workspace. Problems are plain sentences that name the offending file
//! or crate and say how to fix it.

mod file_docs;
mod file_size;
mod layering;
mod manifest_lints;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::workspace_root;

/// Runs every tidy check on this workspace; `args` must be empty.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("tidy takes no arguments, got {extra:?}"));
    }
    check_workspace(&workspace_root())?;
    println!("tidy: all checks passed");
    Ok(())
}

/// Runs every tidy check on the workspace at `root`, failing with all the
/// problems found, one per line.
pub(crate) fn check_workspace(root: &Path) -> Result<(), String> {
    let problems = all_problems(root);
    if problems.is_empty() {
        return Ok(());
    }
    let mut message = format!("tidy found {} problem(s):", problems.len());
    for problem in &problems {
        message.push_str("\n  - ");
        message.push_str(problem);
    }
    Err(message)
}

/// Every problem every check finds in the workspace at `root`.
fn all_problems(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    match rust_files(root) {
        Ok(files) => {
            problems.extend(file_docs::problems(root, &files));
            problems.extend(file_size::problems(root, &files));
        }
        Err(error) => problems.push(error),
    }
    problems.extend(layering::problems(root));
    problems.extend(manifest_lints::problems(root));
    problems
}

/// The `.rs` files git knows about or would add (tracked, plus untracked
/// files that are not ignored), relative to `root`, sorted. Files deleted
/// from the working tree but still in the index are left out.
fn rust_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let output = Command::new("git")
        .args([
            "ls-files",
            "--cached",
            "--others",
            "--exclude-standard",
            "-z",
        ])
        .current_dir(root)
        .output()
        .map_err(|error| format!("could not run git ls-files: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "git ls-files failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let listing = String::from_utf8(output.stdout)
        .map_err(|_| "git ls-files printed a path that is not UTF-8".to_string())?;
    let mut files: Vec<PathBuf> = listing
        .split('\0')
        .filter(|path| path.ends_with(".rs"))
        .map(PathBuf::from)
        .filter(|path| root.join(path).is_file())
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// The cargo that is running us (`CARGO` is set by `cargo run` and
/// `cargo test`), so nested invocations use the same pinned toolchain even
/// from directories outside the workspace; plain `cargo` otherwise.
pub(crate) fn cargo_program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"))
}

/// Runs cargo with `args` in `dir` and returns its stdout, or a sentence
/// saying what failed (including cargo's stderr).
fn cargo_stdout(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new(cargo_program())
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|error| format!("could not run `cargo {}`: {error}", args.join(" ")))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo {}` failed in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout)
        .map_err(|_| format!("`cargo {}` printed non-UTF-8 output", args.join(" ")))
}

/// A member of the workspace, as `cargo metadata` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Member {
    /// The package name.
    name: String,
    /// The absolute path of its `Cargo.toml`.
    manifest_path: PathBuf,
}

/// The members of the workspace at `root` (`cargo metadata --no-deps`, which
/// lists exactly the workspace's own packages and needs no network).
fn workspace_members(root: &Path) -> Result<Vec<Member>, String> {
    let metadata = crate::workspace_metadata(root)?;
    let packages = metadata["packages"]
        .as_array()
        .ok_or("`cargo metadata` output has no `packages` array")?;
    packages
        .iter()
        .map(|package| {
            let name = package["name"].as_str();
            let manifest_path = package["manifest_path"].as_str();
            match (name, manifest_path) {
                (Some(name), Some(manifest_path)) => Ok(Member {
                    name: name.to_string(),
                    manifest_path: PathBuf::from(manifest_path),
                }),
                _ => Err(format!(
                    "`cargo metadata` describes a package without name or manifest_path: {package}"
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_file_listing_includes_this_file_and_only_rust_files() {
        let root = workspace_root();
        let files = rust_files(&root).unwrap();
        assert!(files.contains(&PathBuf::from("xtask/src/tidy.rs")));
        assert!(
            files
                .iter()
                .all(|file| file.extension() == Some("rs".as_ref()))
        );
        assert!(!files.iter().any(|file| file.starts_with("target")));
    }

    #[test]
    fn workspace_members_include_xtask_and_the_core_crates() {
        let members = workspace_members(&workspace_root()).unwrap();
        let names: Vec<&str> = members.iter().map(|member| member.name.as_str()).collect();
        for expected in ["xtask", "mcpwire-jsonrpc", "mcpwire-types"] {
            assert!(
                names.contains(&expected),
                "{expected} missing from {names:?}"
            );
        }
        assert!(members.iter().all(|member| member.manifest_path.is_file()));
    }

    #[test]
    fn check_workspace_lists_every_problem_in_its_error() {
        // A directory that is neither a git checkout nor a cargo workspace
        // must fail loudly rather than pass with nothing checked.
        let empty = std::env::temp_dir().join(format!("xtask-tidy-empty-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let outcome = check_workspace(&empty);
        std::fs::remove_dir_all(&empty).unwrap();
        let message = outcome.unwrap_err();
        assert!(message.starts_with("tidy found"), "{message}");
        assert!(message.contains("git ls-files"), "{message}");
        assert!(message.contains("cargo metadata"), "{message}");
    }
}
