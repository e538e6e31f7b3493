//! Skills (`io.modelcontextprotocol/skills`, SEP-2640) from the host's
//! side: listing and getting skill entries, and loading a skill with every
//! byte verified against the entry held.
//!
//! Nothing is fetched ahead of need: listing reads entries only; a skill's
//! `SKILL.md` is read when it is loaded ([`Client::load_skill`]) and a
//! supporting file when it is read ([`LoadedSkill::read_file`]), only if
//! the held entry lists it. Each read is checked for size and SHA-256, and
//! `SKILL.md`'s frontmatter field by field; a failure is a
//! [`SkillVerificationError`] and the content is not given out.

use mcpwire_types::skills::{
    GetSkillRequestParams, ListSkillsResult, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, SKILLS_EXTENSION, SKILLS_EXTENSION_METHODS, Skill, SkillResources,
    digest_of, parse_frontmatter,
};
use mcpwire_types::{ReadResourceResult, Resource, ResourceContents};
use serde_json::{Map, Value};

use crate::weight::Listing;
use crate::{Client, ClientConfig, ClientError, MAX_PAGES, RequestOptions};

/// `config` allowed to send the skills extension's requests (and
/// declaring that the client understands the extension).
pub fn with_skills_extension(config: ClientConfig) -> ClientConfig {
    config.with_extension(SKILLS_EXTENSION, &SKILLS_EXTENSION_METHODS)
}

/// Content that does not match the skill entry held: it must not be used.
/// Refresh the entry with `skills/get` ([`Client::get_skill`]) and load
/// the skill again (which needs the user's approval again when the
/// entry's files changed).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillVerificationError {
    /// The file is not in the held entry's `resources`.
    #[error("{uri} is not listed in the held entry of {skill}; refresh the entry with skills/get")]
    Unlisted {
        /// The skill's URI.
        skill: String,
        /// The file asked for.
        uri: String,
    },
    /// The bytes read are not as many as the entry says.
    #[error(
        "{uri} is {actual} bytes but its entry says {expected}; refresh the entry with skills/get"
    )]
    SizeMismatch {
        /// The file.
        uri: String,
        /// The entry's `size`.
        expected: u64,
        /// The length read.
        actual: u64,
    },
    /// The bytes read do not hash to the entry's digest.
    #[error(
        "{uri} hashes to {actual} but its entry says {expected}; refresh the entry with skills/get"
    )]
    DigestMismatch {
        /// The file.
        uri: String,
        /// The entry's `digest`.
        expected: String,
        /// The digest of what was read.
        actual: String,
    },
    /// A frontmatter field of `SKILL.md` differs from the entry's.
    #[error(
        "the frontmatter field {field:?} of {uri} is {} but the entry says {}; \
         refresh the entry with skills/get",
        show(.actual), show(.expected)
    )]
    FrontmatterMismatch {
        /// The `SKILL.md`.
        uri: String,
        /// The first field that differs.
        field: String,
        /// The entry's value (`None`: the entry lacks the field).
        expected: Option<Value>,
        /// The file's value (`None`: the file lacks the field).
        actual: Option<Value>,
    },
    /// `SKILL.md` has no readable frontmatter.
    #[error("the frontmatter of {uri} cannot be read: {reason}")]
    Frontmatter {
        /// The `SKILL.md`.
        uri: String,
        /// Why.
        reason: String,
    },
    /// The answer to the read holds no content for the file.
    #[error("the server sent no content for {uri}")]
    NoContent {
        /// The file.
        uri: String,
    },
    /// The entry itself cannot be loaded (its `resources` does not list
    /// its `SKILL.md`).
    #[error("the entry of {uri} cannot be loaded: {reason}")]
    InvalidEntry {
        /// The skill's URI.
        uri: String,
        /// Why.
        reason: String,
    },
}

fn show(value: &Option<Value>) -> String {
    value
        .as_ref()
        .map_or_else(|| "absent".to_owned(), Value::to_string)
}

