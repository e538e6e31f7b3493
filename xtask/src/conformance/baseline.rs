//! The baseline: the scenarios (or single checks) expected to fail, each
//! with a one-line reason, in `conformance/baseline-<runner>.yaml`.
//!
//! The file is a small subset of YAML: a top-level key per mode, each
//! mapping a scenario to its reason.
//!
//! ```yaml
//! # comments
//! server:
//!   "input-required-result-basic-elicitation": "the server runtime has no multi round-trip API"
//!   "server-stateless:sep-2575-server-sends-subscription-ack": "subscriptions/listen is not served"
//! client:
//!   "auth/dpop": "no DPoP in mcpwire-auth"
//! auth-server: {}
//! ```
//!
//! Modes are `server`, `client`, `auth-server` and `scale-out` (the server
//! suite through a proxy over three instances sharing one Redis). A key is a scenario
//! (the whole scenario may fail) or, from runner 0.2 on, `scenario:check-id`
//! (only that check may fail). Keys and reasons are double-quoted strings
//! with `\"` and `\\` as the only escapes, or plain scalars (a key then
//! ends at the first `": "`); a mode without entries is `{}`. `--bless`
//! rewrites the file, always quoting, so reasons belong in the values:
//! comments are not kept.

use std::collections::BTreeMap;

/// The reason `--bless` gives a new entry; the baseline test rejects it.
pub(crate) const TODO_REASON: &str = "TODO: reason";

/// The modes, in file order.
pub(crate) const SECTIONS: [&str; 4] = ["server", "client", "auth-server", "scale-out"];

/// The text at the top of every written baseline.
const HEADER: &str = "\
# Expected failures of the MCP conformance runner against mcpwire: one entry per
# scenario (or `scenario:check-id`) that may fail, with a one-line reason.
# An unlisted failure fails `cargo xtask conformance`; so does a listed entry
# that passes. `cargo xtask conformance --bless` rewrites this file from a run,
# keeping reasons and marking new entries \"TODO: reason\"; comments are not kept.
# `scenario:vacuous` accepts a pass with at least as many SKIPPED checks as SUCCESS
# ones (nothing tested), which otherwise fails too.
";

/// Entries of one mode: key (scenario or `scenario:check`) to reason.
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

/// Where entries go while reading.
enum Open {
    /// No mode yet.
    Nothing,
    /// A mode written `name:`, whose entries follow, indented.
    Section(String),
    /// A mode written `name: {}`, which takes no entries.
    Empty(String),
}

