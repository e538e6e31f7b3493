//! Server configuration files in the common `mcpServers` JSON shape, so
//! that a configured server's name works as a target.
//!
//! ```json
//! { "mcpServers": {
//!     "notes": { "command": "notes-server", "args": [], "env": {"K": "v"}, "cwd": "/tmp" },
//!     "remote": { "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"} } } }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{CliError, CliResult};
use crate::target::Target;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConfigFile {
    /// The servers by name.
    mcp_servers: BTreeMap<String, ServerEntry>,
}

/// One server: either a command to start or a URL to reach.
#[derive(Debug, Deserialize)]
struct ServerEntry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// Reads `path` and returns the target named `name`.
///
/// # Errors
///
/// A usage error when the file cannot be read or parsed, has no such
/// server, or the entry has neither `command` nor `url` (or both).
pub(crate) fn lookup(path: &Path, name: &str) -> CliResult<Target> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| CliError::usage(format!("cannot read {}: {error}", path.display())))?;
    let file: ConfigFile = serde_json::from_str(&text).map_err(|error| {
        CliError::usage(format!(
            "{} is not an `mcpServers` configuration: {error}",
            path.display()
        ))
    })?;
    let known: Vec<&str> = file.mcp_servers.keys().map(String::as_str).collect();
    let Some(entry) = file.mcp_servers.get(name) else {
        return Err(CliError::usage(format!(
            "{} has no server {name:?} (it has: {})",
            path.display(),
            known.join(", ")
        )));
    };
    match (&entry.command, &entry.url) {
        (Some(command), None) => Ok(Target::Command {
            program: command.clone(),
            args: entry.args.clone(),
            env: entry.env.clone(),
            cwd: entry.cwd.clone(),
        }),
        (None, Some(url)) => Ok(Target::Url {
            url: url.clone(),
            headers: entry.headers.clone().into_iter().collect(),
        }),
        _ => Err(CliError::usage(format!(
            "server {name:?} in {} needs exactly one of `command` and `url`",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A config file of a test's own, removed when dropped.
    struct ConfigFile(PathBuf);

    impl Drop for ConfigFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn write(contents: &str) -> ConfigFile {
        let path = std::env::temp_dir().join(format!(
            "mcpwire-cli-config-{}-{}.json",
            std::process::id(),
            contents.len()
        ));
        std::fs::write(&path, contents).unwrap();
        ConfigFile(path)
    }

    #[test]
    fn command_and_url_entries_become_targets() {
        let file = write(
            r#"{"mcpServers": {
                "local": {"command": "srv", "args": ["-v"], "env": {"A": "1"}, "cwd": "/tmp"},
                "remote": {"url": "http://127.0.0.1:1/mcp", "headers": {"X-Key": "k"}}
            }}"#,
        );
        let path = &file.0;
        match lookup(path, "local").unwrap() {
            Target::Command {
                program,
                args,
                env,
                cwd,
            } => {
                assert_eq!(program, "srv");
                assert_eq!(args, ["-v"]);
                assert_eq!(env.get("A").map(String::as_str), Some("1"));
                assert_eq!(cwd, Some(PathBuf::from("/tmp")));
            }
            other => panic!("{other:?}"),
        }
        match lookup(path, "remote").unwrap() {
            Target::Url { url, headers } => {
                assert_eq!(url, "http://127.0.0.1:1/mcp");
                assert_eq!(headers, [("X-Key".to_owned(), "k".to_owned())]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_names_and_ambiguous_entries_are_usage_errors() {
        let file = write(r#"{"mcpServers": {"both": {"command": "a", "url": "http://x"}}}"#);
        let path = &file.0;
        assert!(matches!(lookup(path, "nope"), Err(CliError::Usage(m)) if m.contains("both")));
        assert!(matches!(lookup(path, "both"), Err(CliError::Usage(_))));
    }
}
