//! The baseline: the scenarios (or single checks) expected to fail, each
//! with a one-line reason, in `conformance/baseline-<runner>.toml`.
//!
//! The file is a small subset of TOML, so any TOML tool reads it:
//!
//! ```toml
//! # comments
//! [server]
//! "input-required-result-basic-elicitation" = "the server runtime has no multi round-trip API"
//! "server-stateless:sep-2575-server-sends-subscription-ack" = "subscriptions/listen is not served"
//!
//! [client]
//! "auth/dpop" = "no DPoP in mcpwire-auth"
//! ```
//!
//! Sections are `server`, `client` and `auth-server`. A key is a scenario
//! (the whole scenario may fail) or, from runner 0.2 on, `scenario:check-id`
//! (only that check may fail). Keys and reasons are double-quoted strings
//! with `\"` and `\\` as the only escapes. `--bless` rewrites the file, so
//! reasons belong in the values: comments are not kept.

use std::collections::BTreeMap;

/// The reason `--bless` gives a new entry; the baseline test rejects it.
pub(crate) const TODO_REASON: &str = "TODO: reason";

/// The sections, in file order.
pub(crate) const SECTIONS: [&str; 3] = ["server", "client", "auth-server"];

/// The text at the top of every written baseline.
const HEADER: &str = "\
# Expected failures of the MCP conformance runner against mcpwire: one entry per
# scenario (or `scenario:check-id`) that may fail, with a one-line reason.
# An unlisted failure fails `cargo xtask conformance`; so does a listed entry
# that passes. `cargo xtask conformance --bless` rewrites this file from a run,
# keeping reasons and marking new entries \"TODO: reason\"; comments are not kept.
";

/// Entries of one section: key (scenario or `scenario:check`) to reason.
pub(crate) type Entries = BTreeMap<String, String>;

/// A parsed baseline file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Baseline {
    sections: BTreeMap<String, Entries>,
}

/// The scenario a key is about (`scenario` or `scenario:check`).
pub(crate) fn scenario_of_key(key: &str) -> &str {
    key.split_once(':').map_or(key, |(scenario, _)| scenario)
}

/// Whether runner `version` understands `scenario:check` entries (0.2 on).
pub(crate) fn runner_has_check_entries(version: &str) -> bool {
    !version.starts_with("0.1.") && !version.starts_with("0.0.")
}

impl Baseline {
    /// Reads a baseline file.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let mut baseline = Self::default();
        let mut section: Option<String> = None;
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                let name = name.trim();
                if !SECTIONS.contains(&name) {
                    return Err(format!(
                        "line {number}: unknown section [{name}] (known: {})",
                        SECTIONS.join(", ")
                    ));
                }
                baseline.sections.entry(name.to_owned()).or_default();
                section = Some(name.to_owned());
                continue;
            }
            let Some(current) = &section else {
                return Err(format!("line {number}: an entry before any [section]"));
            };
            let (key, rest) = read_string(line)
                .ok_or_else(|| format!("line {number}: expected \"key\" = \"reason\""))?;
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix('=')
                .ok_or_else(|| format!("line {number}: expected `=` after the key"))?;
            let (reason, rest) = read_string(rest.trim_start())
                .ok_or_else(|| format!("line {number}: the reason must be a \"quoted string\""))?;
            let rest = rest.trim_start();
            if !rest.is_empty() && !rest.starts_with('#') {
                return Err(format!("line {number}: unexpected text after the reason"));
            }
            let entries = baseline.sections.entry(current.clone()).or_default();
            if entries.insert(key.clone(), reason).is_some() {
                return Err(format!(
                    "line {number}: {key:?} is listed twice in [{current}]"
                ));
            }
        }
        Ok(baseline)
    }

    /// The entries of `section` (empty if absent).
    pub(crate) fn entries(&self, section: &str) -> Entries {
        self.sections.get(section).cloned().unwrap_or_default()
    }

    /// Replaces the entries of `section`.
    pub(crate) fn set_entries(&mut self, section: &str, entries: Entries) {
        self.sections.insert(section.to_owned(), entries);
    }

    /// The file text: the header, then every section in fixed order with
    /// its entries sorted.
    pub(crate) fn to_text(&self) -> String {
        let mut text = HEADER.to_owned();
        for section in SECTIONS {
            text.push_str(&format!("\n[{section}]\n"));
            for (key, reason) in self.sections.get(section).into_iter().flatten() {
                text.push_str(&format!("{} = {}\n", quote(key), quote(reason)));
            }
        }
        text
    }

    /// What is wrong with the entries for runner `version`: empty or
    /// `TODO` reasons, multi-line reasons, and check entries the runner
    /// cannot read.
    pub(crate) fn problems(&self, version: &str) -> Vec<String> {
        let mut problems = Vec::new();
        for (section, entries) in &self.sections {
            for (key, reason) in entries {
                let reason = reason.trim();
                let shown = format!("[{section}] {key:?}");
                if scenario_of_key(key).is_empty() || key.ends_with(':') {
                    problems.push(format!("{shown}: the key names no scenario or check"));
                }
                if reason.is_empty() {
                    problems.push(format!("{shown}: the reason is empty"));
                } else if reason.starts_with("TODO") {
                    problems.push(format!("{shown}: write the reason (it says {reason:?})"));
                }
                if reason.contains('\n') {
                    problems.push(format!("{shown}: the reason must be one line"));
                }
                if key.contains(':') && !runner_has_check_entries(version) {
                    problems.push(format!(
                        "{shown}: runner {version} only reads whole-scenario entries"
                    ));
                }
            }
        }
        problems
    }

    /// The runner's own `--expected-failures` YAML for `section`: its
    /// keys as a list under `yaml_key` (`server` or `client`).
    pub(crate) fn runner_yaml(&self, section: &str, yaml_key: &str) -> String {
        let mut yaml = format!("{yaml_key}:\n");
        let entries = self.entries(section);
        if entries.is_empty() {
            return format!("{yaml_key}: []\n");
        }
        for key in entries.keys() {
            // A JSON string is a valid YAML double-quoted scalar.
            let quoted = serde_json::to_string(key).unwrap_or_else(|_| format!("{key:?}"));
            yaml.push_str(&format!("  - {quoted}\n"));
        }
        yaml
    }
}

