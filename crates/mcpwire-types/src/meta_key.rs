//! Checked `_meta` key names: the prefix and name rules of the spec's
//! `_meta` section (META-03), and the prefixes reserved for MCP itself.

use std::fmt;

/// A `_meta` key built by this implementation or its users, checked
/// against the key name format: an optional prefix of dot-separated labels
/// followed by `/`, then a name (META-03).
///
/// Prefixes whose second label is `modelcontextprotocol` or `mcp` are
/// reserved for MCP; [`MetaKey::new`] refuses them, so an application
/// cannot claim a protocol key by accident ([`MetaKey::reserved`] builds
/// those, for the protocol's own keys).
///
/// ```
/// use mcpwire_types::MetaKey;
///
/// let key = MetaKey::new("com.example/", "trace-id").unwrap();
/// assert_eq!(key.as_str(), "com.example/trace-id");
/// assert!(MetaKey::new("io.modelcontextprotocol/", "x").is_err());
/// assert!(MetaKey::new("com.example", "x").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetaKey(String);

/// Why a `_meta` key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetaKeyError {
    /// The prefix does not end with `/`.
    #[error("a _meta prefix ends with '/': {0:?}")]
    PrefixWithoutSlash(String),
    /// A label of the prefix breaks the label rules.
    #[error(
        "_meta prefix label {0:?} must start with a letter, end with a letter or digit, \
         and hold only letters, digits and hyphens"
    )]
    InvalidLabel(String),
    /// The prefix is reserved for MCP (its second label is
    /// `modelcontextprotocol` or `mcp`).
    #[error("the _meta prefix {0:?} is reserved for MCP")]
    ReservedPrefix(String),
    /// The name breaks the name rules.
    #[error(
        "_meta name {0:?} must begin and end with a letter or digit, and hold only letters, \
         digits, '-', '_' and '.'"
    )]
    InvalidName(String),
}

impl MetaKey {
    /// The key `prefix` + `name`, where `prefix` is empty or ends with
    /// `/` (e.g. `"com.example/"`).
    ///
    /// # Errors
    ///
    /// When the prefix or the name breaks the format, or the prefix is
    /// reserved for MCP.
    pub fn new(prefix: &str, name: &str) -> Result<Self, MetaKeyError> {
        let key = Self::reserved(prefix, name)?;
        if is_reserved_prefix(prefix) {
            return Err(MetaKeyError::ReservedPrefix(prefix.to_owned()));
        }
        Ok(key)
    }

    /// Like [`MetaKey::new`], also accepting the prefixes reserved for MCP:
    /// for keys the protocol defines.
    ///
    /// # Errors
    ///
    /// When the prefix or the name breaks the format.
    pub fn reserved(prefix: &str, name: &str) -> Result<Self, MetaKeyError> {
        if !prefix.is_empty() {
            let Some(labels) = prefix.strip_suffix('/') else {
                return Err(MetaKeyError::PrefixWithoutSlash(prefix.to_owned()));
            };
            if let Some(bad) = labels.split('.').find(|label| !is_label(label)) {
                return Err(MetaKeyError::InvalidLabel(bad.to_owned()));
            }
        }
        if !is_name(name) {
            return Err(MetaKeyError::InvalidName(name.to_owned()));
        }
        Ok(Self(format!("{prefix}{name}")))
    }

    /// Reads a whole key (`prefix/name` or `name`).
    ///
    /// # Errors
    ///
    /// As [`MetaKey::new`].
    pub fn parse(key: &str) -> Result<Self, MetaKeyError> {
        match key.rfind('/') {
            Some(slash) => Self::new(&key[..=slash], &key[slash + 1..]),
            None => Self::new("", key),
        }
    }

    /// The key as it goes into `_meta`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MetaKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<MetaKey> for String {
    fn from(key: MetaKey) -> Self {
        key.0
    }
}

/// Whether `prefix` (with or without its `/`) is reserved for MCP: its
/// second label is `modelcontextprotocol` or `mcp`.
pub fn is_reserved_prefix(prefix: &str) -> bool {
    let labels = prefix.strip_suffix('/').unwrap_or(prefix);
    matches!(
        labels.split('.').nth(1),
        Some("modelcontextprotocol" | "mcp")
    )
}

fn is_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

/// Unless empty, begins and ends with an alphanumeric, with `-`, `_`, `.`
/// and alphanumerics between.
fn is_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (None, _) | (_, None) => true,
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta_keys;

    #[test]
    fn prefixes_follow_the_label_rules_meta_03() {
        assert!(MetaKey::new("com.example-co.api/", "a_b.c-1").is_ok());
        assert!(MetaKey::new("", "plain").is_ok());
        assert!(MetaKey::new("com.example/", "").is_ok());
        for bad in ["1com/", "com-/", "com..example/", "com_x/", "/"] {
            assert!(
                matches!(MetaKey::new(bad, "x"), Err(MetaKeyError::InvalidLabel(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            MetaKey::new("com.example", "x"),
            Err(MetaKeyError::PrefixWithoutSlash(_))
        ));
        for bad in ["-x", "x-", "a b", "a/b", "_"] {
            assert!(
                matches!(MetaKey::new("", bad), Err(MetaKeyError::InvalidName(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn only_a_second_label_of_mcp_or_modelcontextprotocol_is_reserved() {
        for reserved in [
            "io.modelcontextprotocol/",
            "dev.mcp/",
            "org.modelcontextprotocol.api/",
            "com.mcp.tools/",
        ] {
            assert!(is_reserved_prefix(reserved), "{reserved}");
            assert_eq!(
                MetaKey::new(reserved, "x"),
                Err(MetaKeyError::ReservedPrefix(reserved.to_owned()))
            );
            assert!(MetaKey::reserved(reserved, "x").is_ok());
        }
        assert!(!is_reserved_prefix("com.example.mcp/"));
        assert!(MetaKey::new("com.example.mcp/", "x").is_ok());
    }

    #[test]
    fn the_protocol_keys_this_crate_writes_are_well_formed() {
        for key in [
            meta_keys::PROGRESS_TOKEN,
            meta_keys::PROTOCOL_VERSION,
            meta_keys::CLIENT_CAPABILITIES,
            meta_keys::CLIENT_INFO,
            meta_keys::SERVER_INFO,
            meta_keys::LOG_LEVEL,
            meta_keys::SUBSCRIPTION_ID,
            meta_keys::RELATED_TASK,
        ] {
            let (prefix, name) = key.rfind('/').map_or(("", key), |at| key.split_at(at + 1));
            assert!(MetaKey::reserved(prefix, name).is_ok(), "{key}");
        }
        assert_eq!(
            MetaKey::parse("com.example/k").unwrap().as_str(),
            "com.example/k"
        );
        assert!(MetaKey::parse("io.modelcontextprotocol/k").is_err());
    }
}
