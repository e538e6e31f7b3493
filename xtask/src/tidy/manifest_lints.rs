//! Tidy rule: every workspace member inherits the workspace lints.
//!
//! The lint table in the root `Cargo.toml` (missing docs, no unwrap on peer
//! input, no stray stdout) only applies to crates that opt in with
//! `[lints] workspace = true`; a new crate that forgets it silently escapes
//! every lint, so tidy checks each member's manifest.

use std::path::Path;

use super::workspace_members;

/// Members of the workspace at `root` whose manifest does not inherit the
/// workspace lints.
pub(super) fn problems(root: &Path) -> Vec<String> {
    let members = match workspace_members(root) {
        Ok(members) => members,
        Err(error) => return vec![format!("lints: {error}")],
    };
    let mut problems = Vec::new();
    for member in members {
        let shown = member
            .manifest_path
            .strip_prefix(root)
            .unwrap_or(&member.manifest_path)
            .display()
            .to_string();
        match std::fs::read_to_string(&member.manifest_path) {
            Ok(manifest) if inherits_workspace_lints(&manifest) => {}
            Ok(_) => problems.push(format!(
                "{shown}: crate {} must inherit the workspace lints: add `[lints]` with \
                 `workspace = true`",
                member.name
            )),
            Err(error) => problems.push(format!("{shown}: could not read: {error}")),
        }
    }
    problems
}

/// Whether a manifest's text sets `workspace = true` in its `[lints]` table
/// (or as the dotted key `lints.workspace = true` at the top level).
fn inherits_workspace_lints(manifest: &str) -> bool {
    let mut table = String::new();
    for line in manifest.lines() {
        let line = strip_comment(line).trim();
        if line.starts_with('[') {
            table = line.replace(' ', "");
            continue;
        }
        let setting: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        let inherits = match table.as_str() {
            "" => setting == "lints.workspace=true",
            "[lints]" => setting == "workspace=true",
            _ => false,
        };
        if inherits {
            return true;
        }
    }
    false
}

/// `line` without a trailing `#` comment. Manifest lines this check cares
/// about never hold a `#` inside a string, so quoting is not tracked.
fn strip_comment(line: &str) -> &str {
    line.split_once('#').map_or(line, |(before, _)| before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace_root;

    #[test]
    fn manifests_inheriting_the_workspace_lints_pass() {
        for manifest in [
            "[package]\nname = \"a\"\n\n[lints]\nworkspace = true\n",
            "[package]\nname = \"a\"\n[ lints ]\n  workspace=true   # inherit\n[features]\n",
            "lints.workspace = true\n[package]\nname = \"a\"\n",
            "[lints]\r\nworkspace = true\r\n",
        ] {
            assert!(inherits_workspace_lints(manifest), "{manifest:?}");
        }
    }

    #[test]
    fn manifests_without_inherited_lints_fail() {
        for manifest in [
            "[package]\nname = \"a\"\n",
            "[package]\nname = \"a\"\nworkspace = true\n",
            "[lints]\nworkspace = false\n",
            "[lints]\n# workspace = true\n",
            "[lints.rust]\nworkspace = true\n",
            "[lints]\n[package]\nworkspace = true\n",
            "[dependencies]\nlints.workspace = true\n",
        ] {
            assert!(!inherits_workspace_lints(manifest), "{manifest:?}");
        }
    }

    #[test]
    fn every_workspace_member_inherits_the_workspace_lints() {
        let found = problems(&workspace_root());
        assert!(found.is_empty(), "\n{}", found.join("\n"));
    }
}