impl Baseline {
    /// Reads a baseline file.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let mut baseline = Self::default();
        let mut open = Open::Nothing;
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if raw.contains('\t') {
                return Err(format!("line {number}: YAML does not allow tabs here"));
            }
            if !raw.starts_with(' ') {
                open = baseline.read_section(line, number)?;
                continue;
            }
            let section = match &open {
                Open::Section(section) => section.clone(),
                Open::Nothing => return Err(format!("line {number}: an entry before any mode")),
                Open::Empty(section) => {
                    return Err(format!(
                        "line {number}: {section} is written `{{}}` (no entries) but has one"
                    ));
                }
            };
            let (key, reason) =
                read_entry(line).map_err(|error| format!("line {number}: {error}"))?;
            let entries = baseline.sections.entry(section.clone()).or_default();
            if entries.insert(key.clone(), reason).is_some() {
                return Err(format!(
                    "line {number}: {key:?} is listed twice under {section}"
                ));
            }
        }
        Ok(baseline)
    }

    /// Reads a top-level line: `mode:` or `mode: {}`.
    fn read_section(&mut self, line: &str, number: usize) -> Result<Open, String> {
        let Some((name, rest)) = line.split_once(':') else {
            return Err(format!("line {number}: expected `mode:` at the top level"));
        };
        let name = name.trim();
        if !SECTIONS.contains(&name) {
            return Err(format!(
                "line {number}: unknown mode {name:?} (known: {})",
                SECTIONS.join(", ")
            ));
        }
        if self
            .sections
            .insert(name.to_owned(), Entries::new())
            .is_some()
        {
            return Err(format!("line {number}: {name} appears twice"));
        }
        match strip_comment(rest).trim() {
            "" => Ok(Open::Section(name.to_owned())),
            "{}" => Ok(Open::Empty(name.to_owned())),
            _ => Err(format!(
                "line {number}: after `{name}:` put its entries on the next lines, indented, or `{{}}`"
            )),
        }
    }

    /// The entries of `section` (empty if absent).
    pub(crate) fn entries(&self, section: &str) -> Entries {
        self.sections.get(section).cloned().unwrap_or_default()
    }

    /// Replaces the entries of `section`.
    pub(crate) fn set_entries(&mut self, section: &str, entries: Entries) {
        self.sections.insert(section.to_owned(), entries);
    }

    /// The file text: the header, then every mode in fixed order with its
    /// entries sorted and quoted.
    pub(crate) fn to_text(&self) -> String {
        let mut text = HEADER.to_owned();
        for section in SECTIONS {
            let entries = self
                .sections
                .get(section)
                .filter(|entries| !entries.is_empty());
            match entries {
                None => text.push_str(&format!("\n{section}: {{}}\n")),
                Some(entries) => {
                    text.push_str(&format!("\n{section}:\n"));
                    for (key, reason) in entries {
                        text.push_str(&format!("  {}: {}\n", quote(key), quote(reason)));
                    }
                }
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
                let shown = format!("{section}: {key:?}");
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
                // `scenario:vacuous` is read by us, not the runner, so any
                // runner version takes it.
                let ours = key.ends_with(&format!(":{}", super::evaluate::VACUOUS));
                if key.contains(':') && !ours && !runner_has_check_entries(version) {
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
        // `scenario:vacuous` accepts a pass that tested nothing: ours, not
        // the runner's.
        let keys: Vec<&String> = entries
            .keys()
            .filter(|key| !key.ends_with(&format!(":{}", super::evaluate::VACUOUS)))
            .collect();
        if keys.is_empty() {
            return format!("{yaml_key}: []\n");
        }
        for key in keys {
            yaml.push_str(&format!("  - {}\n", quote(key)));
        }
        yaml
    }
}

/// `text` without a trailing ` # comment`.
fn strip_comment(text: &str) -> &str {
    if text.trim_start().starts_with('#') {
        return "";
    }
    text.find(" #").map_or(text, |at| &text[..at])
}

/// Reads an indented `key: reason` line (already trimmed).
fn read_entry(line: &str) -> Result<(String, String), String> {
    let (key, rest) = if line.starts_with('"') {
        let (key, rest) =
            read_string(line).ok_or("the key is not a well-formed \"quoted string\"")?;
        let rest = rest
            .strip_prefix(':')
            .ok_or("expected `:` right after the quoted key")?;
        (key, rest)
    } else {
        // The key ends at the first `: `; the rest keeps that space.
        let (key, rest) = match line.find(": ") {
            Some(at) => (&line[..at], &line[at + 1..]),
            None => (line.strip_suffix(':').ok_or("expected `key: reason`")?, ""),
        };
        (read_plain(key)?, rest)
    };
    if !rest.is_empty() && !rest.starts_with(' ') {
        return Err("expected a space after `key:`".to_owned());
    }
    let rest = rest.trim_start();
    let reason = if rest.starts_with('"') {
        let (reason, after) =
            read_string(rest).ok_or("the reason is not a well-formed \"quoted string\"")?;
        if !strip_comment(after).trim().is_empty() {
            return Err("unexpected text after the reason".to_owned());
        }
        reason
    } else {
        read_plain(strip_comment(rest))?
    };
    Ok((key, reason))
}

/// A plain (unquoted) scalar: the text as it is, unless YAML would read
/// it as something other than a string.
fn read_plain(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.starts_with([
        '\'', '{', '[', '&', '*', '!', '|', '>', '%', '@', '`', '-', '?',
    ]) {
        return Err(format!("{text:?} must be a \"quoted string\""));
    }
    if text.contains(": ") || text.ends_with(':') {
        return Err(format!(
            "{text:?} must be a \"quoted string\" (YAML reads `: ` as a mapping)"
        ));
    }
    Ok(text.to_owned())
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
server:
  "tasks-lifecycle": "no tasks extension yet"  # trailing comment
  "server-stateless:sep-2575-server-sends-subscription-ack": "subscriptions/listen is not \"served\""
  caching: plain reason, with colons:and more # and a comment

client:
  # a comment inside
  "auth/dpop": "no DPoP \\ yet"
auth-server: {}
"#;

    #[test]
    fn entries_are_read_per_mode_with_escapes_and_plain_scalars() {
        let baseline = Baseline::parse(SAMPLE).unwrap();
        let server = baseline.entries("server");
        assert_eq!(server["tasks-lifecycle"], "no tasks extension yet");
        assert_eq!(
            server["server-stateless:sep-2575-server-sends-subscription-ack"],
            r#"subscriptions/listen is not "served""#
        );
        assert_eq!(server["caching"], "plain reason, with colons:and more");
        assert_eq!(baseline.entries("client")["auth/dpop"], r"no DPoP \ yet");
        assert!(baseline.entries("auth-server").is_empty());
    }

    #[test]
    fn written_text_reads_back_the_same() {
        let baseline = Baseline::parse(SAMPLE).unwrap();
        let text = baseline.to_text();
        assert!(text.starts_with("# Expected failures"));
        assert!(text.contains("\nauth-server: {}\n"), "{text}");
        assert!(text.ends_with("\nscale-out: {}\n"), "{text}");
        assert!(
            text.contains("\n  \"caching\": \"plain reason, with colons:and more\"\n"),
            "{text}"
        );
        let again = Baseline::parse(&text).unwrap();
        for section in SECTIONS {
            assert_eq!(
                again.entries(section),
                baseline.entries(section),
                "{section}"
            );
        }
        assert_eq!(again.to_text(), text);
    }

    #[test]
    fn malformed_files_name_the_line_and_the_problem() {
        for (text, needle) in [
            ("  \"x\": \"y\"", "before any mode"),
            ("servers:", "unknown mode"),
            ("server", "expected `mode:`"),
            ("server: x", "entries on the next lines"),
            ("server: {}\n  \"x\": \"y\"", "no entries"),
            ("server:\nclient:\nserver:", "appears twice"),
            ("server:\n  \"x\" \"y\"", "expected `:`"),
            ("server:\n  \"x\":\"y\"", "a space after"),
            ("server:\n  x", "expected `key: reason`"),
            ("server:\n  \"x\": \"y\" z", "unexpected text"),
            ("server:\n  \"x\": \"y\"\n  \"x\": \"z\"", "listed twice"),
            ("server:\n  \"x\": \"bad \\n escape\"", "quoted string"),
            ("server:\n  \"x\": [a]", "quoted string"),
            ("server:\n  x: a: b", "mapping"),
            ("server:\n\t\"x\": \"y\"", "tabs"),
        ] {
            let error = Baseline::parse(text).unwrap_err();
            assert!(error.contains(needle), "{text:?}: {error}");
        }
    }

    #[test]
    fn empty_todo_and_unreadable_entries_are_problems() {
        let text = "server:\n  \"a\": \"\"\n  \"b\": \"TODO: reason\"\n  \"c:check\": \"fine\"\n  \"d\": \"fine\"\n  e:\n";
        let baseline = Baseline::parse(text).unwrap();
        let problems = baseline.problems("0.1.16");
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("\"a\"") && problems[0].contains("empty"));
        assert!(problems[1].contains("\"b\"") && problems[1].contains("write the reason"));
        assert!(problems[2].contains("\"c:check\"") && problems[2].contains("0.1.16"));
        assert!(problems[3].contains("\"e\"") && problems[3].contains("empty"));
        assert_eq!(baseline.problems("0.2.0-alpha.12").len(), 3);
    }

    #[test]
    fn the_runner_yaml_lists_every_key_quoted() {
        let baseline = Baseline::parse(SAMPLE).unwrap();
        assert_eq!(
            baseline.runner_yaml("server", "server"),
            "server:\n  - \"caching\"\n  - \"server-stateless:sep-2575-server-sends-subscription-ack\"\n  - \"tasks-lifecycle\"\n"
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
