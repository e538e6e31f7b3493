//! The loaded skills: every file's bytes and type by URI, each skill's
//! entry with its manifest, and the directory tree the files make.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use mcpwire_types::skills::{
    DIRECTORY_MIME_TYPE, MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_FILE, Skill, SkillResource,
    SkillResources, digest_of, is_valid_skill_name, parse_frontmatter,
};
use mcpwire_types::{Resource, ResourceContents};
use serde_json::{Map, Value};

use super::{DynamicFn, SkillError};

/// The scheme every skill is served under.
pub(crate) const SCHEME: &str = "skill://";

/// One file's bytes and MIME type.
#[derive(Clone)]
pub(crate) struct File {
    pub(crate) bytes: Arc<[u8]>,
    pub(crate) mime: &'static str,
}

/// A skill as served.
#[derive(Clone)]
pub(crate) struct SkillEntry {
    /// The entry sent in `skills/list` and `skills/get`.
    pub(crate) skill: Skill,
    /// The skill's root directory URI (`skill://<skill-path>`).
    pub(crate) root: String,
    /// How a dynamic skill makes its files.
    pub(crate) dynamic: Option<DynamicFn>,
}

/// Everything served, built once and swapped whole on reload.
#[derive(Clone, Default)]
pub(crate) struct Store {
    /// Skills in URI order.
    pub(crate) skills: Vec<SkillEntry>,
    /// Static files by URI.
    pub(crate) files: BTreeMap<String, File>,
    /// Every directory URI the static files sit in, at or below a skill path's first segment.
    pub(crate) directories: BTreeSet<String>,
}

/// A file handed over by its path inside a skill, before checks.
pub(crate) struct RawFile {
    pub(crate) path: String,
    pub(crate) bytes: Vec<u8>,
}

impl Store {
    /// The skill whose `SKILL.md` is at `uri`.
    pub(crate) fn skill(&self, uri: &str) -> Option<&SkillEntry> {
        self.skills.iter().find(|s| s.skill.uri == uri)
    }

