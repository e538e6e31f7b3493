//! Tidy rule: Rust files stay under [`MAX_LINES`] lines unless allowlisted.
//!
//! A long file is a sign that it holds more than one concept; the fix is to
//! split it by concept. The rare file that is long for a good reason (a
//! generated table, say) is listed in [`OVERSIZED_FILES`] with that reason,
//! and an entry whose file no longer exceeds the limit fails as stale so the
//! list never outlives its purpose.

use std::path::{Path, PathBuf};

/// The most lines a Rust file may have without an allowlist entry.
const MAX_LINES: usize = 1_000;

/// A file allowed to exceed [`MAX_LINES`], and why.
#[derive(Debug, Clone, Copy)]
struct Oversized {
    /// Path relative to the workspace root, with `/` separators.
    path: &'static str,
    /// One sentence saying why the file cannot reasonably be split.
    reason: &'static str,
}

/// Files allowed to exceed [`MAX_LINES`]. Add an entry only with a reason;
/// remove it when the file shrinks (tidy reports the stale entry).
const OVERSIZED_FILES: &[Oversized] = &[];

/// Size problems among `files` (paths relative to `root`), judged against
/// the committed allowlist.
pub(super) fn problems(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut line_counts = Vec::new();
    for file in files {
        match std::fs::read_to_string(root.join(file)) {
            Ok(text) => line_counts.push((slash_path(file), text.lines().count())),
            Err(error) => problems.push(format!("{}: could not read: {error}", file.display())),
        }
    }
    problems.extend(size_problems(&line_counts, OVERSIZED_FILES));
    problems
}

/// `path` with `/` separators, the spelling used in the allowlist.
fn slash_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Problems given each file's line count and the allowlist: files over the
/// limit that are not listed, listed files that are not over it (or no
/// longer exist), and entries without a reason.
fn size_problems(line_counts: &[(String, usize)], allowlist: &[Oversized]) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, lines) in line_counts {
        let listed = allowlist.iter().any(|entry| entry.path == path);
        if *lines > MAX_LINES && !listed {
            problems.push(format!(
                "{path}: {lines} lines, over the {MAX_LINES}-line limit; split it by concept \
                 (or, if it truly cannot be split, list it with a reason in \
                 xtask/src/tidy/file_size.rs)"
            ));
        }
    }
    for entry in allowlist {
        let lines = line_counts
            .iter()
            .find(|(path, _)| path == entry.path)
            .map(|(_, lines)| *lines);
        match lines {
            Some(lines) if lines > MAX_LINES => {}
            Some(lines) => problems.push(format!(
                "{}: stale size allowlist entry: the file has {lines} lines, within the \
                 {MAX_LINES}-line limit; remove the entry from xtask/src/tidy/file_size.rs",
                entry.path
            )),
            None => problems.push(format!(
                "{}: stale size allowlist entry: no such Rust file; remove the entry from \
                 xtask/src/tidy/file_size.rs",
                entry.path
            )),
        }
        if entry.reason.trim().is_empty() {
            problems.push(format!(
                "{}: size allowlist entry without a reason",
                entry.path
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace_root;

    const LONG: &[Oversized] = &[Oversized {
        path: "crates/x/src/table.rs",
        reason: "generated method table, one row per method",
    }];

    fn counts(entries: &[(&str, usize)]) -> Vec<(String, usize)> {
        entries
            .iter()
            .map(|(path, lines)| ((*path).to_string(), *lines))
            .collect()
    }

    #[test]
    fn files_at_or_under_the_limit_pass() {
        let found = size_problems(&counts(&[("a.rs", 0), ("b.rs", MAX_LINES)]), &[]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn an_unlisted_file_over_the_limit_fails() {
        let found = size_problems(&counts(&[("big.rs", MAX_LINES + 1)]), &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("big.rs: 1001 lines"), "{found:?}");
    }

    #[test]
    fn a_listed_file_over_the_limit_passes() {
        let found = size_problems(&counts(&[("crates/x/src/table.rs", 5_000)]), LONG);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_listed_file_within_the_limit_is_a_stale_entry() {
        let found = size_problems(&counts(&[("crates/x/src/table.rs", 10)]), LONG);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("stale"), "{found:?}");
    }

    #[test]
    fn a_listed_file_that_no_longer_exists_is_a_stale_entry() {
        let found = size_problems(&counts(&[("other.rs", 10)]), LONG);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("no such Rust file"), "{found:?}");
    }

    #[test]
    fn an_entry_without_a_reason_fails() {
        let unexplained = [Oversized {
            path: "big.rs",
            reason: " ",
        }];
        let found = size_problems(&counts(&[("big.rs", 2_000)]), &unexplained);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("without a reason"), "{found:?}");
    }

    #[test]
    fn allowlist_paths_use_forward_slashes() {
        let path: PathBuf = ["crates", "x", "src", "table.rs"].iter().collect();
        assert_eq!(slash_path(&path), "crates/x/src/table.rs");
    }

    #[test]
    fn no_rust_file_in_the_workspace_exceeds_the_limit_unless_allowlisted() {
        let root = workspace_root();
        let files = super::super::rust_files(&root).unwrap();
        let found = problems(&root, &files);
        assert!(found.is_empty(), "\n{}", found.join("\n"));
    }
}