/// A skill loaded under the entry it was verified against: the acting
/// window. Its supporting files are read through it, only if listed.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    entry: Skill,
    text: String,
}

impl LoadedSkill {
    /// The entry held while acting on the skill.
    pub fn entry(&self) -> &Skill {
        &self.entry
    }

    /// The verified `SKILL.md`.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Reads the skill's file `path` (relative to the skill root, like
    /// `references/FORMS.md`, or a full URI) when the held entry lists it,
    /// verified against it; for a dynamic skill, read as it comes.
    ///
    /// # Errors
    ///
    /// [`ClientError::SkillVerification`] when the file is unlisted or
    /// differs from its entry; what [`Client::read_resource`] gives.
    pub async fn read_file(&self, client: &Client, path: &str) -> Result<Vec<u8>, ClientError> {
        let uri = match self.entry.root() {
            Some(root) if !path.contains("://") => format!("{root}/{path}"),
            _ => path.to_owned(),
        };
        match &self.entry.resources {
            SkillResources::Dynamic => {
                let result = client.read_resource(uri.clone()).await?;
                Ok(bytes_of(&uri, &result)?)
            }
            SkillResources::Listed(_) => {
                let Some(file) = self.entry.file(&uri) else {
                    return Err(SkillVerificationError::Unlisted {
                        skill: self.entry.uri.clone(),
                        uri,
                    }
                    .into());
                };
                let (expected_digest, expected_size) = (file.digest.clone(), file.size);
                let result = client.read_resource(uri.clone()).await?;
                let bytes = bytes_of(&uri, &result)?;
                verify_bytes(&uri, &bytes, &expected_digest, expected_size)?;
                Ok(bytes)
            }
        }
    }
}

impl Client {
    /// Whether the server declared the skills extension.
    pub fn supports_skills(&self) -> bool {
        self.server()
            .capabilities
            .supports_extension(SKILLS_EXTENSION)
    }

    /// Whether the server declared `directoryRead: true`.
    pub fn supports_skill_directories(&self) -> bool {
        self.server()
            .capabilities
            .extensions
            .as_ref()
            .and_then(|e| e.get(SKILLS_EXTENSION))
            .and_then(|s| s.get("directoryRead"))
            .and_then(Value::as_bool)
            == Some(true)
    }

