//! Reading a skill tree from disk without leaving it, and finding the
//! skills in a tree of files (every directory holding a `SKILL.md`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcpwire_types::skills::SKILL_FILE;

use super::SkillError;
use super::store::{RawFile, Store, check_relative_path};

/// The deepest directory level read below the root.
const MAX_DEPTH: usize = 32;

/// The most files read from one tree.
const MAX_FILES: usize = 20_000;

/// The largest single file read (four times a whole skill's limit: the
/// limit itself is only warned about).
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The name of `root`'s last component, the skill path of a root that is
/// itself a skill.
pub(super) fn root_name(root: &Path) -> Option<String> {
    let canonical = std::fs::canonicalize(root).ok()?;
    canonical.file_name()?.to_str().map(str::to_owned)
}

/// Every file under `root` (paths relative to it, `/`-separated), names
/// starting with `.` left out; symlinks are followed only when they stay
/// inside `root`.
pub(super) fn read_tree(root: &Path) -> Result<Vec<RawFile>, SkillError> {
    let io = |path: &Path, error: std::io::Error| SkillError::Io {
        path: path.to_path_buf(),
        reason: error.to_string(),
    };
    let canonical_root = std::fs::canonicalize(root).map_err(|e| io(root, e))?;
    let mut files = Vec::new();
    let mut pending: Vec<(PathBuf, String, usize)> =
        vec![(canonical_root.clone(), String::new(), 0)];
    while let Some((dir, relative, depth)) = pending.pop() {
        if depth > MAX_DEPTH {
            return Err(SkillError::TreeTooLarge(format!(
                "more than {MAX_DEPTH} directory levels at {}",
                dir.display()
            )));
        }
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| io(&dir, e))?
            .collect::<Result<_, _>>()
            .map_err(|e| io(&dir, e))?;
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let path = entry.path();
            let name = entry
                .file_name()
                .into_string()
                .map_err(|_| SkillError::NotUtf8(path.clone()))?;
            if name.starts_with('.') {
                continue;
            }
            let child = if relative.is_empty() {
                name
            } else {
                format!("{relative}/{name}")
            };
            let kind = std::fs::symlink_metadata(&path).map_err(|e| io(&path, e))?;
            let target = if kind.file_type().is_symlink() {
                let target = std::fs::canonicalize(&path).map_err(|e| io(&path, e))?;
                if !target.starts_with(&canonical_root) {
                    return Err(SkillError::SymlinkEscape { link: path, target });
                }
                target
            } else {
                path
            };
            let meta = std::fs::metadata(&target).map_err(|e| io(&target, e))?;
            if meta.is_dir() {
                pending.push((target, child, depth + 1));
            } else if meta.is_file() {
                if meta.len() > MAX_FILE_BYTES {
                    return Err(SkillError::FileTooLarge {
                        path: target,
                        size: meta.len(),
                    });
                }
                if files.len() >= MAX_FILES {
                    return Err(SkillError::TreeTooLarge(format!(
                        "more than {MAX_FILES} files"
                    )));
                }
                let bytes = std::fs::read(&target).map_err(|e| io(&target, e))?;
                files.push(RawFile { path: child, bytes });
            }
        }
    }
    Ok(files)
}

/// Adds the skills of a tree of files: every directory holding a
/// `SKILL.md` is a skill with every file below it (nested skills'
/// included). A `SKILL.md` at the tree's root makes the root a skill at
/// `root_name`.
pub(super) fn add_tree(
    store: &mut Store,
    mut files: Vec<RawFile>,
    root_name: Option<String>,
) -> Result<(), SkillError> {
    for file in &files {
        check_relative_path(&file.path)?;
    }
    if files.iter().any(|f| f.path == SKILL_FILE) {
        // The root is itself a skill: every path moves under its name.
        let Some(name) = root_name else {
            return Err(SkillError::InvalidPath {
                path: String::new(),
                reason: "a SKILL.md at the root of files given in memory has no directory name"
                    .to_owned(),
            });
        };
        for file in &mut files {
            file.path = format!("{name}/{}", file.path);
        }
    }
    let skill_dirs: BTreeSet<String> = files
        .iter()
        .filter_map(|f| {
            f.path
                .strip_suffix(SKILL_FILE)
                .and_then(|d| d.strip_suffix('/'))
                .map(str::to_owned)
        })
        .collect();
    for dir in skill_dirs {
        let prefix = format!("{dir}/");
        let members = files
            .iter()
            .filter_map(|f| {
                f.path.strip_prefix(prefix.as_str()).map(|path| RawFile {
                    path: path.to_owned(),
                    bytes: f.bytes.clone(),
                })
            })
            .collect();
        store.add_static(&dir, members)?;
    }
    Ok(())
}
