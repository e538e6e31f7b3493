//! Skills (`io.modelcontextprotocol/skills`, SEP-2640): a catalog of
//! Agent Skills served as `skill://` resources, with `skills/list`,
//! `skills/get` and `resources/directory/read`.
//!
//! A catalog comes from a directory tree (every directory holding a
//! `SKILL.md` is a skill, nested ones included), from files in memory,
//! and from dynamic skills whose files a handler makes on demand:
//!
//! ```no_run
//! use mcpwire_server::Server;
//! use mcpwire_server::skills::SkillCatalog;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("docs", "1.0.0")
//!     .skills(SkillCatalog::from_dir("./skills")?)
//!     .build()?;
//! # Ok(())
//! # }
//! ```
//!
//! Loading is safe by construction: no file outside the tree is read
//! (`..`, absolute paths and symlinks pointing out are refused), names
//! follow the Agent Skills rule and equal their directory's name, and
//! skills over the extension's limits (512 files, 16 MiB) are warned
//! about. Each skill's manifest (SHA-256 and size of every file) is
//! computed from the very bytes served. [`Server::reload_skills`] reads
//! the sources again and tells sessions (`resources/list_changed`).

mod load;
mod serve;
mod store;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use mcpwire_types::CacheHint;
use mcpwire_types::skills::Skill;
use serde_json::{Map, Value};

use crate::{BoxFuture, HandlerError, Server};
use store::{RawFile, Store};

/// The files of a dynamic skill, as its handler makes them: each file's
/// path inside the skill (`/`-separated) and bytes.
pub type SkillFiles = Vec<(String, Vec<u8>)>;

pub(crate) type DynamicFn =
    Arc<dyn Fn() -> BoxFuture<'static, Result<SkillFiles, HandlerError>> + Send + Sync>;

/// Why a skill could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A file or directory could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
    /// A path leaves the skill tree (`..`, absolute, empty segments).
    #[error("the path {0:?} leaves the skill tree")]
    PathEscape(String),
    /// A symlink points outside the skill tree.
    #[error("the symlink {link} points outside the skill tree (to {target})")]
    SymlinkEscape {
        /// The link.
        link: PathBuf,
        /// Where it points.
        target: PathBuf,
    },
    /// A file or directory name is not UTF-8.
    #[error("the name of {0} is not UTF-8")]
    NotUtf8(PathBuf),
    /// A file is larger than any skill may be.
    #[error("{path} is {size} bytes, more than a skill file may hold")]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
    },
    /// The tree holds more files or levels than are read.
    #[error("the skill tree is too large: {0}")]
    TreeTooLarge(String),
    /// A skill path is malformed.
    #[error("invalid skill path {path:?}: {reason}")]
    InvalidPath {
        /// The skill path.
        path: String,
        /// Why.
        reason: String,
    },
    /// A skill's name breaks the Agent Skills rule (1-64 lowercase letters,
    /// digits and single hyphens).
    #[error("invalid skill name {0:?}: 1-64 lowercase letters, digits and single hyphens")]
    InvalidName(String),
    /// The frontmatter's `name` differs from the skill directory's name.
    #[error(
        "the skill at {skill} is named {name:?} in its SKILL.md but its directory is {directory:?}; \
         they must be equal"
    )]
    NameMismatch {
        /// The skill path.
        skill: String,
        /// The directory's name.
        directory: String,
        /// The frontmatter's `name`.
        name: String,
    },
    /// The SKILL.md frontmatter is missing or unreadable.
    #[error("the SKILL.md of {skill}: {reason}")]
    Frontmatter {
        /// The skill path.
        skill: String,
        /// Why.
        reason: String,
    },
    /// A skill has no `SKILL.md`.
    #[error("the skill {skill} has no SKILL.md")]
    NoSkillFile {
        /// The skill path.
        skill: String,
    },
    /// Two files of one skill have the same path.
    #[error("the skill {skill} has the file {path} twice")]
    DuplicateFile {
        /// The skill path.
        skill: String,
        /// The file.
        path: String,
    },
    /// Two skills have the same URI.
    #[error("two skills at {0}")]
    DuplicateSkill(String),
}

/// Where the catalog's skills come from, kept so that it can be read again.
#[derive(Clone)]
enum Source {
    Dir(PathBuf),
    Files(Arc<Vec<(String, Arc<[u8]>)>>),
    Dynamic {
        skill_path: String,
        frontmatter: Map<String, Value>,
        handler: DynamicFn,
    },
}