/// Reads a double-quoted string at the start of `text`, returning it
/// unescaped and the rest of `text`.
fn read_string(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((index, c)) = chars.next() {
        match c {
            '"' => return Some((value, &body[index + 1..])),
            '\\' => match chars.next()?.1 {
                escaped @ ('"' | '\\') => value.push(escaped),
                _ => return None,
            },
            other => value.push(other),
        }
    }
    None
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
# a comment
[server]
"tasks-lifecycle" = "no tasks extension yet"  # trailing comment
"server-stateless:sep-2575-server-sends-subscription-ack" = "subscriptions/listen is not \"served\""

[client]
"auth/dpop" = "no DPoP \\ yet"
"#;

    #[test]
    fn entries_are_read_per_section_with_escapes() {
        let baseline = Baseline::parse(SAMPLE).unwrap();
        let server = baseline.entries("server");
        assert_eq!(server["tasks-lifecycle"], "no tasks extension yet");
        assert_eq!(
            server["server-stateless:sep-2575-server-sends-subscription-ack"],
            r#"subscriptions/listen is not "served""#
        );
        assert_eq!(baseline.entries("client")["auth/dpop"], r"no DPoP \ yet");
        assert!(baseline.entries("auth-server").is_empty());
    }

    #[test]
    fn written_text_reads_back_the_same() {
        let baseline = Baseline::parse(SAMPLE).unwrap();
        let text = baseline.to_text();
        assert!(text.starts_with("# Expected failures"));
        let again = Baseline::parse(&text).unwrap();
        for section in SECTIONS {
            assert_eq!(
                again.entries(section),
                baseline.entries(section),
                "{section}"
            );
        }
    }

    #[test]
    fn malformed_files_name_the_line_and_the_problem() {
        for (text, needle) in [
            ("\"x\" = \"y\"", "before any [section]"),
            ("[servers]", "unknown section"),
            ("[server]\nx = \"y\"", "expected \"key\""),
            ("[server]\n\"x\" \"y\"", "expected `=`"),
            ("[server]\n\"x\" = y", "quoted string"),
            ("[server]\n\"x\" = \"y\" z", "unexpected text"),
            ("[server]\n\"x\" = \"y\"\n\"x\" = \"z\"", "listed twice"),
            ("[server]\n\"x\" = \"bad \\n escape\"", "quoted string"),
        ] {
            let error = Baseline::parse(text).unwrap_err();
            assert!(error.contains(needle), "{text:?}: {error}");
        }
    }

    #[test]
    fn empty_todo_and_unreadable_entries_are_problems() {
        let text = "[server]\n\"a\" = \"\"\n\"b\" = \"TODO: reason\"\n\"c:check\" = \"fine\"\n\"d\" = \"fine\"\n";
        let baseline = Baseline::parse(text).unwrap();
        let problems = baseline.problems("0.1.16");
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].contains("\"a\"") && problems[0].contains("empty"));
        assert!(problems[1].contains("\"b\"") && problems[1].contains("write the reason"));
        assert!(problems[2].contains("\"c:check\"") && problems[2].contains("0.1.16"));
        assert_eq!(baseline.problems("0.2.0-alpha.12").len(), 2);
    }

    #[test]
    fn the_runner_yaml_lists_every_key_quoted() {
        let baseline = Baseline::parse(SAMPLE).unwrap();
        assert_eq!(
            baseline.runner_yaml("server", "server"),
            "server:\n  - \"server-stateless:sep-2575-server-sends-subscription-ack\"\n  - \"tasks-lifecycle\"\n"
        );
        assert_eq!(
            baseline.runner_yaml("auth-server", "server"),
            "server: []\n"
        );
    }

    #[test]
    fn check_entries_name_their_scenario() {
        assert_eq!(
            scenario_of_key("server-stateless:sep-2575-x"),
            "server-stateless"
        );
        assert_eq!(scenario_of_key("auth/dpop"), "auth/dpop");
        assert!(runner_has_check_entries("0.2.0-alpha.12"));
        assert!(!runner_has_check_entries("0.1.16"));
    }
}
