//! Protocol revisions and the features each one has.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A published revision of the Model Context Protocol.
///
/// Revisions are ordered by date, so `a < b` means `a` is older. Every
/// question of the form "does this revision have X?" is a method here, so
/// that no code elsewhere compares dates by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05: the first revision (HTTP+SSE transport). `2024-10-07` is accepted as an alias.
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, JSON-RPC batches, audio, tool annotations, completions capability.
    V2025_03_26,
    /// 2025-06-18: structured tool output, elicitation, resource links, `MCP-Protocol-Version` header.
    V2025_06_18,
    /// 2025-11-25: tasks, icons, URL elicitation, sampling with tools, JSON Schema 2020-12.
    V2025_11_25,
    /// 2026-07-28: the stateless revision (no handshake, `server/discover`, multi round-trip requests).
    V2026_07_28,
}

/// The error returned when a string names no revision we know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown MCP protocol version {0:?}")]
pub struct UnknownVersion(pub String);

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];
    /// The newest revision.
    pub const LATEST: ProtocolVersion = Self::V2026_07_28;
    /// The newest revision that uses the `initialize` handshake.
    pub const LATEST_HANDSHAKE: ProtocolVersion = Self::V2025_11_25;

    /// The revision's wire name, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire name; `2024-10-07` (a pre-release name still sent by some
    /// clients) is read as 2024-11-05.
    pub fn parse(name: &str) -> Result<Self, UnknownVersion> {
        Ok(match name {
            "2024-11-05" | "2024-10-07" => Self::V2024_11_05,
            "2025-03-26" => Self::V2025_03_26,
            "2025-06-18" => Self::V2025_06_18,
            "2025-11-25" => Self::V2025_11_25,
            "2026-07-28" => Self::V2026_07_28,
            other => return Err(UnknownVersion(other.to_owned())),
        })
    }

    /// Whether a session begins with `initialize` / `notifications/initialized`
    /// (every revision before 2026-07-28).
    pub const fn has_handshake(self) -> bool {
        !self.is_stateless()
    }

    /// Whether the revision is stateless: no handshake, version and
    /// capabilities in each request's `_meta`, `server/discover`.
    pub const fn is_stateless(self) -> bool {
        matches!(self, Self::V2026_07_28)
    }

    /// Whether JSON-RPC batches are allowed (2025-03-26 only).
    pub const fn allows_batches(self) -> bool {
        matches!(self, Self::V2025_03_26)
    }

    /// Whether HTTP requests must carry the `MCP-Protocol-Version` header.
    pub const fn requires_version_header(self) -> bool {
        self.at_least(Self::V2025_06_18)
    }

    /// Whether Streamable HTTP POSTs must carry `Mcp-Method` / `Mcp-Name`.
    pub const fn requires_method_headers(self) -> bool {
        self.at_least(Self::V2026_07_28)
    }

    /// Whether the Streamable HTTP transport exists (2025-03-26 on); before it
    /// only the HTTP+SSE transport did.
    pub const fn has_streamable_http(self) -> bool {
        self.at_least(Self::V2025_03_26)
    }

    /// Whether Streamable HTTP has protocol sessions (`Mcp-Session-Id`).
    pub const fn has_http_sessions(self) -> bool {
        self.has_streamable_http() && self.has_handshake()
    }

    /// Whether SSE events carry ids and can be resumed with `Last-Event-ID`.
    pub const fn has_sse_resumption(self) -> bool {
        self.has_handshake()
    }

    /// Whether a server may close the connection of a request's SSE stream
    /// without ending the stream, after a priming event and a `retry:`
    /// delay, for the client to resume it (SSE polling, SEP-1699).
    pub const fn has_sse_polling(self) -> bool {
        self.at_least(Self::V2025_11_25) && self.has_sse_resumption()
    }

    /// Whether audio content exists.
    pub const fn has_audio(self) -> bool {
        self.at_least(Self::V2025_03_26)
    }

    /// Whether tools carry `annotations` (and content carries `Annotations`
    /// under that name).
    pub const fn has_tool_annotations(self) -> bool {
        self.at_least(Self::V2025_03_26)
    }

    /// Whether servers declare a `completions` capability.
    pub const fn has_completions_capability(self) -> bool {
        self.at_least(Self::V2025_03_26)
    }

    /// Whether progress notifications carry a `message`.
    pub const fn has_progress_message(self) -> bool {
        self.at_least(Self::V2025_03_26)
    }

    /// Whether tools have `outputSchema` and results `structuredContent`.
    pub const fn has_structured_output(self) -> bool {
        self.at_least(Self::V2025_06_18)
    }

    /// Whether servers may ask the user for input (`elicitation/create`).
    pub const fn has_elicitation(self) -> bool {
        self.at_least(Self::V2025_06_18)
    }

    /// Whether `resource_link` content exists.
    pub const fn has_resource_links(self) -> bool {
        self.at_least(Self::V2025_06_18)
    }

    /// Whether `title` (display names) and `_meta` on most objects exist.
    pub const fn has_titles(self) -> bool {
        self.at_least(Self::V2025_06_18)
    }

    /// Whether `_meta` is allowed on content blocks, resource contents and
    /// most definition objects (it always was on params and results).
    pub const fn has_object_meta(self) -> bool {
        self.at_least(Self::V2025_06_18)
    }

    /// Whether completion requests carry `context.arguments`.
    pub const fn has_completion_context(self) -> bool {
        self.at_least(Self::V2025_06_18)
    }

    /// Whether `icons` exist on tools, prompts, resources and implementations.
    pub const fn has_icons(self) -> bool {
        self.at_least(Self::V2025_11_25)
    }

    /// Whether URL-mode elicitation exists.
    pub const fn has_url_elicitation(self) -> bool {
        self.at_least(Self::V2025_11_25)
    }

    /// Whether sampling requests may carry `tools` / `toolChoice`.
    pub const fn has_sampling_tools(self) -> bool {
        self.at_least(Self::V2025_11_25)
    }

    /// Whether tasks are part of the core protocol (2025-11-25, experimental).
    /// In 2026-07-28 tasks moved to the `io.modelcontextprotocol/tasks` extension.
    pub const fn has_core_tasks(self) -> bool {
        matches!(self, Self::V2025_11_25)
    }

    /// Whether capabilities may declare `extensions`.
    pub const fn has_extensions(self) -> bool {
        self.at_least(Self::V2026_07_28)
    }

    /// Whether results carry `resultType` (and may be `input_required`).
    pub const fn has_result_type(self) -> bool {
        self.at_least(Self::V2026_07_28)
    }

    /// Whether list and read results carry the cache hints `ttlMs` / `cacheScope`.
    pub const fn has_cache_hints(self) -> bool {
        self.at_least(Self::V2026_07_28)
    }

    /// Whether multi round-trip requests replace server-to-client requests.
    pub const fn has_multi_round_trip(self) -> bool {
        self.at_least(Self::V2026_07_28)
    }

    /// Whether `ping` exists (removed in 2026-07-28).
    pub const fn has_ping(self) -> bool {
        self.has_handshake()
    }

    /// Whether `logging/setLevel` exists (2026-07-28 sets the level per request).
    pub const fn has_set_level(self) -> bool {
        self.has_handshake()
    }

    /// Whether `resources/subscribe` exists (2026-07-28 uses `subscriptions/listen`).
    pub const fn has_resource_subscribe(self) -> bool {
        self.has_handshake()
    }

    /// Whether the server may send requests to the client (sampling,
    /// elicitation, roots); 2026-07-28 uses multi round-trip results instead.
    pub const fn has_server_requests(self) -> bool {
        self.has_handshake()
    }

    /// Whether tool and schema definitions default to JSON Schema 2020-12
    /// (before 2025-11-25 the schemas were draft-07).
    pub const fn defaults_to_json_schema_2020_12(self) -> bool {
        self.at_least(Self::V2025_11_25)
    }

    /// Whether this revision is `other` or newer.
    pub const fn at_least(self, other: ProtocolVersion) -> bool {
        self as u8 >= other as u8
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProtocolVersion {
    type Err = UnknownVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::parse(&name).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revision_round_trips_through_its_wire_name() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Ok(v));
        }
    }

    #[test]
    fn prerelease_name_2024_10_07_reads_as_2024_11_05() {
        assert_eq!(
            ProtocolVersion::parse("2024-10-07"),
            Ok(ProtocolVersion::V2024_11_05)
        );
    }

    #[test]
    fn unknown_names_are_rejected_with_the_name() {
        assert_eq!(
            ProtocolVersion::parse("2099-01-01"),
            Err(UnknownVersion("2099-01-01".into()))
        );
    }

    #[test]
    fn batches_exist_in_2025_03_26_only() {
        let with: Vec<_> = ProtocolVersion::ALL
            .into_iter()
            .filter(|v| v.allows_batches())
            .collect();
        assert_eq!(with, [ProtocolVersion::V2025_03_26]);
    }

    #[test]
    fn only_2026_07_28_is_stateless() {
        for v in ProtocolVersion::ALL {
            assert_eq!(v.is_stateless(), v == ProtocolVersion::V2026_07_28);
            assert_eq!(v.has_handshake(), !v.is_stateless());
        }
    }
}