/// The skills a server serves; add it with
/// [`ServerBuilder::skills`](crate::ServerBuilder::skills).
#[derive(Clone)]
pub struct SkillCatalog {
    sources: Vec<Source>,
    store: Store,
    directory_read: bool,
    cache_hint: CacheHint,
}

impl std::fmt::Debug for SkillCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let uris: Vec<&str> = self
            .store
            .skills
            .iter()
            .map(|s| s.skill.uri.as_str())
            .collect();
        f.debug_struct("SkillCatalog")
            .field("skills", &uris)
            .field("directory_read", &self.directory_read)
            .finish_non_exhaustive()
    }
}

impl Default for SkillCatalog {
    fn default() -> Self {
        Self::new()
    }
}

impl SkillCatalog {
    /// An empty catalog, with `resources/directory/read` served and
    /// listings fresh for 5 minutes, public.
    pub fn new() -> Self {
        Self {
            sources: Vec::new(),
            store: Store::default(),
            directory_read: true,
            cache_hint: CacheHint::public(std::time::Duration::from_secs(300)),
        }
    }

    /// The skills under the directory `root` (see [`with_dir`](Self::with_dir)).
    ///
    /// # Errors
    ///
    /// As [`with_dir`](Self::with_dir).
    pub fn from_dir(root: impl AsRef<Path>) -> Result<Self, SkillError> {
        Self::new().with_dir(root)
    }

    /// Adds the skills under the directory `root`: every directory below
    /// it holding a `SKILL.md` is a skill whose path is its path from
    /// `root` (`acme/billing/refunds` is served at
    /// `skill://acme/billing/refunds/SKILL.md`). Files outside every
    /// skill and names starting with `.` are left out.
    ///
    /// # Errors
    ///
    /// When a file cannot be read, a symlink points outside `root`, a name
    /// breaks the rules or differs from its `SKILL.md`, or a frontmatter
    /// is unreadable.
    pub fn with_dir(mut self, root: impl AsRef<Path>) -> Result<Self, SkillError> {
        let source = Source::Dir(root.as_ref().to_path_buf());
        add_source(&mut self.store, &source)?;
        self.sources.push(source);
        Ok(self)
    }

    /// Adds skills from files in memory, given by their path in a virtual
    /// tree (`"acme/refunds/SKILL.md"`), discovered as in
    /// [`with_dir`](Self::with_dir).
    ///
    /// # Errors
    ///
    /// As [`with_dir`](Self::with_dir), and for a path with `..`, an empty
    /// segment, or a leading `/`.
    pub fn with_files<P, B>(
        mut self,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Self, SkillError>
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let files: Vec<(String, Arc<[u8]>)> = files
            .into_iter()
            .map(|(path, bytes)| (path.into(), Arc::from(bytes.into())))
            .collect();
        let source = Source::Files(Arc::new(files));
        add_source(&mut self.store, &source)?;
        self.sources.push(source);
        Ok(self)
    }

    /// Adds a dynamic skill at `skill_path` (its last segment is its
    /// name) with the given frontmatter (`name` and `description` at
    /// least): its entry says `"resources": "dynamic"`, and `handler`
    /// makes its files whenever one is read or a directory of it listed.
    /// The `SKILL.md` it makes must carry the same frontmatter.
    ///
    /// # Errors
    ///
    /// When the path or name is invalid, or the frontmatter lacks `name`
    /// or `description` or names another skill.
    pub fn with_dynamic<F, Fut>(
        mut self,
        skill_path: &str,
        frontmatter: Map<String, Value>,
        handler: F,
    ) -> Result<Self, SkillError>
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<SkillFiles, HandlerError>> + Send + 'static,
    {
        let handler: DynamicFn = Arc::new(move || Box::pin(handler()));
        let source = Source::Dynamic {
            skill_path: skill_path.to_owned(),
            frontmatter,
            handler,
        };
        add_source(&mut self.store, &source)?;
        self.sources.push(source);
        Ok(self)
    }

    /// Whether to serve `resources/directory/read` and declare
    /// `directoryRead: true` (default: yes).
    pub fn directory_read(mut self, enabled: bool) -> Self {
        self.directory_read = enabled;
        self
    }

    /// The `ttlMs` / `cacheScope` of `skills/list` and `skills/get`
    /// (default: 5 minutes, public).
    pub fn cache_hint(mut self, hint: CacheHint) -> Self {
        self.cache_hint = hint;
        self
    }