    /// `skills/list`, every page: the skills' entries. Reads no file.
    ///
    /// # Errors
    ///
    /// As [`Client::request_extension`] (refused unless the client was
    /// configured [`with_skills_extension`] and the server declared the
    /// extension); [`ClientError::EndlessPagination`] after
    /// [`MAX_PAGES`] pages; [`ClientError::ListTooLarge`] past
    /// [`ClientBuilder::max_listed_bytes`](crate::ClientBuilder::max_listed_bytes).
    pub async fn list_skills(&self) -> Result<Vec<Skill>, ClientError> {
        let mut skills = Listing::new("skills/list", self.shared().max_listed_bytes);
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(cursor) = &cursor {
                params.insert("cursor".to_owned(), Value::String(cursor.clone()));
            }
            let result = self
                .request_extension("skills/list", params, RequestOptions::default())
                .await?;
            let page: ListSkillsResult = read_result(result)?;
            skills.extend(page.skills)?;
            match page.next_cursor {
                Some(next) if cursor.as_deref() != Some(next.as_str()) => cursor = Some(next),
                Some(_) => break,
                None => return Ok(skills.into_items()),
            }
        }
        Err(ClientError::EndlessPagination {
            method: "skills/list",
            pages: MAX_PAGES,
        })
    }

    /// `skills/get`: the current entry of the skill whose `SKILL.md` is
    /// at `uri` (also to refresh an entry after a verification failure).
    ///
    /// # Errors
    ///
    /// As [`Client::request_extension`]; -32602 when the server serves no
    /// such skill.
    pub async fn get_skill(&self, uri: impl Into<String>) -> Result<Skill, ClientError> {
        let params = GetSkillRequestParams {
            uri: uri.into(),
            meta: None,
        };
        let result = self
            .request_extension("skills/get", params_of(&params)?, RequestOptions::default())
            .await?;
        #[derive(serde::Deserialize)]
        struct Entry {
            skill: Skill,
        }
        read_result::<Entry>(result).map(|e| e.skill)
    }

    /// `resources/directory/read`, every page: the direct children of the
    /// directory resource `uri` (subdirectories as `inode/directory`).
    ///
    /// # Errors
    ///
    /// As [`Client::request_extension`]; -32602 for a non-directory;
    /// [`ClientError::EndlessPagination`], [`ClientError::ListTooLarge`]
    /// as [`Client::list_skills`].
    pub async fn read_directory(
        &self,
        uri: impl Into<String>,
    ) -> Result<Vec<Resource>, ClientError> {
        let uri = uri.into();
        let limit = self.shared().max_listed_bytes;
        let mut children = Listing::new("resources/directory/read", limit);
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = ReadResourceDirectoryRequestParams {
                uri: uri.clone(),
                cursor: cursor.clone(),
                meta: None,
            };
            let result = self
                .request_extension(
                    "resources/directory/read",
                    params_of(&params)?,
                    RequestOptions::default(),
                )
                .await?;
            let page: ReadResourceDirectoryResult = read_result(result)?;
            children.extend(page.resources)?;
            match page.next_cursor {
                Some(next) if cursor.as_deref() != Some(next.as_str()) => cursor = Some(next),
                Some(_) => break,
                None => return Ok(children.into_items()),
            }
        }
        Err(ClientError::EndlessPagination {
            method: "resources/directory/read",
            pages: MAX_PAGES,
        })
    }

    /// Loads the skill of `entry`: reads its `SKILL.md` (and nothing
    /// else), checks its size and SHA-256 against the entry (unless the
    /// skill is dynamic) and its frontmatter field by field, and holds the
    /// entry for reading the skill's other files.
    ///
    /// # Errors
    ///
    /// [`ClientError::SkillVerification`] when the content differs from
    /// the entry (it is not given out); what [`Client::read_resource`] gives.
    pub async fn load_skill(&self, entry: &Skill) -> Result<LoadedSkill, ClientError> {
        let uri = entry.uri.clone();
        let listed = match &entry.resources {
            SkillResources::Listed(_) => {
                let Some(file) = entry.file(&uri) else {
                    return Err(SkillVerificationError::InvalidEntry {
                        uri,
                        reason: "its resources do not list its SKILL.md".to_owned(),
                    }
                    .into());
                };
                Some((file.digest.clone(), file.size))
            }
            SkillResources::Dynamic => None,
        };
        let result = self.read_resource(uri.clone()).await?;
        let bytes = bytes_of(&uri, &result)?;
        if let Some((digest, size)) = listed {
            verify_bytes(&uri, &bytes, &digest, size)?;
        }
        let text = String::from_utf8(bytes).map_err(|_| SkillVerificationError::Frontmatter {
            uri: uri.clone(),
            reason: "SKILL.md is not UTF-8".to_owned(),
        })?;
        let frontmatter =
            parse_frontmatter(&text).map_err(|error| SkillVerificationError::Frontmatter {
                uri: uri.clone(),
                reason: error.to_string(),
            })?;
        compare_frontmatter(&uri, &entry.frontmatter, &frontmatter)?;
        Ok(LoadedSkill {
            entry: entry.clone(),
            text,
        })
    }
}

impl From<SkillVerificationError> for ClientError {
    fn from(error: SkillVerificationError) -> Self {
        Self::SkillVerification(Box::new(error))
    }
}