    /// The dynamic skill whose tree holds `uri` (its root or below), with
    /// the path of `uri` inside it (empty for the root).
    pub(crate) fn dynamic_for<'a>(&'a self, uri: &'a str) -> Option<(&'a SkillEntry, &'a str)> {
        self.skills
            .iter()
            .filter(|s| s.dynamic.is_some())
            .find_map(|s| {
                if uri == s.root {
                    return Some((s, ""));
                }
                let rest = uri.strip_prefix(s.root.as_str())?.strip_prefix('/')?;
                Some((s, rest))
            })
    }

    /// Adds a skill at `skill_path` made of `files` (paths relative to
    /// the skill root, `/`-separated). Nested skills' files belong to the
    /// enclosing skill too: call this for each skill with all its files.
    pub(crate) fn add_static(
        &mut self,
        skill_path: &str,
        files: Vec<RawFile>,
    ) -> Result<(), SkillError> {
        let name = check_skill_path(skill_path)?;
        let root = format!("{SCHEME}{skill_path}");
        let uri = format!("{root}/{SKILL_FILE}");
        let mut manifest = Vec::with_capacity(files.len());
        let mut frontmatter = None;
        let mut total = 0u64;
        let mut seen = BTreeSet::new();
        for file in files {
            let segments = check_relative_path(&file.path)?;
            if !seen.insert(file.path.clone()) {
                return Err(SkillError::DuplicateFile {
                    skill: skill_path.to_owned(),
                    path: file.path,
                });
            }
            if file.path == SKILL_FILE {
                let text =
                    std::str::from_utf8(&file.bytes).map_err(|_| SkillError::Frontmatter {
                        skill: skill_path.to_owned(),
                        reason: "SKILL.md is not UTF-8".to_owned(),
                    })?;
                frontmatter =
                    Some(
                        parse_frontmatter(text).map_err(|e| SkillError::Frontmatter {
                            skill: skill_path.to_owned(),
                            reason: e.to_string(),
                        })?,
                    );
            }
            let file_uri = format!("{root}/{}", encode_segments(&segments));
            let size = u64::try_from(file.bytes.len()).unwrap_or(u64::MAX);
            total = total.saturating_add(size);
            manifest.push(SkillResource {
                uri: file_uri.clone(),
                digest: digest_of(&file.bytes),
                size,
            });
            self.record_directories(&file_uri);
            self.files.insert(
                file_uri,
                File {
                    mime: mime_of(&file.path, &file.bytes),
                    bytes: file.bytes.into(),
                },
            );
        }
        let frontmatter = frontmatter.ok_or_else(|| SkillError::NoSkillFile {
            skill: skill_path.to_owned(),
        })?;
        check_name(skill_path, name, &frontmatter)?;
        if manifest.len() > MAX_SKILL_FILES || total > MAX_SKILL_BYTES {
            tracing::warn!(
                skill = skill_path,
                files = manifest.len(),
                bytes = total,
                "skill exceeds the extension's limits ({MAX_SKILL_FILES} files, {MAX_SKILL_BYTES} bytes); \
                 hosts may refuse it"
            );
        }
        // SKILL.md first, then by URI: a stable order.
        manifest.sort_by(|a, b| (a.uri != uri, &a.uri).cmp(&(b.uri != uri, &b.uri)));
        self.push(SkillEntry {
            skill: entry(uri, frontmatter, SkillResources::Listed(manifest)),
            root,
            dynamic: None,
        })
    }

    /// Adds a dynamic skill at `skill_path` whose frontmatter is `frontmatter`.
    pub(crate) fn add_dynamic(
        &mut self,
        skill_path: &str,
        frontmatter: Map<String, Value>,
        handler: DynamicFn,
    ) -> Result<(), SkillError> {
        let name = check_skill_path(skill_path)?;
        for field in ["name", "description"] {
            if frontmatter
                .get(field)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                return Err(SkillError::Frontmatter {
                    skill: skill_path.to_owned(),
                    reason: format!("the frontmatter lacks a non-empty string `{field}`"),
                });
            }
        }
        check_name(skill_path, name, &frontmatter)?;
        let root = format!("{SCHEME}{skill_path}");
        let uri = format!("{root}/{SKILL_FILE}");
        self.push(SkillEntry {
            skill: entry(uri, frontmatter, SkillResources::Dynamic),
            root,
            dynamic: Some(handler),
        })
    }

    fn push(&mut self, entry: SkillEntry) -> Result<(), SkillError> {
        if self.skill(&entry.skill.uri).is_some() {
            return Err(SkillError::DuplicateSkill(entry.skill.uri));
        }
        let at = self
            .skills
            .partition_point(|s| s.skill.uri < entry.skill.uri);
        self.skills.insert(at, entry);
        Ok(())
    }

    fn record_directories(&mut self, file_uri: &str) {
        let path = file_uri.strip_prefix(SCHEME).unwrap_or(file_uri);
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            self.directories.insert(format!("{SCHEME}{}", &path[..end]));
            end += 1;
        }
    }

    /// The direct children of the static directory `uri`, or `None` when
    /// it is not one.
    pub(crate) fn children(&self, uri: &str) -> Option<Vec<Resource>> {
        if !self.directories.contains(uri) {
            return None;
        }
        let prefix = format!("{uri}/");
        let mut children = Vec::new();
        let mut subdirectories = BTreeSet::new();
        for (file_uri, file) in self.files.range(prefix.clone()..) {
            let Some(rest) = file_uri.strip_prefix(&prefix) else {
                break;
            };
            match rest.split_once('/') {
                Some((dir, _)) => {
                    subdirectories.insert(dir.to_owned());
                }
                None => children.push(file_resource(file_uri, rest, file)),
            }
        }
        children.extend(
            subdirectories
                .into_iter()
                .map(|dir| directory_resource(&format!("{prefix}{dir}"), &dir)),
        );
        children.sort_by(|a, b| a.uri.cmp(&b.uri));
        Some(children)
    }

    /// The `resources/list` entry of each skill's `SKILL.md`.
    pub(crate) fn listed_resources(&self) -> Vec<Resource> {
        self.skills
            .iter()
            .map(|s| {
                let name = s.skill.name().unwrap_or_default();
                let mut resource = Resource::new(s.skill.uri.clone(), name);
                resource.description = s.skill.description().map(str::to_owned);
                resource.mime_type = Some("text/markdown".to_owned());
                if let Some(file) = s.skill.file(&s.skill.uri) {
                    resource.size = Some(file.size);
                }
                resource
            })
            .collect()
    }
}

fn entry(uri: String, frontmatter: Map<String, Value>, resources: SkillResources) -> Skill {
    Skill {
        uri,
        frontmatter,
        resources,
        meta: None,
        extra: mcpwire_types::Extra::new(),
    }
}