    /// The skills' entries, in URI order.
    pub fn skills(&self) -> Vec<Skill> {
        self.store.skills.iter().map(|s| s.skill.clone()).collect()
    }

    /// Reads every source again into a fresh store.
    fn reload(&self) -> Result<Store, SkillError> {
        let mut store = Store::default();
        for source in &self.sources {
            add_source(&mut store, source)?;
        }
        Ok(store)
    }
}

fn add_source(store: &mut Store, source: &Source) -> Result<(), SkillError> {
    match source {
        Source::Dir(root) => {
            let files = load::read_tree(root)?;
            load::add_tree(store, files, load::root_name(root))
        }
        Source::Files(files) => {
            let files = files
                .iter()
                .map(|(path, bytes)| RawFile {
                    path: path.clone(),
                    bytes: bytes.to_vec(),
                })
                .collect();
            load::add_tree(store, files, None)
        }
        Source::Dynamic {
            skill_path,
            frontmatter,
            handler,
        } => store.add_dynamic(skill_path, frontmatter.clone(), handler.clone()),
    }
}

/// A server's skills while serving.
pub(crate) struct Skills {
    catalog: SkillCatalog,
    store: RwLock<Arc<Store>>,
}

impl Skills {
    fn store(&self) -> Arc<Store> {
        self.store
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Declares the extension (and `resources`) and lists each `SKILL.md`;
/// the server's part of [`ServerBuilder::skills`](crate::ServerBuilder::skills).
pub(crate) fn install(
    catalog: SkillCatalog,
    listing: &mut crate::catalog::Catalog,
    capabilities: &mut mcpwire_types::ServerCapabilities,
) -> Result<(Arc<Skills>, Vec<mcpwire_session::ExtensionMethod>), crate::BuildError> {
    use mcpwire_types::skills::{SKILLS_EXTENSION, SKILLS_EXTENSION_METHODS};
    capabilities
        .resources
        .get_or_insert_with(|| mcpwire_types::ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
            ..Default::default()
        });
    let settings = if catalog.directory_read {
        serde_json::json!({ "directoryRead": true })
    } else {
        serde_json::json!({})
    };
    capabilities
        .extensions
        .get_or_insert_with(Map::new)
        .insert(SKILLS_EXTENSION.to_owned(), settings);
    let methods = SKILLS_EXTENSION_METHODS
        .into_iter()
        .filter(|m| catalog.directory_read || *m != "resources/directory/read")
        .map(|m| mcpwire_session::ExtensionMethod::open(m, SKILLS_EXTENSION))
        .collect();
    let store = Arc::new(catalog.store.clone());
    let skills = Arc::new(Skills {
        catalog,
        store: RwLock::new(store.clone()),
    });
    for entry in serve::listing_entries(&skills, &store) {
        listing.add_resource(entry)?;
    }
    Ok((skills, methods))
}

impl Server {
    /// Reads the skill catalog's sources again (directories, files,
    /// dynamic skills) and serves what they hold now; sessions are told
    /// (`notifications/resources/list_changed`) when the skills changed.
    /// Returns whether they did. Without skills, does nothing.
    ///
    /// # Errors
    ///
    /// When the sources no longer load (the skills served stay as they were).
    pub fn reload_skills(&self) -> Result<bool, SkillError> {
        let Some(skills) = &self.inner.skills else {
            return Ok(false);
        };
        let fresh = Arc::new(skills.catalog.reload()?);
        let old = skills.store();
        let same = old.skills.len() == fresh.skills.len()
            && old
                .skills
                .iter()
                .zip(&fresh.skills)
                .all(|(a, b)| a.skill == b.skill)
            && old.directories == fresh.directories;
        *skills.store.write().unwrap_or_else(PoisonError::into_inner) = fresh.clone();
        if same {
            return Ok(false);
        }
        {
            let mut catalog = self.catalog_mut();
            let old_uris: std::collections::HashSet<&str> =
                old.skills.iter().map(|s| s.skill.uri.as_str()).collect();
            catalog
                .resources
                .retain(|e| !old_uris.contains(e.resource.uri.as_str()));
            for entry in serve::listing_entries(skills, &fresh) {
                // A URI another resource holds keeps that resource.
                let _ = catalog.add_resource(entry);
            }
        }
        self.announce(crate::server::Change::Resources);
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
