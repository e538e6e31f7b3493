//! Content blocks carried by tool results, prompt messages, sampling
//! messages and embedded resources.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::revision::keep_if;
use crate::{Annotations, Extra, ForRevision, Icon, Meta, ProtocolVersion};

/// Text content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl TextContent {
    /// Text content holding `text`.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            annotations: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

/// Base64-encoded binary media: the body of image and audio content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent {
    /// Base64-encoded data.
    pub data: String,
    /// The MIME type, e.g. `image/png` or `audio/wav`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl MediaContent {
    /// Media of `mime_type` holding base64 `data`.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

/// Image content.
pub type ImageContent = MediaContent;
/// Audio content (2025-03-26 on).
pub type AudioContent = MediaContent;

/// A link to a resource the client may read (2025-06-18 on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The contents of a resource: text or a base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text(TextResourceContents),
    /// Binary contents.
    Blob(BlobResourceContents),
}

/// Text contents of a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Binary contents of a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64-encoded data.
    pub blob: String,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl<'de> Deserialize<'de> for ResourceContents {
    /// Chooses by the presence of `blob`, not by trying each variant in turn.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut map = serde_json::Map::deserialize(deserializer)?;
        let is_blob = map.contains_key("blob") && !map.contains_key("text");
        if !is_blob && !map.contains_key("text") {
            return Err(D::Error::missing_field("text"));
        }
        // `uri` is required on both shapes; serde's message names it.
        map.entry("uri").or_insert(Value::Null);
        let value = Value::Object(map);
        if is_blob {
            BlobResourceContents::deserialize(value)
                .map(Self::Blob)
                .map_err(D::Error::custom)
        } else {
            TextResourceContents::deserialize(value)
                .map(Self::Text)
                .map_err(D::Error::custom)
        }
    }
}

impl TextResourceContents {
    /// Text contents of the resource at `uri`.
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl BlobResourceContents {
    /// Binary contents (base64 `blob`) of the resource at `uri`.
    pub fn new(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            blob: blob.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ResourceContents {
    /// Text contents of `uri` with MIME type `mime_type`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let mut contents = TextResourceContents::new(uri, text);
        contents.mime_type = Some(mime_type.into());
        Self::Text(contents)
    }

    /// Base64 binary contents of `uri` with MIME type `mime_type`.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        blob: impl Into<String>,
    ) -> Self {
        let mut contents = BlobResourceContents::new(uri, blob);
        contents.mime_type = Some(mime_type.into());
        Self::Blob(contents)
    }

    /// The URI the contents belong to.
    pub fn uri(&self) -> &str {
        match self {
            Self::Text(t) => &t.uri,
            Self::Blob(b) => &b.uri,
        }
    }
}

impl ForRevision for ResourceContents {
    fn fit_to(&mut self, version: ProtocolVersion) {
        match self {
            Self::Text(t) => keep_if(version.has_object_meta(), &mut t.meta),
            Self::Blob(b) => keep_if(version.has_object_meta(), &mut b.meta),
        }
    }
}

/// A resource embedded in a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The resource's contents.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A request from the model to call a tool, inside a sampling message (2025-11-25 on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Identifies this use; the matching result names it in `toolUseId`.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, matching the tool's input schema.
    pub input: serde_json::Map<String, Value>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of a tool use, inside a sampling message (2025-11-25 on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `id` of the [`ToolUseContent`] this answers.
    pub tool_use_id: String,
    /// Unstructured result content.
    pub content: Vec<ContentBlock>,
    /// Structured result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool use failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A block of content in a tool result, prompt message or resource.
///
/// Tagged by `type`: `text`, `image`, `audio` (2025-03-26 on),
/// `resource_link` (2025-06-18 on) and `resource`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text(TextContent),
    /// An image.
    Image(ImageContent),
    /// Audio (2025-03-26 on).
    Audio(AudioContent),
    /// A link to a resource (2025-06-18 on).
    ResourceLink(ResourceLink),
    /// An embedded resource.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl ForRevision for ContentBlock {
    /// Content a revision cannot carry becomes text that says what it was:
    /// audio before 2025-03-26, resource links before 2025-06-18.
    fn fit_to(&mut self, version: ProtocolVersion) {
        match self {
            Self::Audio(audio) if !version.has_audio() => {
                let note = format!("[audio content ({}) omitted]", audio.mime_type);
                let annotations = audio.annotations.take();
                *self = Self::Text(TextContent {
                    annotations,
                    ..TextContent::new(note)
                });
            }
            Self::ResourceLink(link) if !version.has_resource_links() => {
                let note = format!("[resource: {} <{}>]", link.name, link.uri);
                let annotations = link.annotations.take();
                *self = Self::Text(TextContent {
                    annotations,
                    ..TextContent::new(note)
                });
            }
            _ => {}
        }
        match self {
            Self::Text(t) => downgrade_common(version, &mut t.annotations, &mut t.meta),
            Self::Image(m) | Self::Audio(m) => {
                downgrade_common(version, &mut m.annotations, &mut m.meta);
            }
            Self::ResourceLink(link) => {
                keep_if(version.has_icons(), &mut link.icons);
                link.annotations.fit_to(version);
            }
            Self::Resource(r) => {
                r.resource.fit_to(version);
                downgrade_common(version, &mut r.annotations, &mut r.meta);
            }
        }
    }
}

fn downgrade_common(
    version: ProtocolVersion,
    annotations: &mut Option<Annotations>,
    meta: &mut Option<Meta>,
) {
    annotations.fit_to(version);
    keep_if(version.has_object_meta(), meta);
}

/// A block of content in a sampling message: text, image, audio, and from
/// 2025-11-25 tool uses and tool results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingContent {
    /// Text.
    Text(TextContent),
    /// An image.
    Image(ImageContent),
    /// Audio (2025-03-26 on).
    Audio(AudioContent),
    /// A tool call requested by the model (2025-11-25 on).
    ToolUse(ToolUseContent),
    /// The result of a tool call (2025-11-25 on).
    ToolResult(ToolResultContent),
}

impl ForRevision for SamplingContent {
    /// Kinds the revision lacks become text that says what they were.
    fn fit_to(&mut self, version: ProtocolVersion) {
        let note = match self {
            Self::Audio(a) if !version.has_audio() => {
                Some(format!("[audio content ({}) omitted]", a.mime_type))
            }
            Self::ToolUse(u) if !version.has_sampling_tools() => {
                Some(format!("[tool use {}: {}]", u.id, u.name))
            }
            Self::ToolResult(r) if !version.has_sampling_tools() => {
                Some(format!("[tool result for {}]", r.tool_use_id))
            }
            _ => None,
        };
        if let Some(note) = note {
            *self = Self::Text(TextContent::new(note));
        }
        match self {
            Self::Text(t) => downgrade_common(version, &mut t.annotations, &mut t.meta),
            Self::Image(m) | Self::Audio(m) => {
                downgrade_common(version, &mut m.annotations, &mut m.meta);
            }
            Self::ToolUse(_) => {}
            Self::ToolResult(r) => r.content.fit_to(version),
        }
    }
}