/// A file's `Resource` metadata.
pub(crate) fn file_resource(uri: &str, name: &str, file: &File) -> Resource {
    let mut resource = Resource::new(uri, name);
    resource.mime_type = Some(file.mime.to_owned());
    resource.size = u64::try_from(file.bytes.len()).ok();
    resource
}

/// A directory's `Resource` metadata (`inode/directory`).
pub(crate) fn directory_resource(uri: &str, name: &str) -> Resource {
    let mut resource = Resource::new(uri, name);
    resource.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
    resource
}

/// A file's contents for `resources/read`: text when it is UTF-8 and of a
/// textual type, a base64 blob otherwise (the bytes either way are those
/// the manifest's digest covers).
pub(crate) fn contents(uri: &str, file: &File) -> ResourceContents {
    let textual = file.mime.starts_with("text/")
        || matches!(
            file.mime,
            "application/json" | "application/yaml" | "application/toml" | "image/svg+xml"
        );
    match std::str::from_utf8(&file.bytes) {
        Ok(text) if textual => ResourceContents::text(uri, file.mime, text),
        _ => {
            use base64::Engine as _;
            let blob = base64::engine::general_purpose::STANDARD.encode(&file.bytes);
            ResourceContents::blob(uri, file.mime, blob)
        }
    }
}

/// Checks a skill path (`/`-separated segments, the last one the skill's
/// name) and gives the name.
fn check_skill_path(skill_path: &str) -> Result<&str, SkillError> {
    let bad = |reason: &str| SkillError::InvalidPath {
        path: skill_path.to_owned(),
        reason: reason.to_owned(),
    };
    let segments: Vec<&str> = skill_path.split('/').collect();
    for segment in &segments {
        if segment.is_empty() || *segment == "." || *segment == ".." {
            return Err(bad("empty, `.` or `..` segment"));
        }
        if !segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
        {
            return Err(bad(
                "a segment holds characters outside letters, digits and -._~",
            ));
        }
    }
    let name = segments.last().copied().unwrap_or_default();
    if !is_valid_skill_name(name) {
        return Err(SkillError::InvalidName(name.to_owned()));
    }
    Ok(name)
}

/// Checks that the frontmatter's `name` is the skill directory's name.
fn check_name(
    skill_path: &str,
    name: &str,
    frontmatter: &Map<String, Value>,
) -> Result<(), SkillError> {
    let declared = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if declared != name {
        return Err(SkillError::NameMismatch {
            skill: skill_path.to_owned(),
            directory: name.to_owned(),
            name: declared.to_owned(),
        });
    }
    Ok(())
}

/// Checks a file's path inside its skill: relative, `/`-separated, no
/// empty, `.` or `..` segment, no backslash or NUL.
pub(crate) fn check_relative_path(path: &str) -> Result<Vec<&str>, SkillError> {
    let escape = || SkillError::PathEscape(path.to_owned());
    if path.is_empty() || path.starts_with('/') || path.contains(['\\', '\0']) {
        return Err(escape());
    }
    if path.len() > 1 && path.as_bytes().get(1) == Some(&b':') {
        // A Windows drive (`C:...`): absolute elsewhere.
        return Err(escape());
    }
    let segments: Vec<&str> = path.split('/').collect();
    if segments
        .iter()
        .any(|s| s.is_empty() || *s == "." || *s == "..")
    {
        return Err(escape());
    }
    Ok(segments)
}

/// The path as URI path segments, percent-encoding what a segment may not hold.
fn encode_segments(segments: &[&str]) -> String {
    let mut out = String::new();
    for (i, segment) in segments.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        for byte in segment.bytes() {
            let keep = byte.is_ascii_alphanumeric()
                || matches!(
                    byte,
                    b'-' | b'.'
                        | b'_'
                        | b'~'
                        | b'!'
                        | b'$'
                        | b'&'
                        | b'\''
                        | b'('
                        | b')'
                        | b'*'
                        | b'+'
                        | b','
                        | b';'
                        | b'='
                        | b':'
                        | b'@'
                );
            if keep {
                out.push(char::from(byte));
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

/// The MIME type of a file, by its extension; unknown types are
/// `text/plain` when the bytes are UTF-8 and `application/octet-stream`
/// otherwise.
pub(crate) fn mime_of(path: &str, bytes: &[u8]) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "text/xml",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}
