//! Small shared definitions: roles, annotations, icons, implementation info,
//! cursors and progress tokens.

use serde::{Deserialize, Serialize};

use crate::revision::keep_if;
use crate::{Extra, ForRevision, ProtocolVersion};

/// The sender or recipient of messages and data in a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

/// An opaque pagination token.
pub type Cursor = String;

/// A token tying progress notifications to the request that asked for them:
/// a string or an integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

/// Hints for the client about how an object is used or displayed.
///
/// 2024-11-05 called the carrier `Annotated`; `lastModified` is 2025-06-18 on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the object is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// How important the object is, from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When the object was last modified, as an ISO 8601 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for Annotations {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_titles(), &mut self.last_modified);
    }
}

/// Which background an icon is designed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

/// An icon for display in a user interface (2025-11-25 on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An HTTP(S) URL or a `data:` URI.
    pub src: String,
    /// A MIME type override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes it can be used at (`"48x48"`, `"any"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The background it is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Icon {
    /// An icon at `src` with nothing else said.
    pub fn new(src: impl Into<String>) -> Self {
        Self {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
            extra: Extra::new(),
        }
    }
}

/// The name and version of an MCP implementation (client or server).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// The implementation's website (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Implementation {
    /// An implementation called `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            icons: None,
            website_url: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for Implementation {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_titles(), &mut self.title);
        keep_if(version.has_icons(), &mut self.description);
        keep_if(version.has_icons(), &mut self.icons);
        keep_if(version.has_icons(), &mut self.website_url);
    }
}
