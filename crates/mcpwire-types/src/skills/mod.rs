//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640):
//! skill entries with their manifests, `skills/list`, `skills/get` and
//! `resources/directory/read`, the Agent Skills naming rule, digests, and
//! (feature `skills`) SKILL.md frontmatter read as JSON.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{CacheScope, Cursor, Extra, Meta, Resource, ResultType};

/// The extension's identifier, the key under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The request methods the extension adds.
pub const SKILLS_EXTENSION_METHODS: [&str; 3] =
    ["skills/list", "skills/get", "resources/directory/read"];

/// The MIME type of a directory resource.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The file every skill holds at its root.
pub const SKILL_FILE: &str = "SKILL.md";

/// The most files a skill should have (hosts must accept up to this many).
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes a skill's files should sum to (16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// One file of a skill, with the digest and size of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits of the file's raw bytes.
    pub digest: String,
    /// The length in bytes of the file's raw content.
    pub size: u64,
}

/// A skill's files: the complete manifest, or `"dynamic"` when the
/// content is generated and no stable digests exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillResources {
    /// Every file, `SKILL.md` included, each once.
    Listed(Vec<SkillResource>),
    /// Generated content: nothing to verify against.
    Dynamic,
}

impl SkillResources {
    /// The manifest, unless the skill is dynamic.
    pub fn listed(&self) -> Option<&[SkillResource]> {
        match self {
            Self::Listed(files) => Some(files),
            Self::Dynamic => None,
        }
    }
}

impl Serialize for SkillResources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Listed(files) => files.serialize(serializer),
            Self::Dynamic => serializer.serialize_str("dynamic"),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Decided by the JSON type, not by trying each shape in turn.
        match Value::deserialize(deserializer)? {
            Value::String(text) if text == "dynamic" => Ok(Self::Dynamic),
            value @ Value::Array(_) => serde_json::from_value(value)
                .map(Self::Listed)
                .map_err(serde::de::Error::custom),
            other => Err(serde::de::Error::custom(format!(
                "resources must be an array of files or \"dynamic\", not {other}"
            ))),
        }
    }
}

/// The entry of one skill, as `skills/list` and `skills/get` give it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` YAML frontmatter, verbatim, as a JSON object
    /// (`name` and `description` always present).
    pub frontmatter: Map<String, Value>,
    /// The skill's files.
    pub resources: SkillResources,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Skill {
    /// The frontmatter's `name`, if it is a string.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// The frontmatter's `description`, if it is a string.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }

    /// The manifest entry of `uri`, if the skill lists it.
    pub fn file(&self, uri: &str) -> Option<&SkillResource> {
        self.resources.listed()?.iter().find(|f| f.uri == uri)
    }

    /// The skill's root directory: its URI without `/SKILL.md`.
    pub fn root(&self) -> Option<&str> {
        skill_root(&self.uri)
    }
}

/// The root directory of the skill whose `SKILL.md` is at `uri`.
pub fn skill_root(uri: &str) -> Option<&str> {
    uri.strip_suffix(SKILL_FILE)?.strip_suffix('/')
}

/// The result of `skills/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The skills on this page.
    pub skills: Vec<Skill>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// How long the listing stays fresh, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// The kind of result (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The params of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillRequestParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillResult {
    /// The skill's entry.
    pub skill: Skill,
    /// How long the entry stays current, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// The kind of result (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The params of `resources/directory/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceDirectoryRequestParams {
    /// The directory resource's URI (no trailing slash).
    pub uri: String,
    /// Where to continue a paged listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `resources/directory/read`: the direct children.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceDirectoryResult {
    /// Files with their metadata, subdirectories as `inode/directory`.
    pub resources: Vec<Resource>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// The kind of result (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Whether `name` follows the Agent Skills rule: 1 to 64 characters,
/// lowercase ASCII letters, digits and single hyphens, neither first nor last.
pub fn is_valid_skill_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=64).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Whether `digest` is `sha256:` and 64 lowercase hex digits.
pub fn is_valid_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The YAML text between a leading `---` line and the next `---` line,
/// and the body after it; `None` when `text` opens with no frontmatter.
pub fn split_frontmatter(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Some((yaml, body));
        }
        offset += line.len();
    }
    None
}

#[cfg(feature = "skills")]
mod frontmatter;
#[cfg(feature = "skills")]
pub use frontmatter::{FrontmatterError, MAX_FRONTMATTER_BYTES, digest_of, parse_frontmatter};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn skill_names_follow_the_agent_skills_rule() {
        for good in ["a", "pdf-processing", "x1-2", &"a".repeat(64)] {
            assert!(is_valid_skill_name(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "A",
            "a_b",
            "a.b",
            "a/b",
            &"a".repeat(65),
        ] {
            assert!(!is_valid_skill_name(bad), "{bad}");
        }
    }

    #[test]
    fn resources_are_an_array_or_dynamic_and_nothing_else() {
        let dynamic: SkillResources = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(dynamic, SkillResources::Dynamic);
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        let listed: SkillResources = serde_json::from_value(
            json!([{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 3}]),
        )
        .unwrap();
        assert_eq!(listed.listed().map(<[_]>::len), Some(1));
        for bad in [json!("static"), json!(null), json!({}), json!(3)] {
            assert!(serde_json::from_value::<SkillResources>(bad).is_err());
        }
    }

    #[test]
    fn frontmatter_is_split_from_the_body() {
        let text = "---\nname: a\ndescription: b\n---\n# Body\n";
        assert_eq!(
            split_frontmatter(text),
            Some(("name: a\ndescription: b\n", "# Body\n"))
        );
        assert_eq!(split_frontmatter("# no frontmatter\n"), None);
        assert_eq!(split_frontmatter("---\nname: a\n"), None);
    }

    #[test]
    fn digests_are_sha256_and_lowercase_hex() {
        assert!(is_valid_digest(&format!("sha256:{}", "a0".repeat(32))));
        assert!(!is_valid_digest(&format!("sha256:{}", "A0".repeat(32))));
        assert!(!is_valid_digest(&format!("sha1:{}", "a0".repeat(32))));
        assert!(!is_valid_digest("sha256:abc"));
    }
}
