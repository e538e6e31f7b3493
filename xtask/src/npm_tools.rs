//! Installing the TypeScript reference material the CLI's tests run
//! against: `@modelcontextprotocol/server-everything` (a stdio server),
//! `@modelcontextprotocol/sdk` (its Streamable HTTP client reaches a stdio
//! server through `mcpwire bridge`) and the conformance runner that
//! `mcpwire check --official` runs, pinned, under `target/npm-tools/`,
//! with the Node 22 the conformance runner uses.
//!
//! `cargo xtask npm-tools` installs them and prints the environment the
//! tests read; `cargo xtask ci` installs them before its test step and
//! passes that environment, with `MCPWIRE_REQUIRE_EXTERNAL=1` so that the
//! tests fail instead of skipping.

use std::path::{Path, PathBuf};

use crate::conformance::install::{ensure_node, npm_install, package_version};

/// The reference server, pinned.
const SERVER_EVERYTHING: (&str, &str) = ("@modelcontextprotocol/server-everything", "2026.8.31");
/// The TypeScript SDK, pinned.
const SDK: (&str, &str) = ("@modelcontextprotocol/sdk", "1.32.2");
/// The conformance runner of `mcpwire check --official`: the version its
/// `RUNNER_VERSION` names (the one the conformance contract describes).
const RUNNER: (&str, &str) = ("@modelcontextprotocol/conformance", "0.1.16");

/// Installed tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NpmTools {
    /// The `node` binary (Node 22).
    pub(crate) node: PathBuf,
    /// server-everything's entry point.
    pub(crate) server_everything: PathBuf,
    /// The install prefix: its `node_modules` holds the SDK.
    pub(crate) prefix: PathBuf,
    /// The conformance runner's entry point.
    pub(crate) runner: PathBuf,
}

impl NpmTools {
    /// The environment the tests of `mcpwire-cli` read.
    pub(crate) fn test_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("MCPWIRE_NODE", self.node.display().to_string()),
            (
                "MCPWIRE_SERVER_EVERYTHING",
                self.server_everything.display().to_string(),
            ),
            ("MCPWIRE_NPM_TOOLS", self.prefix.display().to_string()),
            (
                "MCPWIRE_CONFORMANCE_RUNNER",
                self.runner.display().to_string(),
            ),
            ("MCPWIRE_REQUIRE_EXTERNAL", "1".to_owned()),
        ]
    }
}

/// The version of `package` installed under `prefix`, if any.
fn installed(prefix: &Path, package: &str) -> Option<String> {
    let manifest = prefix
        .join("node_modules")
        .join(package)
        .join("package.json");
    std::fs::read_to_string(manifest)
        .ok()
        .and_then(|text| package_version(&text))
}

/// Installs what is missing under `root/target` and returns the tools.
pub(crate) fn ensure(root: &Path) -> Result<NpmTools, String> {
    let target = root.join("target");
    let node = ensure_node(&target.join("conformance").join("tools"))?;
    let prefix = target.join("npm-tools");
    for (package, version) in [SERVER_EVERYTHING, SDK, RUNNER] {
        if installed(&prefix, package).as_deref() != Some(version) {
            npm_install(&prefix, &format!("{package}@{version}"), node.parent())?;
        }
        let found = installed(&prefix, package);
        if found.as_deref() != Some(version) {
            return Err(format!(
                "{package} is not at {version} in {} after installing (found {found:?})",
                prefix.display()
            ));
        }
    }
    let server_everything = prefix
        .join("node_modules")
        .join(SERVER_EVERYTHING.0)
        .join("dist")
        .join("index.js");
    let runner = prefix
        .join("node_modules")
        .join(RUNNER.0)
        .join("dist")
        .join("index.js");
    for entry in [&server_everything, &runner] {
        if !entry.is_file() {
            return Err(format!("{} is missing", entry.display()));
        }
    }
    Ok(NpmTools {
        node,
        server_everything,
        prefix,
        runner,
    })
}

/// `cargo xtask npm-tools`: installs and prints the tests' environment.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("npm-tools takes no arguments, got {extra:?}"));
    }
    let tools = ensure(&crate::workspace_root())?;
    println!("# the environment of `cargo test -p mcpwire-cli` against the TypeScript references:");
    for (name, value) in tools.test_env() {
        println!("export {name}={value:?}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tests_are_told_where_everything_is_and_that_it_is_required() {
        let tools = NpmTools {
            node: PathBuf::from("/n/node"),
            server_everything: PathBuf::from("/p/se.js"),
            prefix: PathBuf::from("/p"),
            runner: PathBuf::from("/p/runner.js"),
        };
        let env = tools.test_env();
        let names: Vec<&str> = env.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            names,
            [
                "MCPWIRE_NODE",
                "MCPWIRE_SERVER_EVERYTHING",
                "MCPWIRE_NPM_TOOLS",
                "MCPWIRE_CONFORMANCE_RUNNER",
                "MCPWIRE_REQUIRE_EXTERNAL"
            ]
        );
        assert_eq!(env[4].1, "1");
    }

    #[test]
    fn an_installed_version_is_read_from_the_package_manifest() {
        let prefix = std::env::temp_dir().join(format!("xtask-npm-tools-{}", std::process::id()));
        let dir = prefix.join("node_modules").join("@scope").join("pkg");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("package.json"),
            r#"{"name": "@scope/pkg", "version": "1.2.3"}"#,
        )
        .unwrap();
        assert_eq!(installed(&prefix, "@scope/pkg").as_deref(), Some("1.2.3"));
        assert_eq!(installed(&prefix, "@scope/other"), None);
        std::fs::remove_dir_all(prefix).unwrap();
    }
}