/// Checks size first (a mismatch needs no hashing), then the digest.
fn verify_bytes(
    uri: &str,
    bytes: &[u8],
    digest: &str,
    size: u64,
) -> Result<(), SkillVerificationError> {
    let actual = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if actual != size {
        return Err(SkillVerificationError::SizeMismatch {
            uri: uri.to_owned(),
            expected: size,
            actual,
        });
    }
    let actual = digest_of(bytes);
    if actual != digest {
        return Err(SkillVerificationError::DigestMismatch {
            uri: uri.to_owned(),
            expected: digest.to_owned(),
            actual,
        });
    }
    Ok(())
}

/// Compares two frontmatters field by field, naming the first (in key
/// order) that differs.
fn compare_frontmatter(
    uri: &str,
    expected: &Map<String, Value>,
    actual: &Map<String, Value>,
) -> Result<(), SkillVerificationError> {
    let mut fields: Vec<&String> = expected.keys().chain(actual.keys()).collect();
    fields.sort();
    fields.dedup();
    for field in fields {
        let (want, got) = (expected.get(field), actual.get(field));
        if want != got {
            return Err(SkillVerificationError::FrontmatterMismatch {
                uri: uri.to_owned(),
                field: field.clone(),
                expected: want.cloned(),
                actual: got.cloned(),
            });
        }
    }
    Ok(())
}

/// The raw bytes of `uri` in a read's result: a text's UTF-8, a blob
/// decoded.
fn bytes_of(uri: &str, result: &ReadResourceResult) -> Result<Vec<u8>, ClientError> {
    let contents = result
        .contents
        .iter()
        .find(|c| c.uri() == uri)
        .ok_or_else(|| SkillVerificationError::NoContent {
            uri: uri.to_owned(),
        })?;
    match contents {
        ResourceContents::Text(text) => Ok(text.text.as_bytes().to_vec()),
        ResourceContents::Blob(blob) => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(blob.blob.as_bytes())
                .map_err(|error| {
                    ClientError::InvalidResult(format!("the blob of {uri} is not base64: {error}"))
                })
        }
    }
}

fn params_of(serializable: &impl serde::Serialize) -> Result<Map<String, Value>, ClientError> {
    match serde_json::to_value(serializable) {
        Ok(Value::Object(params)) => Ok(params),
        Ok(other) => Err(ClientError::InvalidResult(format!(
            "params must be a JSON object, not {other}"
        ))),
        Err(error) => Err(ClientError::InvalidResult(error.to_string())),
    }
}

fn read_result<T: serde::de::DeserializeOwned>(result: Value) -> Result<T, ClientError> {
    serde_json::from_value(result).map_err(|error| ClientError::InvalidResult(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_size_mismatch_is_found_before_hashing() {
        let digest = digest_of(b"abc");
        assert!(verify_bytes("u", b"abc", &digest, 3).is_ok());
        assert!(matches!(
            verify_bytes("u", b"abcd", &digest, 3),
            Err(SkillVerificationError::SizeMismatch {
                expected: 3,
                actual: 4,
                ..
            })
        ));
        assert!(matches!(
            verify_bytes("u", b"abd", &digest, 3),
            Err(SkillVerificationError::DigestMismatch { .. })
        ));
    }

    #[test]
    fn frontmatter_differences_name_the_field_and_suggest_a_refresh() {
        let entry = map(json!({"name": "a", "description": "listed"}));
        let file = map(json!({"name": "a", "description": "tampered"}));
        let error = compare_frontmatter("skill://a/SKILL.md", &entry, &file).unwrap_err();
        assert!(
            matches!(&error, SkillVerificationError::FrontmatterMismatch { field, .. } if field == "description")
        );
        assert!(error.to_string().contains("skills/get"));
        let extra = map(json!({"name": "a", "description": "listed", "allowed-tools": "Bash"}));
        assert!(matches!(
            compare_frontmatter("u", &entry, &extra),
            Err(SkillVerificationError::FrontmatterMismatch { field, expected: None, .. }) if field == "allowed-tools"
        ));
        assert!(compare_frontmatter("u", &entry, &entry).is_ok());
    }
}
